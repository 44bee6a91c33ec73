/*
 * test_report_profile.c - the reports of cgmap_trace 1.3's figures
 * (profile, paths, timeline, shapes) in every format, and the folded
 * stacks, from a hand-built model whose paths, shapes and timeline are
 * known exactly; plus models without runtime data and with function
 * figures but no paths (an older cgmap_trace, statistics or a log), where
 * each report says so instead of failing.  Outputs are compared byte for
 * byte (docs/reports.md, cgmap/stacks.h).
 *
 * The sample (times in ms, exact in binary):
 *   app.main()        2 calls, total 8, self 2: line 3 calls app.mid(integer),
 *                     line 7 calls app.leaf()
 *   app.mid(integer)  4 calls, total 5, self 3: line 5 calls app.leaf()
 *   app.leaf()        6 calls, total 3, self 3
 *   app.rec(integer)  3 calls, total 0.75, self 0.75: calls itself at line 4,
 *                     its third level cut for depth ("...")
 *   app.idle()        never called
 * Paths' exclusive times sum to the functions' (8.75).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/runtime.h"
#include "cgmap/stacks.h"

#define WINDOW_TEXT "2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)"
#define WINDOW "# runtime data covers " WINDOW_TEXT "\n"

static void add_function(cgm_model *m, const char *id, double calls, double total, double self)
{
	cgm_function *f = cgm_model_add_function(m);
	f->id = cgm_arena_strdup(m->arena, id);
	f->schema = "app";
	f->scc = -1;
	f->language = "plpgsql";
	f->analysed = true;
	f->runtime = (cgm_runtime_stats){ (int64_t)calls, total, self };
}

static void runtime_window(cgm_model *m)
{
	m->has_runtime = true;
	m->runtime_window = WINDOW_TEXT;
}

/* Paths are given in the model's order (frames, then lines). */
static void add_path(cgm_model *m, int nframes, const char *const *frames, const int *lines,
		     int64_t calls, double total, double self, double min, double max)
{
	m->paths = cgm_arena_grow(m->arena, m->paths, (size_t)m->npaths, (size_t)m->npaths + 1,
				  sizeof(cgm_call_path));
	cgm_call_path *p = &m->paths[m->npaths++];
	p->nframes = nframes;
	p->frames = cgm_arena_alloc(m->arena, sizeof(char *) * (size_t)nframes);
	p->lines = cgm_arena_alloc(m->arena, sizeof(int) * (size_t)nframes);
	for (int i = 0; i < nframes; i++) {
		p->frames[i] = frames[i];
		p->lines[i] = lines[i];
	}
	p->stats = (cgm_runtime_stats){ calls, total, self };
	p->min_ms = min;
	p->max_ms = max;
}

static void add_shape(cgm_model *m, const char *entry, int64_t calls, int nedges,
		      const cgm_shape_edge *edges)
{
	m->shapes = cgm_arena_grow(m->arena, m->shapes, (size_t)m->nshapes, (size_t)m->nshapes + 1,
				   sizeof(cgm_call_shape));
	cgm_call_shape *s = &m->shapes[m->nshapes++];
	s->entry = entry;
	s->calls = calls;
	s->nedges = nedges;
	s->edges = (cgm_shape_edge *)edges;
}

static void add_bucket(cgm_model *m, const char *function, const char *start, int64_t calls,
		       double self)
{
	m->buckets = cgm_arena_grow(m->arena, m->buckets, (size_t)m->nbuckets,
				    (size_t)m->nbuckets + 1, sizeof(cgm_time_bucket));
	m->buckets[m->nbuckets++] = (cgm_time_bucket){ function, start, calls, self };
}

#define MAIN "app.main()"
#define MID "app.mid(integer)"
#define LEAF "app.leaf()"
#define REC "app.rec(integer)"
#define T0 "2026-11-29T10:00:00Z"
#define T1 "2026-11-29T10:01:00Z"

static const cgm_shape_edge main_all[] = { { MAIN, LEAF, 7, false },
					   { MAIN, MID, 3, false },
					   { MID, LEAF, 5, false } };
static const cgm_shape_edge main_mid[] = { { MAIN, MID, 3, false }, { MID, LEAF, 5, true } };
static const cgm_shape_edge rec_self[] = { { REC, REC, 4, false } };

/* with_paths: the cgmap_trace 1.3 rows too; else only function figures. */
static cgm_model *sample(bool with_paths)
{
	cgm_model *m = cgm_model_new();
	add_function(m, "app.idle()", 0, 0, 0);
	add_function(m, LEAF, 6, 3.0, 3.0);
	add_function(m, MAIN, 2, 8.0, 2.0);
	add_function(m, MID, 4, 5.0, 3.0);
	add_function(m, REC, 3, 0.75, 0.75);
	cgm_model_index(m);
	runtime_window(m);
	if (!with_paths)
		return m;
	add_path(m, 1, (const char *[]){ MAIN }, (const int[]){ 0 }, 2, 8.0, 2.0, 3.5, 4.5);
	add_path(m, 2, (const char *[]){ MAIN, LEAF }, (const int[]){ 0, 7 }, 2, 1.0, 1.0, 0.25,
		 0.75);
	add_path(m, 2, (const char *[]){ MAIN, MID }, (const int[]){ 0, 3 }, 4, 5.0, 3.0, 1.0, 1.5);
	add_path(m, 3, (const char *[]){ MAIN, MID, LEAF }, (const int[]){ 0, 3, 5 }, 4, 2.0, 2.0,
		 0.5, 0.5);
	add_path(m, 1, (const char *[]){ REC }, (const int[]){ 0 }, 1, 0.75, 0.25, 0.75, 0.75);
	add_path(m, 3, (const char *[]){ REC, "...", REC }, (const int[]){ 0, 0, 4 }, 1, 0.25, 0.25,
		 0.25, 0.25);
	add_path(m, 2, (const char *[]){ REC, REC }, (const int[]){ 0, 4 }, 1, 0.5, 0.25, 0.5, 0.5);
	add_shape(m, LEAF, 2, 0, NULL);
	add_shape(m, MAIN, 1, 3, main_all);
	add_shape(m, MAIN, 3, 2, main_mid);
	add_shape(m, REC, 1, 1, rec_self);
	/* by function, then start */
	add_bucket(m, LEAF, T0, 6, 1.0);
	add_bucket(m, LEAF, T1, 4, 2.0);
	add_bucket(m, MAIN, T0, 2, 2.0);
	add_bucket(m, MAIN, T1, 1, 0.5);
	add_bucket(m, MID, T0, 4, 1.5);
	add_bucket(m, REC, T0, 3, 0.5);
	add_bucket(m, "app.t1()", T0, 1, 0.25);
	add_bucket(m, "app.t2()", T0, 1, 0.125);
	add_bucket(m, "app.t3()", T0, 2, 0.125);
	return m;
}

static char *render(const cgm_model *m, const char *kind, const char *format)
{
	cgm_report_kind k;
	cgm_report_format f;
	assert_int_equal(cgm_report_kind_parse(&k, kind), 0);
	assert_int_equal(cgm_report_format_parse(&f, format), 0);
	cgm_strbuf out = CGM_STRBUF_INIT;
	assert_int_equal(cgm_report_write(&out, m, k, f), 0);
	char *s = strdup(cgm_strbuf_cstr(&out));
	cgm_strbuf_free(&out);
	return s;
}

static void expect(const cgm_model *m, const char *kind, const char *format, const char *want)
{
	char *got = render(m, kind, format);
	if (strcmp(got, want) != 0) {
		print_error("report %s --format %s:\n--- got ---\n%s--- want ---\n%s", kind, format,
			    got, want);
		free(got);
		fail();
	}
	free(got);
}

static void test_every_kind_every_format(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	expect(m, "profile", "text",
	       "# Profile: 4\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "app.leaf() self 3.000 ms (34.3%) calls 6 total 3.000 ms avg 0.500 ms min 0.250 ms max 0.750 ms\n"
	       "app.mid(integer) self 3.000 ms (34.3%) calls 4 total 5.000 ms avg 1.250 ms min 1.000 ms max 1.500 ms\n"
	       "app.main() self 2.000 ms (22.9%) calls 2 total 8.000 ms avg 4.000 ms min 3.500 ms max 4.500 ms\n"
	       "app.rec(integer) self 0.750 ms (8.6%) calls 3 total 0.750 ms avg 0.500 ms min 0.250 ms max 0.750 ms\n");
	expect(m, "profile", "csv",
	       "function,schema,self_ms,self_pct,calls,total_ms,avg_ms,min_ms,max_ms\r\n"
	       "app.leaf(),app,3.000,34.3,6,3.000,0.500,0.250,0.750\r\n"
	       "app.mid(integer),app,3.000,34.3,4,5.000,1.250,1.000,1.500\r\n"
	       "app.main(),app,2.000,22.9,2,8.000,4.000,3.500,4.500\r\n"
	       "app.rec(integer),app,0.750,8.6,3,0.750,0.500,0.250,0.750\r\n");
	expect(m, "profile", "markdown",
	       "## Profile (4)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "| function | schema | self_ms | self_pct | calls | total_ms | avg_ms | min_ms | max_ms |\n"
	       "|---|---|--:|--:|--:|--:|--:|--:|--:|\n"
	       "| app.leaf\\(\\) | app | 3\\.000 | 34\\.3 | 6 | 3\\.000 | 0\\.500 | 0\\.250 | 0\\.750 |\n"
	       "| app.mid\\(integer\\) | app | 3\\.000 | 34\\.3 | 4 | 5\\.000 | 1\\.250 | 1\\.000 | 1\\.500 |\n"
	       "| app.main\\(\\) | app | 2\\.000 | 22\\.9 | 2 | 8\\.000 | 4\\.000 | 3\\.500 | 4\\.500 |\n"
	       "| app.rec\\(integer\\) | app | 0\\.750 | 8\\.6 | 3 | 0\\.750 | 0\\.500 | 0\\.250 | 0\\.750 |\n");
	expect(m, "profile", "json",
	       "{\n"
	       "  \"report\": \"profile\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": null,\n"
	       "  \"count\": 4,\n"
	       "  \"rows\": [\n"
	       "    {\"function\": \"app.leaf()\", \"schema\": \"app\", \"self_ms\": 3.000, \"self_pct\": 34.3, \"calls\": 6, \"total_ms\": 3.000, \"avg_ms\": 0.500, \"min_ms\": 0.250, \"max_ms\": 0.750},\n"
	       "    {\"function\": \"app.mid(integer)\", \"schema\": \"app\", \"self_ms\": 3.000, \"self_pct\": 34.3, \"calls\": 4, \"total_ms\": 5.000, \"avg_ms\": 1.250, \"min_ms\": 1.000, \"max_ms\": 1.500},\n"
	       "    {\"function\": \"app.main()\", \"schema\": \"app\", \"self_ms\": 2.000, \"self_pct\": 22.9, \"calls\": 2, \"total_ms\": 8.000, \"avg_ms\": 4.000, \"min_ms\": 3.500, \"max_ms\": 4.500},\n"
	       "    {\"function\": \"app.rec(integer)\", \"schema\": \"app\", \"self_ms\": 0.750, \"self_pct\": 8.6, \"calls\": 3, \"total_ms\": 0.750, \"avg_ms\": 0.500, \"min_ms\": 0.250, \"max_ms\": 0.750}\n"
	       "  ]\n"
	       "}\n");
	expect(m, "paths", "text",
	       "# Call paths: 7\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "app.main() calls 2 total 8.000 ms self 2.000 ms min 3.500 ms max 4.500 ms\n"
	       "app.main() > app.mid(integer) (line 3) calls 4 total 5.000 ms self 3.000 ms min 1.000 ms max 1.500 ms\n"
	       "app.main() > app.mid(integer) (line 3) > app.leaf() (line 5) calls 4 total 2.000 ms self 2.000 ms min 0.500 ms max 0.500 ms\n"
	       "app.main() > app.leaf() (line 7) calls 2 total 1.000 ms self 1.000 ms min 0.250 ms max 0.750 ms\n"
	       "app.rec(integer) calls 1 total 0.750 ms self 0.250 ms min 0.750 ms max 0.750 ms\n"
	       "app.rec(integer) > app.rec(integer) (line 4) calls 1 total 0.500 ms self 0.250 ms min 0.500 ms max 0.500 ms\n"
	       "app.rec(integer) > ... > app.rec(integer) (line 4) calls 1 total 0.250 ms self 0.250 ms min 0.250 ms max 0.250 ms\n");
	expect(m, "paths", "csv",
	       "path,entry,function,depth,calls,total_ms,self_ms,min_ms,max_ms\r\n"
	       "app.main(),app.main(),app.main(),1,2,8.000,2.000,3.500,4.500\r\n"
	       "app.main() > app.mid(integer) (line 3),app.main(),app.mid(integer),2,4,5.000,3.000,1.000,1.500\r\n"
	       "app.main() > app.mid(integer) (line 3) > app.leaf() (line 5),app.main(),app.leaf(),3,4,2.000,2.000,0.500,0.500\r\n"
	       "app.main() > app.leaf() (line 7),app.main(),app.leaf(),2,2,1.000,1.000,0.250,0.750\r\n"
	       "app.rec(integer),app.rec(integer),app.rec(integer),1,1,0.750,0.250,0.750,0.750\r\n"
	       "app.rec(integer) > app.rec(integer) (line 4),app.rec(integer),app.rec(integer),2,1,0.500,0.250,0.500,0.500\r\n"
	       "app.rec(integer) > ... > app.rec(integer) (line 4),app.rec(integer),app.rec(integer),3,1,0.250,0.250,0.250,0.250\r\n");
	expect(m, "paths", "markdown",
	       "## Call paths (7)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "| path | entry | function | depth | calls | total_ms | self_ms | min_ms | max_ms |\n"
	       "|---|---|---|--:|--:|--:|--:|--:|--:|\n"
	       "| app.main\\(\\) | app.main\\(\\) | app.main\\(\\) | 1 | 2 | 8\\.000 | 2\\.000 | 3\\.500 | 4\\.500 |\n"
	       "| app.main\\(\\) \\> app.mid\\(integer\\) \\(line 3\\) | app.main\\(\\) | app.mid\\(integer\\) | 2 | 4 | 5\\.000 | 3\\.000 | 1\\.000 | 1\\.500 |\n"
	       "| app.main\\(\\) \\> app.mid\\(integer\\) \\(line 3\\) \\> app.leaf\\(\\) \\(line 5\\) | app.main\\(\\) | app.leaf\\(\\) | 3 | 4 | 2\\.000 | 2\\.000 | 0\\.500 | 0\\.500 |\n"
	       "| app.main\\(\\) \\> app.leaf\\(\\) \\(line 7\\) | app.main\\(\\) | app.leaf\\(\\) | 2 | 2 | 1\\.000 | 1\\.000 | 0\\.250 | 0\\.750 |\n"
	       "| app.rec\\(integer\\) | app.rec\\(integer\\) | app.rec\\(integer\\) | 1 | 1 | 0\\.750 | 0\\.250 | 0\\.750 | 0\\.750 |\n"
	       "| app.rec\\(integer\\) \\> app.rec\\(integer\\) \\(line 4\\) | app.rec\\(integer\\) | app.rec\\(integer\\) | 2 | 1 | 0\\.500 | 0\\.250 | 0\\.500 | 0\\.500 |\n"
	       "| app.rec\\(integer\\) \\> ... \\> app.rec\\(integer\\) \\(line 4\\) | app.rec\\(integer\\) | app.rec\\(integer\\) | 3 | 1 | 0\\.250 | 0\\.250 | 0\\.250 | 0\\.250 |\n");
	expect(m, "paths", "json",
	       "{\n"
	       "  \"report\": \"paths\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": null,\n"
	       "  \"count\": 7,\n"
	       "  \"rows\": [\n"
	       "    {\"path\": \"app.main()\", \"entry\": \"app.main()\", \"function\": \"app.main()\", \"depth\": 1, \"calls\": 2, \"total_ms\": 8.000, \"self_ms\": 2.000, \"min_ms\": 3.500, \"max_ms\": 4.500},\n"
	       "    {\"path\": \"app.main() \\u003e app.mid(integer) (line 3)\", \"entry\": \"app.main()\", \"function\": \"app.mid(integer)\", \"depth\": 2, \"calls\": 4, \"total_ms\": 5.000, \"self_ms\": 3.000, \"min_ms\": 1.000, \"max_ms\": 1.500},\n"
	       "    {\"path\": \"app.main() \\u003e app.mid(integer) (line 3) \\u003e app.leaf() (line 5)\", \"entry\": \"app.main()\", \"function\": \"app.leaf()\", \"depth\": 3, \"calls\": 4, \"total_ms\": 2.000, \"self_ms\": 2.000, \"min_ms\": 0.500, \"max_ms\": 0.500},\n"
	       "    {\"path\": \"app.main() \\u003e app.leaf() (line 7)\", \"entry\": \"app.main()\", \"function\": \"app.leaf()\", \"depth\": 2, \"calls\": 2, \"total_ms\": 1.000, \"self_ms\": 1.000, \"min_ms\": 0.250, \"max_ms\": 0.750},\n"
	       "    {\"path\": \"app.rec(integer)\", \"entry\": \"app.rec(integer)\", \"function\": \"app.rec(integer)\", \"depth\": 1, \"calls\": 1, \"total_ms\": 0.750, \"self_ms\": 0.250, \"min_ms\": 0.750, \"max_ms\": 0.750},\n"
	       "    {\"path\": \"app.rec(integer) \\u003e app.rec(integer) (line 4)\", \"entry\": \"app.rec(integer)\", \"function\": \"app.rec(integer)\", \"depth\": 2, \"calls\": 1, \"total_ms\": 0.500, \"self_ms\": 0.250, \"min_ms\": 0.500, \"max_ms\": 0.500},\n"
	       "    {\"path\": \"app.rec(integer) \\u003e ... \\u003e app.rec(integer) (line 4)\", \"entry\": \"app.rec(integer)\", \"function\": \"app.rec(integer)\", \"depth\": 3, \"calls\": 1, \"total_ms\": 0.250, \"self_ms\": 0.250, \"min_ms\": 0.250, \"max_ms\": 0.250}\n"
	       "  ]\n"
	       "}\n");
	expect(m, "timeline", "text",
	       "# Timeline: 8\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "# per bucket the 5 functions of most exclusive time, the others summed as \"other\" (csv and json list them all)\n"
	       "2026-11-29T10:00:00Z app.main() calls 2 self 2.000 ms\n"
	       "2026-11-29T10:00:00Z app.mid(integer) calls 4 self 1.500 ms\n"
	       "2026-11-29T10:00:00Z app.leaf() calls 6 self 1.000 ms\n"
	       "2026-11-29T10:00:00Z app.rec(integer) calls 3 self 0.500 ms\n"
	       "2026-11-29T10:00:00Z app.t1() calls 1 self 0.250 ms\n"
	       "2026-11-29T10:00:00Z other (2 functions) calls 3 self 0.250 ms\n"
	       "2026-11-29T10:01:00Z app.leaf() calls 4 self 2.000 ms\n"
	       "2026-11-29T10:01:00Z app.main() calls 1 self 0.500 ms\n");
	expect(m, "timeline", "csv",
	       "start,function,calls,self_ms\r\n"
	       "2026-11-29T10:00:00Z,app.main(),2,2.000\r\n"
	       "2026-11-29T10:00:00Z,app.mid(integer),4,1.500\r\n"
	       "2026-11-29T10:00:00Z,app.leaf(),6,1.000\r\n"
	       "2026-11-29T10:00:00Z,app.rec(integer),3,0.500\r\n"
	       "2026-11-29T10:00:00Z,app.t1(),1,0.250\r\n"
	       "2026-11-29T10:00:00Z,app.t3(),2,0.125\r\n"
	       "2026-11-29T10:00:00Z,app.t2(),1,0.125\r\n"
	       "2026-11-29T10:01:00Z,app.leaf(),4,2.000\r\n"
	       "2026-11-29T10:01:00Z,app.main(),1,0.500\r\n");
	expect(m, "timeline", "markdown",
	       "## Timeline (8)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "per bucket the 5 functions of most exclusive time, the others summed as \"other\" \\(csv and json list them all\\).\n"
	       "\n"
	       "| start | function | calls | self_ms |\n"
	       "|---|---|--:|--:|\n"
	       "| 2026-11-29T10:00:00Z | app.main\\(\\) | 2 | 2\\.000 |\n"
	       "| 2026-11-29T10:00:00Z | app.mid\\(integer\\) | 4 | 1\\.500 |\n"
	       "| 2026-11-29T10:00:00Z | app.leaf\\(\\) | 6 | 1\\.000 |\n"
	       "| 2026-11-29T10:00:00Z | app.rec\\(integer\\) | 3 | 0\\.500 |\n"
	       "| 2026-11-29T10:00:00Z | app.t1\\(\\) | 1 | 0\\.250 |\n"
	       "| 2026-11-29T10:00:00Z | other \\(2 functions\\) | 3 | 0\\.250 |\n"
	       "| 2026-11-29T10:01:00Z | app.leaf\\(\\) | 4 | 2\\.000 |\n"
	       "| 2026-11-29T10:01:00Z | app.main\\(\\) | 1 | 0\\.500 |\n");
	expect(m, "timeline", "json",
	       "{\n"
	       "  \"report\": \"timeline\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": null,\n"
	       "  \"count\": 9,\n"
	       "  \"rows\": [\n"
	       "    {\"start\": \"2026-11-29T10:00:00Z\", \"function\": \"app.main()\", \"calls\": 2, \"self_ms\": 2.000},\n"
	       "    {\"start\": \"2026-11-29T10:00:00Z\", \"function\": \"app.mid(integer)\", \"calls\": 4, \"self_ms\": 1.500},\n"
	       "    {\"start\": \"2026-11-29T10:00:00Z\", \"function\": \"app.leaf()\", \"calls\": 6, \"self_ms\": 1.000},\n"
	       "    {\"start\": \"2026-11-29T10:00:00Z\", \"function\": \"app.rec(integer)\", \"calls\": 3, \"self_ms\": 0.500},\n"
	       "    {\"start\": \"2026-11-29T10:00:00Z\", \"function\": \"app.t1()\", \"calls\": 1, \"self_ms\": 0.250},\n"
	       "    {\"start\": \"2026-11-29T10:00:00Z\", \"function\": \"app.t3()\", \"calls\": 2, \"self_ms\": 0.125},\n"
	       "    {\"start\": \"2026-11-29T10:00:00Z\", \"function\": \"app.t2()\", \"calls\": 1, \"self_ms\": 0.125},\n"
	       "    {\"start\": \"2026-11-29T10:01:00Z\", \"function\": \"app.leaf()\", \"calls\": 4, \"self_ms\": 2.000},\n"
	       "    {\"start\": \"2026-11-29T10:01:00Z\", \"function\": \"app.main()\", \"calls\": 1, \"self_ms\": 0.500}\n"
	       "  ]\n"
	       "}\n");
	expect(m, "shapes", "text",
	       "# Call shapes: 4\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "app.leaf() shape 1: calls 2 (100.0%), no edges (called nothing)\n"
	       "app.main() shape 1: calls 3 (75.0%), 2 edges: app.main() -> app.mid(integer) line 3; app.mid(integer) -> app.leaf() line 5 dynamic\n"
	       "app.main() shape 2: calls 1 (25.0%), 3 edges: app.main() -> app.leaf() line 7; app.main() -> app.mid(integer) line 3; app.mid(integer) -> app.leaf() line 5\n"
	       "app.rec(integer) shape 1: calls 1 (100.0%), 1 edge: app.rec(integer) -> app.rec(integer) line 4\n");
	expect(m, "shapes", "csv",
	       "entry,shape,calls,share_pct,nedges,edges\r\n"
	       "app.leaf(),1,2,100.0,0,\r\n"
	       "app.main(),1,3,75.0,2,app.main() -> app.mid(integer) line 3; app.mid(integer) -> app.leaf() line 5 dynamic\r\n"
	       "app.main(),2,1,25.0,3,app.main() -> app.leaf() line 7; app.main() -> app.mid(integer) line 3; app.mid(integer) -> app.leaf() line 5\r\n"
	       "app.rec(integer),1,1,100.0,1,app.rec(integer) -> app.rec(integer) line 4\r\n");
	expect(m, "shapes", "markdown",
	       "## Call shapes (4)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "| entry | shape | calls | share_pct | nedges | edges |\n"
	       "|---|--:|--:|--:|--:|---|\n"
	       "| app.leaf\\(\\) | 1 | 2 | 100\\.0 | 0 |  |\n"
	       "| app.main\\(\\) | 1 | 3 | 75\\.0 | 2 | app.main\\(\\) -\\> app.mid\\(integer\\) line 3; app.mid\\(integer\\) -\\> app.leaf\\(\\) line 5 dynamic |\n"
	       "| app.main\\(\\) | 2 | 1 | 25\\.0 | 3 | app.main\\(\\) -\\> app.leaf\\(\\) line 7; app.main\\(\\) -\\> app.mid\\(integer\\) line 3; app.mid\\(integer\\) -\\> app.leaf\\(\\) line 5 |\n"
	       "| app.rec\\(integer\\) | 1 | 1 | 100\\.0 | 1 | app.rec\\(integer\\) -\\> app.rec\\(integer\\) line 4 |\n");
	expect(m, "shapes", "json",
	       "{\n"
	       "  \"report\": \"shapes\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": null,\n"
	       "  \"count\": 4,\n"
	       "  \"rows\": [\n"
	       "    {\"entry\": \"app.leaf()\", \"shape\": 1, \"calls\": 2, \"share_pct\": 100.0, \"nedges\": 0, \"edges\": \"\"},\n"
	       "    {\"entry\": \"app.main()\", \"shape\": 1, \"calls\": 3, \"share_pct\": 75.0, \"nedges\": 2, \"edges\": \"app.main() -\\u003e app.mid(integer) line 3; app.mid(integer) -\\u003e app.leaf() line 5 dynamic\"},\n"
	       "    {\"entry\": \"app.main()\", \"shape\": 2, \"calls\": 1, \"share_pct\": 25.0, \"nedges\": 3, \"edges\": \"app.main() -\\u003e app.leaf() line 7; app.main() -\\u003e app.mid(integer) line 3; app.mid(integer) -\\u003e app.leaf() line 5\"},\n"
	       "    {\"entry\": \"app.rec(integer)\", \"shape\": 1, \"calls\": 1, \"share_pct\": 100.0, \"nedges\": 1, \"edges\": \"app.rec(integer) -\\u003e app.rec(integer) line 4\"}\n"
	       "  ]\n"
	       "}\n");
	cgm_model_free(m);
}

static void test_function_figures_without_paths(void **state)
{
	(void)state;
	cgm_model *m = sample(false);
	expect(m, "profile", "text",
	       "# Profile: 4\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "# no call paths: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded; the least and greatest time of one call are unknown\n"
	       "app.leaf() self 3.000 ms (34.3%) calls 6 total 3.000 ms avg 0.500 ms\n"
	       "app.mid(integer) self 3.000 ms (34.3%) calls 4 total 5.000 ms avg 1.250 ms\n"
	       "app.main() self 2.000 ms (22.9%) calls 2 total 8.000 ms avg 4.000 ms\n"
	       "app.rec(integer) self 0.750 ms (8.6%) calls 3 total 0.750 ms avg 0.250 ms\n");
	expect(m, "profile", "csv",
	       "function,schema,self_ms,self_pct,calls,total_ms,avg_ms,min_ms,max_ms\r\n"
	       "app.leaf(),app,3.000,34.3,6,3.000,0.500,,\r\n"
	       "app.mid(integer),app,3.000,34.3,4,5.000,1.250,,\r\n"
	       "app.main(),app,2.000,22.9,2,8.000,4.000,,\r\n"
	       "app.rec(integer),app,0.750,8.6,3,0.750,0.250,,\r\n");
	expect(m, "profile", "markdown",
	       "## Profile (4)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "no call paths: the runtime data came from cgmap\\_trace before 1.3, from function statistics or from a log, or no traced call was recorded; the least and greatest time of one call are unknown.\n"
	       "\n"
	       "| function | schema | self_ms | self_pct | calls | total_ms | avg_ms | min_ms | max_ms |\n"
	       "|---|---|--:|--:|--:|--:|--:|--:|--:|\n"
	       "| app.leaf\\(\\) | app | 3\\.000 | 34\\.3 | 6 | 3\\.000 | 0\\.500 |  |  |\n"
	       "| app.mid\\(integer\\) | app | 3\\.000 | 34\\.3 | 4 | 5\\.000 | 1\\.250 |  |  |\n"
	       "| app.main\\(\\) | app | 2\\.000 | 22\\.9 | 2 | 8\\.000 | 4\\.000 |  |  |\n"
	       "| app.rec\\(integer\\) | app | 0\\.750 | 8\\.6 | 3 | 0\\.750 | 0\\.250 |  |  |\n");
	expect(m, "profile", "json",
	       "{\n"
	       "  \"report\": \"profile\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": \"no call paths: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded; the least and greatest time of one call are unknown\",\n"
	       "  \"count\": 4,\n"
	       "  \"rows\": [\n"
	       "    {\"function\": \"app.leaf()\", \"schema\": \"app\", \"self_ms\": 3.000, \"self_pct\": 34.3, \"calls\": 6, \"total_ms\": 3.000, \"avg_ms\": 0.500, \"min_ms\": null, \"max_ms\": null},\n"
	       "    {\"function\": \"app.mid(integer)\", \"schema\": \"app\", \"self_ms\": 3.000, \"self_pct\": 34.3, \"calls\": 4, \"total_ms\": 5.000, \"avg_ms\": 1.250, \"min_ms\": null, \"max_ms\": null},\n"
	       "    {\"function\": \"app.main()\", \"schema\": \"app\", \"self_ms\": 2.000, \"self_pct\": 22.9, \"calls\": 2, \"total_ms\": 8.000, \"avg_ms\": 4.000, \"min_ms\": null, \"max_ms\": null},\n"
	       "    {\"function\": \"app.rec(integer)\", \"schema\": \"app\", \"self_ms\": 0.750, \"self_pct\": 8.6, \"calls\": 3, \"total_ms\": 0.750, \"avg_ms\": 0.250, \"min_ms\": null, \"max_ms\": null}\n"
	       "  ]\n"
	       "}\n");
	expect(m, "paths", "text",
	       "# Call paths: 0\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "# no call paths: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded\n");
	expect(m, "paths", "csv",
	       "path,entry,function,depth,calls,total_ms,self_ms,min_ms,max_ms\r\n");
	expect(m, "paths", "markdown",
	       "## Call paths (0)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "no call paths: the runtime data came from cgmap\\_trace before 1.3, from function statistics or from a log, or no traced call was recorded.\n"
	       "\n"
	       "None.\n");
	expect(m, "paths", "json",
	       "{\n"
	       "  \"report\": \"paths\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": \"no call paths: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded\",\n"
	       "  \"count\": 0,\n"
	       "  \"rows\": []\n"
	       "}\n");
	expect(m, "timeline", "text",
	       "# Timeline: 0\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "# no timeline: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded\n");
	expect(m, "timeline", "csv",
	       "start,function,calls,self_ms\r\n");
	expect(m, "timeline", "markdown",
	       "## Timeline (0)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "no timeline: the runtime data came from cgmap\\_trace before 1.3, from function statistics or from a log, or no traced call was recorded.\n"
	       "\n"
	       "None.\n");
	expect(m, "timeline", "json",
	       "{\n"
	       "  \"report\": \"timeline\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": \"no timeline: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded\",\n"
	       "  \"count\": 0,\n"
	       "  \"rows\": []\n"
	       "}\n");
	expect(m, "shapes", "text",
	       "# Call shapes: 0\n"
	       "# runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\n"
	       "# no call shapes: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded\n");
	expect(m, "shapes", "csv",
	       "entry,shape,calls,share_pct,nedges,edges\r\n");
	expect(m, "shapes", "markdown",
	       "## Call shapes (0)\n"
	       "\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n"
	       "\n"
	       "no call shapes: the runtime data came from cgmap\\_trace before 1.3, from function statistics or from a log, or no traced call was recorded.\n"
	       "\n"
	       "None.\n");
	expect(m, "shapes", "json",
	       "{\n"
	       "  \"report\": \"shapes\",\n"
	       "  \"runtime\": true,\n"
	       "  \"window\": \"2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z (database demo)\",\n"
	       "  \"note\": \"no call shapes: the runtime data came from cgmap_trace before 1.3, from function statistics or from a log, or no traced call was recorded\",\n"
	       "  \"count\": 0,\n"
	       "  \"rows\": []\n"
	       "}\n");
	cgm_model_free(m);
}

static void test_without_runtime(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	add_function(m, MAIN, 0, 0, 0);
	cgm_model_index(m);
	expect(m, "profile", "text",
	       "# Profile: 0\n"
	       "# no runtime data: no function was measured\n");
	expect(m, "paths", "text",
	       "# Call paths: 0\n"
	       "# no runtime data: no call path was recorded\n");
	expect(m, "timeline", "text",
	       "# Timeline: 0\n"
	       "# no runtime data: no timeline was recorded\n");
	expect(m, "shapes", "markdown",
	       "## Call shapes (0)\n\n"
	       "No runtime data: no call shape was recorded.\n\n"
	       "None.\n");
	expect(m, "paths", "json",
	       "{\n"
	       "  \"report\": \"paths\",\n"
	       "  \"runtime\": false,\n"
	       "  \"window\": null,\n"
	       "  \"note\": \"no runtime data: no call path was recorded\",\n"
	       "  \"count\": 0,\n"
	       "  \"rows\": []\n"
	       "}\n");
	cgm_strbuf b = CGM_STRBUF_INIT;
	assert_int_equal(cgm_stacks_folded(&b, m), 0);
	assert_int_equal(b.len, 0);
	cgm_strbuf_free(&b);
	cgm_model_free(m);
}

static char *folded(const cgm_model *m, int *lines)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	*lines = cgm_stacks_folded(&b, m);
	char *s = strdup(cgm_strbuf_cstr(&b));
	cgm_strbuf_free(&b);
	return s;
}

static void test_folded_stacks(void **state)
{
	(void)state;
	cgm_model *m = sample(true);
	int n;
	char *s = folded(m, &n);
	/* byte order of the stacks; exclusive microseconds summing to the
	 * functions' 8.75 ms */
	assert_string_equal(s, "app.main() 2000\n"
			       "app.main();app.leaf() 1000\n"
			       "app.main();app.mid(integer) 3000\n"
			       "app.main();app.mid(integer);app.leaf() 2000\n"
			       "app.rec(integer) 250\n"
			       "app.rec(integer);...;app.rec(integer) 250\n"
			       "app.rec(integer);app.rec(integer) 250\n");
	assert_int_equal(n, 7);
	free(s);
	cgm_model_free(m);

	/* Paths that differ only by lines are one stack; a name's ';', space,
	 * '%' and controls are %XX; times round once per stack. */
	m = cgm_model_new();
	const char *odd = "app.\"a b;c%\nd\"(character varying)";
	add_path(m, 2, (const char *[]){ MAIN, LEAF }, (const int[]){ 0, 3 }, 1, 0.0004, 0.0004,
		 0.0004, 0.0004);
	add_path(m, 2, (const char *[]){ MAIN, LEAF }, (const int[]){ 0, 8 }, 1, 0.0004, 0.0004,
		 0.0004, 0.0004);
	add_path(m, 2, (const char *[]){ MAIN, odd }, (const int[]){ 0, 4 }, 2, 1.5, 1.25, 0.5, 1.0);
	add_path(m, 1, (const char *[]){ odd }, (const int[]){ 0 }, 1, 0, 0, 0, 0);
	s = folded(m, &n);
	assert_string_equal(s, "app.\"a%20b%3Bc%25%0Ad\"(character%20varying) 0\n"
			       "app.main();app.\"a%20b%3Bc%25%0Ad\"(character%20varying) 1250\n"
			       "app.main();app.leaf() 1\n");
	assert_int_equal(n, 3);
	free(s);
	cgm_model_free(m);
}

static void test_names_shown_escaped(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	const char *odd = "app.\"x\nfake\"()";
	add_function(m, odd, 1, 1.0, 1.0);
	cgm_model_index(m);
	runtime_window(m);
	/* It calls itself once: the outer call's path and the inner one's. */
	add_path(m, 1, (const char *[]){ odd }, (const int[]){ 0 }, 1, 1.0, 0.0, 1.0, 1.0);
	add_path(m, 2, (const char *[]){ odd, odd }, (const int[]){ 0, 2 }, 1, 1.0, 1.0, 1.0, 1.0);
	static const cgm_shape_edge edges[] = { { "app.\"x\nfake\"()", "app.\"x\nfake\"()", 2,
						  false } };
	add_shape(m, odd, 1, 1, edges);
	expect(m, "paths", "text",
	       "# Call paths: 2\n" WINDOW
	       "app.\"x\\nfake\"() calls 1 total 1.000 ms self 0.000 ms min 1.000 ms max 1.000 ms\n"
	       "app.\"x\\nfake\"() > app.\"x\\nfake\"() (line 2) calls 1 total 1.000 ms self 1.000 ms "
	       "min 1.000 ms max 1.000 ms\n");
	expect(m, "shapes", "csv",
	       "entry,shape,calls,share_pct,nedges,edges\r\n"
	       "\"app.\"\"x\nfake\"\"()\",1,1,100.0,1,\"app.\"\"x\nfake\"\"() -> app.\"\"x\nfake\"\"() "
	       "line 2\"\r\n");
	expect(m, "profile", "markdown",
	       "## Profile (1)\n\n"
	       "Runtime data covers 2026-11-29T10:00:00Z to 2026-11-29T11:00:00Z \\(database demo\\).\n\n"
	       "| function | schema | self_ms | self_pct | calls | total_ms | avg_ms | min_ms | max_ms |\n"
	       "|---|---|--:|--:|--:|--:|--:|--:|--:|\n"
	       "| app.\"x<br>fake\"\\(\\) | app | 1\\.000 | 100\\.0 | 2 | 1\\.000 | 1\\.000 | 1\\.000 "
	       "| 1\\.000 |\n");
	cgm_model_free(m);
}

static void test_kind_names(void **state)
{
	(void)state;
	const char *names[] = { "profile", "paths", "timeline", "shapes" };
	const cgm_report_kind kinds[] = { CGM_REPORT_PROFILE, CGM_REPORT_PATHS, CGM_REPORT_TIMELINE,
					  CGM_REPORT_SHAPES };
	for (int i = 0; i < 4; i++) {
		cgm_report_kind k;
		assert_int_equal(cgm_report_kind_parse(&k, names[i]), 0);
		assert_int_equal(k, kinds[i]);
	}
	cgm_report_kind k;
	assert_true(cgm_report_kind_parse(&k, "flame") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_every_format),
		cmocka_unit_test(test_function_figures_without_paths),
		cmocka_unit_test(test_without_runtime),
		cmocka_unit_test(test_folded_stacks),
		cmocka_unit_test(test_names_shown_escaped),
		cmocka_unit_test(test_kind_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
