/*
 * cgmap/infile.h - reading an input file cgmap does not trust: SQL files
 * and their psql includes, runtime files, runtime logs, snapshots.
 *
 * Only regular files are read (standard input where a command takes "-"):
 * a device (/dev/zero), a FIFO or a folder is refused by name before a
 * byte is read.  A file read whole must not exceed the size limit
 * (--max-file-size, CGM_INFILE_DEFAULT_MAX by default), checked before
 * reading and again while reading, so a growing file or standard input
 * cannot exhaust memory either.  Errors: the caller's code (CGM_ESOURCE for
 * SQL files, CGM_EINPUT for runtime files and snapshots) with the message
 * naming the file.
 */
#ifndef CGMAP_INFILE_H
#define CGMAP_INFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* 256 MiB: a pg_dump --schema-only of a large database is a few tens. */
#define CGM_INFILE_DEFAULT_MAX ((int64_t)256 << 20)

/* The limit for every file read whole from now on, in bytes (0: none).
 * Set once from the command line, before any reading thread starts. */
void cgm_infile_set_max_size(int64_t bytes);
int64_t cgm_infile_max_size(void);

/* "1048576", "64K", "256M", "2G" (powers of 1024), "0" (no limit): 0, or
 * CGM_EUSAGE naming the option's value. */
int cgm_infile_parse_size(int64_t *out, const char *text);

/* The whole file at `path` ("-" is standard input when allow_stdin) into
 * *text (malloc'd, the caller frees it), *len bytes followed by `padding`
 * (at least 1) zero bytes.  `what` names the kind of file in messages
 * ("SQL file", "snapshot", ...).  Returns 0 or `code` with the message set. */
int cgm_infile_read(char **text, size_t *len, const char *path, const char *what, int code,
		    bool allow_stdin, size_t padding);

/* The file at `path` opened for streaming (runtime logs), after the same
 * regular-file check; NULL with `code`'s message set (*rc gets the code). */
FILE *cgm_infile_open(const char *path, const char *what, int code, int *rc);

/* One line of `in` into *line (malloc'd, grown as needed, NUL-terminated,
 * newline kept), at most `max` bytes of it: a longer line is read to its
 * end but only its first `max` bytes are kept and *truncated is set.
 * Returns the bytes kept, -1 at the end of the file. */
long cgm_infile_getline(char **line, size_t *cap, FILE *in, size_t max, bool *truncated);

#endif
