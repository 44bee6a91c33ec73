/*
 * test_diff.c - the diff writers show names as text: a function name
 * holding a terminal escape sequence, a line break, a right-to-left
 * override, a C1 control or a bad byte reaches neither the text diff nor
 * the Markdown one raw, and plain names keep their inline-code form.
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
#include "cgmap/diff.h"
#include "cgmap/strbuf.h"
#include "cgmap/verdict.h"

#define HOSTILE "app.\"x\x1B[2J\xE2\x80\xAE" "evil\nrow\xFF\xC2\x9B\"()"

/* A diff of two findings, built by hand: the writers are what is tested. */
static cgm_diff *sample(void)
{
	cgm_diff *d = calloc(1, sizeof(*d));
	d->arena = cgm_arena_new();
	d->base_name = "base\x1B[31m";
	d->head_name = "head";
	d->nfindings = 2;
	d->findings = cgm_arena_alloc(d->arena, 2 * sizeof(cgm_finding));
	d->findings[0] = (cgm_finding){ .code = CGM_FIND_MISSING_CALLEE, .function = "app.plain()",
					.line = 3,
					.detail = "calls app.gone() with 1 argument: no such function" };
	d->findings[1] = (cgm_finding){ .code = CGM_FIND_ADDED_FUNCTION, .function = HOSTILE,
					.other = HOSTILE, .detail = "added " HOSTILE };
	d->counts[CGM_FIND_MISSING_CALLEE] = 1;
	d->counts[CGM_FIND_ADDED_FUNCTION] = 1;
	return d;
}

/* Through a temporary file: GCC's -O2 -Wdangling-pointer takes the
 * buffer pointer open_memstream keeps for a pointer to a dead local. */
static char *written(const cgm_diff *d, cgm_diff_format format)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(cgm_diff_write(f, d, format, NULL), 0);
	long len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	char *buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static void assert_inert(const char *s, const char *what)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			continue;
		if (*p < 0x20 || *p == 0x7F || *p == 0xFF)
			fail_msg("%s: raw byte 0x%02X in:\n%s", what, *p, s);
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
			fail_msg("%s: raw C1 control in:\n%s", what, s);
		if (p[0] == 0xE2 && p[1] == 0x80 && p[2] == 0xAE)
			fail_msg("%s: raw right-to-left override in:\n%s", what, s);
	}
}

static void test_text(void **state)
{
	(void)state;
	cgm_diff *d = sample();
	char *out = written(d, CGM_DIFF_TEXT);
	assert_inert(out, "text");
	assert_non_null(strstr(out, "cgmap diff: base\\x1B[31m -> head\n"));
	assert_non_null(strstr(out, "app.\"x\\x1B[2J\\u202Eevil\\nrow\\xFF\\u009B\"()"));
	assert_non_null(strstr(out, "app.plain()"));
	/* the two header lines, then per function a blank line, its id and its
	 * one finding */
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 8);
	assert_non_null(strstr(out, "\napp.plain()\n    missing-callee  line 3     calls app.gone()"));
	free(out);
	cgm_arena_free(d->arena);
	free(d);
}

static void test_markdown(void **state)
{
	(void)state;
	cgm_diff *d = sample();
	char *out = written(d, CGM_DIFF_MARKDOWN);
	assert_inert(out, "markdown");
	assert_non_null(strstr(out, "\\u202Eevil<br>row\\xFF\\u009B"));
	assert_null(strstr(out, "`base")); /* not as code: code would show it raw */
	assert_non_null(strstr(out, "`head`"));
	assert_non_null(strstr(out, "`app.plain()`"));
	free(out);
	cgm_arena_free(d->arena);
	free(d);
}

/* ---- the blast radius, on two graphs built by hand ---- */

static void fn(cgm_model *m, const char *name, const char *hash)
{
	cgm_function *f = cgm_model_add_function(m);
	f->schema = "app";
	f->name = name;
	f->id = cgm_arena_printf(m->arena, "app.%s()", name);
	f->body_hash = hash;
	f->scc = -1;
}

static void call(cgm_model *m, const char *from, const char *to)
{
	cgm_edge *e = cgm_model_add_edge(m);
	e->from = cgm_model_find(m, from);
	e->to = cgm_model_find(m, to);
	assert_true(e->from >= 0 && e->to >= 0);
	e->provenance = CGM_EDGE_STATIC;
}

/* api (root, 5000 calls) -> mid -> leaf; rare (root, 3 calls) -> leaf;
 * gone (BASE only) <- api; old: dead, nobody calls it.  HEAD changes the
 * bodies of leaf and old and drops gone. */
static cgm_model *graph(bool head)
{
	cgm_model *m = cgm_model_new();
	fn(m, "api", "1");
	fn(m, "rare", "1");
	fn(m, "mid", "1");
	fn(m, "leaf", head ? "2" : "1");
	fn(m, "old", head ? "2" : "1");
	if (!head)
		fn(m, "gone", "1");
	cgm_model_index(m);
	m->has_runtime = true;
	cgm_function *api = &m->functions[cgm_model_find(m, "app.api()")];
	api->root = true;
	api->runtime.calls = head ? 4000 : 5000;
	cgm_function *rare = &m->functions[cgm_model_find(m, "app.rare()")];
	rare->root = true;
	rare->runtime.calls = 3;
	cgm_function *old = &m->functions[cgm_model_find(m, "app.old()")];
	old->dead = true;
	old->verdict = CGM_VERDICT_DEAD;
	old->confidence = "high";
	call(m, "app.api()", "app.mid()");
	call(m, "app.mid()", "app.leaf()");
	call(m, "app.rare()", "app.leaf()");
	if (!head)
		call(m, "app.api()", "app.gone()");
	return m;
}

static const cgm_finding *find(const cgm_diff *d, cgm_finding_code code, const char *function)
{
	for (int i = 0; i < d->nfindings; i++)
		if (d->findings[i].code == code && strcmp(d->findings[i].function, function) == 0)
			return &d->findings[i];
	fail_msg("no %s finding for %s", cgm_finding_name(code), function);
	return NULL;
}

static void test_blast_radius(void **state)
{
	(void)state;
	cgm_model *base = graph(false), *head = graph(true);
	cgm_diff *d;
	cgm_diff_options opts = { .hot_threshold = 1000 };
	assert_int_equal(cgm_diff_compute_opts(&d, base, head, "base", "head", &opts), 0);
	/* leaf: reached by api (4000 in HEAD) and rare (3), busiest first. */
	const cgm_finding *leaf = find(d, CGM_FIND_BODY_CHANGED, "app.leaf()");
	assert_false(leaf->from_base);
	assert_int_equal(leaf->nentries, 2);
	assert_string_equal(leaf->entries[0].id, "app.api()");
	assert_int_equal(leaf->entries[0].calls, 4000);
	assert_string_equal(leaf->entries[1].id, "app.rare()");
	assert_int_equal(leaf->entry_calls, 4003);
	/* gone: BASE's entry points, BASE's traffic. */
	const cgm_finding *gone = find(d, CGM_FIND_REMOVED_FUNCTION, "app.gone()");
	assert_true(gone->from_base);
	assert_int_equal(gone->nentries, 1);
	assert_int_equal(gone->entries[0].calls, 5000);
	/* Hot: leaf, gone (on BASE), api (it no longer calls gone), not old;
	 * dead: old only. */
	assert_int_equal(d->counts[CGM_FIND_TOUCHES_HOT], 3);
	find(d, CGM_FIND_TOUCHES_HOT, "app.leaf()");
	find(d, CGM_FIND_TOUCHES_HOT, "app.gone()");
	find(d, CGM_FIND_TOUCHES_HOT, "app.api()");
	assert_int_equal(d->counts[CGM_FIND_DEAD_CHANGED], 1);
	const cgm_finding *old = find(d, CGM_FIND_DEAD_CHANGED, "app.old()");
	assert_non_null(strstr(old->detail, "high confidence"));
	/* Every entry point once, by traffic: api (its larger side), rare, old. */
	assert_int_equal(d->naffected, 3);
	assert_string_equal(d->affected[0].id, "app.api()");
	assert_int_equal(d->affected[0].calls, 5000);
	assert_int_equal(d->affected[0].nfunctions, 3); /* leaf, gone, api itself */
	assert_string_equal(d->affected[1].id, "app.rare()");
	assert_string_equal(d->affected[2].id, "app.old()");
	cgm_diff_free(d);
	/* A higher threshold: nothing is hot. */
	opts.hot_threshold = 10000;
	assert_int_equal(cgm_diff_compute_opts(&d, base, head, "base", "head", &opts), 0);
	assert_int_equal(d->counts[CGM_FIND_TOUCHES_HOT], 0);
	/* The Markdown names the entry points, busiest first. */
	char *md = written(d, CGM_DIFF_MARKDOWN);
	const char *section = strstr(md, "#### Affected entry points (3)");
	assert_non_null(section);
	const char *api = strstr(section, "`app.api()` | 5000 | 3 |");
	const char *rare = strstr(section, "`app.rare()` | 3 | 1 |");
	assert_non_null(api);
	assert_non_null(rare);
	assert_true(api < rare);
	assert_non_null(strstr(md, "Reached from 2 entry points (4003 calls): `app.api()` 4000, `app.rare()` 3.\n"));
	assert_non_null(strstr(md, "| body-changed |  | body changed |\n"));
	free(md);
	cgm_diff_free(d);
	/* Without runtime data: no traffic, never hot, the entry points still. */
	base->has_runtime = head->has_runtime = false;
	opts.hot_threshold = 1;
	assert_int_equal(cgm_diff_compute_opts(&d, base, head, "base", "head", &opts), 0);
	assert_int_equal(d->counts[CGM_FIND_TOUCHES_HOT], 0);
	assert_int_equal(find(d, CGM_FIND_BODY_CHANGED, "app.leaf()")->nentries, 2);
	cgm_diff_free(d);
	cgm_model_free(base);
	cgm_model_free(head);
}

/* A change reached by a few of many entry points (their order then made
 * by sorting those few) and by most of them (picked from the side's list
 * of all, in order): both give most calls first, then ids in byte order,
 * a builtin among them (which the model's index puts after its user
 * functions, whatever its id). */
static void test_entry_order_few_and_many(void **state)
{
	(void)state;
	for (int many = 0; many < 2; many++) {
		cgm_model *m[2];
		for (int s = 0; s < 2; s++) {
			m[s] = cgm_model_new();
			fn(m[s], "leaf", s ? "2" : "1");
			fn(m[s], "zeta", "1");
			fn(m[s], "alpha", "1");
			fn(m[s], "mu", "1");
			cgm_function *b = cgm_model_add_function(m[s]);
			/* A builtin whose id comes before every user function's. */
			b->schema = "a";
			b->name = "abs";
			b->id = "a.abs(integer)";
			b->builtin = true;
			b->scc = -1;
			char name[16];
			for (int i = 0; i < 80; i++) {
				snprintf(name, sizeof name, "x%02d", i);
				fn(m[s], cgm_arena_strdup(m[s]->arena, name), "1");
			}
			cgm_model_index(m[s]);
			m[s]->has_runtime = true;
			m[s]->functions[cgm_model_find(m[s], "app.zeta()")].runtime.calls = 7;
			m[s]->functions[cgm_model_find(m[s], "app.alpha()")].runtime.calls = 7;
			m[s]->functions[cgm_model_find(m[s], "app.mu()")].runtime.calls = 9;
			call(m[s], "app.zeta()", "app.leaf()");
			call(m[s], "app.alpha()", "app.leaf()");
			call(m[s], "app.mu()", "app.leaf()");
			call(m[s], "a.abs(integer)", "app.leaf()");
			for (int i = 0; many && i < 80; i++) {
				snprintf(name, sizeof name, "app.x%02d()", i);
				call(m[s], name, "app.leaf()");
			}
		}
		cgm_diff *d;
		assert_int_equal(cgm_diff_compute(&d, m[0], m[1], "base", "head"), 0);
		const cgm_finding *leaf = find(d, CGM_FIND_BODY_CHANGED, "app.leaf()");
		assert_int_equal(leaf->nentries, many ? 84 : 4);
		assert_string_equal(leaf->entries[0].id, "app.mu()");
		assert_string_equal(leaf->entries[1].id, "app.alpha()");
		assert_string_equal(leaf->entries[2].id, "app.zeta()");
		assert_string_equal(leaf->entries[3].id, "a.abs(integer)");
		if (many) {
			assert_string_equal(leaf->entries[4].id, "app.x00()");
			assert_string_equal(leaf->entries[83].id, "app.x79()");
		}
		for (int k = 4; k < leaf->nentries; k++)
			assert_true(strcmp(leaf->entries[k - 1].id, leaf->entries[k].id) < 0);
		assert_int_equal(d->naffected, leaf->nentries);
		cgm_diff_free(d);
		cgm_model_free(m[0]);
		cgm_model_free(m[1]);
	}
}

/* More changed functions than are walked at once (512): each still gets
 * exactly its own entry points. */
static void test_many_changed_functions(void **state)
{
	(void)state;
	enum { N = 1100 };
	cgm_model *m[2];
	char name[16], from[24], to[24];
	for (int s = 0; s < 2; s++) {
		m[s] = cgm_model_new();
		fn(m[s], "root", "1");
		for (int i = 0; i < N; i++) {
			snprintf(name, sizeof name, "leaf%04d", i);
			fn(m[s], cgm_arena_strdup(m[s]->arena, name), s ? "2" : "1");
			snprintf(name, sizeof name, "e%04d", i);
			fn(m[s], cgm_arena_strdup(m[s]->arena, name), "1");
		}
		cgm_model_index(m[s]);
		for (int i = 0; i < N; i++) {
			snprintf(from, sizeof from, "app.e%04d()", i);
			snprintf(to, sizeof to, "app.leaf%04d()", i);
			call(m[s], from, to);
			/* root reaches the even leaves through the next entry's leaf */
			if (i % 2 == 0)
				call(m[s], "app.root()", to);
		}
	}
	cgm_diff *d;
	assert_int_equal(cgm_diff_compute(&d, m[0], m[1], "base", "head"), 0);
	assert_int_equal(d->nfindings, N);
	for (int i = 0; i < N; i++) {
		snprintf(to, sizeof to, "app.leaf%04d()", i);
		snprintf(from, sizeof from, "app.e%04d()", i);
		const cgm_finding *f = find(d, CGM_FIND_BODY_CHANGED, to);
		assert_int_equal(f->nentries, i % 2 == 0 ? 2 : 1);
		assert_string_equal(f->entries[0].id, from);
		if (i % 2 == 0)
			assert_string_equal(f->entries[1].id, "app.root()");
	}
	assert_int_equal(d->naffected, N + 1);
	assert_string_equal(d->affected[0].id, "app.root()");
	assert_int_equal(d->affected[0].nfunctions, N / 2);
	cgm_diff_free(d);
	cgm_model_free(m[0]);
	cgm_model_free(m[1]);
}

/* Many entry points: the comment names ten, then "+N more". */
static void test_affected_cap(void **state)
{
	(void)state;
	cgm_model *m[2];
	for (int s = 0; s < 2; s++) {
		m[s] = cgm_model_new();
		fn(m[s], "target", s ? "2" : "1");
		fn(m[s], "target2", s ? "2" : "1");
		char name[16];
		for (int i = 0; i < 14; i++) {
			snprintf(name, sizeof name, "e%02d", i);
			fn(m[s], cgm_arena_strdup(m[s]->arena, name), "1");
		}
		cgm_model_index(m[s]);
		for (int i = 0; i < 14; i++) {
			snprintf(name, sizeof name, "app.e%02d()", i);
			call(m[s], name, "app.target()");
		}
		/* The last entry point reaches both changed functions. */
		call(m[s], "app.e13()", "app.target2()");
	}
	cgm_diff *d;
	assert_int_equal(cgm_diff_compute(&d, m[0], m[1], "base", "head"), 0);
	assert_int_equal(d->naffected, 14);
	/* Without traffic, the widest reach first, then by id. */
	assert_string_equal(d->affected[0].id, "app.e13()");
	assert_int_equal(d->affected[0].nfunctions, 2);
	assert_string_equal(d->affected[1].id, "app.e00()");
	char *md = written(d, CGM_DIFF_MARKDOWN);
	assert_non_null(strstr(md, "| `app.e13()` | 2 |\n| `app.e00()` | 1 |"));
	assert_non_null(strstr(md, "`app.e08()` | 1 |"));
	assert_null(strstr(md, "`app.e09()` | 1 |"));
	assert_non_null(strstr(md, "\n+4 more\n"));
	assert_non_null(strstr(md, "`app.e04()`, +9 more.\n"));
	free(md);
	char *text = written(d, CGM_DIFF_TEXT);
	assert_non_null(strstr(text, "affected entry points (14): app.e13(), app.e00(), "));
	assert_non_null(strstr(text, ", +4 more\n"));
	free(text);
	cgm_diff_free(d);
	cgm_model_free(m[0]);
	cgm_model_free(m[1]);
}

/* A comment past the forge's size limit: rows are dropped whole and
 * counted, the total stays under the bound. */
static void test_comment_cap(void **state)
{
	(void)state;
	cgm_diff *d = calloc(1, sizeof(*d));
	d->arena = cgm_arena_new();
	d->base_name = "base";
	d->head_name = "head";
	d->nfindings = 500;
	d->findings = cgm_arena_alloc(d->arena, 500 * sizeof(cgm_finding));
	for (int i = 0; i < 500; i++) {
		d->findings[i] = (cgm_finding){ .code = i < 250 ? CGM_FIND_BODY_CHANGED : CGM_FIND_ADDED_EDGE,
						.function = cgm_arena_printf(d->arena, "app.f%03d()", i),
						.detail = "body changed" };
		d->counts[d->findings[i].code]++;
	}
	d->comment_max = 4000;
	char *md = written(d, CGM_DIFF_MARKDOWN);
	assert_true(strlen(md) <= 4000);
	assert_non_null(strstr(md, "`app.f000()`"));
	assert_null(strstr(md, "`app.f499()`"));
	const char *more = strstr(md, " not shown: the comment is kept under 4000 bytes");
	assert_non_null(more);
	/* Every function shown or counted, whole: shown blocks + N = 500, as
	 * many functions as findings (one each). */
	int rows = 0;
	for (const char *p = md; (p = strstr(p, "<summary>`app.f")); p++)
		rows++;
	assert_non_null(strstr(md, cgm_arena_printf(d->arena, "\n+%d more findings in %d functions not shown", 500 - rows, 500 - rows)));
	assert_true(rows > 0 && rows < 500);
	/* Every <details> opened is closed. */
	int open = 0, closed = 0;
	for (const char *p = md; (p = strstr(p, "<details")); p++)
		open++;
	for (const char *p = md; (p = strstr(p, "</details>")); p++)
		closed++;
	assert_int_equal(open, closed);
	free(md);
	/* The default bound holds too (500 blocks pass it). */
	d->comment_max = 0;
	md = written(d, CGM_DIFF_MARKDOWN);
	assert_true(strlen(md) <= CGM_DIFF_COMMENT_MAX);
	assert_non_null(strstr(md, "not shown"));
	free(md);
	/* Under a bound large enough it all fits. */
	d->comment_max = 1000000;
	md = written(d, CGM_DIFF_MARKDOWN);
	assert_null(strstr(md, "not shown"));
	assert_non_null(strstr(md, "`app.f499()`"));
	free(md);
	cgm_arena_free(d->arena);
	free(d);
}

/* A body-changed excerpt: one hunk with two lines of context, folded. */
static void test_body_excerpt(void **state)
{
	(void)state;
	cgm_arena *a = cgm_arena_new();
	assert_null(cgm_body_excerpt(a, "a\nb\n", "a\nb\n", 10));
	assert_null(cgm_body_excerpt(a, NULL, "a\n", 10));
	assert_string_equal(cgm_body_excerpt(a, "1\n2\n3\n4\nold\n6\n7\n8\n", "1\n2\n3\n4\nnew\n6\n7\n8\n", 10),
			    "@@ -3,5 +3,5 @@\n 3\n 4\n-old\n+new\n 6\n 7\n");
	/* Lines added at the end, no newline after the last. */
	assert_string_equal(cgm_body_excerpt(a, "a\nb", "a\nb\nc", 10), "@@ -1,2 +1,3 @@\n a\n b\n+c\n");
	/* A long change is cut after max_lines. */
	cgm_strbuf big = CGM_STRBUF_INIT;
	for (int i = 0; i < 100; i++)
		cgm_strbuf_printf(&big, "line %d\n", i);
	const char *ex = cgm_body_excerpt(a, "x\n", cgm_strbuf_cstr(&big), 5);
	assert_non_null(strstr(ex, "\n+line 3\n... 96 more lines\n"));
	assert_null(strstr(ex, "line 4\n"));
	cgm_strbuf_free(&big);
	/* Changes in two places: the lines kept between them show as kept, not
	 * as removed and added again; far apart, two hunks. */
	assert_string_equal(cgm_body_excerpt(a, "a\nold1\nb\nc\nd\n", "a\nnew1\nb\nc\nnew2\nd\n", 20),
			    "@@ -1,5 +1,6 @@\n a\n-old1\n+new1\n b\n c\n+new2\n d\n");
	assert_string_equal(cgm_body_excerpt(a, "x\n1\n2\n3\n4\n5\n6\n7\ny\n", "X\n1\n2\n3\n4\n5\n6\n7\nY\n", 20),
			    "@@ -1,3 +1,3 @@\n-x\n+X\n 1\n 2\n@@ -7,3 +7,3 @@\n 6\n 7\n-y\n+Y\n");
	/* The cut counts the lines of every hunk left. */
	assert_string_equal(cgm_body_excerpt(a, "x\n1\n2\n3\n4\n5\n6\n7\ny\n", "X\n1\n2\n3\n4\n5\n6\n7\nY\n", 3),
			    "@@ -1,3 +1,3 @@\n-x\n+X\n 1\n... 5 more lines\n");
	cgm_arena_free(a);
}

/* A removed function still called from many places is one row naming its
 * callers, not a row per caller. */
static void test_removed_called_grouped(void **state)
{
	(void)state;
	cgm_diff *d = calloc(1, sizeof(*d));
	d->arena = cgm_arena_new();
	d->base_name = "base";
	d->head_name = "head";
	d->nfindings = 25;
	d->findings = cgm_arena_alloc(d->arena, 25 * sizeof(cgm_finding));
	for (int i = 0; i < 25; i++) {
		const char *gone = i < 24 ? "app.gone()" : "app.other()";
		d->findings[i] = (cgm_finding){ .code = CGM_FIND_REMOVED_CALLED,
						.function = cgm_arena_printf(d->arena, "app.c%02d()", i),
						.other = gone, .line = i + 1,
						.detail = cgm_arena_printf(d->arena, "calls %s, which was removed", gone) };
		d->counts[CGM_FIND_REMOVED_CALLED]++;
	}
	char *md = written(d, CGM_DIFF_MARKDOWN);
	assert_non_null(strstr(md, "<summary>`app.gone()`: removed-called-function (24)</summary>"));
	assert_non_null(strstr(md, "| removed-called-function |  | still called by 24: `app.c00()` line 1<br>`app.c01()` line 2<br>"));
	assert_non_null(strstr(md, "`app.c19()` line 20<br>+4 more |\n"));
	assert_null(strstr(md, "`app.c20()`"));
	assert_non_null(strstr(md, "<summary>`app.other()`: removed-called-function</summary>"));
	assert_non_null(strstr(md, "| removed-called-function |  | still called by 1: `app.c24()` line 25 |\n"));
	/* The function with the most callers left comes first (by id here). */
	assert_true(strstr(md, "`app.gone()`") < strstr(md, "`app.other()`"));
	assert_null(strstr(md, "not shown"));
	free(md);
	cgm_arena_free(d->arena);
	free(d);
}

/* Every finding of a function in one block, the blocks by their most
 * important finding: app.b()'s missing callee before app.a()'s body. */
static void test_grouped_per_function(void **state)
{
	(void)state;
	cgm_diff *d = calloc(1, sizeof(*d));
	d->arena = cgm_arena_new();
	d->base_name = "base";
	d->head_name = "head";
	d->nfindings = 4;
	d->findings = cgm_arena_alloc(d->arena, 4 * sizeof(cgm_finding));
	static const cgm_diff_entry entry = { .id = "app.main()" };
	d->findings[0] = (cgm_finding){ .code = CGM_FIND_MISSING_CALLEE, .function = "app.b()", .line = 4,
					.detail = "calls app.x with 0 arguments: no such function" };
	d->findings[1] = (cgm_finding){ .code = CGM_FIND_BODY_CHANGED, .function = "app.a()",
					.detail = "body changed", .excerpt = "@@ -1 +1 @@\n-x\n+y\n",
					.file = "s.sql", .file_line = 10, .nentries = 1, .entries = &entry };
	d->findings[2] = (cgm_finding){ .code = CGM_FIND_BODY_CHANGED, .function = "app.b()",
					.detail = "body changed" };
	d->findings[3] = (cgm_finding){ .code = CGM_FIND_ADDED_EDGE, .function = "app.a()", .other = "app.c()",
					.line = 2, .detail = "now calls app.c() at line 2", .file = "s.sql",
					.file_line = 10, .nentries = 1, .entries = &entry };
	d->counts[CGM_FIND_MISSING_CALLEE] = 1;
	d->counts[CGM_FIND_BODY_CHANGED] = 2;
	d->counts[CGM_FIND_ADDED_EDGE] = 1;
	bool failing[CGM_FIND_COUNT] = { [CGM_FIND_MISSING_CALLEE] = true };

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(cgm_diff_write(f, d, CGM_DIFF_MARKDOWN, failing), 0);
	fclose(f);
	assert_non_null(strstr(buf, "4 findings in 2 functions.\n"));
	const char *b = strstr(buf, "<details open><summary>`app.b()`: missing-callee, body-changed</summary>\n\n"
				   "| finding | line | detail |\n|---|---:|---|\n"
				   "| missing-callee **fails** | 4 | calls app.x with 0 arguments: no such function |\n"
				   "| body-changed |  | body changed |\n\n</details>\n");
	const char *a = strstr(buf, "<details><summary>`app.a()`: body-changed, added-edge</summary>\n\n"
				   "Defined at `s.sql:10`. Reached from 1 entry point: `app.main()`.\n\n"
				   "| finding | line | detail |\n|---|---:|---|\n"
				   "| body-changed |  | body changed |\n"
				   "| added-edge | 2 | now calls `app.c()` at line 2 |\n\n"
				   "```diff\n@@ -1 +1 @@\n-x\n+y\n```\n\n</details>\n");
	assert_non_null(b);
	assert_non_null(a);
	assert_true(b < a);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(cgm_diff_write(f, d, CGM_DIFF_TEXT, failing), 0);
	fclose(f);
	assert_non_null(strstr(buf, "4 findings in 2 functions: 1 missing-callee, 2 body-changed, 1 added-edge\n"));
	b = strstr(buf, "\napp.b()\n"
			"    FAIL missing-callee  line 4     calls app.x with 0 arguments: no such function\n"
			"         body-changed               body changed\n");
	a = strstr(buf, "\napp.a()  defined at s.sql:10\n"
			"         body-changed               body changed\n"
			"               @@ -1 +1 @@\n"
			"               -x\n"
			"               +y\n"
			"         added-edge      line 2     now calls app.c() at line 2\n"
			"    reached from 1 entry point of HEAD: app.main()\n");
	assert_non_null(b);
	assert_non_null(a);
	assert_true(b < a);
	free(buf);
	cgm_arena_free(d->arena);
	free(d);
}

/* An EXECUTE laid out over lines is quoted as one line of code. */
static void test_markdown_sql_folded(void **state)
{
	(void)state;
	cgm_diff *d = calloc(1, sizeof(*d));
	d->arena = cgm_arena_new();
	d->base_name = "base";
	d->head_name = "head";
	d->nfindings = 1;
	d->findings = cgm_arena_alloc(d->arena, sizeof(cgm_finding));
	const char *sql = "EXECUTE format('SELECT %I'\n        , tab) || ' x'";
	d->findings[0] = (cgm_finding){ .code = CGM_FIND_NEW_DYNAMIC, .function = "app.f()", .line = 3,
					.detail = sql, .sql = sql };
	d->counts[CGM_FIND_NEW_DYNAMIC] = 1;
	char *md = written(d, CGM_DIFF_MARKDOWN);
	assert_non_null(strstr(md, "| new-dynamic-site | 3 | `EXECUTE format('SELECT %I' , tab) \\|\\| ' x'` |\n"));
	free(md);
	cgm_arena_free(d->arena);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_blast_radius),
		cmocka_unit_test(test_affected_cap),
		cmocka_unit_test(test_entry_order_few_and_many),
		cmocka_unit_test(test_many_changed_functions),
		cmocka_unit_test(test_comment_cap),
		cmocka_unit_test(test_body_excerpt),
		cmocka_unit_test(test_removed_called_grouped),
		cmocka_unit_test(test_grouped_per_function),
		cmocka_unit_test(test_markdown_sql_folded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
