/*
 * report_profile.c - the reports of where time goes (docs/reports.md):
 * profile (each function's exclusive time, share, calls, average, least
 * and greatest time of one call), paths (each call path from its entry
 * point), timeline (calls and exclusive time per function and time
 * bucket), shapes (the distinct edge sets of each entry point's calls).
 *
 * In:  a model (read from a snapshot, or just mapped): the functions'
 *      runtime figures and cgmap_trace 1.3's model->paths, shapes and
 *      buckets.  Out: the rows of a report table (src/report_internal.h)
 *      that report.c renders; cells and texts are malloc'd and freed with
 *      the table, the scratch index arrays are malloc'd and freed here.
 * Every order ends on the model's own order (ids, frames, edges: sorted
 * and unique), so the same snapshot always prints the same bytes.
 */
#include "report_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/strbuf.h"

/* Rows of one bucket shown before the rest are summed (text, Markdown). */
#define TIMELINE_TOP 5
#define TIMELINE_TOP_TEXT "5"

#define NO_RUNTIME "no runtime data"
#define NO_TRACE_13                                                                    \
	"the runtime data came from cgmap_trace before 1.3, from function statistics or " \
	"from a log, or no traced call was recorded"

static char *num_cell(double v)
{
	return cgm_report_printf("%.3f", v);
}

static char *int_cell(long long v)
{
	return cgm_report_printf("%lld", v);
}

/* A share in percent with one decimal, or NULL when the whole is 0. */
static char *share_cell(double part, double whole)
{
	return whole > 0 ? cgm_report_printf("%.1f", 100.0 * part / whole) : NULL;
}

static char *strbuf_take(cgm_strbuf *b)
{
	char *s = cgm_report_strdup(cgm_strbuf_cstr(b));
	cgm_strbuf_free(b);
	return s;
}

static int *index_array(int n)
{
	int *ix = cgm_xcalloc((size_t)(n ? n : 1), sizeof(int));
	for (int i = 0; i < n; i++)
		ix[i] = i;
	return ix;
}

/* ---- profile ---- */

static const column profile_columns[] = {
	{ "function", COL_STR }, { "schema", COL_STR }, { "self_ms", COL_NUM },
	{ "self_pct", COL_NUM }, { "calls", COL_INT },	{ "total_ms", COL_NUM },
	{ "avg_ms", COL_NUM },	 { "min_ms", COL_NUM }, { "max_ms", COL_NUM },
};

typedef struct {
	const cgm_model *m;
	const cgm_runtime_stats *stats; /* per function: the figures shown */
} profile_order;

static int by_self_desc(const void *a, const void *b, void *arg)
{
	const profile_order *o = arg;
	const cgm_model *m = o->m;
	int x = *(const int *)a, y = *(const int *)b;
	double sx = o->stats[x].self_ms, sy = o->stats[y].self_ms;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	int c = strcmp(m->functions[x].id, m->functions[y].id);
	return c ? c : (x > y) - (x < y);
}

int cgm_profile_rows(cgm_profile_row **out, double *whole_out, const cgm_model *m)
{
	/* Least and greatest inclusive time of one call, over the paths
	 * ending in each function (a path without calls has none); with them,
	 * the function's calls and times are those same paths' sums, so that
	 * the average is measured by the clock min and max are (the
	 * statistics' clock, pg_stat_user_functions, counts more than the
	 * function's own run: an average above the maximum). */
	int n = m->nuser;
	double *lo = cgm_xcalloc((size_t)(n ? n : 1), sizeof(double));
	double *hi = cgm_xcalloc((size_t)(n ? n : 1), sizeof(double));
	bool *known = cgm_xcalloc((size_t)(n ? n : 1), sizeof(bool));
	cgm_runtime_stats *shown = cgm_xcalloc((size_t)(n ? n : 1), sizeof(cgm_runtime_stats));
	double *each_call_ms = cgm_xcalloc((size_t)(n ? n : 1), sizeof(double));
	for (int p = 0; p < m->npaths; p++) {
		const cgm_call_path *path = &m->paths[p];
		if (path->nframes < 1 || path->stats.calls <= 0)
			continue;
		int f = cgm_model_find(m, path->frames[path->nframes - 1]);
		if (f < 0 || f >= n)
			continue;
		if (!known[f] || path->min_ms < lo[f])
			lo[f] = path->min_ms;
		if (!known[f] || path->max_ms > hi[f])
			hi[f] = path->max_ms;
		known[f] = true;
		shown[f].calls += path->stats.calls;
		shown[f].self_ms += path->stats.self_ms;
		each_call_ms[f] += path->stats.total_ms;
		/* A recursive call's inclusive time is inside its outer call's:
		 * counted once, at the outermost. */
		bool nested = false;
		for (int k = 0; k + 1 < path->nframes && !nested; k++)
			nested = strcmp(path->frames[k], path->frames[path->nframes - 1]) == 0;
		if (!nested)
			shown[f].total_ms += path->stats.total_ms;
	}
	int *order = index_array(n);
	int count = 0;
	double whole = 0;
	for (int i = 0; i < n; i++) {
		if (!known[i])
			shown[i] = m->functions[i].runtime;
		const cgm_runtime_stats *s = &shown[i];
		if (s->calls > 0 || s->self_ms > 0) {
			order[count++] = i;
			whole += s->self_ms;
		}
	}
	profile_order o = { m, shown };
	qsort_r(order, (size_t)count, sizeof(int), by_self_desc, &o);
	cgm_profile_row *rows = cgm_xcalloc((size_t)(count ? count : 1), sizeof(*rows));
	for (int k = 0; k < count; k++) {
		int i = order[k];
		rows[k].fn = i;
		rows[k].stats = shown[i];
		rows[k].avg_ms = shown[i].calls > 0 ? (known[i] ? each_call_ms[i] : shown[i].total_ms) /
							      (double)shown[i].calls
						    : -1;
		rows[k].share_pct = whole > 0 ? 100.0 * shown[i].self_ms / whole : -1;
		rows[k].has_minmax = known[i];
		rows[k].min_ms = lo[i];
		rows[k].max_ms = hi[i];
	}
	free(order);
	free(lo);
	free(hi);
	free(known);
	free(shown);
	free(each_call_ms);
	*out = rows;
	if (whole_out)
		*whole_out = whole;
	return count;
}

static void build_profile(table *t, const cgm_model *m)
{
	t->title = "Profile";
	t->cols = profile_columns;
	t->ncols = 9;
	if (!m->has_runtime) {
		t->note = NO_RUNTIME ": no function was measured";
		return;
	}
	if (!m->npaths)
		t->note = "no call paths: " NO_TRACE_13 "; the least and greatest time of "
			  "one call are unknown";
	cgm_profile_row *rows;
	double whole;
	int count = cgm_profile_rows(&rows, &whole, m);
	for (int k = 0; k < count; k++) {
		int i = rows[k].fn;
		const cgm_function *f = &m->functions[i];
		const cgm_runtime_stats *s = &rows[k].stats;
		row *r = cgm_report_row_add(t);
		r->cells[0] = cgm_report_strdup(f->id);
		r->cells[1] = cgm_report_strdup(f->schema);
		r->cells[2] = num_cell(s->self_ms);
		r->cells[3] = share_cell(s->self_ms, whole);
		r->cells[4] = int_cell(s->calls);
		r->cells[5] = num_cell(s->total_ms);
		if (rows[k].avg_ms >= 0)
			r->cells[6] = num_cell(rows[k].avg_ms);
		if (rows[k].has_minmax) {
			r->cells[7] = num_cell(rows[k].min_ms);
			r->cells[8] = num_cell(rows[k].max_ms);
		}
		cgm_strbuf line = CGM_STRBUF_INIT;
		cgm_strbuf_printf(&line, "%s self %s ms", f->id, r->cells[2]);
		if (r->cells[3])
			cgm_strbuf_printf(&line, " (%s%%)", r->cells[3]);
		cgm_strbuf_printf(&line, " calls %lld total %s ms", (long long)s->calls, r->cells[5]);
		if (r->cells[6])
			cgm_strbuf_printf(&line, " avg %s ms", r->cells[6]);
		if (rows[k].has_minmax)
			cgm_strbuf_printf(&line, " min %s ms max %s ms", r->cells[7], r->cells[8]);
		r->text = strbuf_take(&line);
	}
	free(rows);
}

/* ---- paths ---- */

static const column path_columns[] = {
	{ "path", COL_STR },	 { "entry", COL_STR },	  { "function", COL_STR },
	{ "depth", COL_INT },	 { "calls", COL_INT },	  { "total_ms", COL_NUM },
	{ "self_ms", COL_NUM }, { "min_ms", COL_NUM }, { "max_ms", COL_NUM },
};

/* "entry > f (line 3) > ... > g (line 7)": each frame after the first with
 * the line of the frame above that called it; the depth marker as is. */
static char *path_text(const cgm_call_path *p)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	for (int i = 0; i < p->nframes; i++) {
		if (i)
			cgm_strbuf_puts(&b, " > ");
		cgm_strbuf_puts(&b, p->frames[i]);
		if (i && p->lines[i] > 0)
			cgm_strbuf_printf(&b, " (line %d)", p->lines[i]);
	}
	return strbuf_take(&b);
}

static int by_total_desc(const void *a, const void *b, void *arg)
{
	const cgm_model *m = arg;
	int x = *(const int *)a, y = *(const int *)b;
	double tx = m->paths[x].stats.total_ms, ty = m->paths[y].stats.total_ms;
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return (x > y) - (x < y); /* the model's order: frames, then lines */
}

static void build_paths(table *t, const cgm_model *m)
{
	t->title = "Call paths";
	t->cols = path_columns;
	t->ncols = 9;
	if (!m->has_runtime) {
		t->note = NO_RUNTIME ": no call path was recorded";
		return;
	}
	if (!m->npaths) {
		t->note = "no call paths: " NO_TRACE_13;
		return;
	}
	int *order = index_array(m->npaths);
	qsort_r(order, (size_t)m->npaths, sizeof(int), by_total_desc, (void *)m);
	for (int k = 0; k < m->npaths; k++) {
		const cgm_call_path *p = &m->paths[order[k]];
		if (p->nframes < 1)
			continue;
		row *r = cgm_report_row_add(t);
		r->cells[0] = path_text(p);
		r->cells[1] = cgm_report_strdup(p->frames[0]);
		r->cells[2] = cgm_report_strdup(p->frames[p->nframes - 1]);
		r->cells[3] = int_cell(p->nframes);
		r->cells[4] = int_cell(p->stats.calls);
		r->cells[5] = num_cell(p->stats.total_ms);
		r->cells[6] = num_cell(p->stats.self_ms);
		if (p->stats.calls > 0) {
			r->cells[7] = num_cell(p->min_ms);
			r->cells[8] = num_cell(p->max_ms);
		}
		cgm_strbuf line = CGM_STRBUF_INIT;
		cgm_strbuf_printf(&line, "%s calls %lld total %s ms self %s ms", r->cells[0],
				  (long long)p->stats.calls, r->cells[5], r->cells[6]);
		if (p->stats.calls > 0)
			cgm_strbuf_printf(&line, " min %s ms max %s ms", r->cells[7], r->cells[8]);
		r->text = strbuf_take(&line);
	}
	free(order);
}

/* ---- timeline ---- */

static const column timeline_columns[] = {
	{ "start", COL_STR },
	{ "function", COL_STR },
	{ "calls", COL_INT },
	{ "self_ms", COL_NUM },
};

/* By bucket start, then exclusive time (most first), calls, id. */
static int by_bucket(const void *a, const void *b, void *arg)
{
	const cgm_model *m = arg;
	int x = *(const int *)a, y = *(const int *)b;
	const cgm_time_bucket *bx = &m->buckets[x], *by = &m->buckets[y];
	int c = strcmp(bx->start, by->start);
	if (c)
		return c;
	if (bx->self_ms != by->self_ms)
		return bx->self_ms > by->self_ms ? -1 : 1;
	if (bx->calls != by->calls)
		return bx->calls > by->calls ? -1 : 1;
	return (x > y) - (x < y); /* the model's order: function, then start */
}

static void timeline_row(table *t, const char *start, char *function, int64_t calls,
			 double self_ms)
{
	row *r = cgm_report_row_add(t);
	r->cells[0] = cgm_report_strdup(start);
	r->cells[1] = function;
	r->cells[2] = int_cell(calls);
	r->cells[3] = num_cell(self_ms);
	r->text = cgm_report_printf("%s %s calls %lld self %s ms", start, function,
				    (long long)calls, r->cells[3]);
}

static void build_timeline(table *t, const cgm_model *m, bool all_rows)
{
	t->title = "Timeline";
	t->cols = timeline_columns;
	t->ncols = 4;
	if (!m->has_runtime) {
		t->note = NO_RUNTIME ": no timeline was recorded";
		return;
	}
	if (!m->nbuckets) {
		t->note = "no timeline: " NO_TRACE_13;
		return;
	}
	bool summed = false;
	int *order = index_array(m->nbuckets);
	qsort_r(order, (size_t)m->nbuckets, sizeof(int), by_bucket, (void *)m);
	for (int k = 0; k < m->nbuckets;) {
		const char *start = m->buckets[order[k]].start;
		int end = k;
		while (end < m->nbuckets && strcmp(m->buckets[order[end]].start, start) == 0)
			end++;
		int shown = all_rows || end - k <= TIMELINE_TOP + 1 ? end - k : TIMELINE_TOP;
		for (int j = k; j < k + shown; j++) {
			const cgm_time_bucket *b = &m->buckets[order[j]];
			timeline_row(t, start, cgm_report_strdup(b->function), b->calls, b->self_ms);
		}
		if (k + shown < end) {
			summed = true;
			bool held = false;
			int64_t calls = 0;
			double self_ms = 0;
			for (int j = k + shown; j < end; j++) {
				calls = cgm_count_add(calls, m->buckets[order[j]].calls, &held);
				self_ms += m->buckets[order[j]].self_ms;
			}
			if (self_ms > CGM_STATS_MAX_MS)
				self_ms = CGM_STATS_MAX_MS;
			timeline_row(t, start,
				     cgm_report_printf("other (%d functions)", end - k - shown), calls,
				     self_ms);
		}
		k = end;
	}
	free(order);
	if (summed)
		t->note = "per bucket the " TIMELINE_TOP_TEXT " functions of most exclusive time, "
			  "the others summed as \"other\" (csv and json list them all)";
}

/* ---- shapes ---- */

static const column shape_columns[] = {
	{ "entry", COL_STR },	  { "shape", COL_INT }, { "calls", COL_INT },
	{ "share_pct", COL_NUM }, { "nedges", COL_INT }, { "edges", COL_STR },
};

/* By entry point, then calls (most first), then the model's order. */
static int by_entry_calls(const void *a, const void *b, void *arg)
{
	const cgm_model *m = arg;
	int x = *(const int *)a, y = *(const int *)b;
	const cgm_call_shape *sx = &m->shapes[x], *sy = &m->shapes[y];
	int c = strcmp(sx->entry, sy->entry);
	if (c)
		return c;
	if (sx->calls != sy->calls)
		return sx->calls > sy->calls ? -1 : 1;
	return (x > y) - (x < y);
}

static char *shape_edges_text(const cgm_call_shape *s)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	for (int e = 0; e < s->nedges; e++) {
		const cgm_shape_edge *x = &s->edges[e];
		cgm_strbuf_printf(&b, "%s%s -> %s", e ? "; " : "", x->caller, x->callee);
		if (x->site_line > 0)
			cgm_strbuf_printf(&b, " line %d", x->site_line);
		if (x->dynamic)
			cgm_strbuf_puts(&b, " dynamic");
	}
	return strbuf_take(&b);
}

static void build_shapes(table *t, const cgm_model *m)
{
	t->title = "Call shapes";
	t->cols = shape_columns;
	t->ncols = 6;
	if (!m->has_runtime) {
		t->note = NO_RUNTIME ": no call shape was recorded";
		return;
	}
	if (!m->nshapes) {
		t->note = "no call shapes: " NO_TRACE_13;
		return;
	}
	int *order = index_array(m->nshapes);
	qsort_r(order, (size_t)m->nshapes, sizeof(int), by_entry_calls, (void *)m);
	for (int k = 0; k < m->nshapes;) {
		const char *entry = m->shapes[order[k]].entry;
		int end = k;
		double whole = 0;
		while (end < m->nshapes && strcmp(m->shapes[order[end]].entry, entry) == 0)
			whole += (double)m->shapes[order[end++]].calls;
		for (int j = k; j < end; j++) {
			const cgm_call_shape *s = &m->shapes[order[j]];
			row *r = cgm_report_row_add(t);
			r->cells[0] = cgm_report_strdup(entry);
			r->cells[1] = int_cell(j - k + 1);
			r->cells[2] = int_cell(s->calls);
			r->cells[3] = share_cell((double)s->calls, whole);
			r->cells[4] = int_cell(s->nedges);
			r->cells[5] = shape_edges_text(s);
			cgm_strbuf line = CGM_STRBUF_INIT;
			cgm_strbuf_printf(&line, "%s shape %d: calls %lld", entry, j - k + 1,
					  (long long)s->calls);
			if (r->cells[3])
				cgm_strbuf_printf(&line, " (%s%%)", r->cells[3]);
			if (s->nedges)
				cgm_strbuf_printf(&line, ", %d edge%s: %s", s->nedges,
						  s->nedges == 1 ? "" : "s", r->cells[5]);
			else
				cgm_strbuf_puts(&line, ", no edges (called nothing)");
			r->text = strbuf_take(&line);
		}
		k = end;
	}
	free(order);
}

void cgm_report_build_profile(table *t, const cgm_model *model, cgm_report_kind kind,
			      cgm_report_format format)
{
	switch (kind) {
	case CGM_REPORT_PROFILE: build_profile(t, model); break;
	case CGM_REPORT_PATHS: build_paths(t, model); break;
	case CGM_REPORT_TIMELINE:
		build_timeline(t, model, format == CGM_FORMAT_CSV || format == CGM_FORMAT_JSON);
		break;
	case CGM_REPORT_SHAPES: build_shapes(t, model); break;
	default: break;
	}
}
