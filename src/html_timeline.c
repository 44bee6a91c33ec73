/*
 * html_timeline.c - when the work happened: the timeline cgmap_trace 1.3
 * keeps (each function's calls and exclusive time per time bucket, in
 * model->buckets) drawn as an inline SVG bar chart: on the index, the top
 * functions' exclusive time stacked per interval with the rest as "other";
 * on a function page, its own exclusive time per interval.
 *
 * In:  the html_ctx (read-only).  Out: HTML appended to a caller-owned
 *      strbuf; nothing kept.  Intervals are placed by their start time, an
 *      interval with no call stays an empty slot, so a pause in the middle
 *      of a batch shows as a gap, not averaged away.  Every name reaches the
 *      page through html_text (escaped).
 */
#include "html_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgmap/verdict.h"

/* Functions stacked one by one on the index; the rest are "other". */
#define TOP_SERIES 8
/* More slots than this and the chart draws the intervals that hold calls
 * only, side by side (a window of years in one-minute buckets). */
#define MAX_SLOTS 2000
#define CHART_W 760
#define CHART_H 180
#define MARGIN_L 56
#define MARGIN_B 22

static const char *const palette[TOP_SERIES] = { "#1971c2", "#e8590c", "#2b8a3e", "#7048e8",
						  "#c2255c", "#0c8599", "#e67700", "#5c940d" };
#define OTHER_COLOR "#adb5bd"

typedef struct {
	int64_t t;         /* seconds since the epoch */
	const char *start; /* as recorded */
} slot_time;

static int compare_slot(const void *a, const void *b)
{
	const slot_time *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

typedef struct {
	int nslots;        /* columns drawn */
	int nstarts;       /* distinct interval starts */
	slot_time *starts; /* sorted */
	int64_t step;      /* seconds per column (0: columns are the starts themselves) */
} axis;

/* The distinct starts of buckets [from, to). */
static void axis_build(axis *ax, const cgm_model *m, int from, int to)
{
	memset(ax, 0, sizeof *ax);
	int n = to - from;
	ax->starts = cgm_xcalloc((size_t)n + 1, sizeof(slot_time));
	for (int i = 0; i < n; i++) {
		const cgm_time_bucket *bk = &m->buckets[from + i];
		int64_t t = cgm_time_parse(bk->start);
		if (t < 0)
			continue;
		ax->starts[ax->nstarts++] = (slot_time){ t, bk->start };
	}
	qsort(ax->starts, (size_t)ax->nstarts, sizeof(slot_time), compare_slot);
	int k = 0;
	for (int i = 0; i < ax->nstarts; i++)
		if (k == 0 || ax->starts[k - 1].t != ax->starts[i].t)
			ax->starts[k++] = ax->starts[i];
	ax->nstarts = k;
	/* The interval is the smallest gap between starts; the columns run
	 * from the first to the last, empty ones included. */
	int64_t step = 0;
	for (int i = 1; i < k; i++) {
		int64_t d = ax->starts[i].t - ax->starts[i - 1].t;
		if (d > 0 && (step == 0 || d < step))
			step = d;
	}
	if (k > 1 && step > 0 && (ax->starts[k - 1].t - ax->starts[0].t) / step + 1 <= MAX_SLOTS) {
		ax->step = step;
		ax->nslots = (int)((ax->starts[k - 1].t - ax->starts[0].t) / step + 1);
	} else {
		ax->step = 0;
		ax->nslots = k;
	}
}

static int axis_slot(const axis *ax, int64_t t)
{
	if (ax->step > 0)
		return (int)((t - ax->starts[0].t) / ax->step);
	int lo = 0, hi = ax->nstarts - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (ax->starts[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An interval's start as "10:05" ("10:05:07" for intervals under a
 * minute; the day too, "11-29 10:05", when the chart spans days), in UTC. */
static void slot_label(cgm_strbuf *b, const axis *ax, int slot, bool days)
{
	char buf[32];
	int64_t t = ax->step > 0 ? ax->starts[0].t + (int64_t)slot * ax->step : ax->starts[slot].t;
	bool seconds = !days && ax->step > 0 && ax->step < 60;
	long of_day = (long)(((t % 86400) + 86400) % 86400);
	if (seconds)
		snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", of_day / 3600, of_day / 60 % 60,
			 of_day % 60);
	else
		snprintf(buf, sizeof buf, "%02ld:%02ld", of_day / 3600, of_day / 60 % 60);
	if (days) {
		time_t when = (time_t)t;
		struct tm tm;
		char day[16];
		if (gmtime_r(&when, &tm) && strftime(day, sizeof day, "%m-%d ", &tm) > 0)
			cgm_strbuf_puts(b, day);
	}
	html_text(b, buf);
}

typedef struct {
	int fn;            /* -1: other */
	double total_ms;
} series;

static int compare_series(const void *a, const void *b)
{
	const series *x = a, *y = b;
	if (x->total_ms != y->total_ms)
		return x->total_ms > y->total_ms ? -1 : 1;
	return x->fn - y->fn;
}

/* The chart: values[slot * nseries + s], stacked bottom-up in series order. */
static void draw(cgm_strbuf *b, const html_ctx *ctx, const axis *ax, const series *ser,
		 int nseries, const double *values, const int64_t *calls, const char *title)
{
	double top = 0;
	for (int slot = 0; slot < ax->nslots; slot++) {
		double sum = 0;
		for (int s = 0; s < nseries; s++)
			sum += values[slot * nseries + s];
		if (sum > top)
			top = sum;
	}
	if (top <= 0)
		top = 1;
	double plot_w = CHART_W - MARGIN_L - 8, plot_h = CHART_H - MARGIN_B - 8;
	double bar_w = plot_w / ax->nslots;
	cgm_strbuf_printf(b, "<svg class=\"timeline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			     "role=\"img\" aria-label=\"",
			  CHART_W, CHART_H, CHART_W, CHART_H);
	html_text(b, title);
	cgm_strbuf_puts(b, "\">\n");
	cgm_strbuf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#adb5bd\"/>\n",
			  MARGIN_L, 8 + plot_h, CHART_W - 8, 8 + plot_h);
	cgm_strbuf_printf(b, "<text x=\"%d\" y=\"14\" text-anchor=\"end\" font-size=\"10\">",
			  MARGIN_L - 4);
	html_ms(b, top);
	cgm_strbuf_puts(b, " ms</text>\n");
	cgm_strbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">0</text>\n",
			  MARGIN_L - 4, 8 + plot_h);
	for (int slot = 0; slot < ax->nslots; slot++) {
		double y = 8 + plot_h;
		double x = MARGIN_L + slot * bar_w;
		for (int s = 0; s < nseries; s++) {
			double v = values[slot * nseries + s];
			if (v <= 0)
				continue;
			double h = v / top * plot_h;
			y -= h;
			cgm_strbuf_printf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
					     "fill=\"%s\"><title>",
					  x, y, bar_w > 2 ? bar_w - 1 : bar_w, h,
					  ser[s].fn >= 0 ? palette[s % TOP_SERIES] : OTHER_COLOR);
			slot_label(b, ax, slot, false);
			cgm_strbuf_puts(b, ": ");
			html_text(b, ser[s].fn >= 0 ? ctx->model->functions[ser[s].fn].id : "other");
			cgm_strbuf_puts(b, ", ");
			html_ms(b, v);
			cgm_strbuf_puts(b, " ms self");
			if (calls)
				cgm_strbuf_printf(b, ", %lld calls", (long long)calls[slot * nseries + s]);
			cgm_strbuf_puts(b, "</title></rect>\n");
		}
	}
	/* About six time labels along the axis. */
	bool days = ax->nstarts > 0 &&
		    ax->starts[ax->nstarts - 1].t - ax->starts[0].t >= 24 * 3600;
	int every = ax->nslots / 6 + 1;
	for (int slot = 0; slot < ax->nslots; slot += every) {
		cgm_strbuf_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">",
				  MARGIN_L + slot * bar_w, CHART_H - 6);
		slot_label(b, ax, slot, days);
		cgm_strbuf_puts(b, "</text>\n");
	}
	cgm_strbuf_puts(b, "</svg>\n");
}

void html_timeline_index(cgm_strbuf *b, const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	if (m->nbuckets == 0)
		return;
	axis ax;
	axis_build(&ax, m, 0, m->nbuckets);
	if (ax.nslots == 0) {
		free(ax.starts);
		return;
	}
	/* Each function's exclusive time in all; the top ones get a colour. */
	double *per_fn = cgm_xcalloc((size_t)m->nfunctions + 1, sizeof(double));
	int *fn_of = cgm_xcalloc((size_t)m->nbuckets + 1, sizeof(int));
	for (int i = 0; i < m->nbuckets; i++) {
		fn_of[i] = cgm_model_find(m, m->buckets[i].function);
		if (fn_of[i] >= 0)
			per_fn[fn_of[i]] += m->buckets[i].self_ms;
	}
	series *all = cgm_xcalloc((size_t)m->nfunctions + 1, sizeof(series));
	int nall = 0;
	for (int f = 0; f < m->nfunctions; f++)
		if (per_fn[f] > 0)
			all[nall++] = (series){ f, per_fn[f] };
	qsort(all, (size_t)nall, sizeof(series), compare_series);
	int nseries = nall > TOP_SERIES ? TOP_SERIES + 1 : nall;
	if (nall > TOP_SERIES)
		all[TOP_SERIES] = (series){ -1, 0 };
	int *series_of = cgm_xcalloc((size_t)m->nfunctions + 1, sizeof(int));
	for (int f = 0; f < m->nfunctions; f++)
		series_of[f] = nall > TOP_SERIES ? TOP_SERIES : -1;
	for (int s = 0; s < nseries && s < TOP_SERIES; s++)
		series_of[all[s].fn] = s;
	double *values = cgm_xcalloc((size_t)ax.nslots * (size_t)(nseries + 1), sizeof(double));
	for (int i = 0; i < m->nbuckets; i++) {
		int64_t t = cgm_time_parse(m->buckets[i].start);
		if (t < 0 || fn_of[i] < 0 || series_of[fn_of[i]] < 0)
			continue;
		values[axis_slot(&ax, t) * nseries + series_of[fn_of[i]]] += m->buckets[i].self_ms;
	}
	cgm_strbuf_puts(b, "<h2 id=\"timeline\">Timeline</h2>\n<p class=\"muted\">Exclusive time per "
			   "interval as cgmap_trace recorded it");
	if (ax.step > 0)
		cgm_strbuf_printf(b, " (%lld s each; an empty column is an interval without a call)",
				  (long long)ax.step);
	cgm_strbuf_puts(b, ", the top functions stacked, the rest as \xE2\x80\x9Cother\xE2\x80\x9D. "
			   "Hover a bar for its figures.</p>\n<div class=\"chart\">\n");
	if (nseries > 0)
		draw(b, ctx, &ax, all, nseries, values, NULL, "exclusive time per interval");
	cgm_strbuf_puts(b, "</div>\n<ul class=\"chart-legend\">\n");
	for (int s = 0; s < nseries; s++) {
		cgm_strbuf_printf(b, "<li><span class=\"swatch\" style=\"background:%s\"></span>",
				  all[s].fn >= 0 ? palette[s % TOP_SERIES] : OTHER_COLOR);
		if (all[s].fn >= 0 && all[s].fn < ctx->nuser)
			html_fn_link(b, ctx, all[s].fn, "");
		else if (all[s].fn >= 0)
			html_text(b, m->functions[all[s].fn].id);
		else
			cgm_strbuf_printf(b, "other (%d functions)", nall - TOP_SERIES);
		cgm_strbuf_puts(b, "</li>\n");
	}
	cgm_strbuf_puts(b, "</ul>\n");
	free(values);
	free(series_of);
	free(all);
	free(fn_of);
	free(per_fn);
	free(ax.starts);
}

void html_timeline_function(cgm_strbuf *b, const html_ctx *ctx, int fn)
{
	const cgm_model *m = ctx->model;
	const char *id = m->functions[fn].id;
	/* Buckets are sorted by function, then start: its run by binary search. */
	int lo = 0, hi = m->nbuckets;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(m->buckets[mid].function, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	int end = lo;
	while (end < m->nbuckets && strcmp(m->buckets[end].function, id) == 0)
		end++;
	if (end == lo)
		return;
	axis ax;
	axis_build(&ax, m, lo, end);
	if (ax.nslots == 0) {
		free(ax.starts);
		return;
	}
	double *values = cgm_xcalloc((size_t)ax.nslots, sizeof(double));
	int64_t *calls = cgm_xcalloc((size_t)ax.nslots, sizeof(int64_t));
	for (int i = lo; i < end; i++) {
		int64_t t = cgm_time_parse(m->buckets[i].start);
		if (t < 0)
			continue;
		int slot = axis_slot(&ax, t);
		values[slot] += m->buckets[i].self_ms;
		calls[slot] += m->buckets[i].calls;
	}
	series one = { fn, 0 };
	cgm_strbuf_puts(b, "<h3>Timeline</h3>\n<div class=\"chart\">\n");
	draw(b, ctx, &ax, &one, 1, values, calls, "exclusive time per interval");
	cgm_strbuf_puts(b, "</div>\n");
	free(calls);
	free(values);
	free(ax.starts);
}
