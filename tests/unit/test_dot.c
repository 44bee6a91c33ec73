/*
 * test_dot.c - the DOT emitter: a model with nasty names (quotes,
 * backslashes, '<', spaces, newlines, non-ASCII, invalid UTF-8) gives DOT
 * that Graphviz parses (libcgraph in-process, and `dot -Tsvg` when it is in
 * PATH), with one cluster per schema and every kind of edge and node drawn
 * as documented, in a deterministic order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <graphviz/cgraph.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"

#define WEIRD_SCHEMA "we\"ird \\ sch<ema> \xC3\xA9"
#define WEIRD_NAME "f\"n\\ <script>alert(1)</script> &lt; \xE6\x97\xA5\xE6\x9C\xAC\\"
#define WEIRD_ID "\"we\"\"ird \\ sch<ema> \xC3\xA9\".\"f\"\"n\\ <script>alert(1)</script> &lt; \xE6\x97\xA5\xE6\x9C\xAC\\\"(text)"
#define BADUTF_ID "app.\"bad\x80name\"()"

static char tmpdir[256];

static int make_tmpdir(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/cgmap-dot-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static const char *const tmp_names[] = { "a.dot", "b.dot", "c.dot", "graph.svg", "dot.err" };

static int remove_tmpdir(void **state)
{
	(void)state;
	char path[512];
	for (size_t i = 0; i < sizeof(tmp_names) / sizeof(tmp_names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, tmp_names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
	return 0;
}

static char *tmp_path(const char *name)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];
	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
	return p;
}

static char *slurp(const char *path)
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
	return buf;
}

static int add_fn(cgm_model *m, const char *schema, const char *name, const char *args,
		  const char *id, const char *language)
{
	cgm_function *f = cgm_model_add_function(m);
	f->id = id;
	f->schema = schema;
	f->name = name;
	f->identity_args = args;
	f->language = language;
	f->analysed = strcmp(language, "plpgsql") == 0 || strcmp(language, "sql") == 0;
	f->builtin = strcmp(schema, "pg_catalog") == 0;
	f->scc = -1;
	f->npath = -1;
	return m->nfunctions - 1;
}

static cgm_site *add_site(cgm_model *m, int fn, int line, cgm_site_kind kind, const char *schema,
			  const char *name, cgm_resolution res, int target)
{
	cgm_function *f = &m->functions[fn];
	f->sites = cgm_arena_grow(m->arena, f->sites, (size_t)f->nsites, (size_t)f->nsites + 1,
				  sizeof(cgm_site));
	cgm_site *s = &f->sites[f->nsites++];
	s->line = line;
	s->kind = kind;
	s->schema = schema;
	s->name = name;
	s->resolution = res;
	s->targets = cgm_arena_alloc(m->arena, sizeof(int));
	if (target >= 0) {
		s->ntargets = 1;
		s->targets[0] = target;
	}
	return s;
}

static void add_edge(cgm_model *m, int from, int to, cgm_via via, unsigned prov, bool ambiguous,
		     int line)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = from;
	e->to = to;
	e->via = via;
	e->provenance = prov;
	e->ambiguous = ambiguous;
	e->lines = cgm_arena_alloc(m->arena, sizeof(int));
	if (line > 0) {
		e->nlines = 1;
		e->lines[0] = line;
	}
	if (prov & CGM_EDGE_OBSERVED)
		cgm_edge_rare_of(m->arena, e)->runtime.calls = 3;
}

/* The same graph whatever order the pieces are added in (reverse_edges). */
static cgm_model *build_model(bool reverse_edges)
{
	cgm_model *m = cgm_model_new();
	m->source.kind = "database";
	m->source.name = "demo \"db\"";
	m->has_runtime = true;
	int weird = add_fn(m, WEIRD_SCHEMA, WEIRD_NAME, "text", WEIRD_ID, "plpgsql");
	int a = add_fn(m, "app", "a", "", "app.a()", "plpgsql");
	int b = add_fn(m, "app", "b", "integer", "app.b(integer)", "sql");
	int over_i = add_fn(m, "app", "over", "integer", "app.over(integer)", "plpgsql");
	int over_b = add_fn(m, "app", "over", "bigint", "app.over(bigint)", "plpgsql");
	int audit = add_fn(m, "app", "audit", "", "app.audit()", "plpgsql");
	int dyn = add_fn(m, "app", "dyn target", "", "app.\"dyn target\"()", "plpgsql");
	int cfn = add_fn(m, "ext", "c_func", "integer", "ext.c_func(integer)", "c");
	int broken = add_fn(m, "app", "broken", "", "app.broken()", "plpgsql");
	int bad = add_fn(m, "app", "bad\x80name", "", BADUTF_ID, "plpgsql");
	int lower = add_fn(m, "pg_catalog", "lower", "text", "lower(text)", "internal");
	add_fn(m, "pg_catalog", "now", "", "now()", "internal"); /* not drawn: no edge */
	m->functions[audit].is_trigger = true;
	m->functions[broken].nerrors = 1;
	m->functions[broken].errors = cgm_arena_alloc(m->arena, sizeof(cgm_parse_error));
	m->functions[broken].errors[0] = (cgm_parse_error){ 2, "syntax error at or near \"<\"" };

	add_site(m, a, 3, CGM_SITE_CALL, NULL, "b", CGM_RES_RESOLVED, b);
	add_site(m, a, 5, CGM_SITE_CALL, "app", "over", CGM_RES_AMBIGUOUS, over_i);
	cgm_site *s = add_site(m, a, 7, CGM_SITE_DYNAMIC, NULL, NULL, CGM_RES_NONE, -1);
	cgm_site_rare_of(m->arena, s)->text = "format('SELECT \"%s\"()', x) || '\\'";
	s = add_site(m, a, 9, CGM_SITE_TRIGGER, "app", "orders", CGM_RES_RESOLVED, audit);
	cgm_site_rare_of(m->arena, s)->events = CGM_EV_INSERT | CGM_EV_UPDATE;
	add_site(m, a, 11, CGM_SITE_CALL, "nope", "gone", CGM_RES_MISSING, -1);
	add_site(m, a, 12, CGM_SITE_EXEC_LITERAL, NULL, "b", CGM_RES_RESOLVED, b);
	add_site(m, weird, 2, CGM_SITE_CALL, NULL, "missing \"quoted\" <x>", CGM_RES_MISSING, -1);
	add_site(m, weird, 4, CGM_SITE_CALL, NULL, "missing \"quoted\" <x>", CGM_RES_MISSING, -1);
	add_site(m, b, 1, CGM_SITE_CALL, NULL, "gone", CGM_RES_MISSING, -1);

	struct {
		int from, to;
		cgm_via via;
		unsigned prov;
		bool ambiguous;
		int line;
	} edges[] = {
		{ a, b, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 3 },
		{ a, b, CGM_VIA_LITERAL, CGM_EDGE_STATIC, false, 12 },
		{ a, over_i, CGM_VIA_CALL, CGM_EDGE_STATIC, true, 5 },
		{ a, over_b, CGM_VIA_CALL, CGM_EDGE_STATIC, true, 5 },
		{ a, audit, CGM_VIA_TRIGGER, CGM_EDGE_STATIC, false, 9 },
		{ a, dyn, CGM_VIA_DYNAMIC, CGM_EDGE_OBSERVED, false, 7 },
		{ weird, b, CGM_VIA_CALL, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED, false, 1 },
		{ b, weird, CGM_VIA_CALL, CGM_EDGE_OBSERVED, false, 0 },
		{ broken, cfn, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 2 },
		{ bad, lower, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 1 },
	};
	int n = (int)(sizeof(edges) / sizeof(edges[0]));
	for (int i = 0; i < n; i++) {
		int k = reverse_edges ? n - 1 - i : i;
		add_edge(m, edges[k].from, edges[k].to, edges[k].via, edges[k].prov, edges[k].ambiguous,
			 edges[k].line);
	}
	cgm_model_index(m);
	return m;
}

/* A name as libcgraph stores it after reading our DOT: the escaped text
 * with \" turned back into a quote (the lexer's only escape). */
static char *dot_name(const char *prefix, const char *s)
{
	cgm_strbuf buf = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&buf, prefix);
	cgm_escape_dot_id(&buf, s);
	char *out = malloc(buf.len + 1), *o = out;
	for (const char *p = cgm_strbuf_cstr(&buf); *p; p++) {
		if (p[0] == '\\' && p[1] == '"')
			p++;
		else if (p[0] == '\\' && p[1] == '\\')
			*o++ = *p++;
		*o++ = *p;
	}
	*o = '\0';
	cgm_strbuf_free(&buf);
	return out;
}

static Agnode_t *node(Agraph_t *g, const char *prefix, const char *id)
{
	char *name = dot_name(prefix, id);
	Agnode_t *n = agnode(g, name, 0);
	if (!n)
		fail_msg("node \"%s\" not in the graph", name);
	free(name);
	return n;
}

static const char *attr(void *obj, const char *name)
{
	char *v = agget(obj, (char *)name);
	return v ? v : "";
}

/* The edge tail -> head whose attribute key has a value containing want. */
static Agedge_t *edge_with(Agraph_t *g, Agnode_t *tail, Agnode_t *head, const char *key,
			   const char *want)
{
	for (Agedge_t *e = agfstout(g, tail); e; e = agnxtout(g, e))
		if (aghead(e) == head && strstr(attr(e, key), want))
			return e;
	fail_msg("no edge %s -> %s with %s ~ \"%s\"", agnameof(tail), agnameof(head), key, want);
	return NULL;
}

static Agraph_t *emit_and_parse(cgm_model *m, const char *path)
{
	int rc = cgm_emit_dot(m, path);
	if (rc)
		fail_msg("emit failed: %s", cgm_error_message());
	char *text = slurp(path);
	Agraph_t *g = agmemread(text);
	if (!g)
		fail_msg("libcgraph does not parse the DOT:\n%s", text);
	free(text);
	return g;
}

static void test_structure(void **state)
{
	(void)state;
	cgm_model *m = build_model(false);
	Agraph_t *g = emit_and_parse(m, tmp_path("a.dot"));
	assert_true(agisdirected(g));

	/* One cluster per schema, with a label; the builtin's schema too. */
	const char *schemas[] = { "app", "ext", "pg_catalog", WEIRD_SCHEMA };
	for (size_t i = 0; i < sizeof(schemas) / sizeof(schemas[0]); i++) {
		char *name = dot_name("cluster_", schemas[i]);
		Agraph_t *sg = agsubg(g, name, 0);
		if (!sg)
			fail_msg("no cluster \"%s\"", name);
		assert_non_null(strstr(attr(sg, "label"), "schema "));
		free(name);
	}
	assert_non_null(agsubg(g, "cluster_legend", 0));
	Agraph_t *app = agsubg(g, "cluster_app", 0);
	char *weird_cluster_name = dot_name("cluster_", WEIRD_SCHEMA);
	Agraph_t *weird_cluster = agsubg(g, weird_cluster_name, 0);
	free(weird_cluster_name);
	/* app.a() app.b() over x2 audit dyn broken bad, plus the dynamic note */
	assert_int_equal(agnnodes(app), 9);
	assert_int_equal(agnnodes(weird_cluster), 1);

	Agnode_t *a = node(g, "", "app.a()"), *b = node(g, "", "app.b(integer)");
	Agnode_t *weird = node(g, "", WEIRD_ID);
	assert_non_null(agsubnode(weird_cluster, weird, 0));
	assert_null(agsubnode(app, weird, 0));
	char *weird_label = dot_name("", WEIRD_NAME "(text)");
	assert_non_null(strstr(attr(weird, "label"), weird_label));
	free(weird_label);
	char *weird_tip = dot_name("", WEIRD_ID);
	assert_true(strncmp(attr(weird, "tooltip"), weird_tip, strlen(weird_tip)) == 0);
	free(weird_tip);
	assert_null(agnode(g, "now()", 0));     /* builtin without edge: not drawn */
	assert_string_equal(attr(node(g, "", "lower(text)"), "shape"), "ellipse");

	/* Not analysed: greyed; parse error: marked. */
	Agnode_t *cfn = node(g, "", "ext.c_func(integer)");
	assert_non_null(strstr(attr(cfn, "fillcolor"), "#e6e6e6"));
	assert_non_null(strstr(attr(cfn, "label"), "not analysed"));
	Agnode_t *broken = node(g, "", "app.broken()");
	assert_non_null(strstr(attr(broken, "label"), "parse error"));
	assert_string_equal(attr(broken, "penwidth"), "2");
	assert_string_equal(attr(a, "penwidth"), "");

	/* Edge styles. */
	assert_string_equal(attr(edge_with(g, a, b, "style", "solid"), "label"), "");
	Agedge_t *lit = edge_with(g, a, b, "style", "dotted");
	assert_string_equal(attr(lit, "label"), "EXECUTE");
	edge_with(g, weird, b, "style", "solid,bold");
	edge_with(g, b, weird, "style", "dashed");
	Agedge_t *amb = edge_with(g, a, node(g, "", "app.over(integer)"), "label", "?");
	assert_string_equal(attr(amb, "label"), "?");
	edge_with(g, a, node(g, "", "app.over(bigint)"), "label", "?");
	Agedge_t *trg = edge_with(g, a, node(g, "", "app.audit()"), "label", "INSERT|UPDATE");
	assert_non_null(strstr(attr(trg, "label"), "on app.orders"));
	assert_string_equal(attr(trg, "color"), "#1f6fb4");
	assert_string_not_equal(attr(trg, "color"), attr(amb, "color"));

	/* The dynamic site hangs off its function; what it was seen to call
	 * hangs off the site. */
	Agnode_t *note = node(g, "", "app.a() EXECUTE site 3");
	assert_string_equal(attr(note, "shape"), "note");
	assert_string_equal(attr(note, "label"), "EXECUTE line 7");
	assert_non_null(agsubnode(app, note, 0));
	edge_with(g, a, note, "style", "dotted");
	edge_with(g, note, node(g, "", "app.\"dyn target\"()"), "style", "dashed");

	/* Missing callees: dashed red boxes with the name as written, one node
	 * per name, one edge per caller. */
	Agnode_t *gone = node(g, "missing: ", "nope.gone");
	assert_string_equal(attr(gone, "style"), "dashed");
	assert_string_equal(attr(gone, "label"), "nope.gone");
	assert_string_equal(attr(gone, "color"), "#cc0000");
	edge_with(g, a, gone, "style", "dashed");
	Agnode_t *gone_unqualified = node(g, "missing: ", "gone");
	edge_with(g, b, gone_unqualified, "style", "dashed");
	Agnode_t *quoted = node(g, "missing: ", "missing \"quoted\" <x>");
	assert_int_equal(agdegree(g, quoted, 1, 0), 1); /* two sites, one edge */
	assert_non_null(strstr(attr(edge_with(g, weird, quoted, "style", "dashed"), "tooltip"),
			       "lines 2, 4"));

	/* An invalid byte is named by its value, so the node name is valid
	 * UTF-8 and no other id can share it. */
	assert_non_null(agnode(g, "app.\"bad\\x80name\"()", 0));

	/* The dynamic site's possible targets (format('SELECT "%s"()', x) may
	 * name any function taking no argument): dashed, empty arrowheads. */
	edge_with(g, note, node(g, "", "app.a()"), "arrowhead", "empty");

	/* 10 edges, 1 dynamic link, 9 possible targets, 3 missing edges, 7
	 * legend edges. */
	assert_int_equal(agnedges(g), 10 + 1 + 9 + 3 + 7);
	agclose(g);
	cgm_model_free(m);
}

static void test_deterministic(void **state)
{
	(void)state;
	cgm_model *m1 = build_model(false), *m2 = build_model(true);
	assert_int_equal(cgm_emit_dot(m1, tmp_path("a.dot")), 0);
	assert_int_equal(cgm_emit_dot(m1, tmp_path("b.dot")), 0);
	assert_int_equal(cgm_emit_dot(m2, tmp_path("c.dot")), 0);
	char *t1 = slurp(tmp_path("a.dot")), *t2 = slurp(tmp_path("b.dot")), *t3 = slurp(tmp_path("c.dot"));
	assert_string_equal(t1, t2);
	assert_string_equal(t1, t3); /* edges added in another order: same file */
	free(t1);
	free(t2);
	free(t3);
	cgm_model_free(m1);
	cgm_model_free(m2);
}

static void test_dot_tsvg(void **state)
{
	(void)state;
	if (system("command -v dot >/dev/null 2>&1") != 0)
		skip(); /* Graphviz's dot is not installed here */
	cgm_model *m = build_model(false);
	const char *dotfile = tmp_path("a.dot"), *svg = tmp_path("graph.svg"), *err = tmp_path("dot.err");
	assert_int_equal(cgm_emit_dot(m, dotfile), 0);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "dot -Tsvg '%s' -o '%s' 2>'%s'", dotfile, svg, err);
	int status = system(cmd);
	char *errors = slurp(err);
	if (status != 0 || errors[0] != '\0')
		fail_msg("dot -Tsvg failed (status %d): %s", status, errors);
	free(errors);
	char *text = slurp(svg);
	assert_non_null(strstr(text, "</svg>"));
	assert_null(strstr(text, "<script"));                 /* markup stays text */
	assert_non_null(strstr(text, "&lt;script&gt;"));
	assert_non_null(strstr(text, "\xE6\x97\xA5\xE6\x9C\xAC")); /* non-ASCII kept */
	assert_non_null(strstr(text, "EXECUTE line 7"));
	free(text);
	cgm_model_free(m);
}

static void test_empty_and_errors(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	cgm_model_index(m);
	Agraph_t *g = emit_and_parse(m, tmp_path("a.dot"));
	assert_non_null(agsubg(g, "cluster_legend", 0));
	agclose(g);
	assert_int_equal(cgm_emit_dot(m, tmp_path("no/such/dir/x.dot")), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "x.dot"));
	cgm_model_free(m);
}

/* Names are escaped in runs (plain ASCII copied, the rest through
 * cgm_escape_dot): the text must be exactly cgm_escape_dot() of the whole
 * name, including runs of non-ASCII and bad bytes longer than any small
 * buffer, multi-byte characters broken at the end, and controls. */
static void test_escape_runs(void **state)
{
	(void)state;
	cgm_strbuf name = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&name, "x");
	for (int i = 0; i < 40; i++) /* 120 bytes of CJK, one run */
		cgm_strbuf_puts(&name, "\xE6\x97\xA5");
	cgm_strbuf_puts(&name, "\x80\xFF\xC3\t\r\n\x01\x7F&\"\\ y \xE6\x97");
	cgm_model *m = cgm_model_new();
	const char *id = cgm_arena_strdup(m->arena, "s.long()");
	int f = add_fn(m, "s", cgm_arena_strdup(m->arena, cgm_strbuf_cstr(&name)), "a&b \"c\"", id,
		       "plpgsql");
	(void)f;
	cgm_model_index(m);
	Agraph_t *g = emit_and_parse(m, tmp_path("a.dot"));
	agclose(g);

	cgm_strbuf expected = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&expected, "[label=\"");
	cgm_escape_dot(&expected, cgm_strbuf_cstr(&name));
	cgm_strbuf_putc(&expected, '(');
	cgm_escape_dot(&expected, "a&b \"c\"");
	cgm_strbuf_puts(&expected, ")\"");
	char *text = slurp(tmp_path("a.dot"));
	if (!strstr(text, cgm_strbuf_cstr(&expected)))
		fail_msg("label is not cgm_escape_dot of the name; expected %s", cgm_strbuf_cstr(&expected));
	free(text);
	cgm_strbuf_free(&expected);
	cgm_strbuf_free(&name);
	cgm_model_free(m);
}

/* Two functions whose ids differ only by TAB against space, or by a CR,
 * are two nodes with their own edges: node names are never folded. */
static void test_ids_never_fold(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	int caller = add_fn(m, "s", "caller", "", "s.caller()", "plpgsql");
	int tab = add_fn(m, "s", "a\tb", "", "s.\"a\tb\"()", "plpgsql");
	int space = add_fn(m, "s", "a b", "", "s.\"a b\"()", "plpgsql");
	int cr = add_fn(m, "s", "c\r", "", "s.\"c\r\"()", "plpgsql");
	int plain = add_fn(m, "s", "c", "", "s.c()", "plpgsql");
	/* the same schema with a TAB or a CR: two more clusters */
	int other = add_fn(m, "s\t", "d", "", "\"s\t\".d()", "plpgsql");
	int other2 = add_fn(m, "s ", "d", "", "\"s \".d()", "plpgsql");
	add_site(m, caller, 2, CGM_SITE_CALL, NULL, "x\ty", CGM_RES_MISSING, -1);
	add_site(m, caller, 3, CGM_SITE_CALL, NULL, "x y", CGM_RES_MISSING, -1);
	add_edge(m, caller, tab, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 4);
	add_edge(m, caller, space, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 5);
	add_edge(m, caller, cr, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 6);
	add_edge(m, caller, plain, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 7);
	add_edge(m, caller, other, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 8);
	add_edge(m, caller, other2, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 9);
	cgm_model_index(m);
	Agraph_t *g = emit_and_parse(m, tmp_path("a.dot"));
	const char *ids[] = { "s.\"a\tb\"()", "s.\"a b\"()", "s.\"c\r\"()", "s.c()",
			      "\"s\t\".d()", "\"s \".d()" };
	Agnode_t *from = node(g, "", "s.caller()");
	Agnode_t *seen[6];
	for (int i = 0; i < 6; i++) {
		seen[i] = node(g, "", ids[i]);
		for (int j = 0; j < i; j++)
			if (seen[i] == seen[j])
				fail_msg("%s and %s are one node", ids[i], ids[j]);
		edge_with(g, from, seen[i], "style", "solid");
	}
	/* Functions and missing callees: every one its own node. */
	int nodes = 0;
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		if (strncmp(agnameof(n), "legend: ", 8) != 0)
			nodes++;
	assert_int_equal(nodes, 7 + 2);
	node(g, "missing: ", "x\ty");
	node(g, "missing: ", "x y");
	char *tab_cluster = dot_name("cluster_", "s\t"), *space_cluster = dot_name("cluster_", "s ");
	assert_non_null(agsubg(g, tab_cluster, 0));
	assert_non_null(agsubg(g, space_cluster, 0));
	free(tab_cluster), free(space_cluster);
	agclose(g);
	cgm_model_free(m);
}

/* A graph far larger than the output buffer is written in pieces: the file
 * is whole, parses, and holds every node and edge. */
static void test_large_graph_streamed(void **state)
{
	(void)state;
	enum { N = 5000 };
	cgm_model *m = cgm_model_new();
	for (int i = 0; i < N; i++) {
		const char *schema = i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c";
		char *fid = cgm_arena_printf(m->arena, "%s.f%05d(integer)", schema, i);
		char *fname = cgm_arena_printf(m->arena, "f%05d", i);
		add_fn(m, schema, fname, "integer", fid, "plpgsql");
	}
	cgm_model_index(m);
	int nedges = 0;
	for (int i = 1; i < N; i++) {
		add_edge(m, i, i - 1, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 3);
		nedges++;
		if (i % 7 == 0) {
			add_edge(m, i, i / 2, CGM_VIA_CALL, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED, true, 5);
			nedges++;
		}
	}
	const char *path = tmp_path("b.dot");
	Agraph_t *g = emit_and_parse(m, path);
	char *text = slurp(path);
	assert_true(strlen(text) > 3 * 256 * 1024);
	/* Edges that look alike share one `edge` default (two looks here),
	 * instead of each repeating its style: the rest are the legend's. */
	int styles = 0;
	for (const char *p = text; (p = strstr(p, "style=")) != NULL; p++)
		styles++;
	assert_in_range(styles, 2, 40);
	/* Legend: 14 nodes, 7 edges. */
	assert_int_equal(agnnodes(g), N + 14);
	assert_int_equal(agnedges(g), nedges + 7);
	agclose(g);
	/* Deterministic across pieces. */
	assert_int_equal(cgm_emit_dot(m, tmp_path("c.dot")), 0);
	char *again = slurp(tmp_path("c.dot"));
	assert_string_equal(again, text);
	free(again);
	free(text);
	cgm_model_free(m);
}

/* With runtime data a called function's label carries its calls, total and
 * self time, its fill its share of the largest self time; an observed edge
 * its calls.  Without runtime data none of it. */
static void test_runtime_profile(void **state)
{
	(void)state;
	cgm_model *m = cgm_model_new();
	/* Added in id order: indexing keeps the numbers. */
	int hot = add_fn(m, "app", "hot", "", "app.hot()", "plpgsql");
	int idle = add_fn(m, "app", "idle", "", "app.idle()", "plpgsql");
	int warm = add_fn(m, "app", "warm", "", "app.warm()", "plpgsql");
	m->nuser = m->nfunctions;
	cgm_model_index(m);
	add_edge(m, hot, warm, CGM_VIA_CALL, CGM_EDGE_STATIC | CGM_EDGE_OBSERVED, false, 3);
	add_edge(m, hot, idle, CGM_VIA_CALL, CGM_EDGE_STATIC, false, 4);
	m->functions[hot].runtime = (cgm_runtime_stats){ .calls = 1, .total_ms = 250, .self_ms = 200 };
	m->functions[warm].runtime = (cgm_runtime_stats){ .calls = 3, .total_ms = 0.6, .self_ms = 0.05 };
	m->has_runtime = true;
	Agraph_t *g = emit_and_parse(m, tmp_path("a.dot"));
	Agnode_t *h = node(g, "", "app.hot()"), *w = node(g, "", "app.warm()"),
		 *i = node(g, "", "app.idle()");
	assert_string_equal(attr(h, "label"), "hot()\\n1 call, 250 ms total, 200 ms self");
	assert_string_equal(attr(w, "label"), "warm()\\n3 calls, 0.6 ms total, 0.05 ms self");
	assert_string_equal(attr(i, "label"), "idle()");
	assert_string_equal(attr(h, "fillcolor"), "#ff8787");
	assert_string_equal(attr(w, "fillcolor"), "#fff4e6");
	assert_string_equal(attr(i, "fillcolor"), "");
	edge_with(g, h, w, "label", "3 calls");
	assert_string_equal(attr(edge_with(g, h, i, "tooltip", "app.idle()"), "label"), "");
	agclose(g);

	m->has_runtime = false;
	g = emit_and_parse(m, tmp_path("b.dot"));
	assert_string_equal(attr(node(g, "", "app.hot()"), "label"), "hot()");
	assert_string_equal(attr(node(g, "", "app.hot()"), "fillcolor"), "");
	agclose(g);
	cgm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_dot_tsvg),
		cmocka_unit_test(test_empty_and_errors),
		cmocka_unit_test(test_escape_runs),
		cmocka_unit_test(test_ids_never_fold),
		cmocka_unit_test(test_large_graph_streamed),
		cmocka_unit_test(test_runtime_profile),
	};
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
