/*
 * outfile.c - whole-or-nothing output files (see outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmap/error.h"

static int outfile_error(const cgm_outfile *f, const char *step, int err)
{
	if (step)
		return cgm_error(CGM_EIO, "cannot write %s%s\"%s\": %s: %s", f->what ? f->what : "",
				 f->what ? " " : "", f->path, step, strerror(err));
	return cgm_error(CGM_EIO, "cannot write %s%s\"%s\": %s", f->what ? f->what : "",
			 f->what ? " " : "", f->path, strerror(err));
}

int cgm_outfile_open(cgm_outfile *f, const char *path, const char *what)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->what = what;
	f->path = strdup(path);
	size_t len = strlen(path) + 16;
	f->tmp = malloc(len);
	if (!f->path || !f->tmp) {
		free(f->path);
		free(f->tmp);
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
		free(f->path);
		free(f->tmp);
		f->path = f->tmp = NULL;
	}
	return rc;
}

void cgm_outfile_write(cgm_outfile *f, const void *data, size_t len)
{
	const char *p = data;
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
	}
}

int cgm_outfile_commit(cgm_outfile *f, bool durable)
{
	const char *failed = NULL;
	int err = 0;
	if (f->error)
		failed = "write", err = f->error;
	if (!failed && durable && fsync(f->fd) != 0)
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
	free(f->path);
	free(f->tmp);
	f->path = f->tmp = NULL;
	f->fd = -1;
	return rc;
}
