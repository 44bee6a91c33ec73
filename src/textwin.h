/*
 * textwin.h - a file's text read through a window that slides over it,
 * for readers that parse one record at a time (the snapshot's functions).
 *
 * In:  a path (a regular file, plain or gzip, told by its magic bytes).
 * Out: buf[0 .. len) holds the text from offset `base` on, buf[len] and
 *      CGM_TEXTWIN_PADDING bytes after it are zero, so scans stop at the
 *      end of what is loaded; the buffer is the window's (malloc'd,
 *      reused, grown only for a record longer than half of it) and
 *      cgm_textwin_close frees it.
 *
 * Why: reading a 265 MB snapshot whole had the kernel clear 265 MB of
 * fresh pages before read() filled them, a fifth of a `cgmap diff`; the
 * window's few MiB stay in cache and are never handed out again.
 *
 * Errors are not reported here: a file the window cannot read (not a
 * regular file, larger than --max-file-size, corrupt gzip, a read error)
 * sets `failed`, and the caller reads the file whole (cgmap/infile.h),
 * which names the problem as it always did.
 */
#ifndef CGMAP_TEXTWIN_H
#define CGMAP_TEXTWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CGM_TEXTWIN_PADDING 8

typedef struct cgm_textwin {
	char *buf;
	size_t len;       /* bytes of text loaded */
	size_t cap;       /* bytes of buf, padding included */
	uint64_t base;    /* the offset in the text of buf[0] */
	uint64_t size_hint; /* the file's size on disk (compressed, for gzip) */
	bool gzip;        /* the file is gzip'd text: cgm_textwin_reread cannot
	                   * go back in it */
	bool eof;         /* the text ends at buf[len] */
	bool failed;      /* not readable this way: read the file whole */
	struct cgm_textwin_source *source;
} cgm_textwin;

/* Opens `path` and loads the first part of its text: 0, or -1 with
 * w->failed set (nothing to free then but by cgm_textwin_close). */
int cgm_textwin_open(cgm_textwin *w, const char *path);

/* Drops buf[0 .. keep) (text already read), moves the rest to the start
 * and loads more after it: 0, or -1 when nothing more can be loaded (the
 * end of the text: eof; else failed).  Pointers into buf are invalid
 * after it: keep offsets. */
int cgm_textwin_slide(cgm_textwin *w, size_t keep);

/* Loads the text again from buf[from] on, into the window's start (with
 * twice the room if what was loaded from there passed half the window):
 * for a reader that changed those bytes in place (decoding strings) before
 * it found the record went on past what was loaded.  0, or -1 (failed, or
 * gzip). */
int cgm_textwin_reread(cgm_textwin *w, size_t from);

void cgm_textwin_close(cgm_textwin *w);

#endif
