/*
 * fuzz_snapshot.c - the snapshot reader under fuzzing: the input is read as
 * cgmap.json (render, report and diff read snapshots they are handed);
 * what reads is written again and must read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/pipeline.h"
#include "fuzz_target.h"

int cgm_fuzz_snapshot(const uint8_t *data, size_t size)
{
	char *path = strdup(cgm_fuzz_file("input.json", data, size));
	cgm_model *m = NULL;
	if (cgm_snapshot_read(&m, path) == 0) {
		char *again = strdup(cgm_fuzz_file("again.json", (const uint8_t *)"", 0));
		if (cgm_snapshot_write(m, again) != 0) {
			fprintf(stderr, "fuzz: cannot write the snapshot read: %s\n", cgm_error_message());
			abort();
		}
		cgm_model *back = NULL;
		if (cgm_snapshot_read(&back, again) != 0) {
			fprintf(stderr, "fuzz: cgmap cannot read back what it wrote: %s\n", cgm_error_message());
			abort();
		}
		cgm_model_free(back);
		cgm_model_free(m);
		free(again);
	}
	free(path);
	cgm_error_clear();
	return 0;
}
