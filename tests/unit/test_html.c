/*
 * test_html.c - the HTML site emitter on hand-built models whose answers are
 * known: every page exists, every relative link lands on a file, hostile
 * names stay text everywhere, output is byte-identical whatever the number
 * of layout workers, node caps show "+N more", pages say when there is no
 * runtime data, reports count what they should, bad options are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/html.h"
#include "cgmap/pipeline.h"
#include "cgmap/strbuf.h"
#include "html_internal.h"

#define EVIL_NAME "\"<script>alert(1)</script>\""
#define EVIL_ID "public.\"\"\"<script>alert(1)</script>\"\"\"(text)"
#define ODD_ID "\"Odd Schema\".\"Weird \"\"Name\"\"\\ \xC3\xA9t\xC3\xA9\"()"

/* ---- building models ---- */

static void add_function(cgm_model *m, const char *id, const char *schema, const char *name,
			 const char *args, const char *source)
{
	cgm_function *f = cgm_model_add_function(m);
	f->id = cgm_arena_strdup(m->arena, id);
	f->schema = cgm_arena_strdup(m->arena, schema);
	f->name = cgm_arena_strdup(m->arena, name);
	f->identity_args = cgm_arena_strdup(m->arena, args);
	f->arguments = cgm_arena_strdup(m->arena, args);
	f->result = "integer";
	f->language = "plpgsql";
	f->analysed = true;
	f->source = source ? cgm_arena_strdup(m->arena, source) : NULL;
	f->line_count = 0;
	if (source)
		for (const char *p = source; *p; p++)
			f->line_count += *p == '\n';
	f->scc = -1;
}

static int idx(const cgm_model *m, const char *id)
{
	int i = cgm_model_find(m, id);
	if (i < 0)
		fail_msg("no function %s", id);
	return i;
}

static cgm_function *fn(cgm_model *m, const char *id)
{
	return &m->functions[idx(m, id)];
}

static cgm_edge *add_edge(cgm_model *m, const char *from, const char *to, cgm_via via,
			  unsigned provenance, int line, int64_t calls)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = idx(m, from);
	e->to = idx(m, to);
	e->via = via;
	e->provenance = provenance;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	e->lines[0] = line;
	e->nlines = 1;
	cgm_edge_rare_of(m->arena, e)->runtime.calls = calls;
	cgm_edge_rare_of(m->arena, e)->runtime.total_ms = (double)calls * 0.5;
	return e;
}

static cgm_site *add_site(cgm_model *m, const char *in, int line, cgm_site_kind kind,
			  const char *name, const char *target)
{
	cgm_function *f = fn(m, in);
	f->sites = cgm_arena_grow(m->arena, f->sites, (size_t)f->nsites, (size_t)f->nsites + 1,
				  sizeof(cgm_site));
	cgm_site *s = &f->sites[f->nsites++];
	s->line = line;
	s->kind = kind;
	s->stmt = kind == CGM_SITE_DYNAMIC ? "dynexecute" : "assign";
	s->name = name ? cgm_arena_strdup(m->arena, name) : NULL;
	if (kind == CGM_SITE_DYNAMIC) {
		s->resolution = CGM_RES_NONE;
		cgm_site_rare_of(m->arena, s)->text = "format('SELECT %I()', fname)";
	} else if (target) {
		s->resolution = CGM_RES_RESOLVED;
		s->ntargets = 1;
		s->targets = cgm_arena_alloc(m->arena, sizeof(int));
		s->targets[0] = idx(m, target);
	} else {
		s->resolution = CGM_RES_MISSING;
	}
	return s;
}

/*
 * app.main()        observed entry; calls app.work (static+observed, 10x),
 *                   app.fact (static), app.dyn (observed only: unexplained)
 * app.work()        calls the evil function; sets off trigger app.audit()
 * app.fact(integer) calls itself (a cycle)
 * app.dyn()         two dynamic EXECUTE sites: line 3 observed -> app.work,
 *                   line 5 never observed; calls app.nosuch(int): missing
 * app.audit()       trigger function
 * app.unused()      dead
 * public.<evil>     hostile name, comment and source
 * "Odd Schema".<odd> quotes, a backslash and non-ASCII; cold
 */
/* What cgmap_trace 1.3 records for the demo's runtime figures: the call
 * paths (main 40 ms = 9 self + work 26 + dyn 5; dyn 5 = 1 self + work 4),
 * the shapes of main's 4 calls. */
static void add_demo_paths(cgm_model *m)
{
	static const char *frames[][3] = {
		{ "app.main()" },
		{ "app.main()", "app.dyn()" },
		{ "app.main()", "app.dyn()", "app.work()" },
		{ "app.main()", "app.work()" },
	};
	static int lines[][3] = { { 0 }, { 0, 0 }, { 0, 0, 3 }, { 0, 3 } };
	m->paths = cgm_arena_alloc(m->arena, sizeof(cgm_call_path) * 4);
	m->paths[0] = (cgm_call_path){ 1, frames[0], lines[0], { 4, 40.0, 9.0 }, 5.0, 20.0 };
	m->paths[1] = (cgm_call_path){ 2, frames[1], lines[1], { 2, 5.0, 1.0 }, 2.0, 3.0 };
	m->paths[2] = (cgm_call_path){ 3, frames[2], lines[2], { 7, 4.0, 4.0 }, 0.25, 1.0 };
	m->paths[3] = (cgm_call_path){ 2, frames[3], lines[3], { 10, 26.0, 26.0 }, 1.0, 6.0 };
	m->npaths = 4;
	static cgm_shape_edge short_edges[] = { { "app.main()", "app.work()", 3, false } };
	static cgm_shape_edge long_edges[] = {
		{ "app.dyn()", "app.work()", 3, true },
		{ "app.main()", "app.dyn()", 0, false },
		{ "app.main()", "app.work()", 3, false },
	};
	m->shapes = cgm_arena_alloc(m->arena, sizeof(cgm_call_shape) * 2);
	m->shapes[0] = (cgm_call_shape){ "app.main()", 3, long_edges, 1 };
	m->shapes[1] = (cgm_call_shape){ "app.main()", 1, short_edges, 3 };
	m->nshapes = 2;
	/* The timeline of those calls: one-minute intervals, 10:02 without a
	 * call (by function, then start, as the model keeps them). */
	static cgm_time_bucket buckets[] = {
		{ "app.dyn()", "2026-11-29T10:03:00Z", 2, 1.0 },
		{ "app.main()", "2026-11-29T10:00:00Z", 2, 5.0 },
		{ "app.main()", "2026-11-29T10:01:00Z", 1, 2.0 },
		{ "app.main()", "2026-11-29T10:03:00Z", 1, 2.0 },
		{ "app.work()", "2026-11-29T10:00:00Z", 9, 16.0 },
		{ "app.work()", "2026-11-29T10:01:00Z", 4, 8.0 },
		{ "app.work()", "2026-11-29T10:03:00Z", 4, 6.0 },
	};
	m->buckets = buckets;
	m->nbuckets = 7;
}

static cgm_model *demo_model(bool with_runtime)
{
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "demo<db>";
	m->source.server_version = "15.4";
	add_function(m, "app.main()", "app", "main", "",
		     "\nBEGIN\n  PERFORM app.work();\n  RETURN app.fact(5);\nEND\n");
	add_function(m, "app.work()", "app", "work", "",
		     "\nBEGIN\n  INSERT INTO app.t VALUES (1);\n  RETURN public.\"\"\"<script>alert(1)"
		     "</script>\"\"\"('x');\nEND\n");
	add_function(m, "app.fact(integer)", "app", "fact", "integer",
		     "\nBEGIN\n  RETURN CASE WHEN n < 2 THEN 1 ELSE n * fact(n - 1) END;\nEND\n");
	add_function(m, "app.dyn()", "app", "dyn", "",
		     "\nBEGIN\n  EXECUTE format('SELECT %I()', fname);\n  PERFORM app.nosuch(1);\n"
		     "  EXECUTE format('SELECT %I()', other);\nEND\n");
	add_function(m, "app.audit()", "app", "audit", "", "\nBEGIN\n  RETURN NEW;\nEND\n");
	add_function(m, "app.unused()", "app", "unused", "", "\nBEGIN\n  RETURN 1;\nEND\n");
	add_function(m, EVIL_ID, "public", EVIL_NAME, "text",
		     "\nBEGIN\n  -- </pre><script>alert(2)</script> & \"quotes\" \\ back\n"
		     "  RETURN 1;\nEND\n");
	add_function(m, ODD_ID, "Odd Schema", "Weird \"Name\"\\ \xC3\xA9t\xC3\xA9", "", NULL);
	cgm_model_index(m);

	fn(m, "app.audit()")->is_trigger = true;
	fn(m, EVIL_ID)->comment = "<img src=x onerror=alert(3)> says \"hi\" & bye";
	fn(m, ODD_ID)->language = "sql";
	fn(m, ODD_ID)->analysed = false;
	cgm_function *dyn = fn(m, "app.dyn()");
	dyn->errors = cgm_arena_alloc(m->arena, sizeof(cgm_parse_error));
	dyn->errors[0] = (cgm_parse_error){ 4, "syntax error at or near \"<\"" };
	dyn->nerrors = 1;

	add_site(m, "app.main()", 3, CGM_SITE_PERFORM, "work", "app.work()")->schema = "app";
	add_site(m, "app.main()", 4, CGM_SITE_CALL, "fact", "app.fact(integer)")->schema = "app";
	add_site(m, "app.work()", 3, CGM_SITE_TRIGGER, "t", "app.audit()")->schema = "app";
	add_site(m, "app.work()", 4, CGM_SITE_CALL, "\"<script>alert(1)</script>\"", EVIL_ID)
		->schema = "public";
	add_site(m, "app.fact(integer)", 3, CGM_SITE_CALL, "fact", "app.fact(integer)");
	add_site(m, "app.dyn()", 3, CGM_SITE_DYNAMIC, NULL, NULL);
	add_site(m, "app.dyn()", 4, CGM_SITE_PERFORM, "nosuch", NULL)->schema = "app";
	add_site(m, "app.dyn()", 5, CGM_SITE_DYNAMIC, NULL, NULL);
	fn(m, "app.dyn()")->sites[1].nargs = 1;
	/* app.main reads app.orders at line 4; a CHECK of app.orders (a
	 * hostile constraint name) runs app.fact on INSERT and UPDATE, another
	 * app.audit, listed before it here but after it in a snapshot (sorted
	 * by object): the page must not follow the model's order. */
	cgm_effect *fx0 = cgm_model_add_effect(m);
	fx0->schema = "app";
	fx0->relation = "orders";
	fx0->reach = CGM_REACH_FUNCTION;
	fx0->via = CGM_VIA_CHECK;
	fx0->object = "check app.orders.zz_last";
	fx0->events = CGM_EV_INSERT;
	fx0->function_id = "app.audit()";
	fx0->function = idx(m, "app.audit()");
	cgm_site *rs = add_site(m, "app.main()", 4, CGM_SITE_RELATION, "orders", NULL);
	rs->schema = "app";
	rs->stmt = "return";
	cgm_site_rare_of(m->arena, rs)->events = CGM_EV_SELECT;
	rs->resolution = CGM_RES_NONE;
	cgm_effect *fx = cgm_model_add_effect(m);
	fx->schema = "app";
	fx->relation = "orders";
	fx->reach = CGM_REACH_FUNCTION;
	fx->via = CGM_VIA_CHECK;
	fx->object = "check app.orders." EVIL_NAME;
	fx->events = CGM_EV_INSERT | CGM_EV_UPDATE;
	fx->function_id = "app.fact(integer)";
	fx->function = idx(m, "app.fact(integer)");

	unsigned both = with_runtime ? CGM_EDGE_STATIC | CGM_EDGE_OBSERVED : CGM_EDGE_STATIC;
	add_edge(m, "app.main()", "app.work()", CGM_VIA_CALL, both, 3, with_runtime ? 10 : 0);
	add_edge(m, "app.main()", "app.fact(integer)", CGM_VIA_CALL, CGM_EDGE_STATIC, 4, 0);
	add_edge(m, "app.work()", "app.audit()", CGM_VIA_TRIGGER, CGM_EDGE_STATIC, 3, 0);
	add_edge(m, "app.work()", EVIL_ID, CGM_VIA_CALL, CGM_EDGE_STATIC, 4, 0);
	add_edge(m, "app.fact(integer)", "app.fact(integer)", CGM_VIA_CALL, CGM_EDGE_STATIC, 3, 0);
	if (with_runtime) {
		add_edge(m, "app.main()", "app.dyn()", CGM_VIA_CALL, CGM_EDGE_OBSERVED, 0, 2);
		add_edge(m, "app.dyn()", "app.work()", CGM_VIA_DYNAMIC, CGM_EDGE_OBSERVED, 3, 7);
		m->has_runtime = true;
		m->runtime_window = "2026-11-29 10:00 to 11:00 UTC";
		fn(m, "app.main()")->runtime = (cgm_runtime_stats){ 4, 40.0, 9.0 };
		fn(m, "app.work()")->runtime = (cgm_runtime_stats){ 17, 30.0, 30.0 };
		fn(m, "app.dyn()")->runtime = (cgm_runtime_stats){ 2, 5.0, 1.0 };
		add_demo_paths(m);
		fn(m, "app.main()")->observed_entry = true;
		fn(m, "app.main()")->root = true;
		fn(m, "app.audit()")->root = true;
		for (int i = 0; i < m->nuser; i++)
			m->functions[i].reachable = true;
		fn(m, "app.unused()")->reachable = false;
		fn(m, "app.unused()")->dead = true;
		fn(m, ODD_ID)->reachable = false;
		fn(m, ODD_ID)->dead = true;
		fn(m, "app.fact(integer)")->cold = true;
		fn(m, EVIL_ID)->cold = true;
		fn(m, "app.audit()")->cold = true;
	}
	cgm_reference *ref = cgm_model_add_reference(m);
	ref->function = idx(m, "app.audit()");
	ref->object_kind = "trigger";
	ref->object = "trigger t_audit on app.t";
	cgm_trigger *tr = cgm_model_add_trigger(m);
	tr->table_schema = "app";
	tr->table_name = "t";
	tr->name = "t_audit";
	tr->events = CGM_EV_INSERT;
	tr->function = idx(m, "app.audit()");
	tr->function_id = "app.audit()";
	tr->enabled = true;
	cgm_diagnostic *dg = cgm_model_add_diagnostic(m);
	dg->file = "schema<1>.sql";
	dg->line = 12;
	dg->message = "unterminated quoted string";
	return m;
}

/* Functions big.NAME() of schema big, NAME from `format` and 0 .. n-1. */
static void add_numbered(cgm_model *m, const char *format, int n)
{
	char id[64], name[32];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), format, i);
		snprintf(id, sizeof(id), "big.%s()", name);
		add_function(m, id, "big", name, "", "\nBEGIN\nEND\n");
	}
}

/* A hub calling `n` functions of its own schema. */
static cgm_model *hub_model(int n)
{
	cgm_model *m = cgm_model_new();
	m->source.kind = "sql";
	m->source.name = "hub.sql";
	char id[64];
	add_function(m, "big.hub()", "big", "hub", "", "\nBEGIN\nEND\n");
	add_numbered(m, "f%03d", n);
	cgm_model_index(m);
	for (int i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "big.f%03d()", i);
		add_edge(m, "big.hub()", id, CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	}
	return m;
}

/* ---- reading the output ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static char *site_file(const char *dir, const char *rel)
{
	cgm_strbuf path = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&path, "%s/%s", dir, rel);
	char *text = slurp(cgm_strbuf_cstr(&path));
	cgm_strbuf_free(&path);
	return text;
}

/* The file of object `name` in `folder` ("dot/schemas/"), as the site
 * names it: cgm_escape_filename of the name, then `ext`. */
static char *named_file(const char *dir, const char *folder, const char *name, const char *ext)
{
	cgm_strbuf rel = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&rel, folder);
	cgm_escape_filename(&rel, name);
	cgm_strbuf_puts(&rel, ext);
	char *text = site_file(dir, cgm_strbuf_cstr(&rel));
	cgm_strbuf_free(&rel);
	return text;
}

static char *function_page(const char *dir, const char *id)
{
	return named_file(dir, "functions/", id, ".html");
}

/* The index of function id in a function page's data (html_pagedata.c:
 * its page name without .html, or the first digits of the hash ending
 * it); -1 when absent. */
static int page_fn_index(const char *page, const char *id)
{
	cgm_strbuf stem = CGM_STRBUF_INIT;
	cgm_escape_filename(&stem, id);
	const char *hash = strrchr(cgm_strbuf_cstr(&stem), '-') + 1;
	const char *data = strstr(page, "id=\"cgmap-page\">");
	const char *list = data ? strstr(data, "\"f\":[") : NULL;
	int found = -1;
	for (const char *p = list ? list + 5 : NULL, *end = p ? strchr(p, ']') : NULL; p && p < end;) {
		const char *open = strchr(p, '"'), *close = open ? strchr(open + 1, '"') : NULL;
		if (!open || open > end)
			break;
		found++;
		size_t len = (size_t)(close - open - 1);
		if ((len < strlen(hash) && strncmp(open + 1, hash, len) == 0) ||
		    (len == stem.len && strncmp(open + 1, stem.data, len) == 0)) {
			cgm_strbuf_free(&stem);
			return found;
		}
		p = close + 1;
	}
	cgm_strbuf_free(&stem);
	return -1;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Every file under a folder, relative paths, sorted. */
typedef struct file_list {
	char **paths;
	int n, cap;
} file_list;

static file_list *walk_list;
static size_t walk_prefix;

static int walk_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (type != FTW_F)
		return 0;
	/* The layout cache is no part of the site. */
	if (strncmp(path + walk_prefix, HTML_CACHE_DIR "/", strlen(HTML_CACHE_DIR) + 1) == 0)
		return 0;
	/* Nor are the page records (inodes and times of this folder's files). */
	if (strcmp(path + walk_prefix, HTML_PAGES_FILE) == 0)
		return 0;
	if (walk_list->n == walk_list->cap) {
		walk_list->cap = walk_list->cap ? walk_list->cap * 2 : 64;
		walk_list->paths = realloc(walk_list->paths, sizeof(char *) * (size_t)walk_list->cap);
	}
	walk_list->paths[walk_list->n++] = strdup(path + walk_prefix);
	return 0;
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static file_list list_files(const char *dir)
{
	file_list l = { NULL, 0, 0 };
	walk_list = &l;
	walk_prefix = strlen(dir) + 1;
	assert_int_equal(nftw(dir, walk_add, 16, FTW_PHYS), 0);
	if (l.n)
		qsort(l.paths, (size_t)l.n, sizeof(char *), compare_paths);
	return l;
}

static void free_files(file_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/cgmap-html-XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return strdup(d);
}

static void remove_dir(char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static char *render(const cgm_model *m, int depth, int cap, int threads)
{
	char *dir = temp_dir();
	cgm_html_options o;
	cgm_html_options_init(&o);
	o.depth = depth;
	o.node_cap = cap;
	o.threads = threads;
	o.dot_sources = true; /* the tests read the graphs' DOT */
	int rc = cgm_emit_html(m, &o, dir);
	if (rc)
		fail_msg("cgm_emit_html: %s", cgm_error_message());
	return dir;
}

/* ---- tests ---- */

/* A relation page lists who reads the relation (function, events, line
 * linked to the source) and what it runs; the reader's page and the index
 * link to it; a table with only a trigger gets its page too. */
/* A dynamic site's possible targets (read from its template) are drawn
 * from its EXECUTE node in their own style and listed in its row; an
 * observed target keeps the observed edge only. */
/* app.disp() runs EXECUTE 'SELECT app.handler_' || k || '()', seen calling
 * handler_b at runtime; handler_a is a possible target only. */
static cgm_model *dispatch_model(void)
{
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "demo";
	add_function(m, "app.disp()", "app", "disp", "",
		     "\nBEGIN\n  EXECUTE 'SELECT app.handler_' || k || '()';\nEND\n");
	add_function(m, "app.handler_a()", "app", "handler_a", "", "\nBEGIN\nEND\n");
	add_function(m, "app.handler_b()", "app", "handler_b", "", "\nBEGIN\nEND\n");
	add_function(m, "app.other()", "app", "other", "", "\nBEGIN\nEND\n");
	cgm_model_index(m);
	cgm_site_rare_of(m->arena, add_site(m, "app.disp()", 3, CGM_SITE_DYNAMIC, NULL, NULL))->text =
		"'SELECT app.handler_' || k || '()'";
	m->has_runtime = true;
	add_edge(m, "app.disp()", "app.handler_b()", CGM_VIA_DYNAMIC, CGM_EDGE_OBSERVED, 3, 4);
	return m;
}

static void test_possible_targets_drawn(void **state)
{
	(void)state;
	cgm_model *m = dispatch_model();
	char *dir = render(m, 2, 50, 1);
	char *page = function_page(dir, "app.disp()");
	assert_non_null(strstr(page, "<th>possible targets</th>"));
	cgm_strbuf want = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&want, "<a data-f=\"%d\"></a><br>",
			  page_fn_index(page, "app.handler_a()"));
	assert_non_null(strstr(page, cgm_strbuf_cstr(&want)));
	cgm_strbuf_free(&want);
	/* one possible edge (to handler_a); handler_b's is the observed one */
	const char *tip = "possible target of the dynamic SQL at line 3";
	const char *first = strstr(page, tip);
	assert_non_null(first);
	assert_null(strstr(first + 1, tip));
	assert_null(strstr(page, "app.other()"));
	free(page);
	remove_dir(dir);
	cgm_model_free(m);
}

/* Two sites that may call the same 30 handlers: the graph draws 12 of them
 * and says the other 18 are not drawn, not 18 for each site. */
static void test_possible_targets_counted_once(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "demo";
	add_function(m, "app.disp()", "app", "disp", "",
		     "\nBEGIN\n  EXECUTE 'SELECT app.h' || k || '()';\n  EXECUTE 'SELECT app.h' || j || '()';\nEND\n");
	for (int i = 0; i < 30; i++) {
		char id[32], name[16];
		snprintf(id, sizeof id, "app.h%02d()", i);
		snprintf(name, sizeof name, "h%02d", i);
		add_function(m, cgm_arena_strdup(m->arena, id), "app", cgm_arena_strdup(m->arena, name), "",
			     "\nBEGIN\nEND\n");
	}
	cgm_model_index(m);
	cgm_site_rare_of(m->arena, add_site(m, "app.disp()", 3, CGM_SITE_DYNAMIC, NULL, NULL))->text =
		"'SELECT app.h' || k || '()'";
	cgm_site_rare_of(m->arena, add_site(m, "app.disp()", 4, CGM_SITE_DYNAMIC, NULL, NULL))->text =
		"'SELECT app.h' || j || '()'";
	char *dir = render(m, 2, 50, 1);
	char *page = function_page(dir, "app.disp()");
	assert_non_null(strstr(page, "+18 more possible targets"));
	free(page);
	remove_dir(dir);
	cgm_model_free(m);
}

typedef struct hash_name {
	char prefix[8];
	int n;
} hash_name;

static int compare_hash_names(const void *a, const void *b)
{
	return strcmp(((const hash_name *)a)->prefix, ((const hash_name *)b)->prefix);
}

/* A page's data names a function by the first 6 digits of the hash ending
 * its page name, or by its whole page name when another page's hash starts
 * with the same 6 (html_pagedata.c): both kinds name the right page. */
static void test_page_data_names(void **state)
{
	(void)state;
	/* Two ids whose page names' hashes share their first 6 digits:
	 * 20,000 tries hold about a dozen such pairs of 24 bits. */
	enum { TRIES = 20000 };
	hash_name *names = calloc(TRIES, sizeof(*names));
	assert_non_null(names);
	for (int i = 0; i < TRIES; i++) {
		char id[64];
		snprintf(id, sizeof(id), "app.h(t%d)", i);
		cgm_strbuf page = CGM_STRBUF_INIT;
		cgm_escape_filename(&page, id);
		snprintf(names[i].prefix, sizeof(names[i].prefix), "%.6s", strrchr(page.data, '-') + 1);
		names[i].n = i;
		cgm_strbuf_free(&page);
	}
	qsort(names, TRIES, sizeof(*names), compare_hash_names);
	int a = -1, b = -1;
	for (int i = 1; i < TRIES && a < 0; i++)
		if (strcmp(names[i - 1].prefix, names[i].prefix) == 0)
			a = names[i - 1].n, b = names[i].n;
	free(names);
	assert_true(a >= 0); /* the premise */
	char ida[64], idb[64];
	snprintf(ida, sizeof(ida), "app.h(t%d)", a);
	snprintf(idb, sizeof(idb), "app.h(t%d)", b);
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "db";
	char argsa[32], argsb[32];
	snprintf(argsa, sizeof(argsa), "t%d", a);
	snprintf(argsb, sizeof(argsb), "t%d", b);
	add_function(m, ida, "app", "h", argsa, "\nBEGIN\n  RETURN 1;\nEND\n");
	add_function(m, idb, "app", "h", argsb, "\nBEGIN\n  RETURN 2;\nEND\n");
	add_function(m, "app.k()", "app", "k", "", "\nBEGIN\n  RETURN 3;\nEND\n");
	add_function(m, "app.g()", "app", "g", "", "\nBEGIN\n  PERFORM 1;\n  PERFORM 2;\nEND\n");
	cgm_model_index(m);
	add_edge(m, "app.g()", ida, CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	add_edge(m, "app.g()", idb, CGM_VIA_CALL, CGM_EDGE_STATIC, 3, 0);
	add_edge(m, "app.g()", "app.k()", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	char *dir = render(m, 1, 50, 1);
	char *page = function_page(dir, "app.g()");
	const char *data = strstr(strstr(page, "id=\"cgmap-page\">"), "\"f\":[");
	assert_non_null(data);
	/* The two that share 6 digits by their page names, the other by its 6. */
	const char *const want[3] = { ida, idb, "app.k()" };
	for (int i = 0; i < 3; i++) {
		cgm_strbuf stem = CGM_STRBUF_INIT, named = CGM_STRBUF_INIT;
		cgm_escape_filename(&stem, want[i]);
		if (i < 2)
			cgm_strbuf_printf(&named, "\"%s\"", stem.data);
		else
			cgm_strbuf_printf(&named, "\"%.6s\"", strrchr(stem.data, '-') + 1);
		const char *at = strstr(data, cgm_strbuf_cstr(&named));
		if (!at || at > strchr(data, ']'))
			fail_msg("the page's data does not name %s as %s", want[i], cgm_strbuf_cstr(&named));
		assert_true(page_fn_index(page, want[i]) > 0);
		cgm_strbuf_free(&stem), cgm_strbuf_free(&named);
	}
	/* The callees' rows, in id order: a static call of the function after
	 * the previous row's is its lines alone; the first names its own. */
	assert_non_null(strstr(page, "\"d\":[[1,2],\n[3],\n[2]]") ||
			strstr(page, "\"d\":[[1,3],\n[2],\n[2]]"));
	free(page);
	remove_dir(dir);
	cgm_model_free(m);
}

static void test_relation_pages(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = render(m, 2, 50, 1);
	cgm_strbuf rel = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&rel, "relations/");
	cgm_escape_filename(&rel, "app.orders");
	cgm_strbuf_puts(&rel, ".html");
	char *page = site_file(dir, cgm_strbuf_cstr(&rel));
	assert_non_null(strstr(page, "<h1>app.orders</h1>"));
	assert_non_null(strstr(page, "Read by (1)"));
	assert_non_null(strstr(page, "Written by (0)"));
	/* The reader's row, for the page's script: the function (by its
	 * index in the page's data), the events, the line. */
	cgm_strbuf want = CGM_STRBUF_INIT;
	assert_non_null(strstr(page, "\"fb\":\"../functions/\""));
	cgm_strbuf_printf(&want, "\"a\":[[%d,\"SELECT\",4]]", page_fn_index(page, "app.main()"));
	assert_non_null(strstr(page, cgm_strbuf_cstr(&want)));
	cgm_strbuf_reset(&want);
	cgm_strbuf_free(&want);
	assert_non_null(strstr(page, "What it runs (2)"));
	cgm_strbuf_puts(&want, "<td>INSERT|UPDATE</td><td>check</td><td>check app.orders."
			       "&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;</td><td>runs "
			       "<a class=\"fn\" href=\"../functions/");
	cgm_escape_filename(&want, "app.fact(integer)");
	cgm_strbuf_puts(&want, ".html\">app.fact(integer)</a>");
	assert_non_null(strstr(page, cgm_strbuf_cstr(&want)));
	assert_null(strstr(page, "<script>alert"));
	cgm_strbuf_free(&want);
	free(page);

	/* The reader's page has a Relations section linking to the page. */
	page = function_page(dir, "app.main()");
	assert_non_null(strstr(page, "<h2 id=\"relations\">Relations (1)</h2>"));
	/* The row, for the page's script: the relation by its page name,
	 * the events, the line. */
	cgm_strbuf_printf(&want, "\"r\":[[\"%.*s\",\"SELECT\",4]]",
			  (int)(strlen(cgm_strbuf_cstr(&rel)) - strlen("relations/") - 5),
			  cgm_strbuf_cstr(&rel) + strlen("relations/"));
	assert_non_null(strstr(page, cgm_strbuf_cstr(&want)));
	cgm_strbuf_free(&want);
	free(page);
	page = function_page(dir, "app.unused()");
	assert_null(strstr(page, "id=\"relations\""));
	free(page);

	/* The search finds relations too, by name, with their accessors. */
	page = site_file(dir, "search-index.js");
	cgm_strbuf_printf(&want, "[\"app.orders\",\"%s\",\"relation, read by 1, written by 0\","
				 "\"orders\"]",
			  cgm_strbuf_cstr(&rel));
	assert_non_null(strstr(page, cgm_strbuf_cstr(&want)));
	cgm_strbuf_free(&want);
	free(page);

	/* The index lists both relations; app.t runs its trigger. */
	page = site_file(dir, "index.html");
	assert_non_null(strstr(page, "<h2 id=\"relations\">Relations (2)</h2>"));
	cgm_strbuf_printf(&want, "href=\"%s\">app.orders</a>", cgm_strbuf_cstr(&rel));
	assert_non_null(strstr(page, cgm_strbuf_cstr(&want)));
	cgm_strbuf_free(&want);
	free(page);
	cgm_strbuf_free(&rel);
	cgm_strbuf_puts(&rel, "relations/");
	cgm_escape_filename(&rel, "app.t");
	cgm_strbuf_puts(&rel, ".html");
	page = site_file(dir, cgm_strbuf_cstr(&rel));
	assert_non_null(strstr(page, "<td>trigger</td><td>trigger t_audit</td>"));
	assert_non_null(strstr(page, "No mapped function reads it."));
	free(page);
	cgm_strbuf_free(&rel);
	remove_dir(dir);
	cgm_model_free(m);
}

static void test_every_page_is_written(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = render(m, 2, 50, 1);
	static const char *const must[] = {
		"index.html",         "search-index.js",        "assets/cgmap.css",
		"assets/cgmap.js",    "reports/dead.html",      "reports/cold.html",
		"reports/dynamic.html", "reports/unexplained.html", "reports/missing.html",
		"reports/errors.html", "reports/cycles.html",
	};
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, must[i]);
		if (access(path, R_OK) != 0)
			fail_msg("missing %s", must[i]);
	}
	file_list files = list_files(dir);
	int fpages = 0, spages = 0, fdots = 0, sdots = 0;
	for (int i = 0; i < files.n; i++) {
		fpages += strncmp(files.paths[i], "functions/", 10) == 0;
		spages += strncmp(files.paths[i], "schemas/", 8) == 0;
		fdots += strncmp(files.paths[i], "dot/functions/", 14) == 0;
		sdots += strncmp(files.paths[i], "dot/schemas/", 12) == 0;
	}
	assert_int_equal(fpages, m->nuser);
	assert_int_equal(fdots, m->nuser);
	assert_int_equal(spages, 3); /* app, public, Odd Schema */
	assert_int_equal(sdots, 3);
	/* Each function page: its id as the heading, a graph. */
	char *page = function_page(dir, "app.main()");
	assert_non_null(strstr(page, "<h1 class=\"fn\">app.main()</h1>"));
	assert_non_null(strstr(page, "<svg"));
	/* cgmap's own layout, whose legend the page's script adds. */
	assert_non_null(strstr(page, "<svg class=\"layered\""));
	assert_null(strstr(page, "Legend"));
	/* Call sites link to their targets from the source. */
	cgm_strbuf href = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&href, "<a data-f=\"%d\">", page_fn_index(page, "app.work()"));
	assert_non_null(strstr(page, cgm_strbuf_cstr(&href)));
	cgm_strbuf_reset(&href);
	/* Observed edge labelled with its count; observed-only edge coloured. */
	assert_non_null(strstr(page, "10\xC3\x97"));
	cgm_strbuf_free(&href);
	free(page);
	page = function_page(dir, "app.work()");
	/* The callers table's row (in the page's data, html_pagedata.c):
	 * the caller, named by the hash ending its page name, with its
	 * call-site line, which the script links into the caller's source. */
	int caller = page_fn_index(page, "app.main()");
	assert_true(caller > 0);
	/* The row starts the list ("c":[[) or a line of it. */
	cgm_strbuf_printf(&href, "\"c\":[[%d,", caller);
	const char *row = strstr(page, cgm_strbuf_cstr(&href));
	cgm_strbuf_reset(&href);
	cgm_strbuf_printf(&href, "\n[%d,", caller);
	row = row ? row + 4 : strstr(strstr(page, "\"c\":["), cgm_strbuf_cstr(&href));
	assert_non_null(row);
	int via = -1, provenance = -1, line = -1;
	assert_int_equal(sscanf(row + 1, "[%*d,%d,%d,%d,", &via, &provenance, &line), 3);
	assert_int_equal(line, 3); /* a single line, not [3] */
	assert_int_equal(via, CGM_VIA_CALL);
	assert_int_equal(provenance, CGM_VIA_COUNT + 2); /* NAMES: static+observed */
	char *js = site_file(dir, "assets/cgmap.js");
	assert_non_null(strstr(js, "'aggregate', 'partition_key', 'static', 'observed', 'static+observed'"));
	free(js);
	cgm_strbuf_free(&href);
	free(page);
	page = function_page(dir, "app.dyn()");
	/* Seen dynamic site marked with its target; unseen one flagged; the
	 * missing callee marked in the source and drawn as its own node. */
	assert_non_null(strstr(page, "dynamic EXECUTE: observed"));
	assert_non_null(strstr(page, "dynamic EXECUTE: never observed"));
	assert_non_null(strstr(page, "<span class=\"missing\""));
	assert_non_null(strstr(page, "nosuch(1 arg)"));
	assert_non_null(strstr(page, "<pre class=\"source\" data-dyn=\"")); /* lines marked dynamic */
	free(page);
	free_files(&files);
	remove_dir(dir);
	cgm_model_free(m);
}

/* Every relative href (pages, SVG nodes) must name a file of the site. */
static void test_links_land(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = render(m, 2, 50, 2);
	file_list files = list_files(dir);
	int checked = 0, graph_links = 0;
	for (int i = 0; i < files.n; i++) {
		const char *rel = files.paths[i];
		size_t len = strlen(rel);
		if (len < 5 || strcmp(rel + len - 5, ".html") != 0)
			continue;
		char *text = site_file(dir, rel);
		char base[4096];
		snprintf(base, sizeof(base), "%s/%s", dir, rel);
		*strrchr(base, '/') = '\0';
		for (const char *p = text; (p = strstr(p, "href=\"")); ) {
			p += 6;
			const char *end = strchr(p, '"');
			assert_non_null(end);
			char target[2048];
			size_t n = (size_t)(end - p);
			assert_true(n < sizeof(target));
			memcpy(target, p, n);
			target[n] = '\0';
			char *hash = strchr(target, '#');
			if (hash)
				*hash = '\0';
			if (target[0] == '\0' || strncmp(target, "data:", 5) == 0)
				continue;
			if (strstr(target, "://"))
				fail_msg("%s links outside the site: %s", rel, target);
			char path[8192];
			snprintf(path, sizeof(path), "%s/%s", base, target);
			if (access(path, R_OK) != 0)
				fail_msg("%s links to %s, which does not exist", rel, target);
			checked++;
		}
		/* The functions a page's data names, which its tables and graph
		 * link to (html_pagedata.c): by page name, or by the hash that
		 * ends exactly one page name. */
		const char *data = strstr(text, "<script type=\"application/json\" id=\"cgmap-page\">");
		if (data)
			data = strstr(data, "\"f\":[");
		if (data) {
			const char *end = strchr(data, ']');
			assert_non_null(end);
			for (const char *q = strchr(data, '[') + 1; q < end; ) {
				const char *open = strchr(q, '"'), *close = open ? strchr(open + 1, '"') : NULL;
				if (!open || open > end)
					break;
				char name[2048];
				snprintf(name, sizeof(name), "%.*s", (int)(close - open - 1), open + 1);
				int found = 0;
				if (strchr(name, '-')) {
					char path[8192];
					snprintf(path, sizeof(path), "%s/%s.html", base, name);
					found = access(path, R_OK) == 0;
				} else {
					/* the first digits of the hash ending one page name */
					for (int k = 0; k < files.n; k++) {
						const char *dash = strrchr(files.paths[k], '-');
						found += strncmp(files.paths[k], "functions/", 10) == 0 && dash &&
							 strncmp(dash + 1, name, strlen(name)) == 0;
					}
				}
				if (found != 1)
					fail_msg("%s names function %s, which is %d pages", rel, name, found);
				graph_links++;
				q = close + 1;
			}
		}
		free(text);
	}
	assert_true(checked > 100);
	assert_true(graph_links > 10);
	free_files(&files);
	remove_dir(dir);
	cgm_model_free(m);
}

/* Page names are short (the name before its arguments and 8 hex digits);
 * two ids whose short names collide (app.f(t5525) and app.f(t50277) share
 * the 32-bit hash) get the wide one, and every other page keeps its own. */
static void test_colliding_page_names(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "db";
	add_function(m, "app.f(t5525)", "app", "f", "t5525", "\nBEGIN\n  RETURN 1;\nEND\n");
	add_function(m, "app.f(t50277)", "app", "f", "t50277", "\nBEGIN\n  RETURN 2;\nEND\n");
	add_function(m, "app.g()", "app", "g", "", "\nBEGIN\n  RETURN 3;\nEND\n");
	cgm_model_index(m);
	add_edge(m, "app.g()", "app.f(t5525)", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	add_edge(m, "app.g()", "app.f(t50277)", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	cgm_strbuf a = CGM_STRBUF_INIT, b = CGM_STRBUF_INIT;
	cgm_escape_filename(&a, "app.f(t5525)");
	cgm_escape_filename(&b, "app.f(t50277)");
	assert_string_equal(cgm_strbuf_cstr(&a), cgm_strbuf_cstr(&b)); /* the premise */
	assert_int_equal(strlen(cgm_strbuf_cstr(&a)), strlen("app.f-") + 8);
	char *dir = render(m, 2, 50, 1);
	file_list files = list_files(dir);
	int fpages = 0;
	for (int i = 0; i < files.n; i++)
		fpages += strncmp(files.paths[i], "functions/", 10) == 0;
	assert_int_equal(fpages, 3);
	static const char *const wide[] = { "app.f(t5525)", "app.f(t50277)" };
	for (int i = 0; i < 2; i++) {
		cgm_strbuf rel = CGM_STRBUF_INIT;
		cgm_strbuf_puts(&rel, "functions/");
		cgm_escape_filename_wide(&rel, wide[i]);
		cgm_strbuf_puts(&rel, ".html");
		char *page = site_file(dir, cgm_strbuf_cstr(&rel));
		cgm_strbuf h1 = CGM_STRBUF_INIT;
		cgm_strbuf_printf(&h1, "<h1 class=\"fn\">%s</h1>", wide[i]);
		assert_non_null(strstr(page, cgm_strbuf_cstr(&h1)));
		cgm_strbuf_free(&h1);
		free(page);
		cgm_strbuf_free(&rel);
	}
	char *g = function_page(dir, "app.g()"); /* the short name */
	assert_non_null(strstr(g, "<h1 class=\"fn\">app.g()</h1>"));
	free(g);
	free_files(&files);
	cgm_strbuf_free(&a);
	cgm_strbuf_free(&b);
	remove_dir(dir);
	cgm_model_free(m);
}

/* A hostile name, comment and source appear as text in HTML, SVG, DOT and
 * the search index: no page holds a script element of its own. */
static void test_hostile_names_stay_text(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = render(m, 2, 50, 1);
	file_list files = list_files(dir);
	for (int i = 0; i < files.n; i++) {
		char *text = site_file(dir, files.paths[i]);
		if (strstr(files.paths[i], ".html")) {
			if (strstr(text, "<script>alert") || strstr(text, "<img src=x"))
				fail_msg("%s holds a raw hostile tag", files.paths[i]);
			/* The only script elements are the site's own: its script,
			 * and graph data that holds no '<' (none can end it). */
			static const char data_tag[] =
				"<script type=\"application/json\" class=\"layered-data\">";
			static const char page_tag[] =
				"<script type=\"application/json\" id=\"cgmap-page\">";
			for (const char *p = text; (p = strstr(p, "<script")); p += 7) {
				bool graph = strncmp(p, data_tag, strlen(data_tag)) == 0;
				if (graph || strncmp(p, page_tag, strlen(page_tag)) == 0) {
					const char *body = p + strlen(graph ? data_tag : page_tag);
					const char *lt = strchr(body, '<');
					if (!lt || strncmp(lt, "</script>", 9) != 0)
						fail_msg("%s holds graph data with a '<'", files.paths[i]);
					continue;
				}
				if (strncmp(p, "<script src=\"", 13) != 0)
					fail_msg("%s holds a script element not of the site", files.paths[i]);
			}
		}
		if (strcmp(files.paths[i], "search-index.js") == 0) {
			assert_null(strstr(text, "<script>"));
			assert_non_null(strstr(text, "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"));
		}
		free(text);
	}
	char *page = function_page(dir, EVIL_ID);
	assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(page, "&lt;img src=x onerror=alert(3)&gt; says &quot;hi&quot; &amp; bye"));
	assert_non_null(strstr(page, "&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;"));
	free(page);
	/* In the caller's graph data the node's tooltip is a JSON string
	 * without a '<' (the script sets it as text). */
	page = function_page(dir, "app.work()");
	assert_non_null(strstr(page, "\"public.\\\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\\"(text)\""));
	free(page);
	/* Quotes, backslash, non-ASCII: intact as text. */
	page = function_page(dir, ODD_ID);
	assert_non_null(strstr(page, "&quot;Odd Schema&quot;.&quot;Weird &quot;&quot;Name&quot;&quot;\\ \xC3\xA9t\xC3\xA9&quot;()"));
	free(page);
	/* DOT: the label is a valid quoted string with the backslash doubled. */
	cgm_strbuf rel = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&rel, "dot/functions/");
	cgm_escape_filename(&rel, ODD_ID);
	cgm_strbuf_puts(&rel, ".dot");
	char *dot = site_file(dir, cgm_strbuf_cstr(&rel));
	assert_non_null(strstr(dot, "Weird \\\"Name\\\"\\\\ \xC3\xA9t\xC3\xA9()"));
	free(dot);
	cgm_strbuf_free(&rel);
	free_files(&files);
	remove_dir(dir);
	cgm_model_free(m);
}

/* A name or source line holding a right-to-left override (Trojan
 * Source), a terminal escape, a C1 control or a bad byte: no file of the
 * site holds one raw; the pages show them escaped. */
static void test_hidden_characters_shown(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "db";
#define RLO_ID "app.\"adm\xE2\x80\xAE" "nimda\x1B[2J\xC2\x9B\xFF\"()"
	add_function(m, RLO_ID, "app", "adm\xE2\x80\xAE" "nimda\x1B[2J\xC2\x9B\xFF", "",
		     "\nBEGIN\n  IF role = 'user\xE2\x80\xAE \xE2\x81\xA6-- admin\xE2\x81\xA9' THEN\n"
		     "  RETURN 1;\nEND\n");
	add_function(m, "app.caller()", "app", "caller", "", "\nBEGIN\n  RETURN 1;\nEND\n");
	cgm_model_index(m);
	add_edge(m, "app.caller()", RLO_ID, CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	char *dir = render(m, 2, 50, 1);
	file_list files = list_files(dir);
	for (int i = 0; i < files.n; i++) {
		char *text = site_file(dir, files.paths[i]);
		for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
			if (*p == 0x1B || *p == 0xFF)
				fail_msg("%s holds the raw byte 0x%02X", files.paths[i], *p);
			if (p[0] == 0xC2 && p[1] == 0x9B)
				fail_msg("%s holds a raw C1 control", files.paths[i]);
			if (p[0] == 0xE2 && ((p[1] == 0x80 && p[2] == 0xAE) || (p[1] == 0x81 && p[2] == 0xA6)))
				fail_msg("%s holds a raw bidi control", files.paths[i]);
		}
		free(text);
	}
	char *page = function_page(dir, RLO_ID);
	assert_non_null(strstr(page, "adm\\u202Enimda\xE2\x90\x9B[2J\\u009B\\xFF"));
	assert_non_null(strstr(page, "user\\u202E \\u2066-- admin\\u2069"));
	free(page);
	char *index = site_file(dir, "search-index.js");
	assert_non_null(strstr(index, "adm\\\\u202Enimda"));
	free(index);
	free_files(&files);
	remove_dir(dir);
	cgm_model_free(m);
}

/* A link planted in the output folder is never written through: at a
 * page's name it is replaced by the page, at a folder's name the run is
 * refused with a message naming it, before any page is written. */
static void test_links_not_followed(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *outside = temp_dir(), *dir = temp_dir();
	char victim[4096], elsewhere[4096], path[4096];
	snprintf(victim, sizeof(victim), "%s/victim", outside);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", outside);
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(mkdir(elsewhere, 0777), 0);
	snprintf(path, sizeof(path), "%s/index.html", dir);
	assert_int_equal(symlink(victim, path), 0);
	snprintf(path, sizeof(path), "%s/functions", dir);
	assert_int_equal(symlink(elsewhere, path), 0);

	cgm_html_options o;
	cgm_html_options_init(&o);
	o.threads = 2;
	assert_int_equal(cgm_emit_html(m, &o, dir), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "/functions\": it is a symbolic link"));
	file_list none = list_files(elsewhere);
	assert_int_equal(none.n, 0);
	free_files(&none);

	/* Without the folder link: the page links are replaced, not followed. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0777), 0);
	cgm_strbuf page = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&page, "%s/functions/", dir);
	cgm_escape_filename(&page, "app.main()");
	cgm_strbuf_puts(&page, ".html");
	assert_int_equal(symlink(victim, cgm_strbuf_cstr(&page)), 0);
	assert_int_equal(cgm_emit_html(m, &o, dir), 0);
	char *text = slurp(victim);
	assert_string_equal(text, "precious\n");
	free(text);
	struct stat st;
	assert_int_equal(lstat(cgm_strbuf_cstr(&page), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	snprintf(path, sizeof(path), "%s/index.html", dir);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	cgm_strbuf_free(&page);
	remove_dir(dir);
	remove_dir(outside);
	cgm_model_free(m);
}

static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The manifest lists exactly the files of a fresh site. */
static void assert_manifest_is_site(const char *dir)
{
	file_list files = list_files(dir);
	char *manifest = site_file(dir, ".cgmap-manifest");
	cgm_strbuf want = CGM_STRBUF_INIT;
	for (int i = 0; i < files.n; i++)
		if (strcmp(files.paths[i], ".cgmap-manifest") != 0)
			cgm_strbuf_printf(&want, "%s\n", files.paths[i]);
	const char *body = strchr(manifest, '\n');
	assert_non_null(body);
	assert_true(manifest[0] == '#');
	assert_string_equal(body + 1, cgm_strbuf_cstr(&want));
	cgm_strbuf_free(&want);
	free(manifest);
	free_files(&files);
}

static void assert_same_tree(const char *a, const char *b);

/* Rendering again into a folder removes the pages the last rendering
 * wrote and this one does not, and nothing a person put there: the site
 * is then the same as a fresh one, plus the person's files. */
static void test_render_again_removes_old_pages(void **state)
{
	(void)state;
	cgm_model *big = demo_model(true);
	char *dir = render(big, 2, 50, 2);
	assert_manifest_is_site(dir);
	put_file(dir, "notes.md", "mine\n");
	put_file(dir, "functions/mine.html", "mine\n");
	put_file(dir, "functions/x-0123456789abcdef.html", "page-shaped, not cgmap's\n");
	put_file(dir, "reports/extra.html", "mine\n");

	cgm_model *small = cgm_model_new();
	small->source.kind = "database";
	small->source.name = "demo<db>";
	add_function(small, "app.main()", "app", "main", "", "\nBEGIN\n  RETURN 1;\nEND\n");
	add_function(small, "other.fresh()", "other", "fresh", "", "\nBEGIN\n  RETURN 1;\nEND\n");
	cgm_model_index(small);
	cgm_html_options o;
	cgm_html_options_init(&o);
	o.threads = 2;
	o.dot_sources = true;
	assert_int_equal(cgm_emit_html(small, &o, dir), 0);
	char *fresh = render(small, o.depth, 50, 1);
	assert_manifest_is_site(fresh);

	/* The person's files stay; then the folder is the fresh site. */
	static const char *const mine[] = { "notes.md", "functions/mine.html",
					    "functions/x-0123456789abcdef.html",
					    "reports/extra.html" };
	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, mine[i]);
		struct stat st;
		if (stat(path, &st) != 0)
			fail_msg("%s was removed", mine[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_same_tree(dir, fresh);
	remove_dir(dir);
	remove_dir(fresh);
	cgm_model_free(big);
	cgm_model_free(small);
}

static void assert_same_tree(const char *a, const char *b)
{
	file_list fa = list_files(a), fb = list_files(b);
	assert_int_equal(fa.n, fb.n);
	for (int i = 0; i < fa.n; i++) {
		assert_string_equal(fa.paths[i], fb.paths[i]);
		char *x = site_file(a, fa.paths[i]), *y = site_file(b, fb.paths[i]);
		if (strcmp(x, y) != 0)
			fail_msg("%s differs between two renderings", fa.paths[i]);
		free(x), free(y);
	}
	free_files(&fa), free_files(&fb);
}

static void test_output_is_deterministic(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *one = render(m, 2, 50, 1), *two = render(m, 2, 50, 2), *three = render(m, 2, 50, 3);
	assert_same_tree(one, two);
	assert_same_tree(one, three);
	remove_dir(one), remove_dir(two), remove_dir(three);
	cgm_model_free(m);
}

static int function_nodes(const char *dot)
{
	int n = 0;
	for (const char *p = dot; (p = strstr(p, "\n  n")); p += 4) {
		const char *q = p + 4;
		while (*q >= '0' && *q <= '9')
			q++;
		n += strncmp(q, " [", 2) == 0;
	}
	return n;
}

/* An entry point's reach is counted exactly, through cycles, however far
 * it goes: a chain of 6,000 functions whose second half is one cycle. */
static void test_overview_reach_exact(void **state)
{
	(void)state;
	enum { CHAIN = 6000 };
	cgm_model *m = cgm_model_new();
	m->source.kind = "sql";
	m->source.name = "chain.sql";
	char id[64], next[64];
	add_function(m, "big.hub()", "big", "hub", "", "\nBEGIN\nEND\n");
	add_function(m, "big.side()", "big", "side", "", "\nBEGIN\nEND\n");
	add_numbered(m, "c%04d", CHAIN);
	cgm_model_index(m);
	add_edge(m, "big.hub()", "big.c0000()", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	add_edge(m, "big.side()", "big.c5000()", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	for (int i = 0; i < CHAIN; i++) {
		snprintf(id, sizeof(id), "big.c%04d()", i);
		snprintf(next, sizeof(next), "big.c%04d()", i + 1 < CHAIN ? i + 1 : CHAIN / 2);
		add_edge(m, id, next, CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	}
	char *dir = render(m, 1, 50, 2);
	char *overview = named_file(dir, "dot/schemas/", "big", ".dot");
	/* hub: the whole chain; side: c5000 to the end, then the cycle back
	 * to c3000 and on to c4999. */
	assert_non_null(strstr(overview, "hub()\\nentry, reaches 6000\""));
	assert_non_null(strstr(overview, "side()\\nentry, reaches 3000\""));
	assert_int_equal(count(overview, "entry, reaches"), 2);
	free(overview);
	remove_dir(dir);
	cgm_model_free(m);
}

static void test_node_cap_says_more(void **state)
{
	(void)state;
	cgm_model *m = hub_model(120);
	char *dir = render(m, 2, 50, 2);
	char *page = function_page(dir, "big.hub()");
	/* A function's own callees are drawn 16 at most, however high the node
	 * cap: the hub and 16 callees; 104 more counted, not dropped. */
	assert_non_null(strstr(page, "+104 more callees"));
	assert_non_null(strstr(page, "17 of 121 shown, 104 in"));
	free(page);
	char *dot = named_file(dir, "dot/functions/", "big.hub()", ".dot");
	assert_int_equal(function_nodes(dot), 17);
	free(dot);
	page = named_file(dir, "schemas/", "big", ".html");
	assert_non_null(strstr(page, "+71 more functions in this schema"));
	assert_non_null(strstr(page, "first its entry points that reach the most of it"));
	/* The schema is entered by the hub, which reaches all of it. */
	char *overview = named_file(dir, "dot/schemas/", "big", ".dot");
	assert_non_null(strstr(overview, "hub()\\nentry, reaches 120\""));
	assert_int_equal(count(overview, "entry, reaches"), 1);
	free(overview);
	/* The table still lists every function. */
	assert_int_equal(count(page, "<tr><td><a class=\"fn\""), 121);
	free(page);
	remove_dir(dir);

	/* A node cap under that: the cap rules (the hub and 9 callees). */
	dir = render(m, 2, 10, 2);
	dot = named_file(dir, "dot/functions/", "big.hub()", ".dot");
	assert_int_equal(function_nodes(dot), 10);
	assert_non_null(strstr(dot, "+111 more callees"));
	free(dot);
	remove_dir(dir);
	cgm_model_free(m);

	/* Under the cap nothing is summed up. */
	m = hub_model(10);
	dir = render(m, 2, 50, 1);
	page = function_page(dir, "big.hub()");
	assert_null(strstr(page, "more callees"));
	assert_null(strstr(page, " shown, "));
	free(page);
	remove_dir(dir);
	cgm_model_free(m);
}

/* The timeline: on the index the functions' exclusive time stacked per
 * interval, on a function page its own bars; an interval without a call
 * stays an empty column; without a timeline, no chart. */
static void test_timeline_chart(void **state)
{
	(void)state;
	cgm_model *m = hub_model(3);
	m->has_runtime = true;
	int hub = cgm_model_find(m, "big.hub()"), f0 = cgm_model_find(m, "big.f000()");
	m->functions[hub].runtime = (cgm_runtime_stats){ .calls = 9, .total_ms = 9, .self_ms = 6 };
	m->functions[f0].runtime = (cgm_runtime_stats){ .calls = 1, .total_ms = 3, .self_ms = 3 };
	static cgm_time_bucket buckets[] = {
		{ "big.f000()", "2026-11-29T10:00:00Z", 1, 3.0 },
		{ "big.hub()", "2026-11-29T10:00:00Z", 2, 1.0 },
		{ "big.hub()", "2026-11-29T10:01:00Z", 5, 2.0 },
		{ "big.hub()", "2026-11-29T10:03:00Z", 2, 3.0 },
	};
	m->buckets = buckets;
	m->nbuckets = 4;
	char *dir = render(m, 2, 50, 1);
	char *index = site_file(dir, "index.html");
	assert_non_null(strstr(index, "<h2 id=\"timeline\">Timeline</h2>"));
	assert_non_null(strstr(index, "(60 s each; an empty column is an interval without a call)"));
	assert_int_equal(count(index, "<rect "), 4);
	assert_non_null(strstr(index, "<title>10:00: big.f000(), 3"));
	free(index);
	char *page = function_page(dir, "big.hub()");
	char *chart = strstr(page, "<svg class=\"timeline\"");
	assert_non_null(chart);
	char *chart_end = strstr(chart, "</svg>");
	assert_non_null(chart_end);
	*chart_end = '\0'; /* the legend's drawings have rects too */
	assert_int_equal(count(chart, "<rect "), 3);
	*chart_end = '<';
	assert_non_null(strstr(page, "<title>10:01: big.hub(), 2"));
	assert_non_null(strstr(page, " ms self, 5 calls</title>"));
	assert_null(strstr(page, "<title>10:02:"));
	free(page);
	remove_dir(dir);

	m->nbuckets = 0;
	m->buckets = NULL;
	dir = render(m, 2, 50, 1);
	index = site_file(dir, "index.html");
	assert_null(strstr(index, "id=\"timeline\""));
	free(index);
	remove_dir(dir);
	cgm_model_free(m);
}

/* The graphs' DOT text is written only when asked for: by default no dot/
 * folder and no link to it; a site rendered again without it loses the
 * DOT files an earlier run wrote (the manifest lists them). */
/* A schema overview with more than two calls per drawn function draws one
 * edge per pair and leaves out the calls a longer drawn path implies (a
 * transitive reduction), and says so; one with few calls draws them all. */
static void test_overview_reduces_dense_calls(void **state)
{
	(void)state;
	for (int dense = 0; dense < 2; dense++) {
		cgm_model *m = cgm_model_new();
		m->source.kind = "database";
		m->source.name = "db";
		static const char *const ids[] = { "s.a()", "s.b()", "s.c()", "s.d()" };
		static const char *const names[] = { "a", "b", "c", "d" };
		for (int i = 0; i < 4; i++)
			add_function(m, ids[i], "s", names[i], "", "\nBEGIN\n  RETURN 1;\nEND\n");
		cgm_model_index(m);
		/* The chain a -> b -> c -> d, always; densely, every shortcut too
		 * and a check beside each link of the chain. */
		for (int i = 0; i < 3; i++)
			add_edge(m, ids[i], ids[i + 1], CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
		if (dense) {
			add_edge(m, "s.a()", "s.c()", CGM_VIA_CALL, CGM_EDGE_STATIC, 3, 0);
			add_edge(m, "s.a()", "s.d()", CGM_VIA_CALL, CGM_EDGE_STATIC, 3, 0);
			add_edge(m, "s.b()", "s.d()", CGM_VIA_CALL, CGM_EDGE_STATIC, 3, 0);
			for (int i = 0; i < 3; i++) {
				cgm_edge *e = add_edge(m, ids[i], ids[i + 1], CGM_VIA_CHECK,
						       CGM_EDGE_STATIC, 4, 0);
				e->object = "check s.t.positive";
			}
		}
		char *dir = render(m, 1, 50, 1); /* with DOT sources */
		file_list files = list_files(dir);
		char *dot = NULL, *page = NULL;
		for (int i = 0; i < files.n; i++) {
			if (strncmp(files.paths[i], "dot/schemas/", 12) == 0)
				dot = site_file(dir, files.paths[i]);
			else if (strncmp(files.paths[i], "schemas/", 8) == 0)
				page = site_file(dir, files.paths[i]);
		}
		assert_non_null(dot);
		assert_non_null(page);
		/* The chain's three calls drawn, once each, as calls. */
		assert_int_equal(count(dot, " -> "), 3);
		for (int i = 0; i < 3; i++) {
			char edge[32];
			snprintf(edge, sizeof(edge), "  n%d -> n%d [", i, i + 1);
			assert_int_equal(count(dot, edge), 1);
		}
		assert_int_equal(count(dot, "arrowhead=box"), 0);
		if (dense)
			assert_non_null(strstr(page, "Of the 9 calls among the functions drawn, 6 are left out"));
		else
			assert_null(strstr(page, "are left out"));
		free(dot);
		free(page);
		free_files(&files);
		remove_dir(dir);
		cgm_model_free(m);
	}
}

static void test_dot_sources_on_request(void **state)
{
	(void)state;
	cgm_model *m = hub_model(3);
	char *dir = render(m, 2, 50, 1); /* with DOT sources */
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/dot/functions", dir);
	assert_int_equal(stat(path, &st), 0);
	cgm_html_options o;
	cgm_html_options_init(&o);
	assert_false(o.dot_sources);
	assert_int_equal(cgm_emit_html(m, &o, dir), 0);
	file_list files = list_files(dir);
	for (int i = 0; i < files.n; i++) {
		if (strstr(files.paths[i], ".dot"))
			fail_msg("%s is left from the earlier run", files.paths[i]);
		if (strstr(files.paths[i], ".html")) {
			char *text = site_file(dir, files.paths[i]);
			if (strstr(text, "DOT source"))
				fail_msg("%s links to a DOT source", files.paths[i]);
			free(text);
		}
	}
	free_files(&files);
	char *page = function_page(dir, "big.hub()");
	assert_non_null(strstr(page, "<svg")); /* the graph itself is there */
	free(page);
	remove_dir(dir);
	cgm_model_free(m);
}

/* A schema calling into 15 others: 12 drawn one by one, 3 in one node. */
static void test_overview_caps_other_schemas(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	m->source.kind = "sql";
	m->source.name = "many.sql";
	char id[64], schema[32];
	add_function(m, "a.hub()", "a", "hub", "", "\nBEGIN\nEND\n");
	for (int i = 0; i < 15; i++) {
		snprintf(id, sizeof(id), "s%02d.f()", i);
		snprintf(schema, sizeof(schema), "s%02d", i);
		add_function(m, id, schema, "f", "", "\nBEGIN\nEND\n");
	}
	cgm_model_index(m);
	for (int i = 0; i < 15; i++) {
		snprintf(id, sizeof(id), "s%02d.f()", i);
		add_edge(m, "a.hub()", id, CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
		add_edge(m, id, "a.hub()", CGM_VIA_CALL, CGM_EDGE_STATIC, 2, 0);
	}
	char *dir = render(m, 2, 50, 1);
	cgm_strbuf rel = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&rel, "dot/schemas/");
	cgm_escape_filename(&rel, "a");
	cgm_strbuf_puts(&rel, ".dot");
	char *dot = site_file(dir, cgm_strbuf_cstr(&rel));
	assert_non_null(strstr(dot, "label=\"+3 more schemas\""));
	assert_int_equal(count(dot, "[shape=ellipse, style=filled"), 12);
	/* One edge each way between the hub and the shared node. */
	assert_int_equal(count(dot, "n0 -> sothers"), 1);
	assert_int_equal(count(dot, "sothers -> n0"), 1);
	free(dot);
	cgm_strbuf_free(&rel);
	remove_dir(dir);
	cgm_model_free(m);
}

static void test_without_runtime_says_so(void **state)
{
	(void)state;
	cgm_model *m = demo_model(false);
	char *dir = render(m, 2, 50, 1);
	char *index = site_file(dir, "index.html");
	assert_non_null(strstr(index, "No runtime data was merged"));
	assert_non_null(strstr(index, "Reachability was not analysed"));
	assert_null(strstr(index, "<h3>By self time</h3>"));
	free(index);
	char *page = function_page(dir, "app.main()");
	assert_non_null(strstr(page, "<dt>runtime</dt><dd class=\"note\">no runtime data merged"));
	assert_null(strstr(page, "<h2 id=\"runtime\">"));
	free(page);
	page = function_page(dir, "app.dyn()");
	assert_non_null(strstr(page, "target unknown (no runtime data)"));
	free(page);
	char *cold = site_file(dir, "reports/cold.html");
	assert_non_null(strstr(cold, "No runtime data was merged, so no function can be cold"));
	free(cold);
	/* Cycles still found, computed from the edges. */
	char *cycles = site_file(dir, "reports/cycles.html");
	assert_non_null(strstr(cycles, "Cycles (1)"));
	assert_non_null(strstr(cycles, "computed from its edges"));
	free(cycles);
	remove_dir(dir);
	cgm_model_free(m);
}

static void test_reports_count(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = render(m, 2, 50, 1);
	struct {
		const char *file, *heading;
		int rows;
	} want[] = {
		{ "reports/dead.html", "Dead functions (2)", 2 },
		{ "reports/cold.html", "Cold functions (3)", 3 },
		{ "reports/dynamic.html", "Unseen dynamic SQL sites (1)", 2 },
		{ "reports/unexplained.html", "Unexplained runtime edges (1)", 1 },
		{ "reports/missing.html", "Missing callees (1)", 1 },
		{ "reports/errors.html", "Parse errors (2)", 2 },
		{ "reports/cycles.html", "Cycles (1)", 1 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *text = site_file(dir, want[i].file);
		if (!strstr(text, want[i].heading))
			fail_msg("%s lacks '%s'", want[i].file, want[i].heading);
		int rows = count(text, "<tr><td");
		if (rows != want[i].rows)
			fail_msg("%s has %d rows, not %d", want[i].file, rows, want[i].rows);
		free(text);
	}
	char *index = site_file(dir, "index.html");
	assert_non_null(strstr(index, "demo&lt;db&gt;"));
	assert_non_null(strstr(index, "2 dynamic EXECUTE sites: 1 seen at runtime, 0 that can call no user function, 1 never seen"));
	assert_non_null(strstr(index, "<h3>By self time</h3>"));
	assert_non_null(strstr(index, "id=\"search\""));
	free(index);
	char *search = site_file(dir, "search-index.js");
	assert_int_equal(count(search, "\"functions/"), m->nuser);
	free(search);
	remove_dir(dir);
	cgm_model_free(m);
}

/* The index's edges by mechanism add up to every edge: those PostgreSQL
 * runs on a statement's behalf (an index, a cascade) have rows too. */
static void test_index_edges_by_mechanism(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	assert_true(m->nedges >= 3);
	m->edges[0].via = CGM_VIA_INDEX;
	m->edges[0].object = "index app.t_expr";
	m->edges[1].via = CGM_VIA_CASCADE;
	m->edges[1].object = "cascade app.u.u_t_fkey";
	int calls = 0;
	for (int i = 0; i < m->nedges; i++)
		calls += m->edges[i].via == CGM_VIA_CALL;
	char *dir = render(m, 2, 50, 1);
	char *index = site_file(dir, "index.html");
	char want[160];
	snprintf(want, sizeof want, "<tr><td>direct call, PERFORM, CALL</td><td class=\"num\">%d</td></tr>",
		 calls);
	assert_non_null(strstr(index, want));
	assert_non_null(strstr(index, "<tr><td>index</td><td class=\"num\">1</td></tr>"));
	assert_non_null(strstr(index, "<tr><td>cascade</td><td class=\"num\">1</td></tr>"));
	snprintf(want, sizeof want, "<tr><th>all</th><th class=\"num\">%d</th></tr>\n</tbody></table>\n<h3>Dynamic SQL",
		 m->nedges);
	assert_non_null(strstr(index, want));
	free(index);
	remove_dir(dir);
	cgm_model_free(m);
}

/* A source with no function still gets a site that says so. */
static void test_empty_model(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	m->source.kind = "sql";
	m->source.name = "empty.sql";
	cgm_model_index(m);
	char *dir = render(m, 2, 50, 2);
	char *index = site_file(dir, "index.html");
	assert_non_null(strstr(index, "0 functions, 0 of them analysed"));
	free(index);
	char *search = site_file(dir, "search-index.js");
	assert_non_null(strstr(search, "window.CGMAP_INDEX = [\n];"));
	free(search);
	remove_dir(dir);
	cgm_model_free(m);
}

static void test_bad_options_and_folders(void **state)
{
	(void)state;
	cgm_model *m = demo_model(false);
	cgm_html_options o;
	cgm_html_options_init(&o);
	assert_int_equal(o.depth, 1);
	assert_int_equal(o.node_cap, 50);
	o.depth = -1;
	assert_int_equal(cgm_emit_html(m, &o, "/tmp/never"), CGM_EUSAGE);
	assert_non_null(strstr(cgm_error_message(), "depth"));
	cgm_html_options_init(&o);
	o.node_cap = 1;
	assert_int_equal(cgm_emit_html(m, &o, "/tmp/never"), CGM_EUSAGE);
	assert_non_null(strstr(cgm_error_message(), "node cap"));
	/* An output "folder" that is a file. */
	char *dir = temp_dir();
	char path[4096];
	snprintf(path, sizeof(path), "%s/file", dir);
	FILE *f = fopen(path, "w");
	fclose(f);
	assert_int_equal(cgm_emit_html(m, NULL, path), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), path));
	remove_dir(dir);
	cgm_model_free(m);
}

/* The site rendered from the snapshot of a model is the site of the model:
 * `cgmap render cgmap.json` redoes the docs offline.  With
 * CGMAP_HTML_FIXTURE_OUT set, the snapshot is also kept there (that is how
 * fixtures/html/demo.json, the browser test's input, is made). */
static void test_snapshot_renders_the_same(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *tmp = temp_dir();
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgmap.json", tmp);
	if (cgm_snapshot_write(m, path))
		fail_msg("cgm_snapshot_write: %s", cgm_error_message());
	const char *keep = getenv("CGMAP_HTML_FIXTURE_OUT");
	if (keep && *keep && cgm_snapshot_write(m, keep))
		fail_msg("cgm_snapshot_write %s: %s", keep, cgm_error_message());
	cgm_model *back = NULL;
	if (cgm_snapshot_read(&back, path))
		fail_msg("cgm_snapshot_read: %s", cgm_error_message());
	char *a = render(m, 2, 50, 1), *b = render(back, 2, 50, 2);
	assert_same_tree(a, b);
	remove_dir(a), remove_dir(b), remove_dir(tmp);
	cgm_model_free(back);
	cgm_model_free(m);
}

/* stacks.folded: written with the site when the model has call paths,
 * listed in the manifest, and removed by a rendering of a model without
 * any (cgmap/stacks.h). */
static void test_folded_stacks_file(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	static const char *frames[] = { "app.main()", "app.work()" };
	static int lines[] = { 0, 3 };
	m->paths = cgm_arena_alloc(m->arena, sizeof(cgm_call_path) * 2);
	m->paths[0] = (cgm_call_path){ .nframes = 1, .frames = frames, .lines = lines,
				       .stats = { 2, 4.0, 1.5 }, .min_ms = 1.0, .max_ms = 3.0 };
	m->paths[1] = (cgm_call_path){ .nframes = 2, .frames = frames, .lines = lines,
				       .stats = { 2, 2.5, 2.5 }, .min_ms = 1.0, .max_ms = 1.5 };
	m->npaths = 2;
	char *dir = render(m, 2, 50, 2);
	char *text = site_file(dir, "stacks.folded");
	assert_string_equal(text, "app.main() 1500\napp.main();app.work() 2500\n");
	free(text);
	assert_manifest_is_site(dir);
	m->npaths = 0;
	cgm_html_options o;
	cgm_html_options_init(&o);
	o.dot_sources = true;
	assert_int_equal(cgm_emit_html(m, &o, dir), 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s/stacks.folded", dir);
	struct stat st;
	assert_int_equal(lstat(path, &st), -1);
	assert_manifest_is_site(dir);
	remove_dir(dir);
	cgm_model_free(m);
}

/* Between two markers of a page (malloc'd copy), for counting inside. */
static char *between(const char *text, const char *from, const char *to)
{
	const char *a = strstr(text, from);
	assert_non_null(a);
	const char *b = strstr(a, to);
	assert_non_null(b);
	char *s = calloc((size_t)(b - a) + 1, 1);
	assert_non_null(s);
	memcpy(s, a, (size_t)(b - a));
	return s;
}

/* The execution profile: an entry point's tree with exact figures (% of
 * parent and of root, avg/min/max, the call-site line linked to the
 * caller's source, the depth marker), its flame graph (a rect per frame,
 * hostile names as text), its call shapes, the index's profile table and
 * the function pages' links to the paths through them. */
static void test_execution_profile(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	static const char *frames[][4] = {
		{ "app.main()" },
		{ "app.main()", "app.dyn()" },
		{ "app.main()", "app.dyn()", "app.work()" },
		{ "app.main()", "app.work()" },
		{ "app.main()", "app.work()", EVIL_ID },
		{ "app.main()", "app.work()", EVIL_ID, "..." },
	};
	static int lines[][4] = { { 0 }, { 0, 0 }, { 0, 0, 3 }, { 0, 3 }, { 0, 3, 4 }, { 0, 3, 4, 0 } };
	m->paths = cgm_arena_alloc(m->arena, sizeof(cgm_call_path) * 6);
	m->paths[0] = (cgm_call_path){ 1, frames[0], lines[0], { 4, 40.0, 9.0 }, 5.0, 20.0 };
	m->paths[1] = (cgm_call_path){ 2, frames[1], lines[1], { 2, 5.0, 1.0 }, 2.0, 3.0 };
	m->paths[2] = (cgm_call_path){ 3, frames[2], lines[2], { 7, 4.0, 4.0 }, 0.25, 1.0 };
	m->paths[3] = (cgm_call_path){ 2, frames[3], lines[3], { 10, 26.0, 20.0 }, 1.0, 6.0 };
	m->paths[4] = (cgm_call_path){ 3, frames[4], lines[4], { 10, 6.0, 5.0 }, 0.5, 1.5 };
	m->paths[5] = (cgm_call_path){ 4, frames[5], lines[5], { 1, 1.0, 1.0 }, 1.0, 1.0 };
	m->npaths = 6;
	fn(m, EVIL_ID)->runtime = (cgm_runtime_stats){ 10, 6.0, 5.0 };
	char *dir = render(m, 2, 50, 2);
	char rel[4096];
	char *main_page = function_page(dir, "app.main()");
	char *href = strstr(main_page, "href=\"../profile/");
	assert_non_null(href);
	char *end = strchr(href + 6, '"');
	snprintf(rel, sizeof(rel), "%.*s", (int)(end - href - 9), href + 9);
	char *page = site_file(dir, rel);
	assert_non_null(page);

	/* The tree: app.work() under app.main() at line 3 (65% of 40 ms), the
	 * hostile function under it (6 ms: 23.1% of 26, 15.0% of 40), the
	 * marker of frames cut for depth under that. */
	char *tree = between(page, "<ul class=\"ptree\">", "<h2 id=\"shapes\"");
	assert_non_null(strstr(tree, "<span class=\"calls\">4 calls</span>, <span class=\"incl\">"
				     "40.00 ms</span> incl, <span class=\"excl\">9.00 ms</span> excl"));
	assert_non_null(strstr(tree, "9.00 ms</span> excl, <span class=\"ofroot\">100.0%</span> of "
				     "root, avg 10.00 min 5.00 max 20.00 ms"));
	assert_non_null(strstr(tree, "<span class=\"incl\">26.00 ms</span> incl, <span class=\"excl\">"
				     "20.00 ms</span> excl, <span class=\"ofparent\">65.0%</span> of "
				     "parent, <span class=\"ofroot\">65.0%</span> of root"));
	assert_non_null(strstr(tree, "<span class=\"incl\">6.00 ms</span> incl, <span class=\"excl\">"
				     "5.00 ms</span> excl, <span class=\"ofparent\">23.1%</span> of "
				     "parent, <span class=\"ofroot\">15.0%</span> of root, avg 0.600 "
				     "min 0.500 max 1.50 ms"));
	assert_non_null(strstr(tree, "<span class=\"ofparent\">80.0%</span> of parent, <span "
				     "class=\"ofroot\">10.0%</span> of root"));
	assert_non_null(strstr(tree, "<span class=\"depthcut\""));
	assert_int_equal(count(tree, "<li data-node="), 6);
	assert_int_equal(count(tree, "<details"), 4);
	/* The call site: app.work()'s line 4 on its page. */
	cgm_strbuf want = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&want, "<a class=\"line\" href=\"../functions/");
	cgm_escape_filename(&want, "app.work()");
	cgm_strbuf_puts(&want, ".html#L4\">4</a>");
	assert_non_null(strstr(tree, cgm_strbuf_cstr(&want)));
	cgm_strbuf_free(&want);
	assert_null(strstr(page, "<script>alert"));
	assert_non_null(strstr(tree, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	free(tree);

	/* The flame graph: one rect per frame, each function's linking to
	 * its page, names as text in the label, tooltip and data-n. */
	char *svg = between(page, "<svg class=\"flamegraph\"", "</svg>");
	assert_int_equal(count(svg, "<rect "), 6);
	assert_int_equal(count(svg, "<a href=\"../functions/"), 5);
	assert_non_null(strstr(svg, "data-n=\"public.&quot;&quot;&quot;&lt;script&gt;"));
	assert_non_null(strstr(svg, "<title>public.&quot;&quot;&quot;&lt;script&gt;alert(1)"
				    "&lt;/script&gt;&quot;&quot;&quot;(text): 6.00 ms (15.0%), 10 "
				    "calls</title>"));
	assert_non_null(strstr(svg, "data-x=\"0.650000000\" data-w=\"0.125000000\" data-d=\"1\""));
	free(svg);

	/* The shapes of app.main(): 3 of 4 calls took the short one. */
	char *shapes = between(page, "<h2 id=\"shapes\"", "</ol>");
	assert_non_null(strstr(shapes, "Call shapes (2)"));
	assert_non_null(strstr(shapes, "<span class=\"count\">3 calls</span> (<span class=\"share\">"
				       "75.0%</span>), 1 edge<ul>"));
	assert_non_null(strstr(shapes, "<span class=\"count\">1 call</span> (<span class=\"share\">"
				       "25.0%</span>), 3 edges<ul>"));
	assert_int_equal(count(shapes, "<span class=\"badge\">dynamic</span>"), 1);
	free(shapes);
	free(page);

	/* The whole site's flame graph has the root above the entry points. */
	char *all = site_file(dir, "profile/all.html");
	char *allsvg = between(all, "<svg class=\"flamegraph\"", "</svg>");
	assert_int_equal(count(allsvg, "<rect "), 7);
	free(allsvg);
	assert_non_null(strstr(all, "Resource profile (4 functions)"));
	free(all);

	/* The index: the sortable profile table, most exclusive time first. */
	char *index = site_file(dir, "index.html");
	char *table = between(index, "<table class=\"sortable profile\">", "</table>");
	assert_int_equal(count(table, "<tr><td>"), 4);
	char *work = strstr(table, ">app.work()</a>"), *mainfn = strstr(table, ">app.main()</a>");
	assert_true(work && mainfn && work < mainfn);
	/* With call paths a function's figures are its paths' (20 + 4 ms of
	 * app.work()'s own time; 24 of the 39 ms all paths spent). */
	assert_non_null(strstr(table, ">app.work()</a></td><td class=\"num\" data-v=\"24.000000\">"
				      "24.00</td><td class=\"num\" data-v=\"61.538462\">61.5</td><td "
				      "class=\"num\">17</td>"));
	free(table);
	assert_non_null(strstr(index, "<a href=\"profile/all.html\">"));
	free(index);

	/* Function pages: the paths through them. */
	char *evil = function_page(dir, EVIL_ID);
	assert_non_null(strstr(evil, "Appears in 2 call paths of 1 entry point:"));
	free(evil);
	char *workp = function_page(dir, "app.work()");
	assert_non_null(strstr(workp, "Appears in 4 call paths of 1 entry point:"));
	free(workp);
	assert_non_null(strstr(main_page, "An entry point: <a class=\"profile\""));
	free(main_page);
	assert_manifest_is_site(dir);
	remove_dir(dir);
	cgm_model_free(m);
}

/* A chain of 2,100 frames: the tree shows 1,000 and says "+1100 more", the
 * flame graph draws 2,000 and counts the rest; frames of no mapped function
 * are named, not linked. */
static void test_execution_profile_caps(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	enum { DEPTH = 2100 };
	const char **names = cgm_arena_alloc(m->arena, sizeof(char *) * DEPTH);
	int *lines = cgm_arena_alloc(m->arena, sizeof(int) * DEPTH);
	names[0] = "app.main()";
	lines[0] = 0;
	for (int i = 1; i < DEPTH; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "deep.f%04d()", i);
		names[i] = cgm_arena_strdup(m->arena, buf);
		lines[i] = 2;
	}
	m->paths = cgm_arena_alloc(m->arena, sizeof(cgm_call_path) * DEPTH);
	for (int k = 0; k < DEPTH; k++)
		m->paths[k] = (cgm_call_path){ k + 1, names, lines,
					       { 1, (double)(DEPTH - k), 1.0 }, 1.0, 1.0 };
	m->npaths = DEPTH;
	m->nshapes = 0;
	char *dir = render(m, 2, 50, 1);
	char *main_page = function_page(dir, "app.main()");
	char *href = strstr(main_page, "href=\"../profile/");
	assert_non_null(href);
	char rel[4096];
	char *end = strchr(href + 6, '"');
	snprintf(rel, sizeof(rel), "%.*s", (int)(end - href - 9), href + 9);
	char *page = site_file(dir, rel);
	assert_int_equal(count(page, "<li data-node="), 1000);
	assert_non_null(strstr(page, "<li class=\"more\">+1100 more frames ("));
	assert_non_null(strstr(page, "1000 of 2100 frames are shown"));
	char *svg = between(page, "<svg class=\"flamegraph\"", "</svg>");
	assert_int_equal(count(svg, "<rect "), 2000);
	free(svg);
	assert_non_null(strstr(page, "+100 more frames too narrow to draw or past the cap of 2000"));
	assert_non_null(strstr(page, "<span class=\"builtin\">deep.f0001()</span>"));
	assert_non_null(strstr(page, "No call shape was recorded"));
	free(page);
	free(main_page);
	remove_dir(dir);
	cgm_model_free(m);
}

/* ---- pages built again only when what they show changed ---- */

/* Render m into dir (again); how many function pages were skipped. */
static long render_pages(const cgm_model *m, const char *dir, int depth, int threads)
{
	cgm_html_options o;
	cgm_html_options_init(&o);
	o.depth = depth;
	o.threads = threads;
	o.dot_sources = true;
	cgm_html_stats counted;
	if (cgm_emit_html_counted(&counted, m, &o, dir) != 0)
		fail_msg("cgm_emit_html_counted: %s", cgm_error_message());
	/* The counts `cgmap render` prints: the callers check the skipped
	 * pages against what changed. */
	assert_int_equal(counted.function_pages, m->nuser);
	return counted.pages_unchanged;
}

/* The folder rendered again equals a fresh rendering of the same model. */
static void assert_like_fresh(const cgm_model *m, const char *dir, int depth)
{
	char *fresh = render(m, depth, 50, 1);
	assert_same_tree(dir, fresh);
	remove_dir(fresh);
}

/* A dynamic site's possible target is drawn on its function's page though
 * no edge joins them: a change to the target builds that page again too,
 * and no other.  A status that goes away is seen whatever the status of
 * the function hashed before (the key's text buffer once kept it). */
static void test_possible_target_change_rebuilds(void **state)
{
	(void)state;
	cgm_model *m = dispatch_model();
	char *dir = temp_dir();
	assert_int_equal(render_pages(m, dir, 1, 1), 0);
	assert_int_equal(render_pages(m, dir, 1, 1), m->nuser);
	fn(m, "app.handler_a()")->kept = "kept for the test";
	/* handler_a's own page and disp's: other and handler_b are kept. */
	assert_int_equal(render_pages(m, dir, 1, 1), m->nuser - 2);
	assert_like_fresh(m, dir, 1);
	fn(m, "app.handler_b()")->kept = "kept as well";
	assert_int_equal(render_pages(m, dir, 1, 1), m->nuser - 2); /* and disp's */
	fn(m, "app.handler_b()")->kept = NULL;
	assert_int_equal(render_pages(m, dir, 1, 1), m->nuser - 2);
	assert_like_fresh(m, dir, 1);
	char *page = function_page(dir, "app.handler_b()");
	assert_null(strstr(page, "kept as well"));
	free(page);
	remove_dir(dir);
	cgm_model_free(m);
}

/* Distinct user functions calling or called by f, f excluded. */
static int user_neighbours(const cgm_model *m, int f)
{
	bool *seen = calloc((size_t)m->nfunctions + 1, sizeof(bool));
	int n = 0;
	for (int e = 0; e < m->nedges; e++) {
		const cgm_edge *edge = &m->edges[e];
		int other = edge->from == f ? edge->to : edge->to == f ? edge->from : -1;
		if (other < 0 || other == f || other >= m->nuser || seen[other])
			continue;
		seen[other] = true;
		n++;
	}
	free(seen);
	return n;
}

/* A second rendering into the folder builds no page; a change builds
 * again exactly the pages that show what changed (a comment: its own page;
 * a status: its page and its neighbours', whose graphs and tables show
 * it), and the folder always equals a fresh rendering; a page deleted or
 * edited is built again; other options build every page. */
static void test_pages_built_when_changed(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 2; threads++) {
		cgm_model *m = demo_model(true);
		char *dir = temp_dir();
		assert_int_equal(render_pages(m, dir, 1, threads), 0);
		assert_int_equal(render_pages(m, dir, 1, threads), m->nuser);
		assert_like_fresh(m, dir, 1);

		fn(m, "app.unused()")->comment = "changed words";
		assert_int_equal(render_pages(m, dir, 1, threads), m->nuser - 1);
		assert_like_fresh(m, dir, 1);
		char *page = function_page(dir, "app.unused()");
		assert_non_null(strstr(page, "changed words"));
		free(page);

		int work = idx(m, "app.work()");
		fn(m, "app.work()")->kept = "kept for the test";
		assert_int_equal(render_pages(m, dir, 1, threads),
				 m->nuser - 1 - user_neighbours(m, work));
		assert_like_fresh(m, dir, 1);

		/* An edge's figures: its ends' pages and their neighbours'. */
		for (int e = 0; e < m->nedges; e++)
			if (m->edges[e].from == idx(m, "app.main()") && m->edges[e].to == work)
				cgm_edge_rare_of(m->arena, &m->edges[e])->runtime.calls++;
		long skipped = render_pages(m, dir, 1, threads);
		assert_true(skipped > 0 && skipped < m->nuser);
		assert_like_fresh(m, dir, 1);

		/* A page deleted, a page edited (same size), a DOT file deleted. */
		char path[4096];
		file_list files = list_files(dir);
		int touched = 0;
		for (int i = 0; i < files.n && touched < 3; i++) {
			if (strncmp(files.paths[i], "functions/app.fact", 18) == 0) {
				snprintf(path, sizeof(path), "%s/%s", dir, files.paths[i]);
				assert_int_equal(unlink(path), 0), touched++;
			} else if (strncmp(files.paths[i], "functions/app.dyn", 17) == 0) {
				snprintf(path, sizeof(path), "%s/%s", dir, files.paths[i]);
				FILE *f = fopen(path, "r+");
				assert_non_null(f);
				fputc('X', f);
				fclose(f), touched++;
			} else if (strncmp(files.paths[i], "dot/functions/app.audit", 23) == 0) {
				snprintf(path, sizeof(path), "%s/%s", dir, files.paths[i]);
				assert_int_equal(unlink(path), 0), touched++;
			}
		}
		free_files(&files);
		assert_int_equal(touched, 3);
		assert_int_equal(render_pages(m, dir, 1, threads), m->nuser - 3);
		assert_like_fresh(m, dir, 1);

		/* Another depth: every page again. */
		assert_int_equal(render_pages(m, dir, 2, threads), 0);
		assert_like_fresh(m, dir, 2);
		assert_int_equal(render_pages(m, dir, 2, threads), m->nuser);
		fn(m, "app.fact(integer)")->cold = false;
		for (int e = 0; e < m->nedges; e++)
			if (m->edges[e].to == idx(m, "app.audit()"))
				m->edges[e].lines[0]++;
		skipped = render_pages(m, dir, 2, threads);
		assert_true(skipped < m->nuser);
		assert_like_fresh(m, dir, 2);
		remove_dir(dir);
		cgm_model_free(m);
	}
}

/* A folder copied (new inodes and times, as cp, a CI cache or an archive
 * leave it) keeps its pages whose bytes are as recorded; a copied page
 * edited within its size is built again; pages whose times alone changed
 * are kept. */
static void test_pages_kept_in_a_copied_folder(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = temp_dir(), *copy = temp_dir();
	assert_int_equal(render_pages(m, dir, 1, 1), 0);
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "cp -R '%s/.' '%s'", dir, copy);
	assert_int_equal(system(cmd), 0);

	char path[4096];
	file_list files = list_files(copy);
	int edited = 0;
	for (int i = 0; i < files.n && !edited; i++) {
		if (strncmp(files.paths[i], "functions/app.dyn", 17) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", copy, files.paths[i]);
		FILE *f = fopen(path, "r+");
		assert_non_null(f);
		fputc('X', f);
		fclose(f), edited++;
	}
	assert_int_equal(edited, 1);
	assert_int_equal(render_pages(m, copy, 1, 1), m->nuser - 1);
	assert_like_fresh(m, copy, 1);
	/* The records now hold the copy's stamps. */
	assert_int_equal(render_pages(m, copy, 1, 1), m->nuser);

	/* Every page file of the original set to another time. */
	int retimed = 0;
	for (int i = 0; i < files.n; i++) {
		if (strncmp(files.paths[i], "functions/", 10) != 0 &&
		    strncmp(files.paths[i], "dot/functions/", 14) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, files.paths[i]);
		const struct timespec times[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
		assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
		retimed++;
	}
	free_files(&files);
	assert_true(retimed >= 2 * m->nuser);
	assert_int_equal(render_pages(m, dir, 1, 1), m->nuser);
	assert_like_fresh(m, dir, 1);
	remove_dir(copy);
	remove_dir(dir);
	cgm_model_free(m);
}

/* Render m into dir (again); how many schema pages were skipped. */
static long render_schema_pages(const cgm_model *m, const char *dir, long *schema_pages)
{
	cgm_html_options o;
	cgm_html_options_init(&o);
	o.dot_sources = true;
	cgm_html_stats counted;
	if (cgm_emit_html_counted(&counted, m, &o, dir) != 0)
		fail_msg("cgm_emit_html_counted: %s", cgm_error_message());
	*schema_pages = counted.schema_pages;
	return counted.schema_pages_unchanged;
}

/* Schemas holding f or a function f calls or is called by. */
static int schemas_near(const cgm_model *m, int f, const char **names, int cap)
{
	int n = 0;
	for (int e = -1; e < m->nedges; e++) {
		int other = e < 0 ? f : m->edges[e].from == f ? m->edges[e].to
				  : m->edges[e].to == f ? m->edges[e].from : -1;
		if (other < 0 || other >= m->nuser)
			continue;
		const char *schema = m->functions[other].schema;
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(names[k], schema) == 0;
		if (!seen && n < cap)
			names[n++] = schema;
	}
	return n;
}

/* A schema page is built again only when one of its functions or their
 * edges changed as shown, or its files are not as left; else it is kept,
 * and the folder still equals a fresh rendering. */
static void test_schema_pages_built_when_changed(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = temp_dir();
	long nschemas = 0;
	assert_int_equal(render_schema_pages(m, dir, &nschemas), 0);
	assert_int_equal(nschemas, 3);
	assert_int_equal(render_schema_pages(m, dir, &nschemas), 3);
	assert_like_fresh(m, dir, 1);

	/* A comment is on the function's page only. */
	fn(m, "app.unused()")->comment = "other words";
	assert_int_equal(render_schema_pages(m, dir, &nschemas), 3);
	assert_like_fresh(m, dir, 1);

	/* A status is in the schema's table and in its neighbours' graphs. */
	const char *near[8];
	int nnear = schemas_near(m, idx(m, "app.work()"), near, 8);
	assert_true(nnear >= 1 && nnear < 3);
	fn(m, "app.work()")->kept = "kept for the schema test";
	assert_int_equal(render_schema_pages(m, dir, &nschemas), 3 - nnear);
	assert_like_fresh(m, dir, 1);
	char *page = site_file(dir, "schemas/app-e2252495.html");
	assert_non_null(strstr(page, "kept for the schema test"));
	free(page);

	/* A schema page deleted is built again, the others kept. */
	char path[4096];
	snprintf(path, sizeof(path), "%s/schemas/app-e2252495.html", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(render_schema_pages(m, dir, &nschemas), 2);
	assert_like_fresh(m, dir, 1);
	remove_dir(dir);
	cgm_model_free(m);
}

/* Page records that do not parse, or name no page, are ignored. */
static void test_page_records_garbage(void **state)
{
	(void)state;
	cgm_model *m = demo_model(false);
	char *dir = temp_dir();
	assert_int_equal(render_pages(m, dir, 1, 1), 0);
	char *records = site_file(dir, HTML_PAGES_FILE);
	/* A line per function page and per schema page, and the comment. */
	assert_int_equal(count(records, "\n"), m->nuser + 3 + 1);
	cgm_strbuf forged = CGM_STRBUF_INIT;
	/* The header kept (a file of another format is not read at all). */
	cgm_strbuf_add(&forged, records, (size_t)(strchr(records, '\n') + 1 - records));
	cgm_strbuf_puts(&forged, "garbage\n0 0 3 1 2 3 4 5 x.html\nffff 0 1 1 1 1 1 1 nosuch.html\n");
	/* Every real line with its key changed by one digit. */
	for (const char *p = records; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		if (*p != '#') {
			cgm_strbuf_putc(&forged, *p == '0' ? '1' : '0');
			cgm_strbuf_add(&forged, p + 1, len - 1);
			cgm_strbuf_putc(&forged, '\n');
		}
		p += len + (eol != NULL);
	}
	free(records);
	put_file(dir, HTML_PAGES_FILE, cgm_strbuf_cstr(&forged));
	cgm_strbuf_free(&forged);
	assert_int_equal(render_pages(m, dir, 1, 1), 0);
	assert_like_fresh(m, dir, 1);
	assert_int_equal(render_pages(m, dir, 1, 1), m->nuser);

	/* Records of another format: every page built again. */
	records = site_file(dir, HTML_PAGES_FILE);
	assert_true(strncmp(records, "# cgmap page records 2:", 23) == 0);
	records[21] = '1';
	put_file(dir, HTML_PAGES_FILE, records);
	free(records);
	assert_int_equal(render_pages(m, dir, 1, 1), 0);
	remove_dir(dir);
	cgm_model_free(m);
}

/* A site rendered from an input (its key) is current for that input and
 * those options only, and only while every file is as it was left. */
static void test_site_current(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = temp_dir();
	cgm_html_options o;
	cgm_html_options_init(&o);
	o.threads = 2;
	o.dot_sources = true; /* as assert_like_fresh renders */
	o.input_key = 42;
	assert_false(cgm_html_site_current(dir, &o));
	assert_int_equal(cgm_emit_html(m, &o, dir), 0);
	assert_true(cgm_html_site_current(dir, &o));
	cgm_html_options other = o;
	other.input_key = 43;
	assert_false(cgm_html_site_current(dir, &other));
	other = o, other.depth = 2;
	assert_false(cgm_html_site_current(dir, &other));
	other = o, other.every_page = true;
	assert_false(cgm_html_site_current(dir, &other));
	other = o, other.input_key = 0;
	assert_false(cgm_html_site_current(dir, &other));

	/* An edited report, then a deleted function page: not current until
	 * rendered again. */
	char path[4096];
	snprintf(path, sizeof(path), "%s/reports/dead.html", dir);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs("edited", f);
	fclose(f);
	assert_false(cgm_html_site_current(dir, &o));
	assert_int_equal(cgm_emit_html(m, &o, dir), 0);
	assert_true(cgm_html_site_current(dir, &o));
	file_list files = list_files(dir);
	for (int i = 0; i < files.n; i++)
		if (strncmp(files.paths[i], "functions/app.work", 18) == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, files.paths[i]);
			assert_int_equal(unlink(path), 0);
		}
	free_files(&files);
	assert_false(cgm_html_site_current(dir, &o));
	assert_int_equal(cgm_emit_html(m, &o, dir), 0);
	assert_true(cgm_html_site_current(dir, &o));
	assert_like_fresh(m, dir, 1);

	/* Rendered without an input key: never current. */
	other = o, other.input_key = 0;
	assert_int_equal(cgm_emit_html(m, &other, dir), 0);
	assert_false(cgm_html_site_current(dir, &o));
	remove_dir(dir);
	cgm_model_free(m);
}

/* ---- the layout cache ---- */

static void render_into(const cgm_model *m, const char *dir, bool cache, html_layout_stats *st)
{
	cgm_html_options o;
	cgm_html_options_init(&o);
	o.threads = 2;
	o.dot_sources = true;
	o.no_layout_cache = !cache;
	o.every_page = true; /* the cache's own work, page by page */
	/* Function graphs too go through Graphviz and its cache. */
	o.graphviz_neighbourhoods = true;
	cgm_html_stats counted;
	if (cgm_emit_html_counted(&counted, m, &o, dir) != 0)
		fail_msg("cgm_emit_html_counted: %s", cgm_error_message());
	/* Laid out and cached as `cgmap --timing` prints them; the pruned
	 * entries only the module counts. */
	html_layout_stats_last(st);
	st->layouts = counted.layouts;
	st->hits = counted.layout_hits;
}

/* The names in a folder (sorted), but those starting with a dot. */
static file_list folder_names(const char *path)
{
	file_list l = { NULL, 0, 0 };
	DIR *d = opendir(path);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (l.n == l.cap) {
			l.cap = l.cap ? l.cap * 2 : 64;
			l.paths = realloc(l.paths, sizeof(char *) * (size_t)l.cap);
		}
		l.paths[l.n++] = strdup(de->d_name);
	}
	closedir(d);
	if (l.n)
		qsort(l.paths, (size_t)l.n, sizeof(char *), compare_paths);
	return l;
}

/* The entries of a folder's layout cache. */
static file_list cache_entries(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/" HTML_CACHE_DIR, dir);
	return folder_names(path);
}

static int graph_items(const cgm_model *m)
{
	html_ctx ctx;
	cgm_html_options o;
	cgm_html_options_init(&o);
	assert_int_equal(html_ctx_build(&ctx, m, &o, "unused"), 0);
	int n = ctx.nschemas + ctx.nuser;
	html_ctx_free(&ctx);
	return n;
}

/* Rendering again into the same folder lays nothing out, and the site is
 * byte for byte the one rendered without the cache (hostile names in
 * tooltips included: the tooltips put back into a cached layout are
 * escaped as Graphviz escapes them). */
static cgm_model *punctuation_model(void)
{
	static const char *const ids[] = { "app.\"a-b'c&d<e>\"()", "app.\"x--y & z;\"(text)",
					   "app.\"\xE2\x80\x93 % $ # @ ! ? = + * / ~ ^ | `\"()",
					   "app.\"tab\tnew\nline\"()" };
	static const char *const names[] = { "a-b'c&d<e>", "x--y & z;",
					     "\xE2\x80\x93 % $ # @ ! ? = + * / ~ ^ | `",
					     "tab\tnew\nline" };
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "punctuation";
	for (int i = 0; i < 4; i++)
		add_function(m, ids[i], "app", names[i], i == 1 ? "text" : "",
			     "\nBEGIN\n  RETURN 1;\nEND\n");
	cgm_model_index(m);
	for (int i = 0; i < 3; i++)
		add_edge(m, ids[i], ids[i + 1], CGM_VIA_CALL, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED, 2,
			 i + 1);
	m->has_runtime = true;
	for (int i = 0; i < 4; i++)
		m->functions[i].runtime = (cgm_runtime_stats){ i + 1, 2.5 * i, 0.5 * i };
	return m;
}

static void test_layout_cache_second_run(void **state)
{
	(void)state;
	for (int which = 0; which < 2; which++) {
		cgm_model *m = which ? punctuation_model() : demo_model(true);
		int nitems = graph_items(m);
		char *dir = temp_dir(), *plain = temp_dir();
		html_layout_stats st;
		render_into(m, dir, true, &st);
		assert_int_equal(st.layouts, nitems);
		assert_int_equal(st.hits, 0);
		file_list first = cache_entries(dir);
		assert_true(first.n > 0 && first.n <= nitems);
		render_into(m, dir, true, &st);
		assert_int_equal(st.layouts, 0);
		assert_int_equal(st.hits, nitems);
		assert_int_equal(st.pruned, 0);
		render_into(m, plain, false, &st);
		assert_int_equal(st.layouts, nitems);
		assert_same_tree(dir, plain);
		/* --no-layout-cache writes no cache */
		char path[4096];
		struct stat sb;
		snprintf(path, sizeof(path), "%s/" HTML_CACHE_DIR, plain);
		assert_int_equal(lstat(path, &sb), -1);
		free_files(&first);
		remove_dir(dir);
		remove_dir(plain);
		cgm_model_free(m);
	}
}

/* New runtime figures change the tooltips and the nodes' border widths
 * only: no graph is laid out again, and the pages show the new figures
 * (the border widths, layout-neutral in the Graphviz the tests run with,
 * are put back into the cached SVG). */
/* The stroke-width values of a page, in order. */
static char *stroke_widths(const char *page)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	for (const char *p = page; (p = strstr(p, "stroke-width=\"")) != NULL; p++) {
		const char *v = p + strlen("stroke-width=\"");
		cgm_strbuf_add(&b, v, strcspn(v, "\""));
		cgm_strbuf_putc(&b, ' ');
	}
	char *text = strdup(cgm_strbuf_cstr(&b));
	cgm_strbuf_free(&b);
	return text;
}

static void test_layout_cache_new_figures(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = temp_dir(), *plain = temp_dir();
	html_layout_stats st;
	render_into(m, dir, true, &st);
	assert_true(st.layouts > 0);
	char *before = function_page(dir, "app.main()");
	cgm_runtime_stats was = fn(m, "app.main()")->runtime;
	/* calls, total and self times anew: the border weights change too */
	for (int i = 0; i < m->nuser; i++) {
		cgm_runtime_stats *r = &m->functions[i].runtime;
		if (r->calls > 0)
			*r = (cgm_runtime_stats){ r->calls * 7 + 1, r->total_ms * 3 + 0.125,
						  r->self_ms * (i + 1) };
	}
	render_into(m, dir, true, &st);
	assert_int_equal(st.layouts, 0);
	char *page = function_page(dir, "app.main()");
	char want[128];
	snprintf(want, sizeof(want), "%lld calls, self %.3f ms, total %.3f ms",
		 (long long)was.calls * 7 + 1, was.self_ms * (idx(m, "app.main()") + 1),
		 was.total_ms * 3 + 0.125);
	assert_non_null(strstr(page, want));
	snprintf(want, sizeof(want), "%lld calls, self %.3f ms", (long long)was.calls,
		 was.self_ms);
	assert_non_null(strstr(before, want));
	assert_null(strstr(page, want));
	/* the border widths changed (the site is compared with one rendered
	 * without the cache below) */
	char *wa = stroke_widths(before), *wb = stroke_widths(page);
	assert_true(strlen(wa) > 0);
	assert_string_not_equal(wa, wb);
	free(wa), free(wb);
	free(before);
	free(page);
	render_into(m, plain, false, &st);
	assert_same_tree(dir, plain);
	remove_dir(dir);
	remove_dir(plain);
	cgm_model_free(m);
}

/* A truncated or altered entry is a miss: that graph is laid out again,
 * and the site is right. */
static void test_layout_cache_truncated_entry(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = temp_dir(), *plain = temp_dir();
	html_layout_stats st;
	render_into(m, dir, true, &st);
	file_list entries = cache_entries(dir);
	assert_true(entries.n >= 2);
	char path[4096];
	snprintf(path, sizeof(path), "%s/" HTML_CACHE_DIR "/%s", dir, entries.paths[0]);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(truncate(path, sb.st_size / 2), 0);
	/* one byte of the SVG changed, the length kept */
	snprintf(path, sizeof(path), "%s/" HTML_CACHE_DIR "/%s", dir, entries.paths[1]);
	char *entry = slurp(path);
	char *svg = strstr(entry, "<svg");
	assert_non_null(svg);
	svg[1] = 'S';
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(entry, f);
	fclose(f);
	free(entry);
	render_into(m, dir, true, &st);
	assert_true(st.layouts >= 2); /* a graph may share its entry with another */
	assert_true(st.hits > 0);
	render_into(m, plain, false, &st);
	assert_same_tree(dir, plain);
	/* and the entries were written anew */
	render_into(m, dir, true, &st);
	assert_int_equal(st.layouts, 0);
	free_files(&entries);
	remove_dir(dir);
	remove_dir(plain);
	cgm_model_free(m);
}

/* Entries a whole run did not use are removed at its end; nothing else
 * in the cache folder is. */
static void test_layout_cache_pruned(void **state)
{
	(void)state;
	cgm_model *big = demo_model(true);
	cgm_model *small = cgm_model_new();
	small->source.kind = "database";
	small->source.name = "demo<db>";
	add_function(small, "app.main()", "app", "main", "", "\nBEGIN\n  RETURN 1;\nEND\n");
	add_function(small, "other.fresh()", "other", "fresh", "", "\nBEGIN\n  RETURN 1;\nEND\n");
	cgm_model_index(small);
	char *dir = temp_dir(), *fresh = temp_dir();
	html_layout_stats st;
	render_into(big, dir, true, &st);
	file_list before = cache_entries(dir);
	put_file(dir, HTML_CACHE_DIR "/notes.txt", "mine\n");
	put_file(dir, HTML_CACHE_DIR "/0123456789abcdeX.svg", "not an entry's name\n");
	/* the temporary file of an entry a killed run was writing */
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	char half[200], path[4096];
	snprintf(half, sizeof(half), HTML_CACHE_DIR "/.0123456789abcdef.svg.tmp.%ld.1", (long)child);
	put_file(dir, half, "half an entry");
	render_into(small, dir, true, &st);
	assert_true(st.pruned > 0);
	snprintf(path, sizeof(path), "%s/%s", dir, half);
	struct stat sb;
	assert_int_equal(lstat(path, &sb), -1);
	render_into(small, fresh, true, &st);
	file_list after = cache_entries(dir), want = cache_entries(fresh);
	assert_int_equal(after.n, want.n + 2);
	int k = 0;
	for (int i = 0; i < after.n; i++) {
		if (strcmp(after.paths[i], "notes.txt") == 0 ||
		    strcmp(after.paths[i], "0123456789abcdeX.svg") == 0)
			continue;
		assert_string_equal(after.paths[i], want.paths[k++]);
	}
	assert_true(before.n > want.n);
	/* pruning never grows back: the big model again prunes the small one's
	 * entries it does not use */
	render_into(big, dir, true, &st);
	file_list again = cache_entries(dir);
	assert_int_equal(again.n, before.n + 2);
	free_files(&before), free_files(&after), free_files(&want), free_files(&again);
	remove_dir(dir);
	remove_dir(fresh);
	cgm_model_free(big);
	cgm_model_free(small);
}

/* Links planted in the cache folder are neither read nor written
 * through, nor removed by the pruning; a link in place of the folder is
 * refused. */
static void test_layout_cache_links(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	char *dir = temp_dir(), *outside = temp_dir();
	html_layout_stats st;
	render_into(m, dir, true, &st);
	file_list entries = cache_entries(dir);
	assert_true(entries.n > 0);
	char entry[4096], target[4096], path[4096];
	snprintf(entry, sizeof(entry), "%s/" HTML_CACHE_DIR "/%s", dir, entries.paths[0]);
	snprintf(target, sizeof(target), "%s/target.svg", outside);
	/* the link points at a valid entry: followed, it would be a hit */
	char *valid = slurp(entry);
	FILE *f = fopen(target, "w");
	assert_non_null(f);
	fputs(valid, f);
	fclose(f);
	assert_int_equal(unlink(entry), 0);
	assert_int_equal(symlink(target, entry), 0);
	/* an unused entry-shaped link */
	snprintf(path, sizeof(path), "%s/" HTML_CACHE_DIR "/00000000000000aa.svg", dir);
	assert_int_equal(symlink(target, path), 0);
	render_into(m, dir, true, &st);
	assert_true(st.layouts >= 1);
	struct stat sb;
	assert_int_equal(lstat(entry, &sb), 0);
	assert_true(S_ISREG(sb.st_mode)); /* the link replaced, not written through */
	assert_int_equal(lstat(path, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode)); /* not pruned either */
	char *after = slurp(target);
	assert_string_equal(after, valid);
	free(after);
	free(valid);

	/* the cache folder itself a link: refused, naming it */
	char *other = temp_dir();
	snprintf(path, sizeof(path), "%s/" HTML_CACHE_DIR, other);
	assert_int_equal(symlink(outside, path), 0);
	cgm_html_options o;
	cgm_html_options_init(&o);
	assert_int_equal(cgm_emit_html(m, &o, other), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), HTML_CACHE_DIR));
	file_list out = folder_names(outside);
	assert_int_equal(out.n, 1); /* target.svg alone */
	free_files(&out);
	free_files(&entries);
	remove_dir(dir);
	remove_dir(other);
	remove_dir(outside);
	cgm_model_free(m);
}

/* ---- cgmap's own layout of function graphs ---- */

/* The x of the centre of the node whose link names `page`, from the
 * layout data beside the layered SVG ([left, top, width, height, rank,
 * "href", ...]). */
static int node_centre_x(const char *graph, const char *page)
{
	cgm_strbuf key = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&key, ",\"%s\",", page);
	const char *at = strstr(graph, cgm_strbuf_cstr(&key));
	cgm_strbuf_free(&key);
	if (!at)
		fail_msg("no node links to %s", page);
	const char *open = at;
	while (open > graph && *open != '[')
		open--;
	int left = 0, width = 0;
	assert_int_equal(sscanf(open, "[%d,%*d,%d,", &left, &width), 2);
	return left + width / 2;
}

/* How many entries the layout data's list `key` ("n" or "e") holds. */
static int data_entries(const char *graph, const char *key)
{
	cgm_strbuf k = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&k, "\"%s\":[", key);
	const char *p = strstr(graph, cgm_strbuf_cstr(&k));
	assert_non_null(p);
	p += k.len;
	cgm_strbuf_free(&k);
	int depth = 1, entries = 0;
	bool in_string = false;
	for (; *p && depth > 0; p++) {
		if (in_string) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_string = false;
		} else if (*p == '"') {
			in_string = true;
		} else if (*p == '[') {
			entries += depth == 1;
			depth++;
		} else if (*p == ']') {
			depth--;
		}
	}
	return entries;
}

/* Callers left of the function, callees right, callees' callees further
 * right; one node per function; hostile text escaped; a tooltip's line
 * break kept; each look listed once; links in the same
 * folder lose the prefix; labels the tooltip gives left out. */
static void test_layered_layout_columns(void **state)
{
	(void)state;
	const char *dot =
		"digraph \"callgraph\" {\n"
		"  graph [rankdir=LR, tooltip=\" \"];\n"
		"  node [shape=box, style=filled, fillcolor=\"#ffffff\", color=\"#495057\"];\n"
		"  edge [color=\"#495057\", arrowsize=0.7];\n"
		"  n0 [label=\"f()\", tooltip=\"app.f()\", URL=\"../functions/f.html\", "
		"fillcolor=\"#fff3bf\", color=\"#000000\", penwidth=2.50, fontsize=11];\n"
		"  n1 [label=\"caller()\", tooltip=\"app.caller()\", URL=\"../functions/caller.html\"];\n"
		"  n2 [label=\"callee()\", tooltip=\"app.callee()\", URL=\"../functions/callee.html\"];\n"
		"  n3 [label=\"deep()\", tooltip=\"a \\\"<b>\\\" & c\\nline two\", "
		"URL=\"../functions/deep.html\"];\n"
		"  m0 [label=\"nosuch(1 arg)\\nmissing\", shape=box, style=\"dashed,filled\"];\n"
		"  n1 -> n0 [color=\"#495057\", tooltip=\"call, static, line 3\"];\n"
		"  n0 -> n2 [color=\"#495057\", label=\"12\xC3\x97\"];\n"
		"  n2 -> n3 [color=\"#2b8a3e\", style=dashed, arrowhead=box];\n"
		"  n0 -> m0 [color=\"#c92a2a\", style=dashed];\n"
		"  n0 -> n0;\n"
		"}\n";
	cgm_strbuf graph = CGM_STRBUF_INIT;
	assert_int_equal(html_layout_graph(&graph, dot, "app.f()", "../functions/", NULL), 0);
	const char *out = cgm_strbuf_cstr(&graph);
	int caller = node_centre_x(out, "caller.html"), focal = node_centre_x(out, "f.html");
	int callee = node_centre_x(out, "callee.html"), deep = node_centre_x(out, "deep.html");
	assert_true(caller < focal);
	assert_true(focal < callee);
	assert_true(callee < deep);
	assert_null(strstr(out, "../functions/"));
	assert_null(strstr(out, "<b>"));
	assert_non_null(strstr(out, "\"a \\\"\\u003cb\\u003e\\\" \\u0026 c\\nline two\""));
	assert_non_null(strstr(out, "\"nosuch(1 arg)\\nmissing\""));
	assert_non_null(strstr(out, "\"12\xC3\x97\""));
	assert_non_null(strstr(out, "\"call, static, line 3\""));
	/* A label the tooltip gives is left to the script ("caller()"); one
	 * it does not is written ("deep()"). */
	assert_null(strstr(out, "\"caller()\""));
	assert_non_null(strstr(out, "\"deep()\""));
	/* The focal node's own look, and the dashed green box-headed edge. */
	assert_non_null(strstr(out, "\"fill:#fff3bf;stroke:#000000;stroke-width:2.50\""));
	assert_non_null(strstr(out, "[\"#2b8a3e\",1.0,1,6]"));
	/* The arrows are the script's to draw (a box head: kind 6), and the
	 * looks are listed once: the two plain grey edges share the default. */
	assert_null(strstr(out, "<marker"));
	assert_int_equal(count(out, "\"#2b8a3e\""), 1);
	assert_int_equal(data_entries(out, "n"), 5);
	assert_int_equal(data_entries(out, "e"), 5);
	/* The data cannot end its <script> element. */
	const char *data = strstr(out, "<script type=\"application/json\" class=\"layered-data\">");
	assert_non_null(data);
	const char *end = strstr(data, "</script>");
	assert_non_null(end);
	assert_null(memchr(data + 1, '<', (size_t)(end - data - 1)));
	cgm_strbuf_free(&graph);
}

/* What the layout does not draw is an error naming the graph, never a
 * wrong picture: the page then goes through Graphviz. */
static void test_layered_layout_refuses(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"graph g { a -- b }",
		"digraph g { subgraph cluster_x { a; } }",
		"digraph g { a [label=<<b>x</b>>]; }",
		"digraph g { a [label=\"unterminated]; }",
		"digraph g { a -> ; }",
		"digraph g { }",
		"digraph g { a [label=\"x\"]; ",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cgm_strbuf svg = CGM_STRBUF_INIT;
		int rc = html_layout_graph(&svg, bad[i], "app.g()", NULL, NULL);
		if (rc != CGM_EINPUT)
			fail_msg("laid out %s", bad[i]);
		assert_non_null(strstr(cgm_error_message(), "'app.g()'"));
		cgm_error_clear();
		cgm_strbuf_free(&svg);
	}
}

/* A busy function's page draws its own graph with cgmap's layout by
 * default, with Graphviz on request; both link every drawn function. */
static void test_function_graph_layouts(void **state)
{
	(void)state;
	cgm_model *m = demo_model(true);
	for (int graphviz = 0; graphviz < 2; graphviz++) {
		char *dir = temp_dir();
		cgm_html_options o;
		cgm_html_options_init(&o);
		o.threads = 1;
		o.graphviz_neighbourhoods = graphviz;
		assert_int_equal(cgm_emit_html(m, &o, dir), 0);
		char *page = function_page(dir, "app.main()");
		assert_int_equal(strstr(page, "class=\"layered\"") != NULL, !graphviz);
		cgm_strbuf href = CGM_STRBUF_INIT;
		/* Graphviz's SVG links the node; cgmap's layout names the node
		 * by its index in the page's data, which names app.work(). */
		cgm_strbuf_puts(&href, graphviz ? "xlink:href=\"../functions/" : "");
		cgm_escape_filename(&href, "app.work()");
		cgm_strbuf_puts(&href, graphviz ? ".html\"" : "");
		if (graphviz)
			assert_non_null(strstr(page, cgm_strbuf_cstr(&href)));
		else
			assert_true(page_fn_index(page, "app.work()") > 0);
		if (!graphviz)
			assert_non_null(strstr(page, "{\"n\":[[")); /* the graph's nodes */
		cgm_strbuf_free(&href);
		free(page);
		remove_dir(dir);
	}
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_page_is_written),
		cmocka_unit_test(test_links_land),
		cmocka_unit_test(test_colliding_page_names),
		cmocka_unit_test(test_page_data_names),
		cmocka_unit_test(test_relation_pages),
		cmocka_unit_test(test_possible_targets_drawn),
		cmocka_unit_test(test_possible_target_change_rebuilds),
		cmocka_unit_test(test_hostile_names_stay_text),
		cmocka_unit_test(test_hidden_characters_shown),
		cmocka_unit_test(test_links_not_followed),
		cmocka_unit_test(test_render_again_removes_old_pages),
		cmocka_unit_test(test_folded_stacks_file),
		cmocka_unit_test(test_execution_profile),
		cmocka_unit_test(test_execution_profile_caps),
		cmocka_unit_test(test_output_is_deterministic),
		cmocka_unit_test(test_node_cap_says_more),
		cmocka_unit_test(test_overview_reach_exact),
		cmocka_unit_test(test_dot_sources_on_request),
		cmocka_unit_test(test_overview_reduces_dense_calls),
		cmocka_unit_test(test_timeline_chart),
		cmocka_unit_test(test_overview_caps_other_schemas),
		cmocka_unit_test(test_without_runtime_says_so),
		cmocka_unit_test(test_reports_count),
		cmocka_unit_test(test_index_edges_by_mechanism),
		cmocka_unit_test(test_possible_targets_counted_once),
		cmocka_unit_test(test_empty_model),
		cmocka_unit_test(test_bad_options_and_folders),
		cmocka_unit_test(test_snapshot_renders_the_same),
		cmocka_unit_test(test_pages_built_when_changed),
		cmocka_unit_test(test_schema_pages_built_when_changed),
		cmocka_unit_test(test_pages_kept_in_a_copied_folder),
		cmocka_unit_test(test_page_records_garbage),
		cmocka_unit_test(test_site_current),
		cmocka_unit_test(test_layout_cache_second_run),
		cmocka_unit_test(test_layout_cache_new_figures),
		cmocka_unit_test(test_layout_cache_truncated_entry),
		cmocka_unit_test(test_layout_cache_pruned),
		cmocka_unit_test(test_layout_cache_links),
		cmocka_unit_test(test_layered_layout_columns),
		cmocka_unit_test(test_layered_layout_refuses),
		cmocka_unit_test(test_function_graph_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
