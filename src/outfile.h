/*
 * outfile.h - writing an output file whole or not at all.
 *
 * In:  a target path and the bytes, in as many writes as the caller likes.
 * Out: the target replaced in one rename by a temporary file written beside
 *      it, so a crash or a full disk never leaves half a snapshot or graph.
 * The first failed write is kept and reported once, by cgm_outfile_commit,
 * which also frees what cgm_outfile_open allocated.
 */
#ifndef CGMAP_OUTFILE_H
#define CGMAP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cgm_outfile {
	char *path;         /* heap copy of the target */
	char *tmp;          /* the temporary file beside it */
	const char *what;   /* "snapshot", or NULL: named in messages */
	int fd;
	int error;          /* errno of the first failed write, 0 when none */
} cgm_outfile;

/* Create the temporary file (mode 0644).  CGM_EIO naming the path on failure. */
int cgm_outfile_open(cgm_outfile *f, const char *path, const char *what);
/* Append bytes; after a failure the rest is dropped. */
void cgm_outfile_write(cgm_outfile *f, const void *data, size_t len);
/* Flush to disk when durable, close, rename over the target.  On any
 * failure the temporary file is removed and CGM_EIO says which step failed. */
int cgm_outfile_commit(cgm_outfile *f, bool durable);

#endif
