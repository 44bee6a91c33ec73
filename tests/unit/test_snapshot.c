/*
 * test_snapshot.c - the JSON snapshot: a hand-built model with every
 * feature is written, read back and written again (byte-identical), the
 * fields survive, derived lists are recomputed, and malformed inputs give
 * a CGM_EINPUT error naming the file and place, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cgmap/error.h"
#include "cgmap/infile.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"
#include "cgmap/runtime.h"
#include "cgmap/stacks.h"
#include "cgmap/strbuf.h"
#include "cgmap/strbuf.h"
#include "cgmap/verdict.h"

/* The map command (src/cmd.h), to check what it reports. */
int cmd_map(int argc, char **argv);

#define ODD_ID "\"Odd Schema\".\"Weird \"\"Name\"\"\"()"

static char tmpdir[256];

static int make_tmpdir(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/cgmap-snapshot-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The whole folder, whatever the tests left in it. */
static int remove_tmpdir(void **state)
{
	(void)state;
	nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static char *tmp_path(const char *name)
{
	static char path[8][512];
	static int next;
	char *p = path[next++ % 8];
	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ---- building the model by hand ---------------------------------- */

static const char **strs(cgm_model *m, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	const char **out = cgm_arena_alloc(m->arena, sizeof(char *) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		out[i] = cgm_arena_strdup(m->arena, va_arg(ap, const char *));
	va_end(ap);
	return out;
}

static int add_fn(cgm_model *m, const char *schema, const char *name, const char *args,
		  const char *id, const char *language)
{
	cgm_function *f = cgm_model_add_function(m);
	f->id = cgm_arena_strdup(m->arena, id);
	f->schema = cgm_arena_strdup(m->arena, schema);
	f->name = cgm_arena_strdup(m->arena, name);
	f->identity_args = cgm_arena_strdup(m->arena, args);
	f->arguments = cgm_arena_strdup(m->arena, args);
	f->result = "integer";
	f->language = cgm_arena_strdup(m->arena, language);
	f->analysed = strcmp(language, "plpgsql") == 0 || strcmp(language, "sql") == 0;
	f->builtin = strcmp(schema, "pg_catalog") == 0;
	f->npath = -1;
	f->scc = -1;
	f->source = f->analysed ? "BEGIN\n  RETURN 1;\nEND" : NULL;
	f->line_count = f->source ? 3 : 0;
	return m->nfunctions - 1;
}

static cgm_site *add_site(cgm_model *m, int fn, int line, cgm_site_kind kind, const char *schema,
			  const char *name, cgm_resolution res, int ntargets, ...)
{
	cgm_function *f = &m->functions[fn];
	f->sites = cgm_arena_grow(m->arena, f->sites, (size_t)f->nsites, (size_t)f->nsites + 1,
				  sizeof(cgm_site));
	cgm_site *s = &f->sites[f->nsites++];
	s->line = line;
	s->kind = kind;
	s->stmt = kind == CGM_SITE_PERFORM ? "perform" : "assign";
	s->schema = schema;
	s->name = name;
	s->resolution = res;
	s->ntargets = ntargets;
	s->targets = cgm_arena_alloc(m->arena, sizeof(int) * (size_t)(ntargets ? ntargets : 1));
	va_list ap;
	va_start(ap, ntargets);
	for (int i = 0; i < ntargets; i++)
		s->targets[i] = va_arg(ap, int);
	va_end(ap);
	return s;
}

static cgm_edge *add_edge(cgm_model *m, int from, int to, cgm_via via, unsigned prov, int nlines,
			  ...)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = from;
	e->to = to;
	e->via = via;
	e->provenance = prov;
	e->nlines = nlines;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int) * (size_t)(nlines ? nlines : 1));
	va_list ap;
	va_start(ap, nlines);
	for (int i = 0; i < nlines; i++)
		e->lines[i] = va_arg(ap, int);
	va_end(ap);
	return e;
}

/* Functions are added out of order, and cgm_model_index() sorts them, as a
 * real source does. */
static cgm_model *build_model(void)
{
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "demo";
	m->source.server_version = "15.4";
	m->source.npath = 2;
	m->source.default_search_path = strs(m, 2, "\"$user\"", "public");
	m->include_builtins = true;
	m->has_runtime = true;
	m->has_site_runs = true;
	m->runtime_window = "2026-11-29T10:00:00Z .. 2026-11-29T11:00:00Z";
	m->evidence.lost_records = 3; /* cgmap_trace's stale_removed */
	m->evidence.lost_to_full_table = 4; /* evicted from a full table */
	m->nruntime_sources = 1;
	m->runtime_sources = strs(m, 1, "database demo@localhost");
	/* cgmap_trace 1.3's paths, shapes and timeline */
	m->npaths = 2;
	m->paths = cgm_arena_alloc(m->arena, sizeof(*m->paths) * 2);
	memset(m->paths, 0, sizeof(*m->paths) * 2);
	m->paths[0].nframes = 1;
	m->paths[0].frames = strs(m, 1, "app.a()");
	m->paths[0].lines = cgm_arena_alloc(m->arena, sizeof(int) * 4);
	m->paths[0].lines[0] = 0;
	m->paths[0].stats = (cgm_runtime_stats){ 3, 1.5, 0.25 };
	m->paths[0].min_ms = 0.25;
	m->paths[0].max_ms = 0.75;
	m->paths[1].nframes = 3;
	m->paths[1].frames = strs(m, 3, "app.a()", "...", "app.b(integer)");
	m->paths[1].lines = m->paths[0].lines + 1;
	m->paths[1].lines[0] = 0;
	m->paths[1].lines[1] = 0;
	m->paths[1].lines[2] = 7;
	m->paths[1].stats = (cgm_runtime_stats){ 1, 2.0, 2.0 };
	m->paths[1].min_ms = 2.0;
	m->paths[1].max_ms = 2.0;
	m->nshapes = 2;
	m->shapes = cgm_arena_alloc(m->arena, sizeof(*m->shapes) * 2);
	memset(m->shapes, 0, sizeof(*m->shapes) * 2);
	m->shapes[0].entry = "app.a()";
	m->shapes[0].calls = 4;
	m->shapes[1].entry = "app.a()";
	m->shapes[1].calls = 1;
	m->shapes[1].nedges = 2;
	m->shapes[1].edges = cgm_arena_alloc(m->arena, sizeof(cgm_shape_edge) * 2);
	m->shapes[1].edges[0] = (cgm_shape_edge){ "app.a()", "app.b(integer)", 7, false };
	m->shapes[1].edges[1] = (cgm_shape_edge){ "app.a()", "app.dyn_target()", 9, true };
	m->nbuckets = 1;
	m->buckets = cgm_arena_alloc(m->arena, sizeof(*m->buckets));
	m->buckets[0] = (cgm_time_bucket){ "app.a()", "2026-11-29T10:59:00Z", 3, 0.25 };

	int upper = add_fn(m, "pg_catalog", "upper", "text", "upper(text)", "internal");
	int dyn = add_fn(m, "app", "dyn_target", "", "app.dyn_target()", "plpgsql");
	int a = add_fn(m, "app", "a", "", "app.a()", "plpgsql");
	int b = add_fn(m, "app", "b", "integer", "app.b(integer)", "sql");
	int over_i = add_fn(m, "app", "over", "integer", "app.over(integer)", "plpgsql");
	int over_b = add_fn(m, "app", "over", "bigint", "app.over(bigint)", "plpgsql");
	int audit = add_fn(m, "app", "audit", "", "app.audit()", "plpgsql");
	int odd = add_fn(m, "Odd Schema", "Weird \"Name\"", "", ODD_ID, "plpgsql");
	int broken = add_fn(m, "app", "broken", "", "app.broken()", "plpgsql");
	int cfn = add_fn(m, "app", "c_func", "integer", "app.c_func(integer)", "c");
	int lower = add_fn(m, "pg_catalog", "lower", "text", "lower(text)", "internal");
	int unused_builtin = add_fn(m, "pg_catalog", "now", "", "now()", "internal");
	(void)unused_builtin;

	cgm_function *f = &m->functions[b];
	f->nargs = 1;
	f->argtypes = strs(m, 1, "integer");
	f->argnames = cgm_arena_alloc(m->arena, sizeof(char *));
	f->argnames[0] = "n";
	f->ndefaults = 1;
	f->arguments = "n integer DEFAULT 0";
	f->npath = 2;
	f->search_path = strs(m, 2, "app", "pg_temp");
	f->body_hash = "0123abcd";
	f->body_version = "85944171f73967e8";
	f->runtime = (cgm_runtime_stats){ 42, 0.1, 1.0 / 3.0 };
	f->reachable = true;
	f->scc = 0;

	f = &m->functions[audit];
	f->is_trigger = true;
	f->result = "trigger";
	f->referenced = true;
	f->root = true;
	/* two branches for another server version: lines 3 and 5-8 */
	int *other = cgm_arena_alloc(m->arena, sizeof(int) * 5);
	other[0] = 2;
	other[1] = 3;
	other[2] = 3;
	other[3] = 5;
	other[4] = 8;
	f->other_version_lines = other;

	f = &m->functions[odd];
	f->comment = "says \"hi\" \\ and <b>bold</b>\n\ttabbed";
	f->source = "BEGIN\n  -- gr\xC3\xBC\xC3\x9F \xE6\x97\xA5\xE6\x9C\xAC \"q\" \\n\n  PERFORM app.b(1);\nEND";
	f->line_count = 4;
	f->file = "schema/odd \"file\".sql";
	f->file_line = 17;
	f->atomic_body = false;
	f->dead = true;
	f->cold = true;
	f->observed_entry = true;
	f->scc = 0;

	f = &m->functions[broken];
	f->nerrors = 2;
	f->errors = cgm_arena_alloc(m->arena, sizeof(cgm_parse_error) * 2);
	f->errors[0] = (cgm_parse_error){ 2, "syntax error at or near \"RETRUN\"" };
	f->errors[1] = (cgm_parse_error){ 0, "bad\x80 byte" }; /* invalid UTF-8 */

	m->functions[cfn].kind = CGM_KIND_FUNCTION;
	m->functions[cfn].from_extension = true;
	m->functions[cfn].variadic = true;
	m->functions[cfn].variadic_elem = "integer";
	m->functions[cfn].nargs = 1;
	m->functions[cfn].argtypes = strs(m, 1, "integer[]");

	/* app.a(): one site of every kind. */
	add_site(m, a, 3, CGM_SITE_CALL, NULL, "b", CGM_RES_RESOLVED, 1, b);
	cgm_site *s = add_site(m, a, 5, CGM_SITE_PERFORM, "app", "over", CGM_RES_AMBIGUOUS, 2, over_i,
			       over_b);
	s->nargs = 1;
	s->argtypes = strs(m, 1, "unknown");
	cgm_site_rare_of(m->arena, s)->argnames = cgm_arena_alloc(m->arena, sizeof(char *));
	s = add_site(m, a, 7, CGM_SITE_DYNAMIC, NULL, NULL, CGM_RES_NONE, 0);
	s->stmt = "dynexecute";
	cgm_site_rare_of(m->arena, s)->text = "format('SELECT %I()', fn_name)";
	cgm_site_rare_of(m->arena, s)->runs = 5; /* cgmap_trace 1.4 */
	s = add_site(m, a, 9, CGM_SITE_TRIGGER, "app", "orders", CGM_RES_RESOLVED, 1, audit);
	s->stmt = "execsql";
	cgm_site_rare_of(m->arena, s)->events = CGM_EV_INSERT | CGM_EV_UPDATE;
	s = add_site(m, a, 11, CGM_SITE_CALL, "nope", "gone", CGM_RES_MISSING, 0);
	s->nargs = 2;
	s->argtypes = strs(m, 2, "integer", "unknown");
	cgm_site_rare_of(m->arena, s)->argnames = cgm_arena_alloc(m->arena, sizeof(char *) * 2);
	cgm_site_rare_of(m->arena, s)->argnames[1] = "p";
	s->variadic_call = true;
	s = add_site(m, a, 12, CGM_SITE_EXEC_LITERAL, NULL, "b", CGM_RES_RESOLVED, 1, b);
	s->via_literal = true;
	add_site(m, a, 13, CGM_SITE_CALL, NULL, "lower", CGM_RES_BUILTIN, 1, lower);
	add_site(m, a, 14, CGM_SITE_CALL, NULL, "upper", CGM_RES_BUILTIN, 1, upper);
	add_site(m, odd, 3, CGM_SITE_PERFORM, "app", "b", CGM_RES_RESOLVED, 1, b);

	add_edge(m, a, b, CGM_VIA_CALL, CGM_EDGE_STATIC, 1, 3);
	add_edge(m, a, b, CGM_VIA_LITERAL, CGM_EDGE_STATIC, 1, 12);
	add_edge(m, a, over_i, CGM_VIA_CALL, CGM_EDGE_STATIC, 1, 5)->ambiguous = true;
	add_edge(m, a, over_b, CGM_VIA_CALL, CGM_EDGE_STATIC, 1, 5)->ambiguous = true;
	add_edge(m, a, audit, CGM_VIA_TRIGGER, CGM_EDGE_STATIC, 1, 9);
	cgm_edge *e = add_edge(m, a, dyn, CGM_VIA_DYNAMIC, CGM_EDGE_OBSERVED, 1, 7);
	cgm_edge_rare_of(m->arena, e)->runtime = (cgm_runtime_stats){ 5, 2.5, 0.25 };
	add_edge(m, a, lower, CGM_VIA_CALL, CGM_EDGE_STATIC, 1, 13);
	e = add_edge(m, odd, b, CGM_VIA_CALL, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED, 1, 3);
	cgm_edge_rare_of(m->arena, e)->runtime = (cgm_runtime_stats){ 7, 1e-7, 123456.789 };
	cgm_edge_rare_of(m->arena, e)->earlier_body = true;
	cgm_edge_rare_of(m->arena, e)->caller_bodies = strs(m, 2, "00000000000000aa", "85944171f73967e8");
	cgm_edge_rare_of(m->arena, e)->ncaller_bodies = 2;
	e = add_edge(m, b, odd, CGM_VIA_CALL, CGM_EDGE_OBSERVED, 0);
	cgm_edge_rare_of(m->arena, e)->runtime.calls = 1;

	cgm_trigger *t = cgm_model_add_trigger(m);
	*t = (cgm_trigger){ "app", "orders", "orders_audit", CGM_EV_INSERT | CGM_EV_UPDATE, audit,
			    "app.audit()", true, 0, NULL, false };
	t = cgm_model_add_trigger(m);
	*t = (cgm_trigger){ "Odd Schema", "t\"x", "zz \\ trg", CGM_EV_TRUNCATE, -1, "other.fn()",
			    false, 0, NULL, false };
	t = cgm_model_add_trigger(m);
	*t = (cgm_trigger){ "app", "orders", "a_first", CGM_EV_DELETE, audit, "app.audit()", true, 0,
			    NULL, false };

	cgm_reference *r = cgm_model_add_reference(m);
	*r = (cgm_reference){ b, "app.b(integer)", "view", "view app.v_b" };
	r = cgm_model_add_reference(m);
	*r = (cgm_reference){ odd, ODD_ID, "policy", "policy \"p\" on \"Odd Schema\".t" };
	r = cgm_model_add_reference(m);
	*r = (cgm_reference){ b, NULL, "default", "default of app.t.c" };
	r = cgm_model_add_reference(m);
	*r = (cgm_reference){ -1, "other.price(integer)", "view", "view other.v" };

	/* What relations run: a function of another schema, UPDATE OF
	 * columns, a view reading a table, a cascade with its columns, a note. */
	static const char *cols[] = { "amount", "code" };
	m->triggers[0].columns = cols;
	m->triggers[0].ncolumns = 2;
	cgm_relation *rel = cgm_model_add_relation(m);
	*rel = (cgm_relation){ .schema = "app", .name = "orders", .relkind = 'r' };
	cgm_effect *fx = cgm_model_add_effect(m);
	*fx = (cgm_effect){ .schema = "app", .relation = "orders", .via = CGM_VIA_CHECK,
			    .object = "check app.orders.positive", .events = CGM_EV_INSERT | CGM_EV_UPDATE,
			    .ncolumns = 2, .columns = cols, .function_id = "app.b(integer)", .function = b };
	fx = cgm_model_add_effect(m);
	*fx = (cgm_effect){ .schema = "app", .relation = "orders", .reach = CGM_REACH_CASCADE,
			    .via = CGM_VIA_CASCADE, .object = "cascade app.lines.fk",
			    .events = CGM_EV_DELETE, .function = -1, .target_schema = "app",
			    .target_relation = "lines", .target_events = CGM_EV_UPDATE,
			    .ntarget_columns = 1, .target_columns = cols };
	fx = cgm_model_add_effect(m);
	*fx = (cgm_effect){ .schema = "app", .relation = "v", .reach = CGM_REACH_VIEW,
			    .via = CGM_VIA_VIEW, .object = "view app.v", .events = CGM_EV_SELECT,
			    .function = -1, .target_schema = "app", .target_relation = "orders",
			    .target_events = CGM_EV_SELECT };
	fx = cgm_model_add_effect(m);
	*fx = (cgm_effect){ .schema = "Odd Schema", .relation = "t\"x", .via = CGM_VIA_POLICY,
			    .object = "policy p on \"Odd Schema\".\"t\"\"x\"", .events = CGM_EV_SELECT,
			    .function_id = "other.fn()", .function = -1,
			    .note = "roles without BYPASSRLS" };
	cgm_event_trigger *et = cgm_model_add_event_trigger(m);
	static const char *tags[] = { "CREATE TABLE", "DROP TABLE" };
	*et = (cgm_event_trigger){ "log_ddl", "ddl_command_end", 2, tags, true, "app.audit()", audit };

	cgm_diagnostic *d = cgm_model_add_diagnostic(m);
	*d = (cgm_diagnostic){ "x.sql", 10, "syntax error at end of input", false };
	d = cgm_model_add_diagnostic(m);
	*d = (cgm_diagnostic){ NULL, 0, "unknown oid 12345 in runtime log", false };
	d = cgm_model_add_diagnostic(m);
	*d = (cgm_diagnostic){ "x.sql", 9, "another", false };

	cgm_model_index(m);
	return m;
}

static const cgm_function *fn(const cgm_model *m, const char *id)
{
	int i = cgm_model_find(m, id);
	if (i < 0)
		fail_msg("function %s not found", id);
	return &m->functions[i];
}

static const cgm_edge *edge(const cgm_model *m, const char *from, const char *to, cgm_via via)
{
	int f = cgm_model_find(m, from), t = cgm_model_find(m, to);
	for (int i = 0; i < m->nedges; i++)
		if (m->edges[i].from == f && m->edges[i].to == t && m->edges[i].via == via)
			return &m->edges[i];
	fail_msg("edge %s -> %s not found", from, to);
	return NULL;
}

/* ---- round trip --------------------------------------------------- */

/* The format 1 layout, which the tests of the layout and of the parsers
 * read (format 2 is checked against it in test_format2). */
static int write_format1(const cgm_model *m, const char *path)
{
	cgm_snapshot_options opts = { .format_version = 1 };
	return cgm_snapshot_write_with(m, path, &opts);
}

static void test_round_trip(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *one = tmp_path("one.json"), *two = tmp_path("two.json"),
		   *again = tmp_path("again.json");
	assert_int_equal(cgm_snapshot_write(m, one), 0);
	assert_int_equal(cgm_snapshot_write(m, again), 0);

	cgm_model *back = NULL;
	int rc = cgm_snapshot_read(&back, one);
	if (rc)
		fail_msg("read failed: %s", cgm_error_message());
	assert_int_equal(cgm_snapshot_write(back, two), 0);

	size_t l1, l2, l3;
	char *t1 = slurp(one, &l1), *t2 = slurp(two, &l2), *t3 = slurp(again, &l3);
	assert_int_equal(l1, l3);
	assert_memory_equal(t1, t3, l1);
	if (l1 != l2 || memcmp(t1, t2, l1) != 0) {
		size_t i = 0;
		while (i < l1 && i < l2 && t1[i] == t2[i])
			i++;
		fail_msg("round trip differs at byte %zu: ...%.60s... vs ...%.60s...", i,
			 t1 + (i > 20 ? i - 20 : 0), t2 + (i > 20 ? i - 20 : 0));
	}
	assert_int_equal(t1[l1 - 1], '\n');

	/* Spot checks on the model read back. */
	assert_int_equal(back->nuser, 9);
	assert_int_equal(back->neffects, 4);
	assert_int_equal(back->nevent_triggers, 1);
	assert_int_equal(back->event_triggers[0].ntags, 2);
	bool cascade = false;
	for (int i = 0; i < back->neffects; i++)
		if (back->effects[i].reach == CGM_REACH_CASCADE) {
			cascade = true;
			assert_string_equal(back->effects[i].target_relation, "lines");
			assert_int_equal(back->effects[i].target_events, CGM_EV_UPDATE);
			assert_int_equal(back->effects[i].ntarget_columns, 1);
		}
	assert_true(cascade);
	const cgm_function *audit_back = &back->functions[cgm_model_find(back, "app.audit()")];
	assert_non_null(audit_back->other_version_lines);
	assert_int_equal(audit_back->other_version_lines[0], 2);
	assert_int_equal(audit_back->other_version_lines[3], 5);
	assert_int_equal(audit_back->other_version_lines[4], 8);
	assert_null(back->functions[cgm_model_find(back, "app.a()")].other_version_lines);
	assert_int_equal(back->nfunctions, 10); /* lower() is an edge target; upper() and now() are not */
	assert_int_equal(cgm_model_find(back, "upper(text)"), -1);
	assert_int_equal(cgm_model_find(back, "now()"), -1);
	assert_true(fn(back, "lower(text)")->builtin);
	assert_true(cgm_model_find(back, "lower(text)") >= back->nuser);
	for (int i = 1; i < back->nuser; i++)
		assert_true(strcmp(back->functions[i - 1].id, back->functions[i].id) < 0);

	const cgm_function *odd = fn(back, ODD_ID);
	assert_string_equal(odd->schema, "Odd Schema");
	assert_string_equal(odd->name, "Weird \"Name\"");
	assert_string_equal(odd->comment, "says \"hi\" \\ and <b>bold</b>\n\ttabbed");
	assert_string_equal(odd->source, m->functions[cgm_model_find(m, ODD_ID)].source);
	assert_string_equal(odd->file, "schema/odd \"file\".sql");
	assert_int_equal(odd->file_line, 17);
	assert_true(odd->dead && odd->cold && odd->observed_entry && !odd->root);
	assert_int_equal(odd->scc, 0);
	assert_int_equal(odd->nsites, 1);
	assert_int_equal(odd->sites[0].ntargets, 1);
	assert_string_equal(back->functions[odd->sites[0].targets[0]].id, "app.b(integer)");

	const cgm_function *b = fn(back, "app.b(integer)");
	assert_string_equal(b->language, "sql");
	assert_int_equal(b->nargs, 1);
	assert_string_equal(b->argtypes[0], "integer");
	assert_string_equal(b->argnames[0], "n");
	assert_int_equal(b->ndefaults, 1);
	assert_int_equal(b->npath, 2);
	assert_string_equal(b->search_path[1], "pg_temp");
	assert_int_equal(b->runtime.calls, 42);
	assert_true(b->runtime.total_ms > 0.0999999 && b->runtime.total_ms < 0.1000001);
	assert_string_equal(b->body_hash, "0123abcd");
	assert_string_equal(b->body_version, "85944171f73967e8");
	assert_null(fn(back, "app.a()")->body_version);

	const cgm_function *a = fn(back, "app.a()");
	assert_int_equal(a->npath, -1);
	assert_null(a->search_path);
	assert_int_equal(a->nsites, 8);
	assert_int_equal(a->sites[1].resolution, CGM_RES_AMBIGUOUS);
	assert_int_equal(a->sites[1].ntargets, 2);
	assert_string_equal(back->functions[a->sites[1].targets[0]].id, "app.over(bigint)");
	assert_string_equal(back->functions[a->sites[1].targets[1]].id, "app.over(integer)");
	assert_int_equal(a->sites[2].kind, CGM_SITE_DYNAMIC);
	assert_string_equal(cgm_site_get_rare(&a->sites[2])->text, "format('SELECT %I()', fn_name)");
	assert_string_equal(a->sites[2].stmt, "dynexecute");
	assert_int_equal(cgm_site_get_rare(&a->sites[2])->runs, 5);
	assert_int_equal(cgm_site_get_rare(&a->sites[3])->runs, 0);
	assert_int_equal(cgm_site_get_rare(&a->sites[3])->events, CGM_EV_INSERT | CGM_EV_UPDATE);
	assert_string_equal(a->sites[4].schema, "nope");
	assert_int_equal(a->sites[4].resolution, CGM_RES_MISSING);
	assert_null(cgm_site_get_rare(&a->sites[4])->argnames[0]);
	assert_string_equal(cgm_site_get_rare(&a->sites[4])->argnames[1], "p");
	assert_string_equal(a->sites[4].argtypes[1], "unknown");
	assert_true(a->sites[4].variadic_call);
	assert_true(a->sites[5].via_literal);
	assert_int_equal(a->sites[6].ntargets, 1); /* lower(): written */
	assert_int_equal(a->sites[7].ntargets, 0); /* upper(): not in the snapshot */
	assert_int_equal(a->sites[7].resolution, CGM_RES_BUILTIN);

	const cgm_function *broken = fn(back, "app.broken()");
	assert_int_equal(broken->nerrors, 2);
	assert_int_equal(broken->errors[0].line, 2);
	assert_string_equal(broken->errors[1].message, "bad\xEF\xBF\xBD byte");

	const cgm_function *cfn = fn(back, "app.c_func(integer)");
	assert_false(cfn->analysed);
	assert_true(cfn->from_extension && cfn->variadic);
	assert_string_equal(cfn->variadic_elem, "integer");
	assert_null(cfn->source);

	assert_int_equal(back->nedges, 9);
	const cgm_edge *e = edge(back, "app.a()", "app.dyn_target()", CGM_VIA_DYNAMIC);
	assert_int_equal(e->provenance, CGM_EDGE_OBSERVED);
	assert_int_equal(cgm_edge_runtime(e)->calls, 5);
	e = edge(back, ODD_ID, "app.b(integer)", CGM_VIA_CALL);
	assert_int_equal(e->provenance, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED);
	assert_true(cgm_edge_runtime(e)->self_ms > 123456.788 && cgm_edge_runtime(e)->self_ms < 123456.790);
	assert_true(cgm_edge_get_rare(e)->earlier_body);
	assert_int_equal(cgm_edge_get_rare(e)->ncaller_bodies, 2);
	assert_string_equal(cgm_edge_get_rare(e)->caller_bodies[1], "85944171f73967e8");
	assert_false(cgm_edge_get_rare(edge(back, "app.a()", "app.dyn_target()", CGM_VIA_DYNAMIC))->earlier_body);
	assert_true(edge(back, "app.a()", "app.over(integer)", CGM_VIA_CALL)->ambiguous);
	assert_int_equal(edge(back, "app.a()", "app.b(integer)", CGM_VIA_LITERAL)->lines[0], 12);
	assert_int_equal(edge(back, "app.b(integer)", ODD_ID, CGM_VIA_CALL)->nlines, 0);

	assert_int_equal(back->ntriggers, 3);
	bool saw_unknown = false;
	for (int i = 0; i < back->ntriggers; i++) {
		const cgm_trigger *t = &back->triggers[i];
		if (strcmp(t->name, "zz \\ trg") == 0) {
			saw_unknown = true;
			assert_int_equal(t->function, -1);
			assert_string_equal(t->function_id, "other.fn()");
			assert_string_equal(t->table_name, "t\"x");
			assert_int_equal(t->events, CGM_EV_TRUNCATE);
			assert_false(t->enabled);
		} else {
			assert_string_equal(back->functions[t->function].id, "app.audit()");
		}
	}
	assert_true(saw_unknown);
	assert_int_equal(back->nreferences, 4);
	for (int i = 0; i < back->nreferences; i++) {
		const cgm_reference *ref = &back->references[i];
		if (strcmp(ref->object, "view other.v") == 0) {
			assert_int_equal(ref->function, -1);
			assert_string_equal(ref->function_id, "other.price(integer)");
		} else {
			assert_string_equal(back->functions[ref->function].id, ref->function_id);
		}
	}
	assert_int_equal(back->ndiagnostics, 3);

	assert_string_equal(back->source.kind, "database");
	assert_string_equal(back->source.name, "demo");
	assert_null(back->source.mapped_at);
	assert_int_equal(back->source.npath, 2);
	assert_string_equal(back->source.default_search_path[0], "\"$user\"");
	assert_true(back->include_builtins);
	assert_false(back->include_extensions);
	assert_true(back->has_runtime);
	assert_true(back->has_site_runs);
	assert_string_equal(back->runtime_window, m->runtime_window);
	assert_int_equal(back->evidence.lost_records, 3);
	assert_int_equal(back->evidence.lost_to_full_table, 4);
	assert_int_equal(back->npaths, 2);
	assert_int_equal(back->paths[1].nframes, 3);
	assert_string_equal(back->paths[1].frames[1], "...");
	assert_int_equal(back->paths[1].lines[2], 7);
	assert_true(back->paths[0].min_ms == 0.25 && back->paths[0].max_ms == 0.75);
	assert_int_equal(back->paths[0].stats.calls, 3);
	assert_int_equal(back->nshapes, 2);
	assert_int_equal(back->shapes[0].nedges, 0);
	assert_true(back->shapes[1].edges[1].dynamic);
	assert_int_equal(back->nbuckets, 1);
	assert_string_equal(back->buckets[0].start, "2026-11-29T10:59:00Z");
	assert_int_equal(back->nruntime_sources, 1);
	assert_string_equal(back->runtime_sources[0], "database demo@localhost");

	free(t1);
	free(t2);
	free(t3);
	cgm_model_free(back);
	cgm_model_free(m);
}

/* The derived lists and orders, as the file shows them. */
/* A map renders its site from the model in memory, a render from the
 * snapshot: settled, the model holds the very times the snapshot gives
 * back, so both show the same microseconds. */
static void test_settled_times(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	/* times no 12-digit text holds, two of them paths of one stack (their
	 * lines differ) */
	m->paths[0].stats.self_ms = 1.0 / 3000.0;
	m->paths[0].min_ms = 2.0 / 3.0;
	m->paths[1].nframes = 1;
	m->paths[1].lines[0] = 0;
	m->paths[1].stats.self_ms = 1.0 / 7000.0;
	m->buckets[0].self_ms = 2.0 / 7.0;
	const char *plain = tmp_path("settle-plain.json"), *settled = tmp_path("settle.json");
	assert_int_equal(cgm_snapshot_write(m, plain), 0);
	cgm_model *raw = NULL;
	assert_int_equal(cgm_snapshot_read(&raw, plain), 0);
	/* without settling, the file does not hold the model's times */
	assert_int_equal(raw->npaths, m->npaths);
	assert_true(m->paths[0].stats.self_ms != raw->paths[0].stats.self_ms);
	assert_true(m->buckets[0].self_ms != raw->buckets[0].self_ms);
	cgm_model_free(raw);

	cgm_snapshot_settle_times(m);
	assert_int_equal(cgm_snapshot_write(m, settled), 0);
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, settled), 0);
	for (int i = 0; i < m->nfunctions; i++) {
		int j = cgm_model_find(back, m->functions[i].id);
		if (j < 0)
			continue; /* a callee the snapshot does not list */
		assert_true(m->functions[i].runtime.total_ms == back->functions[j].runtime.total_ms);
		assert_true(m->functions[i].runtime.self_ms == back->functions[j].runtime.self_ms);
	}
	int compared = 0;
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (!e->rare)
			continue;
		for (int k = 0; k < back->nedges; k++) {
			const cgm_edge *x = &back->edges[k];
			if (x->via != e->via ||
			    strcmp(back->functions[x->from].id, m->functions[e->from].id) != 0 ||
			    strcmp(back->functions[x->to].id, m->functions[e->to].id) != 0)
				continue;
			assert_true(cgm_edge_runtime(x)->total_ms == e->rare->runtime.total_ms);
			assert_true(cgm_edge_runtime(x)->self_ms == e->rare->runtime.self_ms);
			compared++;
		}
	}
	assert_true(compared >= 2);
	assert_int_equal(back->npaths, m->npaths);
	for (int i = 0; i < m->npaths; i++) {
		assert_true(back->paths[i].stats.self_ms == m->paths[i].stats.self_ms);
		assert_true(back->paths[i].min_ms == m->paths[i].min_ms);
		assert_true(back->paths[i].max_ms == m->paths[i].max_ms);
	}
	assert_true(back->buckets[0].self_ms == m->buckets[0].self_ms);
	cgm_strbuf a = CGM_STRBUF_INIT, b = CGM_STRBUF_INIT;
	assert_int_equal(cgm_stacks_folded(&a, m), 1);
	assert_int_equal(cgm_stacks_folded(&b, back), 1);
	assert_string_equal(cgm_strbuf_cstr(&a), cgm_strbuf_cstr(&b));
	cgm_strbuf_free(&a);
	cgm_strbuf_free(&b);
	cgm_model_free(back);
	cgm_model_free(m);
}

static void test_document_shape(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *path = tmp_path("shape.json");
	assert_int_equal(write_format1(m, path), 0);
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);
	assert_non_null(doc);

	/* Top-level keys in the documented order. */
	const char *keys[] = { "format", "format_version", "generator", "source", "options",
			       "summary", "functions", "edges", "triggers", "references",
			       "relations", "event_triggers", "dynamic_sites", "missing",
			       "parse_errors", "diagnostics", "runtime" };
	size_t k = 0;
	const char *key;
	json_t *value;
	json_object_foreach(doc, key, value)
	{
		assert_true(k < sizeof(keys) / sizeof(keys[0]));
		assert_string_equal(key, keys[k++]);
	}
	assert_int_equal(k, sizeof(keys) / sizeof(keys[0]));
	assert_string_equal(json_string_value(json_object_get(doc, "format")), "cgmap-snapshot");

	json_t *summary = json_object_get(doc, "summary");
	assert_int_equal(json_integer_value(json_object_get(summary, "functions")), 9);
	assert_int_equal(json_integer_value(json_object_get(summary, "analysed")), 8);
	assert_int_equal(json_integer_value(json_object_get(summary, "not_analysed")), 1);
	assert_int_equal(json_integer_value(json_object_get(summary, "edges")), 9);
	assert_int_equal(json_integer_value(json_object_get(summary, "static_edges")), 7);
	assert_int_equal(json_integer_value(json_object_get(summary, "observed_edges")), 3);
	assert_int_equal(json_integer_value(json_object_get(summary, "dynamic_sites")), 1);
	assert_int_equal(json_integer_value(json_object_get(summary, "missing")), 1);
	assert_int_equal(json_integer_value(json_object_get(summary, "parse_errors")), 5);
	assert_int_equal(json_integer_value(json_object_get(summary, "ambiguous_sites")), 1);

	json_t *dyn = json_array_get(json_object_get(doc, "dynamic_sites"), 0);
	assert_string_equal(json_string_value(json_object_get(dyn, "function")), "app.a()");
	assert_int_equal(json_integer_value(json_object_get(dyn, "line")), 7);
	json_t *observed = json_object_get(dyn, "observed_targets");
	assert_int_equal(json_array_size(observed), 1);
	assert_string_equal(json_string_value(json_array_get(observed, 0)), "app.dyn_target()");

	json_t *miss = json_array_get(json_object_get(doc, "missing"), 0);
	assert_string_equal(json_string_value(json_object_get(miss, "name")), "nope.gone");
	assert_int_equal(json_integer_value(json_object_get(miss, "nargs")), 2);

	/* Function errors first (by function), then diagnostics by file, line. */
	json_t *pe = json_object_get(doc, "parse_errors");
	assert_int_equal(json_array_size(pe), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(pe, 0), "function")),
			    "app.broken()");
	assert_true(json_is_null(json_object_get(json_array_get(pe, 2), "function")));
	assert_true(json_is_null(json_object_get(json_array_get(pe, 2), "file")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(pe, 3), "line")), 9);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(pe, 4), "line")), 10);

	/* Edges by from, to, via. */
	json_t *edges = json_object_get(doc, "edges");
	for (size_t i = 1; i < json_array_size(edges); i++) {
		json_t *p = json_array_get(edges, i - 1), *c = json_array_get(edges, i);
		int cmp = strcmp(json_string_value(json_object_get(p, "from")),
				 json_string_value(json_object_get(c, "from")));
		if (!cmp)
			cmp = strcmp(json_string_value(json_object_get(p, "to")),
				     json_string_value(json_object_get(c, "to")));
		if (!cmp)
			cmp = strcmp(json_string_value(json_object_get(p, "via")),
				     json_string_value(json_object_get(c, "via")));
		assert_true(cmp < 0);
	}
	/* Triggers by schema, table, name. */
	json_t *trg = json_object_get(doc, "triggers");
	assert_string_equal(json_string_value(json_object_get(json_array_get(trg, 0), "schema")),
			    "Odd Schema");
	assert_string_equal(json_string_value(json_object_get(json_array_get(trg, 1), "name")),
			    "a_first");
	/* References by function, kind, object. */
	json_t *refs = json_object_get(doc, "references");
	assert_string_equal(json_string_value(json_object_get(json_array_get(refs, 1), "function")),
			    "app.b(integer)");
	assert_string_equal(json_string_value(json_object_get(json_array_get(refs, 1), "kind")),
			    "default");

	/* Only builtins that are edge targets appear, flagged. */
	json_t *fns = json_object_get(doc, "functions");
	int builtins = 0;
	for (size_t i = 0; i < json_array_size(fns); i++)
		builtins += json_is_true(json_object_get(json_array_get(fns, i), "builtin"));
	assert_int_equal(builtins, 1);
	json_decref(doc);
	cgm_model_free(m);
}

/* Derived lists and summary in the file are not trusted on read. */
static void test_derived_lists_recomputed(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *good = tmp_path("good.json"), *tampered = tmp_path("tampered.json"),
		   *rewritten = tmp_path("rewritten.json");
	assert_int_equal(cgm_snapshot_write(m, good), 0);
	json_error_t err;
	json_t *doc = json_load_file(good, JSON_PRESERVE_ORDER, &err);
	json_object_set_new(json_object_get(doc, "summary"), "functions", json_integer(999));
	json_array_clear(json_object_get(doc, "missing"));
	json_array_clear(json_object_get(doc, "dynamic_sites"));
	json_object_set_new(doc, "parse_errors", json_string("garbage"));
	json_object_set_new(doc, "a_later_key", json_true()); /* unknown keys are ignored */
	assert_int_equal(json_dump_file(doc, tampered, JSON_PRESERVE_ORDER), 0);
	json_decref(doc);

	cgm_model *back = NULL;
	int rc = cgm_snapshot_read(&back, tampered);
	if (rc)
		fail_msg("read failed: %s", cgm_error_message());
	assert_int_equal(cgm_snapshot_write(back, rewritten), 0);
	size_t l1, l2;
	char *t1 = slurp(good, &l1), *t2 = slurp(rewritten, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(t1, t2, l1);
	free(t1);
	free(t2);
	cgm_model_free(back);
	cgm_model_free(m);
}

/* A folder stands for the cgmap.json inside it; the write leaves no
 * temporary file behind; an unwritable place is a CGM_EIO error. */
static void test_folder_and_atomic_write(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *dir = tmp_path("out");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(cgm_snapshot_write(m, dir), 0);
	assert_int_equal(cgm_snapshot_write(m, dir), 0); /* overwrite */
	DIR *d = opendir(dir);
	int entries = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			assert_string_equal(e->d_name, "cgmap.json");
			entries++;
		}
	closedir(d);
	assert_int_equal(entries, 1);

	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, dir), 0);
	assert_int_equal(back->nuser, m->nuser);
	cgm_model_free(back);

	assert_int_equal(cgm_snapshot_write(m, tmp_path("no/such/folder/x.json")), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "x.json"));
	cgm_model_free(m);
}

/* A snapshot many output buffers long goes through the writing thread's
 * queue and reads back whole; a write that fails half-way (the file size
 * limit) is reported naming the file and the step, and leaves the previous
 * snapshot as it was, with no temporary file behind. */
static void test_large_and_failed_writes(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	size_t big = 3u << 20; /* a dozen buffers */
	char *source = cgm_arena_alloc(m->arena, big + 1);
	for (size_t i = 0; i < big; i++)
		source[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	cgm_function *f = (cgm_function *)fn(m, "app.b(integer)");
	f->source = source;
	const char *dir = tmp_path("large");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(cgm_snapshot_write(m, dir), 0);
	char file[600];
	snprintf(file, sizeof(file), "%s/cgmap.json", dir);
	size_t len;
	char *text = slurp(file, &len);
	assert_true(len > big);
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, dir), 0);
	assert_string_equal(fn(back, "app.b(integer)")->source, source);
	const char *again = tmp_path("large-again.json");
	assert_int_equal(cgm_snapshot_write(back, again), 0);
	size_t len2;
	char *text2 = slurp(again, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(text2, text, len);
	free(text2);
	cgm_model_free(back);

	struct rlimit saved, small = { 1u << 20, 0 };
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	small.rlim_max = saved.rlim_max;
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	f->comment = "changed"; /* still far over the limit */
	int rc = cgm_snapshot_write(m, dir);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(rc, CGM_EIO);
	if (!strstr(cgm_error_message(), file) || !strstr(cgm_error_message(), ": write: "))
		fail_msg("unexpected message: %s", cgm_error_message());
	text2 = slurp(file, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(text2, text, len);
	free(text2);
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			assert_string_equal(e->d_name, "cgmap.json");
	closedir(d);
	free(text);
	cgm_model_free(m);
}

/* `cgmap map` writes the snapshot and the DOT graph on two threads: a
 * failure on the graph's thread is still the message the command reports,
 * naming the file and the step, and the snapshot beside it is whole. */
static void test_map_reports_the_failed_output(void **state)
{
	(void)state;
	const char *sql = tmp_path("map.sql");
	spit(sql, "CREATE SCHEMA app;\n"
		  "CREATE FUNCTION app.f() RETURNS integer LANGUAGE sql AS 'SELECT 1';\n"
		  "CREATE FUNCTION app.g() RETURNS integer LANGUAGE sql AS 'SELECT app.f()';\n");
	const char *dir = tmp_path("mapped");
	char blocker[600];
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(blocker, sizeof(blocker), "%s/callgraph.dot", dir);
	assert_int_equal(mkdir(blocker, 0755), 0); /* the rename onto it fails */
	char *argv[] = { "map", "--sql", (char *)sql, "--out", (char *)dir,
			 "--no-html", "--quiet", NULL };
	cgm_error_clear();
	assert_int_equal(cmd_map(7, argv), 5); /* an output cannot be written */
	if (!strstr(cgm_error_message(), blocker) || !strstr(cgm_error_message(), ": rename: "))
		fail_msg("unexpected message: %s", cgm_error_message());
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, dir), 0);
	assert_int_equal(back->nuser, 2);
	assert_int_equal(back->nedges, 1);
	cgm_model_free(back);
	char file[700];
	snprintf(file, sizeof(file), "%s/cgmap.json", dir);
	unlink(file);
	rmdir(blocker);
}

/* An empty model is a valid snapshot too. */
/* An aggregate's support functions come back from a snapshot, a builtin
 * one by its id alone: verdicts read an aggregate through them
 * (verdict.h), so a snapshot judges a never-called aggregate as the map
 * did, dead and not untraceable. */
static void test_aggregates_round_trip(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "demo";
	m->has_runtime = true;
	m->evidence.trace_track = "pl"; /* cgmap_trace saw PL/pgSQL calls */
	int agg = add_fn(m, "app", "total", "integer", "app.total(integer)", "internal");
	m->functions[agg].kind = CGM_KIND_AGGREGATE;
	add_fn(m, "app", "step", "integer, integer", "app.step(integer,integer)", "plpgsql");
	add_fn(m, "app", "plain", "", "app.plain()", "plpgsql");
	m->nuser = m->nfunctions;
	cgm_model_index(m);
	int total = cgm_model_find(m, "app.total(integer)");
	cgm_aggregate *a = cgm_model_add_aggregate(m);
	a->aggregate_id = "app.total(integer)";
	a->aggregate = total;
	a->nsupport = 2;
	a->support_ids = strs(m, 2, "app.step(integer,integer)", "pg_catalog.int4_avg_accum(bigint[],integer)");
	a->support_roles = strs(m, 2, "transition", "combine");
	a->support = cgm_arena_alloc(m->arena, sizeof(int) * 2);
	a->support[0] = cgm_model_find(m, "app.step(integer,integer)");
	a->support[1] = -1;
	assert_true(cgm_function_traceable(m, total));

	const char *path = tmp_path("aggregates.json");
	assert_int_equal(cgm_snapshot_write(m, path), 0);
	char *text = slurp(path, NULL);
	assert_non_null(strstr(text, "\"aggregates\":[\n{\"aggregate\":\"app.total(integer)\","
				     "\"support\":[\"app.step(integer,integer)\","
				     "\"pg_catalog.int4_avg_accum(bigint[],integer)\"],"
				     "\"roles\":[\"transition\",\"combine\"]}\n]"));
	free(text);
	cgm_model *back = NULL;
	if (cgm_snapshot_read(&back, path))
		fail_msg("read failed: %s", cgm_error_message());
	assert_int_equal(back->naggregates, 1);
	const cgm_aggregate *b = &back->aggregates[0];
	assert_int_equal(b->aggregate, cgm_model_find(back, "app.total(integer)"));
	assert_int_equal(b->nsupport, 2);
	assert_int_equal(b->support[0], cgm_model_find(back, "app.step(integer,integer)"));
	assert_int_equal(b->support[1], -1);
	assert_string_equal(b->support_ids[1], "pg_catalog.int4_avg_accum(bigint[],integer)");
	assert_string_equal(b->support_roles[1], "combine");
	assert_true(cgm_function_traceable(back, b->aggregate));
	/* The same bytes again. */
	const char *again = tmp_path("aggregates2.json");
	assert_int_equal(cgm_snapshot_write(back, again), 0);
	size_t l1, l2;
	char *t1 = slurp(path, &l1), *t2 = slurp(again, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(t1, t2, l1);
	free(t1);
	free(t2);
	cgm_model_free(back);

	/* Roles and support functions must pair up. */
	spit(path, "{\"format\":\"cgmap-snapshot\",\"format_version\":2,\"functions\":[],"
		   "\"aggregates\":[{\"aggregate\":\"app.x(integer)\",\"support\":[\"app.s()\"],\"roles\":[]}]}");
	back = NULL;
	assert_int_not_equal(cgm_snapshot_read(&back, path), 0);
	assert_non_null(strstr(cgm_error_message(), "roles"));
	cgm_model_free(m);
}

static void test_empty_model(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	cgm_model_index(m);
	const char *path = tmp_path("empty.json");
	assert_int_equal(cgm_snapshot_write(m, path), 0);
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, path), 0);
	assert_int_equal(back->nfunctions, 0);
	assert_false(back->has_runtime);
	assert_int_equal(cgm_model_find(back, "x()"), -1);
	cgm_model_free(back);
	cgm_model_free(m);
}

/* ---- malformed input ---------------------------------------------- */

#define HEAD "{\"format\":\"cgmap-snapshot\",\"format_version\":1,"
#define FN(extra) "{\"id\":\"s.f()\",\"schema\":\"s\",\"name\":\"f\",\"kind\":\"function\",\"language\":\"sql\"" extra "}"

static void expect_input_error(const char *name, const char *text, const char *must_contain)
{
	const char *path = tmp_path(name);
	spit(path, text);
	cgm_model *back = (cgm_model *)(intptr_t)1;
	cgm_error_clear();
	int rc = cgm_snapshot_read(&back, path);
	if (rc != CGM_EINPUT)
		fail_msg("%s: expected CGM_EINPUT, got %d (%s)", name, rc, cgm_error_message());
	assert_null(back);
	const char *msg = cgm_error_message();
	if (!strstr(msg, name))
		fail_msg("%s: message does not name the file: %s", name, msg);
	if (must_contain && !strstr(msg, must_contain))
		fail_msg("%s: message lacks \"%s\": %s", name, must_contain, msg);
	/* Read as `cgmap diff` reads (bodies later, only the sites it
	 * compares kept): the same file fails the same way. */
	char *first = strdup(msg);
	back = (cgm_model *)(intptr_t)1;
	rc = cgm_snapshot_read_with(&back, path, CGM_SNAPSHOT_READ_SOURCES_LATER | CGM_SNAPSHOT_READ_DIFF_SITES);
	if (rc != CGM_EINPUT || strcmp(cgm_error_message(), first) != 0)
		fail_msg("%s: read as diff reads: %d \"%s\", not \"%s\"", name, rc, cgm_error_message(), first);
	assert_null(back);
	free(first);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_input_error("empty.json", "", "line");
	expect_input_error("truncated.json", HEAD "\"functions\":[", "line 1");
	/* runtime.paths, shapes, timeline (cgmap_trace 1.3) */
	expect_input_error("path-lines.json",
			   HEAD "\"functions\":[],\"runtime\":{\"paths\":[{\"frames\":[\"a()\",\"b()\"],"
				"\"lines\":[0]}]}}",
			   "runtime.paths[0].lines");
	expect_input_error("path-empty.json",
			   HEAD "\"functions\":[],\"runtime\":{\"paths\":[{\"frames\":[],\"lines\":[]}]}}",
			   "has 0 frames");
	expect_input_error("path-time.json",
			   HEAD "\"functions\":[],\"runtime\":{\"paths\":[{\"frames\":[\"a()\"],\"lines\":[0],"
				"\"max_ms\":-1}]}}",
			   "runtime.paths[0].max_ms");
	expect_input_error("shape-edge.json",
			   HEAD "\"functions\":[],\"runtime\":{\"shapes\":[{\"entry\":\"a()\",\"calls\":1,"
				"\"edges\":[{\"caller\":\"a()\",\"callee\":7,\"site_line\":1}]}]}}",
			   "callee");
	expect_input_error("bucket-calls.json",
			   HEAD "\"functions\":[],\"runtime\":{\"timeline\":[{\"function\":\"a()\","
				"\"start\":\"2026-11-29T10:00:00Z\",\"calls\":-2}]}}",
			   "runtime.timeline[0].calls");
	expect_input_error("not-object.json", "[1,2]", "expected an object");
	expect_input_error("bad-utf8.json", HEAD "\"functions\":[],\"x\":\"\xC0\xAF\"}", "line 1");
	expect_input_error("dup-key.json", HEAD "\"functions\":[],\"functions\":[]}", "duplicate");
	expect_input_error("format.json", "{\"format\":\"other\",\"format_version\":1,\"functions\":[]}",
			   "format");
	expect_input_error("newer.json",
			   "{\"format\":\"cgmap-snapshot\",\"format_version\":3,\"functions\":[]}",
			   "format_version 3");
	const char *msg = cgm_error_message();
	assert_non_null(strstr(msg, "format_version 2"));
	expect_input_error("version-type.json",
			   "{\"format\":\"cgmap-snapshot\",\"format_version\":\"1\",\"functions\":[]}",
			   "format_version");
	expect_input_error("no-functions.json", HEAD "\"edges\":[]}", "functions: is missing");
	expect_input_error("functions-type.json", HEAD "\"functions\":{}}", "functions: is an object");
	expect_input_error("fn-not-object.json", HEAD "\"functions\":[3]}", "functions[0]");
	expect_input_error("fn-no-id.json",
			   HEAD "\"functions\":[{\"schema\":\"s\",\"name\":\"f\",\"kind\":\"function\","
				"\"language\":\"sql\"}]}",
			   "functions[0].id: is missing");
	expect_input_error("fn-kind.json",
			   HEAD "\"functions\":[{\"id\":\"s.f()\",\"schema\":\"s\",\"name\":\"f\","
				"\"kind\":\"macro\",\"language\":\"sql\"}]}",
			   "functions[0].kind: unknown function kind \"macro\"");
	expect_input_error("fn-bool.json", HEAD "\"functions\":[" FN(",\"analysed\":\"yes\"") "]}",
			   "functions[0].analysed");
	expect_input_error("fn-branches.json",
			   HEAD "\"functions\":[" FN(",\"other_version_branches\":[[5,3]]") "]}",
			   "functions[0].other_version_branches: item 0 is not a range");
	expect_input_error("fn-branches-order.json",
			   HEAD "\"functions\":[" FN(",\"other_version_branches\":[[5,6],[6,7]]") "]}",
			   "functions[0].other_version_branches: item 1");
	expect_input_error("fn-branches-shape.json",
			   HEAD "\"functions\":[" FN(",\"other_version_branches\":[4]") "]}",
			   "functions[0].other_version_branches: item 0");
	expect_input_error("fn-args.json",
			   HEAD "\"functions\":[" FN(",\"nargs\":2,\"argtypes\":[\"int\"]") "]}",
			   "functions[0].argtypes: has 1 entries for 2 arguments");
	expect_input_error("fn-argtype-item.json",
			   HEAD "\"functions\":[" FN(",\"nargs\":1,\"argtypes\":[5]") "]}",
			   "functions[0].argtypes: item 0 is an integer");
	expect_input_error("fn-line-count.json", HEAD "\"functions\":[" FN(",\"line_count\":-3") "]}",
			   "functions[0].line_count: is -3");
	expect_input_error("fn-huge.json",
			   HEAD "\"functions\":[" FN(",\"line_count\":99999999999999") "]}",
			   "out of range");
	expect_input_error("fn-dup.json", HEAD "\"functions\":[" FN("") "," FN("") "]}",
			   "functions[1].id: duplicate function id \"s.f()\"");
	expect_input_error("site-kind.json",
			   HEAD "\"functions\":[" FN(",\"sites\":[{\"line\":1,\"kind\":\"jump\","
						     "\"resolution\":\"none\"}]") "]}",
			   "functions[0].sites[0].kind: unknown site kind \"jump\"");
	expect_input_error("site-target.json",
			   HEAD "\"functions\":[" FN(",\"sites\":[{\"line\":1,\"kind\":\"call\","
						     "\"resolution\":\"resolved\",\"targets\":"
						     "[\"s.gone()\"]}]") "]}",
			   "functions[0].sites[0].targets: item 0: unknown function \"s.gone()\"");
	expect_input_error("site-events.json",
			   HEAD "\"functions\":[" FN(",\"sites\":[{\"line\":1,\"kind\":\"trigger\","
						     "\"events\":[\"MERGE\"],"
						     "\"resolution\":\"none\"}]") "]}",
			   "functions[0].sites[0].events: unknown event \"MERGE\"");
	expect_input_error("site-line.json",
			   HEAD "\"functions\":[" FN(",\"sites\":[{\"line\":\"7\",\"kind\":\"call\","
						     "\"resolution\":\"none\"}]") "]}",
			   "functions[0].sites[0].line: is a string");
	expect_input_error("edge-from.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":[{\"from\":\"s.x()\",\"to\":"
							  "\"s.f()\",\"via\":\"call\",\"static\":true}]}",
			   "edges[0].from: unknown function \"s.x()\"");
	expect_input_error("edge-via.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":[{\"from\":\"s.f()\",\"to\":"
							  "\"s.f()\",\"via\":\"teleport\",\"static\":true}]}",
			   "edges[0].via");
	expect_input_error("edge-prov.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":[{\"from\":\"s.f()\",\"to\":"
							  "\"s.f()\",\"via\":\"call\"}]}",
			   "neither static nor observed");
	expect_input_error("edge-runtime.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":[{\"from\":\"s.f()\",\"to\":"
							  "\"s.f()\",\"via\":\"call\",\"observed\":true,"
							  "\"runtime\":{\"calls\":\"many\"}}]}",
			   "edges[0].runtime.calls");
	/* One edge per (from, to, via): a repeat was listed and counted twice. */
	expect_input_error("edge-dup.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":["
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"call\",\"static\":true},"
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"dynamic\",\"observed\":true},"
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"call\",\"observed\":true}]}",
			   "edges[2]: duplicate edge \"s.f()\" -> \"s.f()\" via call (as edges[0])");
	/* Listed in key order (as cgmap writes them): the first repeat, right
	 * after what it repeats, named the same way. */
	expect_input_error("edge-dup-in-order.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":["
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"call\",\"static\":true},"
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"call\",\"observed\":true},"
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"call\",\"static\":true},"
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"dynamic\",\"observed\":true},"
				"{\"from\":\"s.f()\",\"to\":\"s.f()\",\"via\":\"dynamic\",\"observed\":true}]}",
			   "edges[1]: duplicate edge \"s.f()\" -> \"s.f()\" via call (as edges[0])");
	/* Times a snapshot cannot hold: cgmap never writes them. */
	expect_input_error("edge-time.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":[{\"from\":\"s.f()\",\"to\":"
							  "\"s.f()\",\"via\":\"call\",\"observed\":true,"
							  "\"runtime\":{\"calls\":1,\"total_ms\":1e300}}]}",
			   "edges[0].runtime.total_ms: is 1e+300, expected milliseconds from 0 to "
			   "1000000000000000");
	expect_input_error("fn-time.json",
			   HEAD "\"functions\":[" FN(",\"runtime\":{\"calls\":1,\"self_ms\":-0.5}") "]}",
			   "functions[0].runtime.self_ms: is -0.5");
	expect_input_error("fn-version.json",
			   HEAD "\"functions\":[" FN(",\"body_version\":\"not a version\"") "]}",
			   "functions[0].body_version: is \"not a version\", expected 16 hex digits");
	expect_input_error("edge-earlier.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":[{\"from\":\"s.f()\",\"to\":"
							  "\"s.f()\",\"via\":\"call\",\"observed\":true,"
							  "\"earlier_body\":\"yes\"}]}",
			   "edges[0].earlier_body");
	expect_input_error("edge-bodies.json",
			   HEAD "\"functions\":[" FN("") "],\"edges\":[{\"from\":\"s.f()\",\"to\":"
							  "\"s.f()\",\"via\":\"call\",\"observed\":true,"
							  "\"caller_bodies\":[\"00000000000000bb\",\"00000000000000aa\"]}]}",
			   "edges[0].caller_bodies: item 1 is not a body version");
	expect_input_error("trigger.json",
			   HEAD "\"functions\":[],\"triggers\":[{\"table\":\"t\"}]}",
			   "triggers[0].name: is missing");
	expect_input_error("reference.json",
			   HEAD "\"functions\":[],\"references\":[{\"function\":\"a.b()\",\"kind\":"
				"\"view\"}]}",
			   "references[0].object: is missing");
	expect_input_error("diagnostic.json", HEAD "\"functions\":[],\"diagnostics\":[{\"line\":1}]}",
			   "diagnostics[0].message: is missing");
	expect_input_error("runtime.json", HEAD "\"functions\":[],\"runtime\":[]}",
			   "runtime: is an array");
	expect_input_error("source.json", HEAD "\"functions\":[],\"source\":{\"name\":5}}",
			   "source.name");
	expect_input_error("nul.json", HEAD "\"functions\":[" FN(",\"comment\":\"a\\u0000b\"") "]}",
			   "line 1");

	/* A file that is not there. */
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, tmp_path("missing.json")), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "missing.json"));
	assert_null(back);
	/* Only regular files, up to the size limit. */
	assert_int_equal(cgm_snapshot_read(&back, "/dev/null"), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "snapshot \"/dev/null\" is not a regular file"));
	assert_null(back);
	spit(tmp_path("big.json"), HEAD "\"functions\":[]}");
	cgm_infile_set_max_size(8);
	assert_int_equal(cgm_snapshot_read(&back, tmp_path("big.json")), CGM_EINPUT);
	cgm_infile_set_max_size(CGM_INFILE_DEFAULT_MAX);
	assert_non_null(strstr(cgm_error_message(), "big.json\" is larger than the 8 bytes limit"));
	assert_null(back);
}

/* Every prefix of a valid snapshot is an error, never a crash. */
static void test_truncations(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *good = tmp_path("full.json"), *cut = tmp_path("cut.json");
	assert_int_equal(cgm_snapshot_write(m, good), 0);
	size_t len;
	char *text = slurp(good, &len);
	for (size_t n = 0; n + 2 < len; n += 37) {
		FILE *f = fopen(cut, "wb");
		fwrite(text, 1, n, f);
		fclose(f);
		cgm_model *back = NULL;
		assert_int_equal(cgm_snapshot_read(&back, cut), CGM_EINPUT);
		assert_null(back);
	}
	free(text);
	cgm_model_free(m);
}

/* Replace each value of a valid snapshot, one at a time, by a value of
 * another type: the reader either accepts it or reports CGM_EINPUT with a
 * message, and never crashes. */
static int mutations, rejected;

static void mutate_each(json_t *doc, json_t *node, const char *path)
{
	static json_t *replacements[4];
	if (!replacements[0]) {
		replacements[0] = json_integer(-7);
		replacements[1] = json_string("x");
		replacements[2] = json_null();
		replacements[3] = json_array();
	}
	if (json_is_object(node)) {
		const char *key;
		json_t *child;
		void *tmp;
		json_object_foreach_safe(node, tmp, key, child)
		{
			json_incref(child);
			for (int r = 0; r < 4; r++) {
				if (json_typeof(child) == json_typeof(replacements[r]))
					continue;
				json_object_set(node, key, replacements[r]);
				FILE *f = fopen(path, "wb");
				json_dumpf(doc, f, JSON_PRESERVE_ORDER);
				fclose(f);
				cgm_model *back = NULL;
				int rc = cgm_snapshot_read(&back, path);
				mutations++;
				char *first = rc ? strdup(cgm_error_message()) : NULL;
				if (rc) {
					assert_int_equal(rc, CGM_EINPUT);
					assert_true(strlen(cgm_error_message()) > 0);
					assert_null(back);
					rejected++;
				} else {
					cgm_model_free(back);
				}
				/* Read as `cgmap diff` reads: the same verdict. */
				int diff_rc = cgm_snapshot_read_with(&back, path, CGM_SNAPSHOT_READ_SOURCES_LATER |
									  CGM_SNAPSHOT_READ_DIFF_SITES);
				if (diff_rc != rc || (rc && strcmp(cgm_error_message(), first) != 0))
					fail_msg("read as diff reads: %d \"%s\", not %d \"%s\"", diff_rc,
						 diff_rc ? cgm_error_message() : "", rc, first ? first : "");
				if (!diff_rc)
					cgm_model_free(back);
				free(first);
			}
			json_object_set(node, key, child);
			json_decref(child);
			mutate_each(doc, child, path);
		}
	} else if (json_is_array(node)) {
		for (size_t i = 0; i < json_array_size(node); i++)
			mutate_each(doc, json_array_get(node, i), path);
	}
}

static void test_type_mutations(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *good = tmp_path("base.json");
	assert_int_equal(cgm_snapshot_write(m, good), 0);
	json_error_t err;
	json_t *doc = json_load_file(good, JSON_PRESERVE_ORDER, &err);
	assert_non_null(doc);
	mutate_each(doc, doc, tmp_path("mutant.json"));
	json_decref(doc);
	/* Most type changes are rejected (derived lists are ignored). */
	assert_true(mutations > 500);
	assert_true(rejected > mutations / 2);
	cgm_model_free(m);
}

/* ---- the streamed writer prints what jansson prints ------------- */

#define JANSSON_SCALAR_FLAGS (JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

static void add_text(char **out, size_t *len, const char *s)
{
	size_t n = strlen(s);
	*out = realloc(*out, *len + n + 1);
	assert_non_null(*out);
	memcpy(*out + *len, s, n + 1);
	*len += n;
}

/* jansson's text of v without indent: {"a": 1, "b": [2, 3]}. */
static void add_dumped(char **out, size_t *len, const json_t *v)
{
	char *text = json_dumps(v, JANSSON_SCALAR_FLAGS);
	assert_non_null(text);
	add_text(out, len, text);
	free(text);
}

static void add_newline_indent(char **out, size_t *len, int depth)
{
	add_text(out, len, "\n");
	for (int i = 0; i < depth; i++)
		add_text(out, len, "  ");
}

/* Where a value stands: the document, a function, the runtime object,
 * anything else. */
enum { AT_DOCUMENT, AT_FUNCTION, AT_RUNTIME, AT_OTHER };

/* The lists whose elements are one-line records (docs/snapshot.md). */
static bool record_list(int at, const char *key)
{
	static const char *const in_document[] = { "edges", "triggers", "references",
						   "relations", "event_triggers", "aggregates",
						   "dynamic_sites", "missing", "parse_errors",
						   "diagnostics" };
	if (at == AT_FUNCTION)
		return strcmp(key, "sites") == 0 || strcmp(key, "errors") == 0 ||
		       strcmp(key, "other_version_branches") == 0;
	if (at == AT_RUNTIME)
		return strcmp(key, "paths") == 0 || strcmp(key, "shapes") == 0 ||
		       strcmp(key, "timeline") == 0;
	if (at == AT_DOCUMENT)
		for (size_t i = 0; i < sizeof(in_document) / sizeof(in_document[0]); i++)
			if (strcmp(key, in_document[i]) == 0)
				return true;
	return false;
}

/* The documented layout, made from the parsed document with jansson's own
 * printing: every container as jansson's JSON_INDENT(2) lays it out, but
 * each element of a record list as jansson prints it without indent. */
static void add_layout(char **out, size_t *len, const json_t *v, int depth, int at)
{
	if (json_is_object(v) && json_object_size(v) > 0) {
		add_text(out, len, "{");
		const char *key;
		json_t *member;
		bool first = true;
		json_object_foreach((json_t *)v, key, member) {
			if (!first)
				add_text(out, len, ",");
			first = false;
			add_newline_indent(out, len, depth + 1);
			json_t *k = json_string(key);
			add_dumped(out, len, k);
			json_decref(k);
			add_text(out, len, ": ");
			bool records = record_list(at, key) && json_is_array(member);
			if (records && json_array_size(member) > 0) {
				add_text(out, len, "[");
				for (size_t i = 0; i < json_array_size(member); i++) {
					add_text(out, len, i ? "," : "");
					add_newline_indent(out, len, depth + 2);
					add_dumped(out, len, json_array_get(member, i));
				}
				add_newline_indent(out, len, depth + 1);
				add_text(out, len, "]");
			} else {
				int inner = at == AT_DOCUMENT && strcmp(key, "functions") == 0 ? AT_FUNCTION
												: AT_OTHER;
				if (json_is_array(member) && json_array_size(member) > 0) {
					add_text(out, len, "[");
					for (size_t i = 0; i < json_array_size(member); i++) {
						add_text(out, len, i ? "," : "");
						add_newline_indent(out, len, depth + 2);
						add_layout(out, len, json_array_get(member, i), depth + 2,
							   inner);
					}
					add_newline_indent(out, len, depth + 1);
					add_text(out, len, "]");
				} else {
					add_layout(out, len, member, depth + 1,
						   at == AT_DOCUMENT && strcmp(key, "runtime") == 0
							   ? AT_RUNTIME
							   : AT_OTHER);
				}
			}
		}
		add_newline_indent(out, len, depth);
		add_text(out, len, "}");
	} else if (json_is_array(v) && json_array_size(v) > 0) {
		add_text(out, len, "[");
		for (size_t i = 0; i < json_array_size(v); i++) {
			add_text(out, len, i ? "," : "");
			add_newline_indent(out, len, depth + 1);
			add_layout(out, len, json_array_get(v, i), depth + 1, AT_OTHER);
		}
		add_newline_indent(out, len, depth);
		add_text(out, len, "]");
	} else {
		add_dumped(out, len, v); /* scalars and empty containers */
	}
}

/* The snapshot's bytes are the documented layout of the document jansson
 * reads from them, every scalar printed by jansson (JSON_REAL_PRECISION(12)):
 * rebuilt from the parsed file, they must not move.  The model holds the
 * awkward cases: every control character, DEL, '/', U+2028, a 4-byte
 * character, invalid UTF-8, and reals from tiny to huge, negative zero,
 * NaN and infinity, in every kind of record. */
static void test_same_bytes_as_jansson(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	char controls[40];
	for (int c = 1; c < 0x20; c++)
		controls[c - 1] = (char)c;
	controls[31] = '\0';
	const char *awkward = cgm_arena_printf(
		m->arena,
		"ctl[%s] del[\x7F] slash[/] ls[\xE2\x80\xA8] "
		"emoji[\xF0\x9F\x98\x80] bad[\x80|\xC3|\xE6\x97|\xC0\xAF|"
		"\xED\xA0\x80|\xF4\x90\x80\x80|\xFF] end",
		controls);
	cgm_function *f = (cgm_function *)fn(m, "app.a()");
	f->comment = awkward;
	for (int s = 0; s < f->nsites; s++)
		if (f->sites[s].kind == CGM_SITE_DYNAMIC)
			cgm_site_rare_of(m->arena, &f->sites[s])->text = awkward; /* a site, and its dynamic_sites record */
	m->triggers[0].name = awkward;
	m->references[0].object = awkward;
	static const double reals[] = { 0.0, -0.0, 1.0, 0.1, 1e-5, 1e20, 1e14, 1e13, 123456789012.5,
					1234567890123.0, 2.5e-300, 1e300, -42.0, 1.0 / 3.0, NAN,
					INFINITY };
	int nreals = (int)(sizeof(reals) / sizeof(reals[0]));
	for (int i = 0; i < m->nfunctions; i++) {
		m->functions[i].runtime.total_ms = reals[i % nreals];
		m->functions[i].runtime.self_ms = reals[(i + 7) % nreals];
		m->functions[i].runtime.calls = (int64_t)i * 1000000007LL;
	}
	for (int i = 0; i < m->nedges; i++)
		cgm_edge_rare_of(m->arena, &m->edges[i])->runtime.total_ms = reals[(i + 3) % nreals];

	const char *path = tmp_path("jansson.json");
	assert_int_equal(write_format1(m, path), 0);
	size_t len;
	char *text = slurp(path, &len);
	json_error_t err;
	json_t *doc = json_load_file(path, JSON_PRESERVE_ORDER, &err);
	if (!doc)
		fail_msg("jansson does not read the snapshot: line %d: %s", err.line, err.text);
	char *laid_out = NULL;
	size_t laid_len = 0;
	add_layout(&laid_out, &laid_len, doc, 0, AT_DOCUMENT);
	add_text(&laid_out, &laid_len, "\n");
	if (laid_len != len || memcmp(laid_out, text, len) != 0) {
		size_t i = 0;
		while (i < len && i < laid_len && laid_out[i] == text[i])
			i++;
		fail_msg("the snapshot leaves the documented layout at byte %zu: ...%.80s... where "
			 "jansson gives ...%.80s...",
			 i, text + (i > 20 ? i - 20 : 0), laid_out + (i > 20 ? i - 20 : 0));
	}
	/* The cases are really in the file, each record on one line. */
	assert_non_null(strstr(text, "\\u0001\\u0002"));
	assert_non_null(strstr(text, "\\b\\t\\n\\u000B\\f\\r"));
	assert_non_null(strstr(text, "del[\x7F] slash[/]"));
	assert_non_null(strstr(text, "bad[\xEF\xBF\xBD|\xEF\xBF\xBD|"));
	assert_non_null(strstr(text, "\"total_ms\": 1e14"));
	assert_non_null(strstr(text, "\"total_ms\": 1e-5"));
	/* Times are written in the range the reader takes (0 to 1e15 ms):
	 * 1e20, 1e300 and infinity held at the limit, NaN, -0.0 and -42 as 0. */
	assert_non_null(strstr(text, "\"total_ms\": 1e15"));
	assert_null(strstr(text, "-0.0"));
	assert_null(strstr(text, "-42"));
	assert_null(strstr(text, "e20"));
	assert_null(strstr(text, "e300"));
	assert_non_null(strstr(text, "\"total_ms\": 1.23456789012e12"));
	assert_non_null(
		strstr(text, "\n        {\"line\": 7, \"kind\": \"dynamic\", \"via_literal\": false, "));
	assert_non_null(strstr(text, "\n    {\"from\": \"app.a()\", \"to\": "));
	assert_non_null(strstr(text, "\"runtime\": {\"calls\": "));
	assert_non_null(strstr(text, "\n    {\"schema\": \"app\", \"table\": \"orders\", \"name\": "));
	assert_non_null(strstr(text, "\n    {\"function\": \"app.b(integer)\", \"kind\": \"view\", "));
	assert_non_null(
		strstr(text, "\n        {\"line\": 2, \"message\": \"syntax error at or near "));
	assert_non_null(strstr(text, "\n    {\"function\": \"app.a()\", \"line\": 11, "
				     "\"name\": \"nope.gone\", \"nargs\": 2}"));
	assert_non_null(strstr(text, "\n    {\"function\": null, \"file\": "));

	/* Read back and written again: the same bytes. */
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, path), 0);
	const char *again = tmp_path("jansson-again.json");
	assert_int_equal(write_format1(back, again), 0);
	size_t len2;
	char *text2 = slurp(again, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(text2, text, len);
	free(text2);
	cgm_model_free(back);

	/* The earlier layout, every record member on its own line (jansson's
	 * JSON_INDENT(2) throughout), reads as the same model. */
	char *indented =
		json_dumps(doc, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(12));
	assert_non_null(indented);
	assert_non_null(strstr(indented, "\n        {\n          \"line\": "));
	const char *old_layout = tmp_path("indented.json");
	spit(old_layout, indented);
	assert_int_equal(cgm_snapshot_read(&back, old_layout), 0);
	assert_int_equal(write_format1(back, again), 0);
	text2 = slurp(again, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(text2, text, len);
	free(text2);
	cgm_model_free(back);
	free(indented);
	free(laid_out);
	json_decref(doc);
	free(text);
	cgm_model_free(m);
}

/* Replace the first `from` in text by `to` (the caller frees the result). */
static char *replace_first(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	if (!at)
		fail_msg("\"%s\" is not in the snapshot", from);
	size_t head = (size_t)(at - text), tail = strlen(at + strlen(from));
	char *out = malloc(head + strlen(to) + tail + 1);
	memcpy(out, text, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

/* The snapshot is read through jsmn tokens, and by jansson when the token
 * path does not take the file (here: an unknown key nested deeper than it
 * goes).  Both give the same model; escapes that mean the same text, and
 * numbers that mean the same value, read the same. */
static void test_parsers_agree(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *path = tmp_path("parsers.json");
	assert_int_equal(write_format1(m, path), 0);
	cgm_model_free(m);
	char *text = slurp(path, NULL);

	/* 0.25 spelled with 70 digits. */
	char *long_number = replace_first(
		text, "\"self_ms\": 0.25",
		"\"self_ms\": 0.2500000000000000000000000000000000000000000000000000000000000000000000");
	/* The same ids and text written with escapes, a surrogate pair, "\/". */
	char *escaped = replace_first(text, "\"id\": \"app.a()\"", "\"id\": \"\\u0061pp.a\\u0028)\"");
	char *escaped2 = replace_first(escaped, "gr\xC3\xBC\xC3\x9F", "gr\\u00fc\\u00DF");
	char *escaped3 = replace_first(escaped2, "\"schema/odd", "\"schema\\/odd");
	char *with_pair = replace_first(text, "\"comment\": null", "\"comment\": \"\\ud83d\\ude00\"");

	/* An unknown key (ignored) holding arrays 300 deep: only jansson reads
	 * it. */
	char deep_value[601];
	memset(deep_value, '[', 300);
	memset(deep_value + 300, ']', 300);
	deep_value[600] = '\0';
	char deep_key[700];
	snprintf(deep_key, sizeof(deep_key), "\"comment\": null, \"deep\": %s", deep_value);
	char *deep = replace_first(text, "\"comment\": null", deep_key);

	/* The lists in another order: edges before functions, the header
	 * last (the streaming reader takes functions first, then reads the
	 * file whole). */
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr), *moved = json_object();
	assert_non_null(doc);
	static const char *const first[] = { "edges", "functions" };
	for (size_t k = 0; k < 2; k++)
		json_object_set(moved, first[k], json_object_get(doc, first[k]));
	const char *key;
	json_t *value;
	json_object_foreach(doc, key, value)
		if (!json_object_get(moved, key) && strcmp(key, "format") != 0)
			json_object_set(moved, key, value);
	json_object_set(moved, "format", json_object_get(doc, "format"));
	char *reordered = json_dumps(moved, JSON_PRESERVE_ORDER);
	json_decref(moved);
	json_decref(doc);

	const char *inputs[] = { long_number, escaped3, deep, reordered };
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		const char *in = tmp_path("parsers-in.json"), *out = tmp_path("parsers-out.json");
		spit(in, inputs[i]);
		cgm_model *back = NULL;
		if (cgm_snapshot_read(&back, in) != 0)
			fail_msg("input %zu: %s", i, cgm_error_message());
		assert_int_equal(write_format1(back, out), 0);
		cgm_model_free(back);
		char *written = slurp(out, NULL);
		if (strcmp(written, text) != 0)
			fail_msg("input %zu does not write back the original snapshot", i);
		free(written);
	}

	const char *in = tmp_path("parsers-in.json");
	spit(in, with_pair);
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, in), 0);
	int with_comment = 0;
	for (int i = 0; i < back->nfunctions; i++)
		if (back->functions[i].comment &&
		    strcmp(back->functions[i].comment, "\xF0\x9F\x98\x80") == 0)
			with_comment++;
	assert_int_equal(with_comment, 1);
	cgm_model_free(back);

	/* What neither takes is still jansson's error, with line and column. */
	char *lone = replace_first(text, "\"comment\": null", "\"comment\": \"\\ud83d\"");
	expect_input_error("lone-surrogate.json", lone, "line ");
	char *nul = replace_first(text, "\"comment\": null", "\"comment\": \"a\\u0000b\"");
	expect_input_error("nul.json", nul, "line ");
	free(nul);
	free(lone);
	free(with_pair);
	free(reordered);
	free(deep);
	free(escaped3);
	free(escaped2);
	free(escaped);
	free(long_number);
	free(text);
}

/* A file jansson rejects: the reader's error is jansson's own, line and
 * column included, whatever the fast path makes of the text. */
static void expect_jansson_error(const char *what, const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (j)
		fail_msg("%s: the mutant is valid JSON", what);
	char want[256];
	snprintf(want, sizeof(want), "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
	const char *path = tmp_path("syntax.json");
	spit(path, text);
	cgm_model *back = NULL;
	cgm_error_clear();
	int rc = cgm_snapshot_read(&back, path);
	if (rc != CGM_EINPUT || !strstr(cgm_error_message(), want))
		fail_msg("%s: expected jansson's \"%s\", got %d \"%s\"", what, want, rc,
			 cgm_error_message());
	assert_null(back);
}

/* text with its n bytes at `at` replaced by `by` (the caller frees). */
static char *splice(const char *text, size_t at, size_t n, const char *by)
{
	size_t len = strlen(text), add = strlen(by);
	char *out = malloc(len - n + add + 1);
	memcpy(out, text, at);
	memcpy(out + at, by, add);
	memcpy(out + at + add, text + at + n, len - at - n + 1);
	return out;
}

/* Separators and literals broken in every place of a valid snapshot: a
 * tokenizer that skips commas and colons, or takes "tru" and "01", must
 * not let any of them through as a model. */
static void test_syntax_errors_are_janssons(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *path = tmp_path("syntax-base.json");
	/* Format 1: in format 2's "[1,2]" a missing comma leaves valid JSON. */
	assert_int_equal(write_format1(m, path), 0);
	cgm_model_free(m);
	char *text = slurp(path, NULL);
	int mutants = 0;
	bool in_string = false;
	for (size_t i = 0; text[i]; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
			continue;
		}
		char *mutant[3] = { NULL, NULL, NULL };
		char what[64];
		snprintf(what, sizeof(what), "'%c' at byte %zu", c, i);
		switch (c) {
		case '"':
			in_string = true;
			/* A raw control character in a string. */
			mutant[0] = splice(text, i + 1, 0, "\t");
			break;
		case ',':
		case ':':
			mutant[0] = splice(text, i, 1, "");       /* missing */
			mutant[1] = splice(text, i, 1, c == ',' ? ",," : "::"); /* doubled */
			mutant[2] = splice(text, i, 1, c == ',' ? ":" : ",");   /* swapped */
			break;
		case '[':
		case '{':
			mutant[0] = splice(text, i + 1, 0, ","); /* leading comma */
			break;
		case ']':
		case '}':
			if (text[i - 1] != '[' && text[i - 1] != '{')
				mutant[0] = splice(text, i, 0, ","); /* trailing comma */
			break;
		case 't':
		case 'f':
		case 'n':
			mutant[0] = splice(text, i + 1, 1, ""); /* "tue", "fse", "nll" */
			mutant[1] = splice(text, i, c == 'f' ? 5 : 4, c == 't' ? "tru" : c == 'f' ? "fals" : "nul");
			break;
		case '-':
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			if (i > 0 && strchr("-0123456789.eE", text[i - 1]))
				break; /* once per number */
			mutant[0] = splice(text, i, 0, "0"); /* a leading zero */
			size_t end = i + strspn(text + i, "-0123456789.eE+");
			mutant[1] = splice(text, end, 0, "."); /* nothing after the point */
			mutant[2] = splice(text, end, 0, "x");
			break;
		}
		for (int k = 0; k < 3; k++) {
			if (!mutant[k])
				continue;
			expect_jansson_error(what, mutant[k]);
			free(mutant[k]);
			mutants++;
		}
	}
	/* Around the document: a comma before it, a second value after it, a
	 * stray byte after it, invalid UTF-8 and a lone surrogate in a string. */
	size_t len = strlen(text), key = (size_t)(strchr(text, '"') - text) + 1;
	char *around[] = { splice(text, 0, 0, ","), splice(text, len, 0, "{}"),
			   splice(text, len, 0, "]"), splice(text, len, 0, "\x01"),
			   splice(text, key, 0, "\xC0\xAF"), splice(text, key, 0, "\\udc00") };
	for (size_t k = 0; k < sizeof(around) / sizeof(around[0]); k++) {
		expect_jansson_error("around the document", around[k]);
		free(around[k]);
	}
	assert_true(mutants > 1000);
	free(text);
}

/* Every report of a model, one after another: what a reader shows of it. */
static char *all_reports(const cgm_model *m)
{
	cgm_strbuf out = CGM_STRBUF_INIT;
	for (int k = CGM_REPORT_DEAD; k <= CGM_REPORT_SHAPES; k++)
		for (int f = CGM_FORMAT_TEXT; f <= CGM_FORMAT_JSON; f++)
			assert_int_equal(cgm_report_write(&out, m, (cgm_report_kind)k,
							  (cgm_report_format)f), 0);
	return out.data;
}

/* Format 2, the default: compact, defaults left out, functions referred to
 * by their place in "functions".  The same model as format 1 either way
 * round, byte for byte, and the same reports. */
static void test_format2(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *one = tmp_path("f1.json"), *two = tmp_path("f2.json"),
		   *again = tmp_path("f2-again.json");
	assert_int_equal(write_format1(m, one), 0);
	assert_int_equal(cgm_snapshot_write(m, two), 0);
	size_t len1, len2, len;
	char *text1 = slurp(one, &len1), *text2 = slurp(two, &len2);
	assert_non_null(strstr(text2, "\n\"format_version\":2,\n"));
	assert_true(len2 < len1 * 3 / 4);
	/* Defaults left out, separators compact. */
	assert_null(strstr(text2, "\"via_literal\":false"));
	assert_null(strstr(text2, "\"resolution\":\"resolved\""));
	assert_null(strstr(text2, "\"kind\":\"call\""));
	assert_null(strstr(text2, "\"ambiguous\":false"));
	assert_null(strstr(text2, "\"argnames\":null"));
	assert_null(strstr(text2, "\"runtime\":null"));
	assert_null(strstr(text2, "\"scc\":-1"));
	assert_null(strstr(text2, "\": "));

	/* jansson's compact text of the same document, but for the line
	 * breaks (a raw newline is never inside a JSON string). */
	json_error_t err;
	json_t *doc = json_load_file(two, JSON_PRESERVE_ORDER, &err);
	if (!doc)
		fail_msg("jansson does not read format 2: line %d: %s", err.line, err.text);
	char *compact = json_dumps(doc, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(12));
	char *joined = malloc(len2 + 1);
	size_t n = 0;
	for (size_t i = 0; i < len2; i++)
		if (text2[i] != '\n')
			joined[n++] = text2[i];
	joined[n] = '\0';
	assert_string_equal(joined, compact);
	free(joined);
	free(compact);

	/* References are places in "functions": each edge's from and to. */
	json_t *functions = json_object_get(doc, "functions"), *edges = json_object_get(doc, "edges");
	assert_true(json_array_size(edges) > 0);
	for (size_t i = 0; i < json_array_size(edges); i++) {
		json_t *e = json_array_get(edges, i);
		json_t *from = json_object_get(e, "from"), *to = json_object_get(e, "to");
		assert_true(json_is_integer(from) && json_is_integer(to));
		const char *from_id = json_string_value(
			json_object_get(json_array_get(functions, (size_t)json_integer_value(from)), "id"));
		assert_non_null(from_id);
		assert_true(cgm_model_find(m, from_id) >= 0);
	}
	json_decref(doc);

	/* Read back: format 2 again gives the same bytes, format 1 the bytes
	 * the model gave, and format 1 read back gives format 2's bytes. */
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, two), 0);
	assert_int_equal(cgm_snapshot_write(back, again), 0);
	char *text = slurp(again, &len);
	assert_int_equal(len, len2);
	assert_memory_equal(text, text2, len);
	free(text);
	assert_int_equal(write_format1(back, again), 0);
	text = slurp(again, &len);
	assert_int_equal(len, len1);
	assert_memory_equal(text, text1, len);
	free(text);
	cgm_model *from_one = NULL;
	assert_int_equal(cgm_snapshot_read(&from_one, one), 0);
	assert_int_equal(cgm_snapshot_write(from_one, again), 0);
	text = slurp(again, &len);
	assert_int_equal(len, len2);
	assert_memory_equal(text, text2, len);
	free(text);
	char *reports1 = all_reports(from_one), *reports2 = all_reports(back);
	assert_string_equal(reports1, reports2);
	free(reports1);
	free(reports2);
	cgm_model_free(from_one);
	cgm_model_free(back);

	/* A place that names no function is refused, naming where. */
	char *bad = strdup(text2);
	char *at = strstr(bad, "\"edges\":[\n{\"from\":");
	assert_non_null(at);
	at += strlen("\"edges\":[\n{\"from\":");
	char *broken = malloc(strlen(bad) + 16);
	memcpy(broken, bad, (size_t)(at - bad));
	strcpy(broken + (at - bad), "999");
	strcat(broken, at + strspn(at, "0123456789"));
	expect_input_error("bad-place.json", broken, "edges[0].from: is 999, not the place of a function");
	free(broken);
	/* In a site too, found once every function is known. */
	at = strstr(bad, "\"targets\":[");
	assert_non_null(at);
	at += strlen("\"targets\":[");
	broken = malloc(strlen(bad) + 16);
	memcpy(broken, bad, (size_t)(at - bad));
	strcpy(broken + (at - bad), "99999");
	strcat(broken, at + strspn(at, "0123456789"));
	expect_input_error("bad-site-place.json", broken,
			   "].targets: item 0 is 99999, not the place of a function");
	free(broken);
	free(bad);

	cgm_snapshot_options bad_version = { .format_version = 3 };
	assert_int_equal(cgm_snapshot_write_with(m, again, &bad_version), CGM_EUSAGE);
	free(text1);
	free(text2);
	cgm_model_free(m);
}

/* A format 1 file, as cgmap wrote it before format 2: read whole (written
 * as format 1 again it is the same bytes), and through format 2 the same
 * model, the same reports. */
static void test_format1_fixture(void **state)
{
	(void)state;
	const char *fixture = CGMAP_FIXTURES_DIR "/snapshot/format1.json";
	size_t flen, len;
	char *original = slurp(fixture, &flen);
	assert_non_null(strstr(original, "\"format_version\": 1,"));
	cgm_model *m = NULL;
	if (cgm_snapshot_read(&m, fixture) != 0)
		fail_msg("%s", cgm_error_message());
	const char *one = tmp_path("fixture-1.json"), *two = tmp_path("fixture-2.json");
	assert_int_equal(write_format1(m, one), 0);
	char *text = slurp(one, &len);
	assert_int_equal(len, flen);
	assert_memory_equal(text, original, len);
	free(text);
	assert_int_equal(cgm_snapshot_write(m, two), 0);
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, two), 0);
	assert_int_equal(write_format1(back, one), 0);
	text = slurp(one, &len);
	assert_int_equal(len, flen);
	assert_memory_equal(text, original, len);
	free(text);
	char *reports1 = all_reports(m), *reports2 = all_reports(back);
	assert_true(strlen(reports1) > 1000);
	assert_string_equal(reports1, reports2);
	free(reports2);
	/* Read without the bodies (reports and queries): no source kept, the
	 * same reports. */
	cgm_model *lean = NULL;
	assert_int_equal(cgm_snapshot_read_with(&lean, two, CGM_SNAPSHOT_READ_NO_SOURCES), 0);
	int with_source = 0;
	for (int i = 0; i < m->nfunctions; i++)
		with_source += m->functions[i].source != NULL;
	assert_true(with_source >= 5);
	for (int i = 0; i < lean->nfunctions; i++)
		assert_null(lean->functions[i].source);
	reports2 = all_reports(lean);
	assert_string_equal(reports1, reports2);
	free(reports1);
	free(reports2);
	cgm_model_free(lean);
	cgm_model_free(back);
	cgm_model_free(m);
	free(original);
}

/* data gzipped with zlib at level 9 into a new file at path. */
static void spit_gzip(const char *path, const char *data, size_t len)
{
	uLong cap = compressBound((uLong)len) + 64;
	unsigned char *out = malloc(cap);
	z_stream z = { 0 };
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out, 1, z.total_out, f), z.total_out);
	fclose(f);
	deflateEnd(&z);
	free(out);
}

/* The snapshot gzipped: written into a folder as cgmap.json.gz, read from
 * the folder or the file, told by its magic bytes and not its name.  A
 * truncated or corrupt file is an error naming it, and the text inflated
 * is bounded by --max-file-size (a gzip bomb is refused). */
static void test_gzip(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *dir = tmp_path("gz");
	assert_int_equal(mkdir(dir, 0755), 0);
	cgm_snapshot_options gz = { .format_version = 2, .compress = true };
	assert_int_equal(cgm_snapshot_write_with(m, dir, &gz), 0);
	const char *file = tmp_path("gz/cgmap.json.gz"), *plain = tmp_path("gz-plain.json");
	assert_int_equal(cgm_snapshot_write(m, plain), 0);
	size_t gzlen, plen, len;
	char *packed = slurp(file, &gzlen), *text = slurp(plain, &plen);
	assert_true(gzlen > 18 && (unsigned char)packed[0] == 0x1f && (unsigned char)packed[1] == 0x8b);
	assert_true(gzlen < plen / 2);
	/* Written twice: the same bytes (no time in the header). */
	assert_int_equal(cgm_snapshot_write_with(m, dir, &gz), 0);
	char *again = slurp(file, &len);
	assert_int_equal(len, gzlen);
	assert_memory_equal(again, packed, len);
	free(again);

	/* The folder, the file, and the file under a name that says nothing. */
	const char *named = tmp_path("named.json");
	spit(named, ""); /* replaced below */
	FILE *f = fopen(named, "wb");
	assert_int_equal(fwrite(packed, 1, gzlen, f), gzlen);
	fclose(f);
	const char *paths[] = { dir, file, named };
	for (size_t i = 0; i < 3; i++) {
		cgm_model *back = NULL;
		if (cgm_snapshot_read(&back, paths[i]) != 0)
			fail_msg("%s: %s", paths[i], cgm_error_message());
		const char *out = tmp_path("gz-back.json");
		assert_int_equal(cgm_snapshot_write(back, out), 0);
		char *written = slurp(out, &len);
		assert_int_equal(len, plen);
		assert_memory_equal(written, text, len);
		free(written);
		cgm_model_free(back);
	}

	/* Cut short anywhere: an error naming the file, never a model. */
	const char *cut = tmp_path("cut.json.gz");
	size_t cuts[] = { 2, 3, 10, 18, gzlen / 3, gzlen / 2, gzlen - 9, gzlen - 4, gzlen - 1 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		f = fopen(cut, "wb");
		assert_int_equal(fwrite(packed, 1, cuts[i], f), cuts[i]);
		fclose(f);
		cgm_model *back = NULL;
		assert_int_equal(cgm_snapshot_read(&back, cut), CGM_EINPUT);
		assert_null(back);
		if (!strstr(cgm_error_message(), "cut.json.gz") || !strstr(cgm_error_message(), "gzip"))
			fail_msg("cut at %zu: %s", cuts[i], cgm_error_message());
	}
	/* A byte changed in the data, or in the checksum: corrupt. */
	size_t flips[] = { gzlen / 2, gzlen - 6 };
	for (size_t i = 0; i < 2; i++) {
		char *bad = malloc(gzlen);
		memcpy(bad, packed, gzlen);
		bad[flips[i]] ^= 0x55;
		f = fopen(cut, "wb");
		assert_int_equal(fwrite(bad, 1, gzlen, f), gzlen);
		fclose(f);
		free(bad);
		cgm_model *back = NULL;
		assert_int_equal(cgm_snapshot_read(&back, cut), CGM_EINPUT);
		assert_null(back);
		if (!strstr(cgm_error_message(), "cut.json.gz"))
			fail_msg("flip at %zu: %s", flips[i], cgm_error_message());
	}

	/* A bomb: 64 MiB of spaces in a file of about 64 KiB, read with a
	 * 1 MiB limit, is refused at the limit. */
	size_t huge = (size_t)64 << 20;
	char *spaces = malloc(huge);
	memset(spaces, ' ', huge);
	const char *bomb = tmp_path("bomb.json");
	spit_gzip(bomb, spaces, huge);
	free(spaces);
	struct stat st;
	assert_int_equal(stat(bomb, &st), 0);
	assert_true(st.st_size < (1 << 20));
	cgm_infile_set_max_size((int64_t)1 << 20);
	cgm_model *back = NULL;
	int rc = cgm_snapshot_read(&back, bomb);
	cgm_infile_set_max_size(CGM_INFILE_DEFAULT_MAX);
	assert_int_equal(rc, CGM_EINPUT);
	assert_null(back);
	assert_non_null(strstr(cgm_error_message(), "bomb.json\": uncompressed, it is larger than "
						    "the 1048576 bytes limit"));
	/* Within the limit a gzipped text is read like any other: here, not
	 * a snapshot. */
	spit_gzip(bomb, "[1,2]", 5);
	assert_int_equal(cgm_snapshot_read(&back, bomb), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "expected an object"));
	free(packed);
	free(text);
	cgm_model_free(m);
}

/* Read as `cgmap diff` reads (CGM_SNAPSHOT_READ_DIFF_SITES): each
 * function's sites are the dynamic ones and the calls of missing
 * functions of a whole read, in order, with the same targets; the rest of
 * the model is the same. */
static void test_diff_sites(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	const char *two = tmp_path("sites2.json"), *one = tmp_path("sites1.json");
	cgm_snapshot_options v1 = { .format_version = 1 };
	assert_int_equal(cgm_snapshot_write(m, two), 0);
	assert_int_equal(cgm_snapshot_write_with(m, one, &v1), 0);
	const char *paths[] = { two, one };
	for (size_t p = 0; p < 2; p++) {
		cgm_model *whole = NULL, *few = NULL;
		assert_int_equal(cgm_snapshot_read(&whole, paths[p]), 0);
		if (cgm_snapshot_read_with(&few, paths[p], CGM_SNAPSHOT_READ_DIFF_SITES) != 0)
			fail_msg("%s: %s", paths[p], cgm_error_message());
		assert_int_equal(few->nfunctions, whole->nfunctions);
		assert_int_equal(few->nedges, whole->nedges);
		int kept = 0, dropped = 0;
		for (int i = 0; i < whole->nfunctions; i++) {
			const cgm_function *w = &whole->functions[i], *f = &few->functions[i];
			assert_string_equal(f->id, w->id);
			assert_int_equal(f->nerrors, w->nerrors);
			int k = 0;
			for (int s = 0; s < w->nsites; s++) {
				const cgm_site *ws = &w->sites[s];
				if (ws->kind != CGM_SITE_DYNAMIC && ws->resolution != CGM_RES_MISSING) {
					dropped++;
					continue;
				}
				assert_true(k < f->nsites);
				const cgm_site *fs = &f->sites[k++];
				assert_int_equal(fs->line, ws->line);
				assert_int_equal(fs->kind, ws->kind);
				assert_int_equal(fs->resolution, ws->resolution);
				assert_int_equal(fs->nargs, ws->nargs);
				if (cgm_site_get_rare(ws)->text)
					assert_string_equal(cgm_site_get_rare(fs)->text, cgm_site_get_rare(ws)->text);
				if (ws->name)
					assert_string_equal(fs->name, ws->name);
				assert_int_equal(fs->ntargets, ws->ntargets);
				for (int t = 0; t < ws->ntargets; t++)
					assert_string_equal(few->functions[fs->targets[t]].id,
							    whole->functions[ws->targets[t]].id);
				kept++;
			}
			assert_int_equal(f->nsites, k);
		}
		assert_true(kept >= 2);
		assert_true(dropped >= 2);
		cgm_model_free(whole);
		cgm_model_free(few);
	}
	cgm_model_free(m);
}

/* Bodies left in the file (CGM_SNAPSHOT_READ_SOURCES_LATER) and read again
 * for some functions: the same bodies as a whole read, plain or gzipped,
 * format 1 or 2; a file replaced in between is refused, nothing set. */
static void test_sources_later(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	/* A long body: quotes, backslashes and UTF-8 across the reader's
	 * chunks of 4096 bytes. */
	size_t big = 20000;
	char *text = cgm_arena_alloc(m->arena, big + 1);
	for (size_t i = 0; i < big; i++)
		text[i] = "ab\"\\\n\tc\xC3\xBC"[i % 9];
	if ((unsigned char)text[big - 1] == 0xC3)
		text[big - 1] = 'x';
	text[big] = '\0';
	m->functions[cgm_model_find(m, "app.audit()")].source = text;
	const char *plain = tmp_path("later.json"), *plain1 = tmp_path("later1.json");
	const char *packed = tmp_path("later.json.gz");
	cgm_snapshot_options v1 = { .format_version = 1 }, gz = { .format_version = 2, .compress = true };
	assert_int_equal(cgm_snapshot_write(m, plain), 0);
	assert_int_equal(cgm_snapshot_write_with(m, plain1, &v1), 0);
	assert_int_equal(cgm_snapshot_write_with(m, packed, &gz), 0);
	const char *paths[] = { plain, plain1, packed };
	for (size_t p = 0; p < 3; p++) {
		cgm_model *whole = NULL, *later = NULL;
		assert_int_equal(cgm_snapshot_read(&whole, paths[p]), 0);
		if (cgm_snapshot_read_with(&later, paths[p], CGM_SNAPSHOT_READ_SOURCES_LATER) != 0)
			fail_msg("%s: %s", paths[p], cgm_error_message());
		assert_int_equal(later->nfunctions, whole->nfunctions);
		int *all = calloc((size_t)later->nfunctions, sizeof(int)), with_body = 0;
		for (int i = 0; i < later->nfunctions; i++) {
			const cgm_function *f = &later->functions[i];
			assert_string_equal(f->id, whole->functions[i].id);
			if (f->source)
				fail_msg("%s: %s read with its body", paths[p], f->id);
			assert_int_equal(f->source_at > 0, whole->functions[i].source != NULL);
			with_body += whole->functions[i].source != NULL;
			all[i] = i;
		}
		assert_true(with_body >= 3);
		/* One first, then all (the one already read is left alone). */
		int audit = cgm_model_find(later, "app.audit()");
		assert_int_equal(cgm_snapshot_read_sources(later, paths[p], &audit, 1), 0);
		assert_string_equal(later->functions[audit].source, text);
		const char *kept = later->functions[audit].source;
		assert_null(later->functions[cgm_model_find(later, ODD_ID)].source);
		if (cgm_snapshot_read_sources(later, paths[p], all, later->nfunctions) != 0)
			fail_msg("%s: %s", paths[p], cgm_error_message());
		assert_ptr_equal(later->functions[audit].source, kept);
		for (int i = 0; i < later->nfunctions; i++) {
			if (whole->functions[i].source)
				assert_string_equal(later->functions[i].source, whole->functions[i].source);
			else
				assert_null(later->functions[i].source);
		}
		free(all);
		cgm_model_free(whole);
		cgm_model_free(later);
	}

	/* Read without the flag: no places, nothing to read again. */
	cgm_model *none = NULL;
	assert_int_equal(cgm_snapshot_read_with(&none, plain, CGM_SNAPSHOT_READ_NO_SOURCES), 0);
	int audit = cgm_model_find(none, "app.audit()");
	assert_int_equal(none->functions[audit].source_at, 0);
	assert_int_equal(cgm_snapshot_read_sources(none, plain, &audit, 1), 0);
	assert_null(none->functions[audit].source);
	cgm_model_free(none);

	/* The file replaced between the two reads (the same model written
	 * again: another file in its place): refused, nothing set. */
	cgm_model *later = NULL;
	assert_int_equal(cgm_snapshot_read_with(&later, plain, CGM_SNAPSHOT_READ_SOURCES_LATER), 0);
	assert_int_equal(cgm_snapshot_write(m, tmp_path("later-new.json")), 0);
	assert_int_equal(rename(tmp_path("later-new.json"), plain), 0);
	audit = cgm_model_find(later, "app.audit()");
	assert_int_equal(cgm_snapshot_read_sources(later, plain, &audit, 1), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "later.json\" is not the file read before"));
	assert_null(later->functions[audit].source);
	/* Gone altogether: the error of any input that cannot be read. */
	unlink(plain);
	assert_int_equal(cgm_snapshot_read_sources(later, plain, &audit, 1), CGM_EINPUT);
	assert_null(later->functions[audit].source);
	cgm_model_free(later);
	cgm_model_free(m);
}

/* A body of n bytes: quotes, backslashes, controls and UTF-8 (escaped in
 * the file, so decoding moves the bytes after them) and plain text. */
static char *mixed_body(cgm_model *m, size_t n, unsigned seed)
{
	static const char *const pieces[] = { "abc def ", "\"q\"", "\\", "\n", "\t", "\xC3\xBC",
					      "\xF0\x9F\x98\x80", "\x01", "  RETURN 1; " };
	char *text = cgm_arena_alloc(m->arena, n + 8);
	size_t used = 0;
	while (used < n) {
		seed = seed * 1103515245u + 12345u;
		const char *piece = pieces[(seed >> 16) % (sizeof(pieces) / sizeof(pieces[0]))];
		size_t len = strlen(piece);
		if (used + len > n)
			piece = "x", len = 1;
		memcpy(text + used, piece, len);
		used += len;
	}
	text[used] = '\0';
	return text;
}

/* A snapshot of many megabytes is read a window at a time: functions cut
 * by the window's end, one longer than the window, and the same model
 * whatever the size of what comes before; plain and gzip'd, with bodies
 * now or later; cut short or broken past the first window, the errors of
 * the whole read. */
static void test_read_through_window(void **state)
{
	(void)state;
	cgm_model *m = build_model();
	int callee = cgm_model_find(m, "app.audit()");
	for (int i = 0; i < 3000; i++) {
		char name[32], id[48];
		snprintf(name, sizeof name, "f%05d", i);
		snprintf(id, sizeof id, "bulk.f%05d()", i);
		int f = add_fn(m, "bulk", name, "", id, "plpgsql");
		/* Mostly short, every 500th past the window's 64 KiB look-ahead,
		 * one of 3 MiB: longer than the first window. */
		size_t n = i == 1600 ? (size_t)3 << 20 : i % 500 == 7 ? 70000 + (size_t)i : 200 + (size_t)(i % 37) * 13;
		m->functions[f].source = mixed_body(m, n, (unsigned)i);
		add_site(m, f, 2, CGM_SITE_CALL, "app", "audit", CGM_RES_RESOLVED, 1, callee);
		add_edge(m, f, callee, CGM_VIA_CALL, CGM_EDGE_STATIC, 1, 2);
	}
	cgm_model_index(m);
	const char *plain = tmp_path("window.json"), *packed = tmp_path("window.json.gz");
	cgm_snapshot_options gz = { .format_version = 2, .compress = true };
	assert_int_equal(cgm_snapshot_write(m, plain), 0);
	assert_int_equal(cgm_snapshot_write_with(m, packed, &gz), 0);
	size_t plen, len;
	char *text = slurp(plain, &plen);
	assert_true(plen > ((size_t)4 << 20));
	const char *paths[] = { plain, packed };
	for (size_t p = 0; p < 2; p++) {
		cgm_model *back = NULL;
		if (cgm_snapshot_read(&back, paths[p]) != 0)
			fail_msg("%s: %s", paths[p], cgm_error_message());
		const char *out = tmp_path("window-back.json");
		assert_int_equal(cgm_snapshot_write(back, out), 0);
		char *written = slurp(out, &len);
		assert_int_equal(len, plen);
		assert_memory_equal(written, text, len);
		free(written);
		/* Bodies later: each found again where the window saw it. */
		cgm_model *later = NULL;
		assert_int_equal(cgm_snapshot_read_with(&later, paths[p], CGM_SNAPSHOT_READ_SOURCES_LATER), 0);
		int *all = calloc((size_t)later->nfunctions, sizeof(int));
		for (int i = 0; i < later->nfunctions; i++)
			all[i] = i;
		if (cgm_snapshot_read_sources(later, paths[p], all, later->nfunctions) != 0)
			fail_msg("%s: %s", paths[p], cgm_error_message());
		for (int i = 0; i < later->nfunctions; i++) {
			if (back->functions[i].source)
				assert_string_equal(later->functions[i].source, back->functions[i].source);
			else
				assert_null(later->functions[i].source);
		}
		free(all);
		cgm_model_free(later);
		cgm_model_free(back);
	}

	/* Cut short past the first window, inside the long body, at the
	 * last bracket: an error naming the file, never a model. */
	const char *cut = tmp_path("window-cut.json");
	const char *long_body = strstr(text, "bulk.f01600()");
	assert_non_null(long_body);
	size_t cuts[] = { ((size_t)1 << 20) + 5, (size_t)(long_body - text) + ((size_t)2 << 20), plen / 2,
			  plen - 2 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		FILE *f = fopen(cut, "wb");
		assert_int_equal(fwrite(text, 1, cuts[i], f), cuts[i]);
		fclose(f);
		cgm_model *back = NULL;
		assert_int_equal(cgm_snapshot_read(&back, cut), CGM_EINPUT);
		assert_null(back);
		if (!strstr(cgm_error_message(), "window-cut.json\": line "))
			fail_msg("cut at %zu: %s", cuts[i], cgm_error_message());
	}
	/* A quote dropped from a key deep in the file: jansson's error, at
	 * the line of the key. */
	char *broken = malloc(plen + 1);
	memcpy(broken, text, plen + 1);
	char *key = strstr(broken + plen / 2, "\"identity_args\"");
	assert_non_null(key);
	int line = 1;
	for (const char *c = broken; c < key; c++)
		line += *c == '\n';
	key[0] = ' ';
	spit(cut, broken);
	cgm_model *back = NULL;
	assert_int_equal(cgm_snapshot_read(&back, cut), CGM_EINPUT);
	assert_null(back);
	char want[80];
	snprintf(want, sizeof want, "window-cut.json\": line %d column", line);
	if (!strstr(cgm_error_message(), want))
		fail_msg("want %s: %s", want, cgm_error_message());
	free(broken);
	free(text);
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_settled_times),
		cmocka_unit_test(test_document_shape),
		cmocka_unit_test(test_derived_lists_recomputed),
		cmocka_unit_test(test_folder_and_atomic_write),
		cmocka_unit_test(test_large_and_failed_writes),
		cmocka_unit_test(test_map_reports_the_failed_output),
		cmocka_unit_test(test_aggregates_round_trip),
		cmocka_unit_test(test_empty_model),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_type_mutations),
		cmocka_unit_test(test_same_bytes_as_jansson),
		cmocka_unit_test(test_parsers_agree),
		cmocka_unit_test(test_syntax_errors_are_janssons),
		cmocka_unit_test(test_format2),
		cmocka_unit_test(test_format1_fixture),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_sources_later),
		cmocka_unit_test(test_diff_sites),
		cmocka_unit_test(test_read_through_window),
	};
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
