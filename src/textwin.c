/*
 * textwin.c - a file's text through a sliding window (see textwin.h).
 *
 * In:  a path.  Out: the window's buffer, owned by the window and freed by
 * cgm_textwin_close with the descriptor and the inflate state.
 *
 * The file is opened as cgmap/infile.h opens one (without blocking, checked
 * as a regular file on the open descriptor, within --max-file-size before
 * and while reading); gzip members one after another are one text, as
 * gzip -d reads them.  Any problem only sets `failed`: the caller's whole
 * read names it.
 */
#include "textwin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cgmap/infile.h"

/* A mebibyte: a snapshot's function is a few KiB, so a slide moves little
 * and the buffer stays in cache. */
#define WINDOW_FIRST ((size_t)1 << 20)
#define GZIP_INPUT ((size_t)256 << 10)

struct cgm_textwin_source {
	int fd;
	bool gzip;
	bool input_done;    /* gzip: the compressed file is read to its end */
	z_stream z;
	unsigned char *input;
	uint64_t loaded;    /* bytes of text loaded so far, for the size limit */
};

static void fail(cgm_textwin *w)
{
	w->failed = true;
}

static ssize_t read_some(int fd, void *to, size_t room)
{
	for (;;) {
		ssize_t n = read(fd, to, room);
		if (n >= 0 || errno != EINTR)
			return n;
	}
}

static ssize_t read_at(int fd, void *to, size_t room, uint64_t offset)
{
	for (;;) {
		ssize_t n = pread(fd, to, room, (off_t)offset);
		if (n >= 0 || errno != EINTR)
			return n;
	}
}

/* The next compressed bytes when the last are used up: 0, or -1 when
 * the file cannot be read (at its end, input_done). */
static int more_input(struct cgm_textwin_source *s)
{
	if (s->z.avail_in != 0 || s->input_done)
		return 0;
	ssize_t n = read_some(s->fd, s->input, GZIP_INPUT);
	if (n < 0)
		return -1;
	if (n == 0)
		s->input_done = true;
	s->z.next_in = s->input;
	s->z.avail_in = (uInt)n;
	return 0;
}

/* Inflated text into `to`, up to `room` bytes: how many, 0 at the end of
 * the last member, -1 on corrupt or truncated data. */
static ssize_t inflate_some(struct cgm_textwin_source *s, char *to, size_t room)
{
	s->z.next_out = (Bytef *)to;
	s->z.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
	for (;;) {
		if (more_input(s) < 0)
			return -1;
		uInt before = s->z.avail_out;
		int zrc = inflate(&s->z, Z_NO_FLUSH);
		size_t made = before - s->z.avail_out;
		if (zrc == Z_STREAM_END) {
			if (more_input(s) < 0)
				return -1;
			if (s->z.avail_in == 0 && s->input_done)
				return (ssize_t)made; /* 0 once the last member is out */
			/* Another member follows: anything else fails in it. */
			if (inflateReset(&s->z) != Z_OK)
				return -1;
		} else if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
			return -1;
		} else if (zrc == Z_BUF_ERROR && s->z.avail_in == 0 && s->input_done) {
			return -1; /* the data ends inside a member */
		}
		if (made > 0)
			return (ssize_t)made;
	}
}

/* More text after buf[len], as much as one read gives: 0, or -1 with eof
 * or failed set. */
static int load(cgm_textwin *w)
{
	struct cgm_textwin_source *s = w->source;
	size_t room = w->cap - CGM_TEXTWIN_PADDING - w->len;
	ssize_t n = s->gzip ? inflate_some(s, w->buf + w->len, room)
			    : read_at(s->fd, w->buf + w->len, room, w->base + w->len);
	if (n < 0) {
		fail(w);
		return -1;
	}
	s->loaded += (uint64_t)n;
	int64_t limit = cgm_infile_max_size();
	if (limit > 0 && s->loaded > (uint64_t)limit) {
		fail(w);
		return -1;
	}
	w->len += (size_t)n;
	memset(w->buf + w->len, 0, CGM_TEXTWIN_PADDING);
	if (n == 0) {
		w->eof = true;
		return -1;
	}
	return 0;
}

int cgm_textwin_open(cgm_textwin *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	struct cgm_textwin_source *s = calloc(1, sizeof(*s));
	if (!s) {
		fail(w);
		return -1;
	}
	w->source = s;
	s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	int64_t limit = cgm_infile_max_size();
	if (s->fd < 0 || fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (limit > 0 && st.st_size > limit)) {
		fail(w);
		return -1;
	}
	int flags = fcntl(s->fd, F_GETFL);
	if (flags >= 0)
		fcntl(s->fd, F_SETFL, flags & ~O_NONBLOCK);
	w->size_hint = (uint64_t)st.st_size;
	unsigned char magic[2];
	s->gzip = pread(s->fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	w->gzip = s->gzip;
	if (s->gzip) {
		s->input = malloc(GZIP_INPUT);
		if (!s->input || inflateInit2(&s->z, 15 + 16) != Z_OK) {
			fail(w);
			return -1;
		}
	}
	size_t first = WINDOW_FIRST;
	if (!s->gzip && (uint64_t)st.st_size + 1 < first)
		first = (size_t)st.st_size + 1; /* a small file: no more than it needs */
	w->cap = first + CGM_TEXTWIN_PADDING;
	w->buf = malloc(w->cap);
	if (!w->buf) {
		fail(w);
		return -1;
	}
	memset(w->buf, 0, CGM_TEXTWIN_PADDING);
	/* Up to the window's end, or the end of the text. */
	while (w->len + CGM_TEXTWIN_PADDING < w->cap && load(w) == 0)
		;
	return w->failed ? -1 : 0;
}

/* Room for twice what is loaded when that is more than half the window
 * (a record longer than half of it). */
static int make_room(cgm_textwin *w, size_t wanted)
{
	if (wanted > (w->cap - CGM_TEXTWIN_PADDING) / 2) {
		size_t grown = (w->cap - CGM_TEXTWIN_PADDING) * 2 + CGM_TEXTWIN_PADDING;
		char *bigger = realloc(w->buf, grown);
		if (!bigger) {
			fail(w);
			return -1;
		}
		w->buf = bigger;
		w->cap = grown;
	}
	return 0;
}

int cgm_textwin_slide(cgm_textwin *w, size_t keep)
{
	if (w->failed || w->eof)
		return -1;
	if (keep > w->len)
		keep = w->len;
	memmove(w->buf, w->buf + keep, w->len - keep);
	w->base += keep;
	w->len -= keep;
	if (make_room(w, w->len) < 0)
		return -1;
	memset(w->buf + w->len, 0, CGM_TEXTWIN_PADDING);
	size_t before = w->len;
	while (w->len + CGM_TEXTWIN_PADDING < w->cap && load(w) == 0)
		;
	return !w->failed && w->len > before ? 0 : -1;
}

int cgm_textwin_reread(cgm_textwin *w, size_t from)
{
	if (w->failed || w->gzip)
		return -1;
	if (from > w->len)
		from = w->len;
	size_t had = w->len - from;
	w->base += from;
	w->len = 0;
	w->eof = false;
	if (make_room(w, had) < 0)
		return -1;
	w->source->loaded = w->base;
	while (w->len + CGM_TEXTWIN_PADDING < w->cap && load(w) == 0)
		;
	return w->failed ? -1 : 0;
}

void cgm_textwin_close(cgm_textwin *w)
{
	struct cgm_textwin_source *s = w->source;
	if (s) {
		if (s->fd >= 0)
			close(s->fd);
		if (s->gzip)
			inflateEnd(&s->z);
		free(s->input);
		free(s);
	}
	free(w->buf);
	memset(w, 0, sizeof(*w));
}
