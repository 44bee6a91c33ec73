/*
 * serverlog.c - reading a PostgreSQL server log line by its format.
 *
 * In:  one line (NUL-terminated, newline or not).  Out: its timestamp and
 *      database copied into the caller's buffers; nothing is allocated.
 * csvlog: fields separated by commas, a field in double quotes when it holds
 * a comma or quote ("" inside is one quote); field 1 is the time, 3 the
 * database.  jsonlog: one object per line, "timestamp" and "dbname".
 * stderr: the default log_line_prefix starts with %m, the time.
 */
#include "cgmap/serverlog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "2026-11-29 19:40:00" at p (then fractions and a zone may follow). */
static bool time_shape(const char *p)
{
	static const char shape[] = "dddd-dd-dd dd:dd:dd";
	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)p[i]) : p[i] != shape[i])
			return false;
	return true;
}

cgm_log_format cgm_serverlog_format(const char *line)
{
	if (line[0] == '{')
		return CGM_LOG_JSON;
	if (time_shape(line)) {
		size_t n = strcspn(line, ",[\n");
		if (line[n] == ',')
			return CGM_LOG_CSV;
	}
	return CGM_LOG_STDERR;
}

/* CSV field `index` (0-based) copied into out (unquoted). */
static bool csv_field(char *out, size_t len, const char *line, int index)
{
	const char *p = line;
	for (int field = 0;; field++) {
		size_t k = 0;
		if (*p == '"') {
			for (p++; *p; p++) {
				if (*p == '"') {
					if (p[1] != '"')
						break;
					p++;
				}
				if (field == index && k + 1 < len)
					out[k++] = *p;
			}
			if (*p == '"')
				p++;
		} else {
			for (; *p && *p != ',' && *p != '\n'; p++)
				if (field == index && k + 1 < len)
					out[k++] = *p;
		}
		if (field == index) {
			out[k] = '\0';
			return true;
		}
		if (*p != ',')
			return false;
		p++;
	}
}

/* The string value of "key" in a one-line JSON object, copied into out
 * (escapes reduced to the escaped character). */
static bool json_field(char *out, size_t len, const char *line, const char *key)
{
	char pattern[64];
	snprintf(pattern, sizeof pattern, "\"%s\":", key);
	const char *p = strstr(line, pattern);
	if (!p)
		return false;
	p += strlen(pattern);
	while (*p == ' ')
		p++;
	if (*p != '"')
		return false;
	size_t k = 0;
	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1])
			p++;
		if (k + 1 < len)
			out[k++] = *p;
	}
	out[k] = '\0';
	return *p == '"';
}

bool cgm_serverlog_timestamp(char *out, size_t len, const char *line)
{
	char buf[128];
	switch (cgm_serverlog_format(line)) {
	case CGM_LOG_JSON:
		if (!json_field(buf, sizeof buf, line, "timestamp") || !time_shape(buf))
			return false;
		snprintf(out, len, "%s", buf);
		return true;
	case CGM_LOG_CSV:
		if (!csv_field(buf, sizeof buf, line, 0) || !time_shape(buf))
			return false;
		snprintf(out, len, "%s", buf);
		return true;
	case CGM_LOG_STDERR:
		break;
	}
	if (!time_shape(line))
		return false;
	size_t n = 19;
	while (line[n] == '.' || isdigit((unsigned char)line[n]))
		n++;
	if (line[n] == ' ' && (isalpha((unsigned char)line[n + 1]) || line[n + 1] == '+' ||
			       line[n + 1] == '-')) {
		n++;
		while (line[n] && line[n] != ' ' && line[n] != '[' && line[n] != '\n')
			n++;
	}
	snprintf(out, len, "%.*s", (int)n, line);
	return true;
}

bool cgm_serverlog_database(char *out, size_t len, const char *line)
{
	switch (cgm_serverlog_format(line)) {
	case CGM_LOG_JSON: return json_field(out, len, line, "dbname");
	case CGM_LOG_CSV: return csv_field(out, len, line, 2) && out[0];
	case CGM_LOG_STDERR: break;
	}
	return false;
}

/* Where the item of one escape ends: at the next literal character of the
 * prefix (or the line's end when the escape ends the prefix). */
static const char *item_end(const char *p, char stop)
{
	if (!stop)
		return p + strcspn(p, "\n");
	const char *e = strchr(p, stop);
	return e ? e : p + strlen(p);
}

bool cgm_serverlog_timestamp_prefixed(char *out, size_t len, const char *line,
				      const char *prefix)
{
	if (!prefix || !*prefix || cgm_serverlog_format(line) != CGM_LOG_STDERR)
		return cgm_serverlog_timestamp(out, len, line);
	const char *p = line;
	for (const char *f = prefix; *f; f++) {
		if (*f != '%') {
			if (*p != *f)
				return false;
			p++;
			continue;
		}
		f++;
		if (*f == '%') {
			if (*p != '%')
				return false;
			p++;
			continue;
		}
		if (!*f)
			return false;
		/* %m and %t are "2026-11-29 19:40:00[.123] ZONE": spaces inside */
		if (*f == 'm' || *f == 't') {
			if (!time_shape(p))
				return false;
			size_t n = 19;
			while (p[n] == '.' || isdigit((unsigned char)p[n]))
				n++;
			if (p[n] == ' ' && f[1] != ' ' &&
			    (isalpha((unsigned char)p[n + 1]) || p[n + 1] == '+' || p[n + 1] == '-')) {
				n++;
				while (p[n] && p[n] != ' ' && p[n] != '\n' && p[n] != f[1])
					n++;
			} else if (p[n] == ' ' && f[1] == ' ' &&
				   (isalpha((unsigned char)p[n + 1]) || p[n + 1] == '+' ||
				    p[n + 1] == '-')) {
				/* "%m " : the zone is part of %m, the space after it the prefix's */
				n++;
				while (p[n] && p[n] != ' ' && p[n] != '\n')
					n++;
			}
			snprintf(out, len, "%.*s", (int)n, p);
			return true;
		}
		if (*f == 'n') { /* seconds since the epoch: written as UTC */
			if (!isdigit((unsigned char)*p))
				return false;
			time_t secs = (time_t)strtoll(p, NULL, 10);
			struct tm tm;
			if (!gmtime_r(&secs, &tm) || len < 21)
				return false;
			strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
			return true;
		}
		p = item_end(p, f[1]);
	}
	return false;
}
