/*
 * fuzz_common.c - what both fuzz targets share (see fuzz_target.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_target.h"

static char folder[256];

static void remove_folder(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: cannot remove %s\n", folder);
}

const char *cgm_fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	if (!folder[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(folder, sizeof folder, "%s/cgmap-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(folder)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(remove_folder);
	}
	static char path[320];
	snprintf(path, sizeof path, "%s/%s", folder, name);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror("fuzz: writing the input");
		abort();
	}
	return path;
}
