/*
 * infile.c - reading input files cgmap does not trust (see cgmap/infile.h).
 *
 * In:  a path, what kind of file it is, the error code to use.
 * Out: the file's bytes in a malloc'd buffer the caller frees, or an open
 *      stream the caller closes; nothing else is kept.
 *
 * The file is opened without blocking (a FIFO would otherwise wait for a
 * writer), checked with fstat on the open descriptor (no race with a
 * rename between a check and the open), and read in steps that stop at
 * the size limit whatever stat said.
 */
#include "cgmap/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmap/arena.h"
#include "cgmap/error.h"

static int64_t max_size = CGM_INFILE_DEFAULT_MAX;

void cgm_infile_set_max_size(int64_t bytes)
{
	max_size = bytes < 0 ? 0 : bytes;
}

int64_t cgm_infile_max_size(void)
{
	return max_size;
}

int cgm_infile_parse_size(int64_t *out, const char *text)
{
	const char *p = text;
	int64_t v = 0;
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - 9) / 10)
			goto bad;
		v = v * 10 + (*p - '0');
	}
	int shift = 0;
	switch (*p) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		goto bad;
	}
	if (*p && p[1])
		goto bad;
	if (v > (INT64_MAX >> shift))
		goto bad;
	*out = v << shift;
	return 0;
bad:
	return cgm_error(CGM_EUSAGE,
			 "option '--max-file-size' takes bytes, or a number with K, M or G "
			 "(0: no limit), not '%s'",
			 text);
}

/* "256 MiB" or "1000 bytes", for messages. */
static void size_text(char *buf, size_t len, int64_t bytes)
{
	if (bytes >= ((int64_t)1 << 20) && bytes % ((int64_t)1 << 20) == 0)
		snprintf(buf, len, "%" PRId64 " MiB", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%" PRId64 " KiB", bytes >> 10);
	else
		snprintf(buf, len, "%" PRId64 " bytes", bytes);
}

static int too_big(const char *what, const char *path, int code)
{
	char limit[64];
	size_text(limit, sizeof limit, max_size);
	return cgm_error(code,
			 "%s \"%s\" is larger than the %s limit for an input file "
			 "(raise it with --max-file-size)",
			 what, path, limit);
}

/* An open descriptor of the regular file at path, or -1 with `code`'s
 * message set. */
static int open_regular(const char *path, const char *what, int code, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		cgm_error(code, "cannot read %s \"%s\": %s", what, path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0) {
		cgm_error(code, "cannot read %s \"%s\": %s", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		cgm_error(code, "%s \"%s\" is not a regular file (%s): not read", what, path,
			  S_ISDIR(st->st_mode)    ? "a folder"
			  : S_ISFIFO(st->st_mode) ? "a pipe"
			  : S_ISSOCK(st->st_mode) ? "a socket"
						  : "a device");
		close(fd);
		return -1;
	}
	/* Reads block again: a regular file never waits anyway. */
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

/* A file of 8 MiB or more is read into transparent huge pages where the
 * system gives them on request (madvise mode): a 265 MB snapshot read into
 * 4 KiB pages took 65,000 page faults, a tenth of reading it. */
#define HUGE_FROM ((size_t)8 << 20)

static void huge_pages(char *buf, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t start = ((uintptr_t)buf + huge - 1) & ~(huge - 1);
	uintptr_t end = ((uintptr_t)buf + size) & ~(huge - 1);
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
	(void)buf, (void)size;
#endif
}

int cgm_infile_read(char **text, size_t *len, const char *path, const char *what, int code,
		    bool allow_stdin, size_t padding)
{
	*text = NULL;
	*len = 0;
	if (padding < 1)
		padding = 1;
	bool is_stdin = allow_stdin && strcmp(path, "-") == 0;
	const char *shown = is_stdin ? "standard input" : path;
	struct stat st;
	int fd = 0;
	size_t cap = 65536;
	if (!is_stdin) {
		if ((fd = open_regular(path, what, code, &st)) < 0)
			return code;
		if (max_size && st.st_size > max_size) {
			close(fd);
			return too_big(what, path, code);
		}
		if (st.st_size > 0)
			cap = (size_t)st.st_size + 1;
	}
	char *buf = malloc(cap + padding);
	if (buf && cap >= HUGE_FROM)
		huge_pages(buf, cap + padding);
	size_t used = 0;
	int rc = 0;
	while (buf) {
		char *to = buf + used;
		size_t room = cap - 1 - used;
		char probe;
		if (room == 0) {
			/* Full: one byte more says whether the file grew (or
			 * standard input goes on) before the buffer doubles. */
			to = &probe;
			room = 1;
		}
		ssize_t n = read(fd, to, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = cgm_error(code, "cannot read %s \"%s\": %s", what, shown, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (to == &probe) {
			char *bigger = realloc(buf, cap * 2 + padding);
			if (!bigger) {
				rc = cgm_error(code, "cannot read %s \"%s\": out of memory", what, shown);
				break;
			}
			buf = bigger;
			cap *= 2;
			buf[used] = probe;
		}
		used += (size_t)n;
		if (max_size && used > (uint64_t)max_size) {
			rc = too_big(what, shown, code);
			break;
		}
	}
	if (!is_stdin)
		close(fd);
	if (!buf || rc) {
		free(buf);
		return rc ? rc : cgm_error(code, "cannot read %s \"%s\": out of memory", what, shown);
	}
	memset(buf + used, 0, padding);
	*text = buf;
	*len = used;
	return 0;
}

FILE *cgm_infile_open(const char *path, const char *what, int code, int *rc)
{
	struct stat st;
	int fd = open_regular(path, what, code, &st);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	if (fd >= 0 && !f) {
		cgm_error(code, "cannot read %s \"%s\": %s", what, path, strerror(errno));
		close(fd);
	}
	*rc = f ? 0 : code;
	return f;
}

long cgm_infile_getline(char **line, size_t *cap, FILE *in, size_t max, bool *truncated)
{
	size_t n = 0;
	int c;
	*truncated = false;
	while ((c = getc_unlocked(in)) != EOF) {
		if (n < max) {
			if (n + 2 > *cap) {
				size_t grown = *cap ? *cap * 2 : 256;
				*line = cgm_xrealloc(*line, grown);
				*cap = grown;
			}
			(*line)[n++] = (char)c;
		} else {
			*truncated = true;
		}
		if (c == '\n')
			break;
	}
	if (n == 0 && c == EOF && !*truncated)
		return -1;
	if (!*line) {
		*line = cgm_xrealloc(NULL, 1);
		*cap = 1;
	}
	(*line)[n] = '\0';
	return (long)n;
}
