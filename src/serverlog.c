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
#include <string.h>

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
