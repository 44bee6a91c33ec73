/*
 * fuzz_sqlfile.c - the SQL-file reader under fuzzing: the input is applied
 * as a schema file (pg_dump output, migrations: what CI maps from untrusted
 * pull requests), its functions extracted and resolved, and the model
 * written as a snapshot that must read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/pipeline.h"
#include "fuzz_target.h"

int cgm_fuzz_sqlfile(const uint8_t *data, size_t size)
{
	char *path = strdup(cgm_fuzz_file("input.sql", data, size));
	const char *paths[] = { path };
	cgm_model *m = cgm_model_new();
	if (cgm_source_sql_load(m, paths, 1, NULL) == 0) {
		cgm_model_index(m);
		cgm_model_link(m);
		cgm_resolve_options ro = { .threads = 1 };
		if (cgm_resolve(m, &ro) == 0) {
			char *snap = strdup(cgm_fuzz_file("mapped.json", (const uint8_t *)"", 0));
			if (cgm_snapshot_write(m, snap) != 0) {
				fprintf(stderr, "fuzz: cannot write the snapshot: %s\n", cgm_error_message());
				abort();
			}
			cgm_model *back = NULL;
			if (cgm_snapshot_read(&back, snap) != 0) {
				fprintf(stderr, "fuzz: cgmap cannot read its own snapshot: %s\n", cgm_error_message());
				abort();
			}
			cgm_model_free(back);
			free(snap);
		}
	}
	cgm_model_free(m);
	free(path);
	cgm_error_clear();
	return 0;
}
