/*
 * outdir.c - output folders and single output files written without
 * following links, whole or not at all, with a manifest of what cgmap
 * wrote (see outdir.h).
 *
 * In:  paths a user named, relative paths and bytes.  Out: files renamed
 * into place; 0 or a negative CGM_E* code with the message set.
 * Memory: the folder's copies and descriptors, freed by cgm_outdir_close;
 * manifest lists malloc'd for the caller (cgm_outdir_list_free).
 */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmap/arena.h"
#include "cgmap/error.h"

/* A manifest larger than this is not read (a folder of a million pages
 * lists about 100 MB). */
#define MANIFEST_MAX (256L << 20)
#define MANIFEST_HEADER "# cgmap manifest: the files cgmap wrote in this folder; the next run " \
			"removes those it does not write again.\n"

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = cgm_xcalloc(n, 1);
	memcpy(p, s, n);
	return p;
}

/* mkdir -p of the folder a user named: links in it are the user's. */
static int make_parents(const char *path)
{
	size_t len = strlen(path);
	char *buf = xstrdup(path);
	int rc = 0;
	for (size_t i = 1; i <= len && rc == 0; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char saved = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			rc = cgm_error(CGM_EIO, "cannot create folder \"%s\": %s", buf, strerror(errno));
		buf[i] = saved;
	}
	free(buf);
	return rc;
}

int cgm_outdir_open(cgm_outdir *d, const char *path)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (!path || !*path)
		return cgm_error(CGM_EUSAGE, "no output folder given");
	int rc = make_parents(path);
	if (rc)
		return rc;
	d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0)
		return cgm_error(CGM_EIO, "cannot open folder \"%s\": %s", path,
				 errno == ENOTDIR ? "a file of that name exists" : strerror(errno));
	d->path = xstrdup(path);
	return 0;
}

/* The open folder holding rel's file, and where its file name starts; -1
 * when rel's folder was not opened. */
static int folder_of(const cgm_outdir *d, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	if (!slash) {
		*base = rel;
		return d->fd;
	}
	*base = slash + 1;
	size_t n = (size_t)(slash - rel);
	for (int i = 0; i < d->nsub; i++)
		if (strlen(d->sub[i].rel) == n && memcmp(d->sub[i].rel, rel, n) == 0)
			return d->sub[i].fd;
	return -1;
}

int cgm_outdir_subdir(cgm_outdir *d, const char *rel)
{
	for (int i = 0; i < d->nsub; i++)
		if (strcmp(d->sub[i].rel, rel) == 0)
			return 0;
	if (d->nsub == CGM_OUTDIR_MAX_SUBDIRS)
		return cgm_error(CGM_EIO, "too many folders in \"%s\"", d->path);
	/* Each part in turn, relative to the one before: mkdirat, then open
	 * it without following a link. */
	char *parts = xstrdup(rel);
	int at = d->fd, rc = 0;
	for (char *part = parts, *next; part && rc == 0; part = next) {
		next = strchr(part, '/');
		if (next)
			*next++ = '\0';
		if (!*part || strcmp(part, ".") == 0 || strcmp(part, "..") == 0) {
			rc = cgm_error(CGM_EIO, "bad folder name \"%s\" in \"%s\"", rel, d->path);
			break;
		}
		if (mkdirat(at, part, 0777) != 0 && errno != EEXIST) {
			rc = cgm_error(CGM_EIO, "cannot create folder \"%s/%s\": %s", d->path, rel,
				       strerror(errno));
			break;
		}
		int fd = openat(at, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			int err = errno;
			struct stat st;
			bool link = fstatat(at, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
			if (link || err == ELOOP)
				rc = cgm_error(CGM_EIO, "refusing to write into \"%s/%s\": it is a "
							"symbolic link, which cgmap does not follow",
					       d->path, rel);
			else
				rc = cgm_error(CGM_EIO, "cannot create folder \"%s/%s\": %s", d->path, rel,
					       err == ENOTDIR ? "a file of that name exists"
							      : strerror(err));
			break;
		}
		if (at != d->fd)
			close(at);
		at = fd;
	}
	free(parts);
	if (rc) {
		if (at != d->fd)
			close(at);
		return rc;
	}
	d->sub[d->nsub].rel = xstrdup(rel);
	d->sub[d->nsub].fd = at;
	d->nsub++;
	return 0;
}

void cgm_outdir_close(cgm_outdir *d)
{
	for (int i = 0; i < d->nsub; i++) {
		close(d->sub[i].fd);
		free(d->sub[i].rel);
	}
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t done = write(fd, p, len);
		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0)
			return errno;
		p += done;
		len -= (size_t)done;
	}
	return 0;
}

/* Temporary names differ between processes (pid) and within one (count). */
static unsigned long next_temp(void)
{
	static unsigned long counter;
	return __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
}

/* Whether dir/base is already a regular file holding exactly these bytes
 * (read without following a link).  Rendering again into a folder then
 * leaves most pages alone: no write, no rename, the same modification
 * time for whatever copies the folder (rsync, a CI artifact) to see. */
static bool holds_already(int dir, const char *base, const void *data, size_t len)
{
	int fd = openat(dir, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
	char chunk[65536];
	for (size_t at = 0; same && at < len;) {
		size_t want = len - at < sizeof(chunk) ? len - at : sizeof(chunk);
		ssize_t got = read(fd, chunk, want);
		if (got < 0 && errno == EINTR)
			continue;
		same = got > 0 && memcmp(chunk, (const char *)data + at, (size_t)got) == 0;
		at += got > 0 ? (size_t)got : 0;
	}
	close(fd);
	return same;
}

int cgm_outdir_write(const cgm_outdir *d, const char *rel, const void *data, size_t len)
{
	const char *base;
	int dir = folder_of(d, rel, &base);
	if (dir < 0 || !*base)
		return cgm_error(CGM_EIO, "cannot write \"%s/%s\": its folder was not prepared",
				 d->path, rel);
	if (holds_already(dir, base, data, len))
		return 0;
	char tmp[512];
	int fd = -1;
	for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
		if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp.%ld.%lu", base, (long)getpid(),
				     next_temp()) >= sizeof(tmp))
			return cgm_error(CGM_EIO, "cannot write \"%s/%s\": the name is too long",
					 d->path, rel);
		/* O_EXCL: never an existing file, nor a link planted there. */
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return cgm_error(CGM_EIO, "cannot write \"%s/%s\": %s", d->path, rel, strerror(errno));
	int err = write_all(fd, data, len);
	const char *step = err ? "write" : NULL;
	if (close(fd) != 0 && !step)
		err = errno, step = "close";
	/* The rename replaces whatever has the name, a link too, and never
	 * writes through it. */
	if (!step && renameat(dir, tmp, dir, base) != 0)
		err = errno, step = "rename";
	if (step) {
		unlinkat(dir, tmp, 0);
		return cgm_error(CGM_EIO, "cannot write \"%s/%s\": %s: %s", d->path, rel, step,
				 strerror(err));
	}
	return 0;
}

/* ---- the manifest ---- */

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cgm_outdir_list_sort(char **list, int n)
{
	if (n <= 0)
		return 0;
	qsort(list, (size_t)n, sizeof(char *), compare_strings);
	int out = 1;
	for (int i = 1; i < n; i++) {
		if (strcmp(list[i], list[out - 1]) == 0) {
			free(list[i]);
			continue;
		}
		list[out++] = list[i];
	}
	return out;
}

void cgm_outdir_list_free(char **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

char *cgm_outdir_read_small(int dirfd, const char *name, size_t max, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(fd);
		return NULL;
	}
	size_t size = (size_t)st.st_size, got = 0;
	char *text = cgm_xcalloc(size + 1, 1);
	while (got < size) {
		ssize_t r = read(fd, text + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got != size) { /* cut while being read: as good as unreadable */
		free(text);
		return NULL;
	}
	text[got] = '\0';
	if (len)
		*len = got;
	return text;
}

char **cgm_outdir_manifest_read(const cgm_outdir *d, bool (*shaped)(const char *rel), int *n)
{
	*n = 0;
	char *text = cgm_outdir_read_small(d->fd, CGM_OUTDIR_MANIFEST, (size_t)MANIFEST_MAX, NULL);
	if (!text)
		return NULL;
	int cap = 0;
	char **list = NULL;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line[0] == '#' || !shaped(line))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			list = cgm_xrealloc(list, sizeof(char *) * (size_t)cap);
		}
		list[(*n)++] = xstrdup(line);
	}
	free(text);
	*n = cgm_outdir_list_sort(list, *n);
	return list;
}

int cgm_outdir_manifest_write(const cgm_outdir *d, char *const *list, int n)
{
	size_t len = sizeof(MANIFEST_HEADER) - 1;
	for (int i = 0; i < n; i++)
		len += strlen(list[i]) + 1;
	char *text = cgm_xcalloc(len + 1, 1), *p = text;
	memcpy(p, MANIFEST_HEADER, sizeof(MANIFEST_HEADER) - 1);
	p += sizeof(MANIFEST_HEADER) - 1;
	for (int i = 0; i < n; i++) {
		size_t k = strlen(list[i]);
		memcpy(p, list[i], k);
		p += k;
		*p++ = '\n';
	}
	int rc = cgm_outdir_write(d, CGM_OUTDIR_MANIFEST, text, len);
	free(text);
	return rc;
}

int cgm_outdir_prune(const cgm_outdir *d, char *const *old, int nold, char *const *keep, int nkeep,
		     bool (*shaped)(const char *rel))
{
	int removed = 0, k = 0;
	for (int i = 0; i < nold; i++) {
		while (k < nkeep && strcmp(keep[k], old[i]) < 0)
			k++;
		if (k < nkeep && strcmp(keep[k], old[i]) == 0)
			continue;
		const char *base;
		int dir = folder_of(d, old[i], &base);
		if (dir < 0 || !*base || !shaped(old[i]))
			continue;
		struct stat st;
		if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue; /* gone already, or a link or folder: not ours */
		if (unlinkat(dir, base, 0) != 0 && errno != ENOENT)
			return cgm_error(CGM_EIO, "cannot remove the old page \"%s/%s\": %s", d->path,
					 old[i], strerror(errno));
		removed++;
	}
	return removed;
}

/* ---- temporary files of killed runs ---- */

static bool all_digits(const char *p, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

/* Whether process `pid` still runs.  A zombie does not: a killed cgmap's
 * layout workers stay zombies until they are reaped, which on a busy
 * machine can outlast the start of the next run, and they write nothing
 * more. */
static bool process_runs(pid_t pid)
{
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return false;
	char path[64], stat_line[512];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return true; /* no /proc: trust kill() */
	size_t n = fread(stat_line, 1, sizeof(stat_line) - 1, f);
	fclose(f);
	stat_line[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything, ')' included. */
	const char *close = strrchr(stat_line, ')');
	if (!close || close[1] != ' ')
		return true;
	return close[2] != 'Z' && close[2] != 'X';
}

/* ".NAME.tmp.PID.N" of a process that is gone: NAME copied to base. */
static bool stale_temp(const char *name, char *base, size_t cap)
{
	if (name[0] != '.')
		return false;
	const char *last = strrchr(name, '.');
	if (!last || last == name || !all_digits(last + 1, strlen(last + 1)))
		return false;
	const char *pid = last - 1;
	while (pid > name && *pid != '.')
		pid--;
	if (pid == name || !all_digits(pid + 1, (size_t)(last - pid - 1)) || last - pid - 1 > 9)
		return false;
	static const char tag[] = ".tmp";
	size_t ntag = sizeof(tag) - 1;
	if ((size_t)(pid - name) < ntag + 2 || memcmp(pid - ntag, tag, ntag) != 0)
		return false;
	size_t nbase = (size_t)(pid - ntag - (name + 1));
	if (nbase == 0 || nbase >= cap)
		return false;
	memcpy(base, name + 1, nbase);
	base[nbase] = '\0';
	long owner = strtol(pid + 1, NULL, 10);
	/* A running process (another cgmap writing here) keeps its file. */
	return owner > 0 && !process_runs((pid_t)owner);
}

static int sweep_folder(const cgm_outdir *d, int fd, const char *rel,
			bool (*shaped)(const char *rel), int *removed)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!dir) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0; /* nothing to sweep where nothing can be listed */
	}
	int rc = 0;
	struct dirent *e;
	char base[300], path[600];
	while (rc == 0 && (e = readdir(dir)) != NULL) {
		if (!stale_temp(e->d_name, base, sizeof(base)))
			continue;
		snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", base);
		if (!shaped(path) && !(!*rel && strcmp(base, CGM_OUTDIR_MANIFEST) == 0))
			continue;
		struct stat st;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (unlinkat(fd, e->d_name, 0) != 0 && errno != ENOENT)
			rc = cgm_error(CGM_EIO, "cannot remove the temporary file \"%s/%s%s%s\": %s",
				       d->path, rel, *rel ? "/" : "", e->d_name, strerror(errno));
		else
			(*removed)++;
	}
	closedir(dir);
	return rc;
}

int cgm_outdir_sweep(const cgm_outdir *d, bool (*shaped)(const char *rel))
{
	int removed = 0;
	int rc = sweep_folder(d, d->fd, "", shaped, &removed);
	for (int i = 0; rc == 0 && i < d->nsub; i++)
		rc = sweep_folder(d, d->sub[i].fd, d->sub[i].rel, shaped, &removed);
	return rc ? rc : removed;
}

/* ---- single output files ---- */

int cgm_outstream_open(cgm_outstream *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return cgm_error(CGM_EIO, "refusing to write \"%s\": it is a symbolic link, "
						  "which cgmap does not follow (name the file it "
						  "points to)",
					 path);
		if (S_ISDIR(st.st_mode))
			return cgm_error(CGM_EIO, "cannot write \"%s\": it is a folder", path);
		if (!S_ISREG(st.st_mode)) {
			/* A device or a pipe: written where it is. */
			int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
			if (!f) {
				int err = errno;
				if (fd >= 0)
					close(fd);
				return cgm_error(CGM_EIO, "cannot write \"%s\": %s", path, strerror(err));
			}
			s->path = xstrdup(path);
			s->file = f;
			return 0;
		}
	}
	size_t len = strlen(path) + 16;
	s->tmp = cgm_xcalloc(len, 1);
	snprintf(s->tmp, len, "%s.tmp.XXXXXX", path);
	int fd = mkostemp(s->tmp, O_CLOEXEC);
	FILE *f = NULL;
	if (fd >= 0 && fchmod(fd, 0644) == 0)
		f = fdopen(fd, "w");
	if (!f) {
		int err = errno;
		if (fd >= 0) {
			close(fd);
			unlink(s->tmp);
		}
		free(s->tmp);
		s->tmp = NULL;
		return cgm_error(CGM_EIO, "cannot write \"%s\": %s", path, strerror(err));
	}
	s->path = xstrdup(path);
	s->file = f;
	return 0;
}

int cgm_outstream_commit(cgm_outstream *s, bool ok)
{
	FILE *f = s->file;
	int rc = 0;
	const char *step = NULL;
	int err = 0;
	if (!ok || fflush(f) != 0 || ferror(f))
		step = "write", err = errno;
	if (fclose(f) != 0 && !step)
		step = "close", err = errno;
	if (s->tmp) {
		if (!step && rename(s->tmp, s->path) != 0)
			step = "rename", err = errno;
		if (step)
			unlink(s->tmp);
	}
	if (step && ok) /* a failure the caller had is its own to report */
		rc = cgm_error(CGM_EIO, "cannot write \"%s\": %s: %s", s->path, step, strerror(err));
	free(s->path);
	free(s->tmp);
	memset(s, 0, sizeof(*s));
	return rc;
}

int cgm_outstream_write_whole(const char *path, const void *data, size_t len)
{
	cgm_outstream s;
	int rc = cgm_outstream_open(&s, path);
	if (rc)
		return rc;
	bool ok = len == 0 || fwrite(data, 1, len, s.file) == len;
	return cgm_outstream_commit(&s, ok);
}
