/*
 * report_internal.h - the table every report of `cgmap report` is built as
 * (src/report.c renders it as text, CSV, Markdown or JSON), shared with the
 * modules that build some of the reports: src/report_profile.c (profile,
 * paths, timeline, shapes).
 *
 * A builder fills the table's title, columns, note and rows; cells and row
 * texts are malloc'd strings (cgm_report_strdup, cgm_report_printf) that
 * report.c frees with the table.  A NULL cell is an absent value.
 */
#ifndef CGMAP_REPORT_INTERNAL_H
#define CGMAP_REPORT_INTERNAL_H

#include "cgmap/model.h"
#include "cgmap/runtime.h"

typedef enum { COL_STR, COL_INT, COL_NUM, COL_BOOL } col_type;

typedef struct {
	const char *name;
	col_type type;
} column;

typedef struct {
	char **cells; /* ncols entries, NULL = no value */
	char *text;   /* the text-format line, without newline */
} row;

typedef struct {
	const char *kind;
	const char *title;
	const column *cols;
	int ncols;
	row *rows;
	int nrows, cap;
	const char *note; /* said before the rows (text, markdown) and as "note" (json) */
	char *owned_note; /* a note made for this table, freed with it */
} table;

/* A new row of t->ncols absent cells (set t->ncols first). */
row *cgm_report_row_add(table *t);
/* Malloc'd copies (NULL for NULL) and formatted strings. */
char *cgm_report_strdup(const char *s);
char *cgm_report_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* src/report_profile.c: the reports of cgmap_trace 1.3's figures (kind
 * CGM_REPORT_PROFILE, PATHS, TIMELINE, SHAPES); `format` decides only
 * whether the timeline sums its small rows (text, Markdown) or lists all. */
void cgm_report_build_profile(table *t, const cgm_model *model, cgm_report_kind kind,
			      cgm_report_format format);

#endif
