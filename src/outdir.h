/*
 * outdir.h - an output folder written safely: every file through a
 * temporary file beside it and a rename, no symbolic link inside the
 * folder ever followed, and a manifest of the files cgmap wrote there so a
 * later run removes the ones it no longer writes, and nothing else.
 *
 * In:  the folder a user named (created with its parents when missing; it
 *      may itself be a link, the user's choice), the subfolders to use,
 *      then files as (relative path, bytes).
 * Out: the files, each replaced whole by one rename (a link planted at a
 *      file's name is replaced, never written through; a link or file
 *      planted at a subfolder's name is refused with an error naming it).
 *      Every subfolder is opened once, without following links, and every
 *      file is created and renamed relative to that open folder, so a link
 *      swapped in while cgmap runs is not followed either.
 * Memory: cgm_outdir_close frees what cgm_outdir_open and cgm_outdir_subdir
 *      allocated and closes the folders.  The open folders are inherited by
 *      forked processes, which may write through them too.
 *
 * The manifest (MANIFEST_NAME in the folder) lists one relative path per
 * line.  An entry is honoured only when it has the shape of a file the
 * caller writes (see cgm_outdir_prune's `shaped`), lies in a subfolder
 * opened here, and is a regular file, not a link: a forged or stale entry
 * cannot make cgmap remove anything a person put there.
 */
#ifndef CGMAP_OUTDIR_H
#define CGMAP_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#define CGM_OUTDIR_MANIFEST ".cgmap-manifest"
#define CGM_OUTDIR_MAX_SUBDIRS 16

typedef struct cgm_outdir {
	char *path;  /* as given, for messages */
	int fd;      /* the folder itself */
	int nsub;
	struct {
		char *rel; /* "dot/functions" */
		int fd;
	} sub[CGM_OUTDIR_MAX_SUBDIRS];
} cgm_outdir;

/* Create path (and its parents) when missing and open it.  CGM_EUSAGE for
 * an empty path, CGM_EIO naming the path otherwise. */
int cgm_outdir_open(cgm_outdir *d, const char *path);
/* Create (when missing) and open the subfolder rel ("a/b": each part in
 * turn), refusing any part that is a symbolic link or not a folder. */
int cgm_outdir_subdir(cgm_outdir *d, const char *rel);
/* Write len bytes as rel ("index.html", "functions/x.html": its folder
 * must be the top or opened by cgm_outdir_subdir), through a temporary
 * file and a rename; a regular file there that already holds exactly these
 * bytes is left as it is.  CGM_EIO naming the path when any step fails;
 * then the temporary file is gone. */
int cgm_outdir_write(const cgm_outdir *d, const char *rel, const void *data, size_t len);
void cgm_outdir_close(cgm_outdir *d);
/* The whole of the regular file name in the folder dirfd, NUL-terminated
 * (malloc'd, *len bytes before the NUL when len is not NULL), or NULL when
 * it is missing, a link, not a regular file, larger than max bytes or cut
 * while being read: the
 * small records cgmap keeps beside its outputs, which are remade when they
 * cannot be read. */
char *cgm_outdir_read_small(int dirfd, const char *name, size_t max, size_t *len);

/* The manifest's entries that pass `shaped` (sorted, unique; malloc'd
 * strings in a malloc'd array, *n of them; cgm_outdir_list_free frees
 * them).  A missing, unreadable or oversized manifest, or one that is a
 * link, has no entries. */
char **cgm_outdir_manifest_read(const cgm_outdir *d, bool (*shaped)(const char *rel), int *n);
void cgm_outdir_list_free(char **list, int n);
/* Replace the manifest by the n paths of list (any order). */
int cgm_outdir_manifest_write(const cgm_outdir *d, char *const *list, int n);
/* Remove every entry of old that is not in keep (both sorted by strcmp)
 * and is a regular file in an opened subfolder, or at the top, passing
 * `shaped`.  Returns how many were removed, or CGM_EIO naming the first
 * file that could not be removed. */
int cgm_outdir_prune(const cgm_outdir *d, char *const *old, int nold, char *const *keep, int nkeep,
		     bool (*shaped)(const char *rel));
/* Remove the temporary files a killed run left: in the top folder and
 * every opened subfolder, a regular file named ".NAME.tmp.PID.N" (as
 * cgm_outdir_write names them) whose folder/NAME passes `shaped` (or is
 * the manifest) and whose PID is no running process.  Returns how many,
 * or CGM_EIO naming one that could not be removed. */
int cgm_outdir_sweep(const cgm_outdir *d, bool (*shaped)(const char *rel));
/* Sort (strcmp) and drop repeats; returns the new count. */
int cgm_outdir_list_sort(char **list, int n);

/* A single output file named by the user (`report -o`, `collect -o`,
 * `diff -o`): written to a temporary file beside it and renamed over it.
 * A path that is a symbolic link is refused (with an error naming it); an
 * existing device or pipe (/dev/null) is written in place. */
typedef struct cgm_outstream {
	char *path;
	char *tmp;   /* NULL when written in place */
	void *file;  /* FILE * */
} cgm_outstream;

/* Returns 0 and s->file to write to, or CGM_EIO naming the path. */
int cgm_outstream_open(cgm_outstream *s, const char *path);
/* Flush, close and rename into place (ok: the caller's writing went well;
 * when false, the temporary file is removed and the target left as it
 * was).  CGM_EIO naming the path when a step fails. */
int cgm_outstream_commit(cgm_outstream *s, bool ok);
/* Open, write len bytes, commit. */
int cgm_outstream_write_whole(const char *path, const void *data, size_t len);

#endif
