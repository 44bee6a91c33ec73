/*
 * outfile.h - writing an output file whole or not at all, through one
 * buffer, and the orders both graph writers (snapshot, DOT) list things in.
 *
 * In:  a target path and the bytes, appended in pieces as small as one byte.
 * Out: the target replaced in one rename by a temporary file written beside
 *      it, so a crash or a full disk never leaves half a snapshot or graph.
 * The bytes gather in a CGM_OUTFILE_BUFFER buffer that goes to the file each
 * time it fills, written either by the caller or, when asked, by a thread
 * of its own (the caller goes on filling the next buffer while the kernel
 * copies the last one).  A durable file is handed to the disk as it grows,
 * so the final fsync waits only for the tail.  The first failed write is
 * kept and reported once, by cgm_outfile_commit, which also frees what
 * cgm_outfile_open allocated and ends the thread: call it exactly once
 * after a successful open.
 * A gzip file (CGM_OUTFILE_GZIP) takes the same bytes and holds them
 * compressed by zlib (on the writing thread when there is one), its header
 * without a time or name, so the same bytes give the same file.
 * Nothing here uses static state: two files may be written on two threads.
 */
#ifndef CGMAP_OUTFILE_H
#define CGMAP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#include "cgmap/model.h"
#include "cgmap/strbuf.h"

#define CGM_OUTFILE_BUFFER (256 * 1024)
/* The most cgm_outfile_room() hands out at once. */
#define CGM_OUTFILE_ROOM_MAX 64

typedef struct cgm_outfile_writer cgm_outfile_writer;

typedef struct cgm_outfile {
	char *path;         /* heap copy of the target */
	char *tmp;          /* the temporary file beside it */
	const char *what;   /* "snapshot", or NULL: named in messages */
	int fd;
	int error;          /* errno of the first failed write, 0 when none */
	bool durable;       /* fsync before the rename */
	char *buf;          /* the buffer being filled (CGM_OUTFILE_BUFFER) */
	size_t len;
	off_t written;      /* bytes that went to the file */
	off_t queued;       /* durable: bytes handed to the disk so far */
	cgm_outfile_writer *writer; /* the writing thread, or NULL: written here */
	struct z_stream_s *gzip;    /* CGM_OUTFILE_GZIP: the compressor, else NULL */
} cgm_outfile;

enum {
	CGM_OUTFILE_DURABLE = 1 << 0, /* fsync before the rename */
	CGM_OUTFILE_THREAD = 1 << 1,  /* write on a thread of its own (on the
	                               * caller's when none can be started) */
	CGM_OUTFILE_GZIP = 1 << 2     /* gzip what is written (zlib, level 6) */
};

/* Create the temporary file (mode 0644) with CGM_OUTFILE_* flags.  CGM_EIO
 * naming the path on failure (then there is nothing to commit). */
int cgm_outfile_open(cgm_outfile *f, const char *path, const char *what, unsigned flags);
/* The pending bytes to the file (or to its writing thread, the caller
 * going on in a fresh buffer). */
void cgm_outfile_flush(cgm_outfile *f);
/* The buffer, then the bytes, to the file; after a failure the rest is
 * dropped. */
void cgm_outfile_write(cgm_outfile *f, const void *data, size_t len);
/* Flush, fsync when durable, close, rename over the target.  On any failure
 * the temporary file is removed and CGM_EIO says which step failed. */
int cgm_outfile_commit(cgm_outfile *f);

/* Append n bytes: a copy into the buffer, the file written when it fills. */
static inline void cgm_outfile_add(cgm_outfile *f, const void *p, size_t n)
{
	if (f->len + n > CGM_OUTFILE_BUFFER) {
		if (n > CGM_OUTFILE_BUFFER / 4) {
			cgm_outfile_write(f, p, n);
			return;
		}
		cgm_outfile_flush(f);
	}
	char *dst = f->buf + f->len;
	const char *src = p;
	f->len += n;
	/* Most pieces are a few bytes: two overlapping fixed-size copies
	 * (single moves) instead of a call.  A length known when compiling
	 * (a literal) is one inlined copy already. */
	if (__builtin_constant_p(n)) {
		memcpy(dst, src, n);
	} else if (n >= 8 && n <= 16) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else if (n < 4) {
		while (n--)
			*dst++ = *src++;
	} else {
		memcpy(dst, src, n);
	}
}

/* A string literal, its length known at compile time. */
#define cgm_outfile_lit(f, literal) cgm_outfile_add((f), "" literal, sizeof(literal) - 1)

static inline void cgm_outfile_putc(cgm_outfile *f, char c)
{
	if (f->len == CGM_OUTFILE_BUFFER)
		cgm_outfile_flush(f);
	f->buf[f->len++] = c;
}

/* Room for n <= CGM_OUTFILE_ROOM_MAX bytes at the end of the buffer: write
 * there, then add what was used to f->len. */
static inline char *cgm_outfile_room(cgm_outfile *f, size_t n)
{
	if (f->len + n > CGM_OUTFILE_BUFFER)
		cgm_outfile_flush(f);
	return f->buf + f->len;
}

/* A decimal integer, without printf. */
static inline void cgm_outfile_int(cgm_outfile *f, long long v)
{
	char digits[CGM_DECIMAL_MAX];
	char *end = digits + sizeof(digits), *p = cgm_decimal(end, v);
	size_t n = (size_t)(end - p);
	memcpy(cgm_outfile_room(f, sizeof(digits)), p, n);
	f->len += n;
}

/* Edge indexes in the order every output lists edges (cgm_model_edge_order:
 * from id, to id, via, then model order), by a counting sort on the id
 * ranks (cgm_model_id_ranks) instead of a comparison sort; every edge's from and to must be
 * valid indexes.  Malloc'd, model->nedges entries; the caller frees. */
int *cgm_output_edge_order(const cgm_model *model, const int *rank);
/* The same order for a writer: model->edge_order when its caller made it
 * for several writers to share, else made here and left in *own for the
 * writer to free (NULL when shared). */
const int *cgm_output_edge_order_get(const cgm_model *model, const int *rank, int **own);

#endif
