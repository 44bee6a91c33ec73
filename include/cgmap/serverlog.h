/*
 * cgmap/serverlog.h - the fields of one PostgreSQL server log line, by its
 * format (src/serverlog.c): csvlog, jsonlog, or stderr with the default
 * log_line_prefix ('%m [%p] ': the timestamp first).
 */
#ifndef CGMAP_SERVERLOG_H
#define CGMAP_SERVERLOG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	CGM_LOG_STDERR = 0,
	CGM_LOG_CSV,
	CGM_LOG_JSON
} cgm_log_format;

/* The format of a line: a JSON object is jsonlog, a timestamp followed by
 * a comma csvlog, anything else stderr. */
cgm_log_format cgm_serverlog_format(const char *line);
/* The line's timestamp ("2012-01-09 19:08:30.983 CET") copied into out;
 * false when the line has none where its format puts it. */
bool cgm_serverlog_timestamp(char *out, size_t len, const char *line);
/* The same for a stderr line written with `prefix`, the server's
 * log_line_prefix (e.g. "%t [%p]: user=%u,db=%d "): its %m, %t or %n item is
 * the time (%n: seconds since the epoch, copied as they are); csvlog and
 * jsonlog lines are read by their fields whatever the prefix.  NULL or ""
 * prefix: the default ('%m [%p] '). */
bool cgm_serverlog_timestamp_prefixed(char *out, size_t len, const char *line,
				      const char *prefix);
/* The line's database name (csvlog field 3, jsonlog "dbname") copied into
 * out; false when unknown (stderr lines: no default field). */
bool cgm_serverlog_database(char *out, size_t len, const char *line);

#endif
