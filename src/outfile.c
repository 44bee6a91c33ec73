/*
 * outfile.c - whole-or-nothing buffered output files, and the orders the
 * graph writers share (see outfile.h).
 *
 * In: a path, then bytes.  Out: the file, renamed into place on commit.
 * Memory: the path copies, the buffers and the writing thread, all ended
 * and freed by cgm_outfile_commit; the orders are malloc'd for the caller
 * (a shared edge order, model->edge_order, is its maker's).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cgmap/arena.h"
#include "cgmap/error.h"

/* A durable file is handed to the disk in pieces of this size while it is
 * written, so the disk works while the rest is being made and the fsync at
 * the end has only the last piece to wait for. */
#define WRITEBACK_STEP (8 << 20)

static int outfile_error(const cgm_outfile *f, const char *step, int err)
{
	if (step)
		return cgm_error(CGM_EIO, "cannot write %s%s\"%s\": %s: %s", f->what ? f->what : "",
				 f->what ? " " : "", f->path, step, strerror(err));
	return cgm_error(CGM_EIO, "cannot write %s%s\"%s\": %s", f->what ? f->what : "",
			 f->what ? " " : "", f->path, strerror(err));
}

/* Full buffers between the thread filling them and the writing thread:
 * enough that neither waits long for the other. */
#define WRITER_BUFFERS 4

/* The writing thread's side.  The filler owns the buffer after the queued
 * ones; the writer takes the queue's head and frees its slot only once
 * written.  While the thread runs it alone touches fd, error, written and
 * queued; the filler reads them after joining it. */
struct cgm_outfile_writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;    /* a buffer queued or written, or the end */
	char *bufs[WRITER_BUFFERS];
	size_t lens[WRITER_BUFFERS];
	int head, count;           /* queued: bufs[(head + i) % WRITER_BUFFERS], i < count */
	bool done;                 /* nothing more will be queued */
	cgm_outfile *file;
};

static void write_all(cgm_outfile *f, const char *p, size_t len);

static void *writer_main(void *arg)
{
	cgm_outfile_writer *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->count == 0 && !w->done)
			pthread_cond_wait(&w->changed, &w->lock);
		if (w->count == 0)
			break;
		int slot = w->head;
		pthread_mutex_unlock(&w->lock);
		write_all(w->file, w->bufs[slot], w->lens[slot]);
		pthread_mutex_lock(&w->lock);
		w->head = (w->head + 1) % WRITER_BUFFERS;
		w->count--;
		pthread_cond_broadcast(&w->changed);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void writer_free(cgm_outfile_writer *w)
{
	for (int i = 0; i < WRITER_BUFFERS; i++)
		free(w->bufs[i]);
	pthread_cond_destroy(&w->changed);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* The thread, or NULL when it cannot be had (then the caller writes). */
static cgm_outfile_writer *writer_start(cgm_outfile *f)
{
	cgm_outfile_writer *w = cgm_xcalloc(1, sizeof(*w));
	w->file = f;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->changed, NULL);
	for (int i = 0; i < WRITER_BUFFERS; i++)
		w->bufs[i] = malloc(CGM_OUTFILE_BUFFER);
	for (int i = 0; i < WRITER_BUFFERS; i++)
		if (!w->bufs[i]) {
			writer_free(w);
			return NULL;
		}
	if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
		writer_free(w);
		return NULL;
	}
	return w;
}

/* Queue the filled buffer and take the next free one. */
static void writer_queue(cgm_outfile *f)
{
	cgm_outfile_writer *w = f->writer;
	pthread_mutex_lock(&w->lock);
	int slot = (w->head + w->count) % WRITER_BUFFERS;
	w->lens[slot] = f->len;
	w->count++;
	pthread_cond_broadcast(&w->changed);
	while (w->count == WRITER_BUFFERS)
		pthread_cond_wait(&w->changed, &w->lock);
	f->buf = w->bufs[(w->head + w->count) % WRITER_BUFFERS];
	pthread_mutex_unlock(&w->lock);
	f->len = 0;
}

/* Everything queued is written when this returns; the thread is gone. */
static void writer_finish(cgm_outfile *f)
{
	cgm_outfile_writer *w = f->writer;
	if (!w)
		return;
	if (f->len)
		writer_queue(f);
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	writer_free(w);
	f->writer = NULL;
	f->buf = NULL; /* it was one of the writer's */
}

static void release(cgm_outfile *f)
{
	writer_finish(f);
	if (f->gzip) {
		deflateEnd(f->gzip);
		free(f->gzip);
		f->gzip = NULL;
	}
	free(f->path);
	free(f->tmp);
	free(f->buf);
	f->path = f->tmp = f->buf = NULL;
	f->fd = -1;
}

int cgm_outfile_open(cgm_outfile *f, const char *path, const char *what, unsigned flags)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->what = what;
	f->durable = (flags & CGM_OUTFILE_DURABLE) != 0;
	f->path = strdup(path);
	size_t len = strlen(path) + 16;
	f->tmp = malloc(len);
	f->buf = malloc(CGM_OUTFILE_BUFFER);
	if (!f->path || !f->tmp || !f->buf) {
		release(f);
		return cgm_error(CGM_EIO, "cannot write \"%s\": out of memory", path);
	}
	snprintf(f->tmp, len, "%s.tmp.XXXXXX", path);
	f->fd = mkstemp(f->tmp);
	int rc = 0;
	if (f->fd < 0)
		rc = outfile_error(f, NULL, errno);
	else if (fchmod(f->fd, 0644) != 0)
		rc = outfile_error(f, "chmod", errno);
	if (rc) {
		if (f->fd >= 0) {
			close(f->fd);
			unlink(f->tmp);
		}
		release(f);
		return rc;
	}
	if (flags & CGM_OUTFILE_GZIP) {
		f->gzip = calloc(1, sizeof(z_stream));
		/* 15 + 16: a gzip header and trailer around the deflate data; no
		 * deflateSetHeader, so the header holds no time or name. */
		if (!f->gzip || deflateInit2(f->gzip, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(f->gzip);
			f->gzip = NULL;
			close(f->fd);
			unlink(f->tmp);
			release(f);
			return cgm_error(CGM_EIO, "cannot write \"%s\": cannot start gzip", path);
		}
	}
	if (flags & CGM_OUTFILE_THREAD) {
		f->writer = writer_start(f);
		if (f->writer) { /* the thread's buffers are used instead */
			free(f->buf);
			f->buf = f->writer->bufs[0];
		}
	}
	return 0;
}

static void write_raw(cgm_outfile *f, const char *p, size_t len);

/* The bytes through the compressor (flush: Z_NO_FLUSH, or Z_FINISH at the
 * end), what it gives out to the file. */
static void write_compressed(cgm_outfile *f, const char *p, size_t len, int flush)
{
	char out[64 * 1024];
	z_stream *z = f->gzip;
	z->next_in = (Bytef *)(uintptr_t)p;
	z->avail_in = 0;
	/* avail_in is 32 bits: a large piece goes in steps. */
	for (;;) {
		if (z->avail_in == 0 && len > 0) {
			uInt step = len > (1u << 30) ? (1u << 30) : (uInt)len;
			z->avail_in = step;
			len -= step;
		}
		z->next_out = (Bytef *)out;
		z->avail_out = sizeof(out);
		int zrc = deflate(z, len > 0 ? Z_NO_FLUSH : flush);
		if (zrc == Z_STREAM_ERROR) {
			if (!f->error)
				f->error = EIO;
			return;
		}
		write_raw(f, out, sizeof(out) - z->avail_out);
		if (flush == Z_FINISH ? zrc == Z_STREAM_END
				      : (len == 0 && z->avail_in == 0 && z->avail_out != 0))
			return;
	}
}

static void write_all(cgm_outfile *f, const char *p, size_t len)
{
	if (f->gzip)
		write_compressed(f, p, len, Z_NO_FLUSH);
	else
		write_raw(f, p, len);
}

static void write_raw(cgm_outfile *f, const char *p, size_t len)
{
	while (!f->error && len > 0) {
		ssize_t done = write(f->fd, p, len);
		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0) {
			f->error = errno;
			return;
		}
		p += done;
		len -= (size_t)done;
		f->written += done;
	}
#ifdef SYNC_FILE_RANGE_WRITE
	/* Start the disk on what is written; only a hint, so a failure here
	 * is left to the fsync to report. */
	if (f->durable && !f->error && f->written - f->queued >= WRITEBACK_STEP) {
		(void)sync_file_range(f->fd, f->queued, f->written - f->queued, SYNC_FILE_RANGE_WRITE);
		f->queued = f->written;
	}
#endif
}

void cgm_outfile_flush(cgm_outfile *f)
{
	if (f->writer) {
		if (f->len)
			writer_queue(f);
		return;
	}
	write_all(f, f->buf, f->len);
	f->len = 0;
}

void cgm_outfile_write(cgm_outfile *f, const void *data, size_t len)
{
	cgm_outfile_flush(f);
	if (!f->writer) {
		write_all(f, data, len);
		return;
	}
	/* Only the writing thread writes: the bytes go through the buffers. */
	const char *p = data;
	while (len > 0) {
		size_t n = len < CGM_OUTFILE_BUFFER ? len : CGM_OUTFILE_BUFFER;
		memcpy(f->buf, p, n);
		f->len = n;
		writer_queue(f);
		p += n;
		len -= n;
	}
}

int cgm_outfile_commit(cgm_outfile *f)
{
	const char *failed = NULL;
	int err = 0;
	cgm_outfile_flush(f);
	writer_finish(f);
	if (f->gzip && !f->error)
		write_compressed(f, NULL, 0, Z_FINISH);
	if (f->error)
		failed = "write", err = f->error;
	if (!failed && f->durable && fsync(f->fd) != 0)
		failed = "fsync", err = errno;
	if (close(f->fd) != 0 && !failed)
		failed = "close", err = errno;
	if (!failed && rename(f->tmp, f->path) != 0)
		failed = "rename", err = errno;
	int rc = 0;
	if (failed) {
		unlink(f->tmp);
		rc = outfile_error(f, failed, err);
	}
	release(f);
	return rc;
}

/* ---- orders ---------------------------------------------------------- */

/* Within one from id: by to id, via name, model order. */
static bool edge_before(const cgm_model *m, const int *rank, int a, int b)
{
	const cgm_edge *x = &m->edges[a], *y = &m->edges[b];
	if (rank[x->to] != rank[y->to])
		return rank[x->to] < rank[y->to];
	int c = cgm_edge_compare_kind(x, y);
	if (c)
		return c < 0;
	return a < b;
}

typedef struct {
	const cgm_model *model;
	const int *rank;
} edge_sort_ctx;

static int compare_edges_ctx(const void *a, const void *b, void *arg)
{
	const edge_sort_ctx *ctx = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if (x == y)
		return 0;
	return edge_before(ctx->model, ctx->rank, x, y) ? -1 : 1;
}

const int *cgm_output_edge_order_get(const cgm_model *model, const int *rank, int **own)
{
	*own = NULL;
	if (model->edge_order)
		return model->edge_order;
	return *own = cgm_output_edge_order(model, rank);
}

int *cgm_output_edge_order(const cgm_model *model, const int *rank)
{
	int n = model->nfunctions, nedges = model->nedges;
	int *order = cgm_xcalloc((size_t)nedges, sizeof(int));
	/* Buckets by from rank, edges in model order within each. */
	int *start = cgm_xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < nedges; i++)
		start[rank[model->edges[i].from] + 1]++;
	for (int r = 0; r < n; r++)
		start[r + 1] += start[r];
	int *next = cgm_xcalloc((size_t)n + 1, sizeof(int));
	memcpy(next, start, sizeof(int) * (size_t)(n + 1));
	for (int i = 0; i < nedges; i++)
		order[next[rank[model->edges[i].from]]++] = i;
	free(next);
	/* Each bucket holds the edges of one caller: mostly a handful, often in
	 * order already, so insertion sort; a large one is sorted whole. */
	edge_sort_ctx ctx = { model, rank };
	for (int r = 0; r < n; r++) {
		int *b = order + start[r];
		int len = start[r + 1] - start[r];
		if (len > 32) {
			qsort_r(b, (size_t)len, sizeof(int), compare_edges_ctx, &ctx);
			continue;
		}
		for (int i = 1; i < len; i++) {
			int e = b[i], k = i;
			while (k > 0 && edge_before(model, rank, e, b[k - 1])) {
				b[k] = b[k - 1];
				k--;
			}
			b[k] = e;
		}
	}
	free(start);
	return order;
}
