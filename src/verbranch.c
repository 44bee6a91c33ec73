/*
 * verbranch.c - PL/pgSQL branches for another server version (see
 * verbranch.h).
 *
 * In: one function's body and sites.  Out: its sites compacted in place.
 * The body is parsed again here (libpg_query's PL/pgSQL JSON), only when
 * it names server_version_num at all: a few bodies in a thousand.  The
 * parse, its tree and every string are freed before returning.
 */
#include "verbranch.h"

#include <limits.h>
#include <pg_query.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/arena.h"
#include "cgmap/strbuf.h"
#include "doeval.h"
#include "dovars.h"
#include "jsondom.h"
#include "plpgsql_params.h"
#include "sqllex.h"

/* A line the PL/pgSQL tree gives a statement (or a declaration) its
 * first line at, and its place in the walk: a branch's own statements
 * are one run of places. */
typedef struct anchor {
	int line;
	int place;
} anchor;

/* A variable that holds the version where an IF reads it: assigned once,
 * by its declaration's default (`in_list` NULL) or by a statement of
 * `in_list` at `index`. */
typedef struct version_var {
	const char *name;
	const char *low, *high; /* its value at the lowest and highest release */
	const jd_node *in_list;
	size_t index;
} version_var;

typedef struct frame {
	const jd_node *list;
	size_t index;
} frame;

/* MAX_DECISIONS bounds the conditions evaluated in one body (each a parse
 * or two): a generated body of a hundred thousand IFs stays undecided
 * past them rather than take minutes. */
enum { MAX_VARS = 32, MAX_DEPTH = 256, MAX_DEAD = CGM_VERBRANCH_MAX, MAX_DECISIONS = 4096 };

typedef struct walk {
	cgm_arena *a;
	const char *body;
	int nlines;
	size_t *line_starts; /* nlines offsets into body */
	const cgm_server_versions *versions; /* lowest and highest release, version functions */
	anchor *anchors;
	int nanchors, cap_anchors;
	int place; /* the next statement's place */
	version_var vars[MAX_VARS];
	int nvars;
	frame stack[MAX_DEPTH];
	int depth;
	/* dead line ranges found */
	int first[MAX_DEAD], last[MAX_DEAD];
	int ndead;
	int decisions;
} walk;

/* ---- lines and keywords ------------------------------------------------ */

/* Line n (1-based) of the body: its start and length. */
static bool body_line(const walk *w, int n, const char **start, size_t *len)
{
	if (n < 1 || n > w->nlines)
		return false;
	const char *p = w->body + w->line_starts[n - 1];
	const char *end = strchr(p, '\n');
	*start = p;
	*len = end ? (size_t)(end - p) : strlen(p);
	return true;
}

/* Whether `keyword` starts line n or ends the line of code before it (a
 * `--` comment after it, blank lines and comment lines between aside):
 * then no code before the branch shares line n. */
static bool keyword_before(const walk *w, int n, const char *keyword)
{
	size_t klen = strlen(keyword);
	const char *s;
	size_t len;
	if (body_line(w, n, &s, &len)) {
		size_t i = 0;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (len - i >= klen && strncasecmp(s + i, keyword, klen) == 0 &&
		    (i + klen == len || !cgm_sql_ident_char((unsigned char)s[i + klen])))
			return true;
	}
	/* the line before, past blank lines and lines of a comment alone */
	for (n--;; n--) {
		if (n < 1 || !body_line(w, n, &s, &len))
			return false;
		size_t i = 0;
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i < len && !(len - i >= 2 && s[i] == '-' && s[i + 1] == '-'))
			break;
	}
	/* The code of the line ends at a comment; one ending inside quoted
	 * text (a literal over several lines) has no keyword at its end. */
	for (size_t i = 0; i < len;) {
		if (cgm_sql_skip_comment(s, i) > i) {
			len = i;
			break;
		}
		size_t past = cgm_sql_skip_opaque(s, i);
		if (past > len)
			return false;
		i = past > i ? past : i + 1;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	return len >= klen && strncasecmp(s + len - klen, keyword, klen) == 0 &&
	       (len == klen || !cgm_sql_ident_char((unsigned char)s[len - klen - 1]));
}

/* ---- the anchors: every statement's first line ------------------------- */

static void add_anchor(walk *w, int line)
{
	if (line <= 0)
		return;
	if (w->nanchors == w->cap_anchors) {
		w->cap_anchors = w->cap_anchors ? w->cap_anchors * 2 : 64;
		anchor *grown = cgm_arena_alloc(w->a, sizeof(anchor) * (size_t)w->cap_anchors);
		if (w->nanchors)
			memcpy(grown, w->anchors, sizeof(anchor) * (size_t)w->nanchors);
		w->anchors = grown;
	}
	w->anchors[w->nanchors++] = (anchor){ line, w->place };
}

static bool is_statement_key(const char *key)
{
	return strncmp(key, "PLpgSQL_stmt_", 13) == 0 || strcmp(key, "PLpgSQL_if_elsif") == 0 ||
	       strcmp(key, "PLpgSQL_case_when") == 0 || strcmp(key, "PLpgSQL_exception") == 0;
}

/* Every statement's line, numbered in the order walk_statements meets
 * them (the JSON's order: a statement, then what it holds). */
static void collect_anchors(walk *w, const jd_node *node, int depth)
{
	if (!node || depth > MAX_DEPTH)
		return;
	if (jd_is_array(node)) {
		for (int i = 0; i < node->n; i++)
			collect_anchors(w, node->items[i], depth + 1);
		return;
	}
	if (!jd_is_object(node))
		return;
	for (int i = 0; i < node->n; i++) {
		const jd_node *v = node->items[i];
		if (is_statement_key(node->keys[i])) {
			add_anchor(w, (int)jd_integer(jd_get(v, "lineno")));
			w->place++;
		}
		collect_anchors(w, v, depth + 1);
	}
}

/* ---- variables holding the version ------------------------------------- */

/* How often each datum is assigned in the action tree: its number under
 * "varno" (an assignment, a row target's field, FOREACH) or "target" (GET
 * DIAGNOSTICS), and by name for a FOR loop's own variable. */
static void count_assignments(const jd_node *node, int *counts, int ndatums, const jd_node *datums,
			      int depth)
{
	if (!node || depth > MAX_DEPTH)
		return;
	if (jd_is_array(node)) {
		for (int i = 0; i < node->n; i++)
			count_assignments(node->items[i], counts, ndatums, datums, depth + 1);
		return;
	}
	if (!jd_is_object(node))
		return;
	for (int i = 0; i < node->n; i++) {
		const char *key = node->keys[i];
		const jd_node *v = node->items[i];
		if ((strcmp(key, "varno") == 0 || strcmp(key, "target") == 0) && v->type == JD_INTEGER) {
			if (v->integer >= 0 && v->integer < ndatums)
				counts[v->integer]++;
		} else if (strcmp(key, "PLpgSQL_var") == 0) {
			/* a FOR loop's variable, written out whole */
			const char *name = jd_string(jd_get(v, "refname"));
			for (int d = 0; name && d < ndatums; d++) {
				const char *dn = jd_string(jd_get(jd_get(jd_at(datums, (size_t)d), "PLpgSQL_var"),
								  "refname"));
				if (dn && strcasecmp(dn, name) == 0)
					counts[d]++;
			}
		}
		count_assignments(v, counts, ndatums, datums, depth + 1);
	}
}

/* The value expression of `name := expr` (or `name = expr`), as PL/pgSQL
 * keeps an assignment's text; NULL for an element or field assigned. */
static const char *assigned_value(cgm_arena *a, const char *text)
{
	const char *p = text;
	while (*p && cgm_sql_ident_char((unsigned char)*p))
		p++;
	if (p == text)
		return NULL;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (p[0] == ':' && p[1] == '=')
		return cgm_arena_strdup(a, p + 2);
	if (p[0] == '=')
		return cgm_arena_strdup(a, p + 1);
	return NULL;
}

static const char *datum_name(const jd_node *datums, long long dno)
{
	if (dno < 0 || (size_t)dno >= jd_size(datums))
		return NULL;
	return jd_string(jd_get(jd_get(jd_at(datums, (size_t)dno), "PLpgSQL_var"), "refname"));
}

/* ---- calls of functions returning the version --------------------------- */

static size_t identifier_at(const char *s)
{
	size_t n = 0;
	if ((s[0] >= '0' && s[0] <= '9') || !cgm_sql_ident_char((unsigned char)s[0]))
		return 0;
	while (cgm_sql_ident_char((unsigned char)s[n]))
		n++;
	return n;
}

/* The version function `schema.name` (schema NULL: written bare) names,
 * or -1. */
static int version_function(const cgm_server_versions *v, const char *schema, size_t slen,
			    const char *name, size_t nlen)
{
	for (int i = 0; i < v->nfunctions; i++) {
		if (strlen(v->names[i]) != nlen || strncasecmp(v->names[i], name, nlen) != 0)
			continue;
		if (schema ? strlen(v->schemas[i]) == slen && strncasecmp(v->schemas[i], schema, slen) == 0
			   : v->bare[i])
			return i;
	}
	return -1;
}

/* `text` with each call of a version function, `f()` or `s.f()`, made
 * the expression its body returns; `text` itself when it holds none. */
static const char *with_version_calls(walk *w, const char *text)
{
	const cgm_server_versions *v = w->versions;
	if (!text || !v || v->nfunctions == 0)
		return text;
	cgm_strbuf out = CGM_STRBUF_INIT;
	bool any = false;
	const char *p = text;
	while (*p) {
		/* a literal, quoted name or comment, copied */
		size_t at = (size_t)(p - text), past = cgm_sql_skip_opaque(text, at);
		if (past > at) {
			cgm_strbuf_add(&out, p, past - at);
			p = text + past;
			continue;
		}
		size_t n = p > text && (cgm_sql_ident_char((unsigned char)p[-1]) || p[-1] == '.') ? 0 : identifier_at(p);
		if (n == 0) {
			cgm_strbuf_add(&out, p, 1);
			p++;
			continue;
		}
		const char *schema = NULL, *name = p;
		size_t slen = 0, nlen = n;
		const char *q = p + n;
		size_t m = q[0] == '.' ? identifier_at(q + 1) : 0;
		if (m > 0) {
			schema = p, slen = n;
			name = q + 1, nlen = m;
			q = name + m;
		}
		const char *r = q;
		while (*r == ' ' || *r == '\t' || *r == '\n')
			r++;
		int f = -1;
		if (*r == '(') {
			r++;
			while (*r == ' ' || *r == '\t' || *r == '\n')
				r++;
			if (*r == ')')
				f = version_function(v, schema, slen, name, nlen);
		}
		if (f < 0) {
			cgm_strbuf_add(&out, p, (size_t)(q - p));
			p = q;
			continue;
		}
		cgm_strbuf_puts(&out, "(");
		cgm_strbuf_puts(&out, v->exprs[f]);
		cgm_strbuf_puts(&out, ")");
		p = r + 1;
		any = true;
	}
	const char *result = any ? cgm_arena_strdup(w->a, cgm_strbuf_cstr(&out)) : text;
	cgm_strbuf_free(&out);
	return result;
}

/* The value `expr` has at `version`, when it reads the version (in the
 * walk's arena), or NULL. */
static const char *value_at(walk *w, const char *expr, long long version)
{
	char *text = NULL;
	const char *value = NULL;
	if (cgm_do_eval_version_value(expr, version, &text) > 0)
		value = cgm_arena_strdup(w->a, text);
	free(text);
	return value;
}

static void add_var(walk *w, const char *name, const char *expr, const jd_node *list, size_t index)
{
	expr = with_version_calls(w, expr);
	if (w->nvars == MAX_VARS || !name || !expr)
		return;
	const char *low = value_at(w, expr, w->versions->lowest);
	const char *high = w->versions->highest == w->versions->lowest || !low ? low : value_at(w, expr, w->versions->highest);
	if (low && high)
		w->vars[w->nvars++] = (version_var){ name, low, high, list, index };
}

/* The statements that assign a variable assigned once: `v := expr` and
 * `SELECT expr INTO v` (no FROM: doeval reads `(SELECT expr)`). */
static void find_assignments(walk *w, const jd_node *list, const jd_node *datums, const int *counts,
			     int depth)
{
	if (!jd_is_array(list) || depth > MAX_DEPTH)
		return;
	for (size_t i = 0; i < jd_size(list); i++) {
		const jd_node *item = jd_at(list, i);
		if (!jd_is_object(item) || item->n != 1)
			continue;
		const char *key = item->keys[0];
		const jd_node *st = item->items[0];
		if (strcmp(key, "PLpgSQL_stmt_assign") == 0) {
			long long dno = jd_integer(jd_get(st, "varno"));
			const char *query = jd_string(jd_get(jd_get(jd_get(st, "expr"), "PLpgSQL_expr"), "query"));
			if (dno >= 0 && dno < (long long)jd_size(datums) && counts[dno] == 1 && query)
				add_var(w, datum_name(datums, dno), assigned_value(w->a, query), list, i);
		} else if (strcmp(key, "PLpgSQL_stmt_execsql") == 0 && jd_is_true(jd_get(st, "into"))) {
			const jd_node *fields = jd_get(jd_get(jd_get(st, "target"), "PLpgSQL_row"), "fields");
			const char *query =
				jd_string(jd_get(jd_get(jd_get(st, "sqlstmt"), "PLpgSQL_expr"), "query"));
			long long dno = jd_size(fields) == 1 ? jd_integer(jd_get(jd_at(fields, 0), "varno")) : -1;
			if (dno >= 0 && dno < (long long)jd_size(datums) && counts[dno] == 1 && query)
				add_var(w, datum_name(datums, dno), cgm_arena_printf(w->a, "(%s)", query), list, i);
		}
		/* the lists a statement holds (an elsif and a WHEN are items
		 * of a list, with a list of their own) */
		for (int k = 0; jd_is_object(st) && k < st->n; k++)
			if (jd_is_array(st->items[k]))
				find_assignments(w, st->items[k], datums, counts, depth + 1);
	}
}

/* Variables of unique names whose one assignment reads the version. */
static void find_version_vars(walk *w, const jd_node *function)
{
	const jd_node *datums = jd_get(function, "datums");
	int n = (int)jd_size(datums);
	if (n <= 0)
		return;
	int *counts = cgm_arena_alloc(w->a, sizeof(int) * (size_t)n);
	memset(counts, 0, sizeof(int) * (size_t)n);
	for (int d = 0; d < n; d++) {
		const jd_node *var = jd_get(jd_at(datums, (size_t)d), "PLpgSQL_var");
		const char *name = jd_string(jd_get(var, "refname"));
		/* parameters (no line) are the caller's; a name declared twice
		 * may be either */
		if (!var || !name || !jd_get(var, "lineno")) {
			counts[d] = 2;
			continue;
		}
		for (int e = 0; e < n; e++) {
			const char *other = datum_name(datums, e);
			if (e != d && other && strcasecmp(other, name) == 0)
				counts[d] = 2;
		}
		if (jd_get(var, "default_val"))
			counts[d]++;
	}
	count_assignments(jd_get(function, "action"), counts, n, datums, 0);
	for (int d = 0; d < n; d++) {
		const jd_node *var = jd_get(jd_at(datums, (size_t)d), "PLpgSQL_var");
		const char *dflt = jd_string(jd_get(jd_get(jd_get(var, "default_val"), "PLpgSQL_expr"), "query"));
		if (counts[d] == 1 && dflt)
			add_var(w, datum_name(datums, d), dflt, NULL, 0);
	}
	const jd_node *block = jd_get(jd_get(function, "action"), "PLpgSQL_stmt_block");
	find_assignments(w, jd_get(block, "body"), datums, counts, 0);
}

/* ---- conditions ---------------------------------------------------------- */

/* Whether variable v is assigned before the statement being walked on
 * every way to it: by its default, or by an earlier statement of a list
 * that holds this statement. */
static bool assigned_before(const walk *w, const version_var *v)
{
	if (!v->in_list)
		return true;
	for (int i = 0; i < w->depth; i++)
		if (w->stack[i].list == v->in_list && w->stack[i].index > v->index)
			return true;
	return false;
}

/* The condition at one version: 1, 0, -1; *read when it read the version
 * (itself, or through a variable). */
static int condition_at(walk *w, const char *cond, long long version, bool *read)
{
	cgm_do_vars *vars = cgm_do_vars_new(w->a);
	bool any = false;
	for (int i = 0; i < w->nvars; i++) {
		if (!assigned_before(w, &w->vars[i]))
			continue;
		cgm_do_vars_set(vars, w->vars[i].name, version == w->versions->lowest ? w->vars[i].low : w->vars[i].high);
		any = true;
	}
	char *substituted = any ? cgm_do_vars_substitute(vars, cond) : NULL;
	const char *expr = substituted ? substituted : cond;
	bool read_version = false;
	int r = cgm_do_eval_condition_at(expr, version, &read_version);
	*read = read_version || (substituted && strcmp(substituted, cond) != 0);
	free(substituted);
	return r;
}

/* 1 or 0 when every release in the range decides `cond` alike and it
 * reads the version; -1 otherwise. */
static int decide(walk *w, const char *cond)
{
	cond = with_version_calls(w, cond);
	if (!cond || w->decisions == MAX_DECISIONS)
		return -1;
	bool names = strcasestr(cond, "server_version_num") != NULL;
	for (int i = 0; i < w->nvars && !names; i++)
		names = strcasestr(cond, w->vars[i].name) != NULL;
	if (!names)
		return -1;
	w->decisions++;
	bool read_low, read_high;
	int low = condition_at(w, cond, w->versions->lowest, &read_low);
	if (low < 0 || !read_low)
		return -1;
	int high = w->versions->highest == w->versions->lowest ? low : condition_at(w, cond, w->versions->highest, &read_high);
	return high == low ? low : -1;
}

/* ---- branches ------------------------------------------------------------ */

static void walk_list(walk *w, const jd_node *list, int depth);

/* The lines of a branch that never runs: `list`, whose statements have
 * the places [from, to), after `keyword` (THEN or ELSE). */
static void dead_branch(walk *w, const jd_node *list, int from, int to, const char *keyword)
{
	if (jd_size(list) == 0 || w->ndead == MAX_DEAD)
		return;
	int first = INT_MAX;
	for (int i = 0; i < w->nanchors; i++)
		if (w->anchors[i].place >= from && w->anchors[i].place < to && w->anchors[i].line < first)
			first = w->anchors[i].line;
	if (first == INT_MAX || !keyword_before(w, first, keyword))
		return;
	/* up to the next statement outside: none may share the first line */
	int next = w->nlines + 1;
	for (int i = 0; i < w->nanchors; i++) {
		const anchor *an = &w->anchors[i];
		if (an->place >= from && an->place < to)
			continue;
		if (an->line == first)
			return;
		if (an->line > first && an->line < next)
			next = an->line;
	}
	w->first[w->ndead] = first;
	w->last[w->ndead++] = next - 1;
}

/* The place the walk reaches after `list`: each statement takes one, and
 * an elsif, a WHEN and an exception handler one of their own. */
static int places_in(const jd_node *node, int depth)
{
	if (!node || depth > MAX_DEPTH)
		return 0;
	int n = 0;
	if (jd_is_array(node)) {
		for (int i = 0; i < node->n; i++)
			n += places_in(node->items[i], depth + 1);
		return n;
	}
	if (!jd_is_object(node))
		return 0;
	for (int i = 0; i < node->n; i++) {
		if (is_statement_key(node->keys[i]))
			n++;
		n += places_in(node->items[i], depth + 1);
	}
	return n;
}

static const char *cond_text(const jd_node *holder)
{
	return jd_string(jd_get(jd_get(jd_get(holder, "cond"), "PLpgSQL_expr"), "query"));
}

static void walk_if(walk *w, const jd_node *st, int depth)
{
	/* The IF's own place was taken by its caller; its branches follow
	 * in order: then_body, each elsif (a place, then its statements),
	 * else_body. */
	bool taken = false; /* an earlier condition surely holds */
	int c = decide(w, cond_text(st));
	const jd_node *then_body = jd_get(st, "then_body");
	int from = w->place;
	int to = from + places_in(then_body, 0);
	if (c == 0)
		dead_branch(w, then_body, from, to, "THEN");
	else
		walk_list(w, then_body, depth + 1);
	w->place = to;
	taken = c == 1;
	const jd_node *elsifs = jd_get(st, "elsif_list");
	for (size_t i = 0; i < jd_size(elsifs); i++) {
		const jd_node *e = jd_get(jd_at(elsifs, i), "PLpgSQL_if_elsif");
		w->place++;
		const jd_node *stmts = jd_get(e, "stmts");
		from = w->place;
		to = from + places_in(stmts, 0);
		int ec = taken ? 0 : decide(w, cond_text(e));
		if (ec == 0)
			dead_branch(w, stmts, from, to, "THEN");
		else
			walk_list(w, stmts, depth + 1);
		w->place = to;
		taken = taken || ec == 1;
	}
	const jd_node *else_body = jd_get(st, "else_body");
	from = w->place;
	to = from + places_in(else_body, 0);
	if (taken)
		dead_branch(w, else_body, from, to, "ELSE");
	else
		walk_list(w, else_body, depth + 1);
	w->place = to;
}

/* The statements of `node` (any value holding statements), in the order
 * collect_anchors numbered them. */
static void walk_node(walk *w, const jd_node *node, int depth)
{
	if (!node || depth > MAX_DEPTH)
		return;
	if (jd_is_array(node)) {
		walk_list(w, node, depth);
		return;
	}
	if (!jd_is_object(node))
		return;
	for (int i = 0; i < node->n; i++) {
		const char *key = node->keys[i];
		const jd_node *v = node->items[i];
		if (is_statement_key(key)) {
			w->place++;
			if (strcmp(key, "PLpgSQL_stmt_if") == 0) {
				walk_if(w, v, depth + 1);
				continue;
			}
		}
		walk_node(w, v, depth + 1);
	}
}

static void walk_list(walk *w, const jd_node *list, int depth)
{
	if (!jd_is_array(list) || depth > MAX_DEPTH || w->depth == MAX_DEPTH) {
		w->place += places_in(list, 0);
		return;
	}
	w->stack[w->depth].list = list;
	for (size_t i = 0; i < jd_size(list); i++) {
		w->stack[w->depth].index = i;
		w->depth++;
		walk_node(w, jd_at(list, i), depth + 1);
		w->depth--;
	}
}

/* ---- the function -------------------------------------------------------- */

/* Whether the tree nests no deeper than the walks follow: a walk cut
 * short would miss a statement that ends a branch, so a deeper body is
 * not decided at all. */
static bool shallow(const jd_node *node, int depth)
{
	if (depth >= MAX_DEPTH)
		return false;
	if (node && (node->type == JD_ARRAY || node->type == JD_OBJECT))
		for (int i = 0; i < node->n; i++)
			if (!shallow(node->items[i], depth + 1))
				return false;
	return true;
}

/* The body's tree under the header extraction reads it with: the
 * arguments, else each unnamed one named $n (the body assigns `$1`), else
 * without their defaults (a header a source gave badly). */
static PgQueryPlpgsqlParseResult parse_body(cgm_arena *a, const cgm_function *fn)
{
	PgQueryPlpgsqlParseResult r = cgm_plpgsql_parse_body(fn, fn->arguments, fn->source);
	if (!r.error)
		return r;
	cgm_plparam *params;
	const char *named;
	cgm_plpgsql_params(a, fn, &params, &named);
	const char *bare = cgm_plpgsql_args_without_defaults(a, named ? named : fn->arguments);
	const char *retries[] = { named, bare };
	for (int i = 0; i < 2; i++) {
		if (!retries[i])
			continue;
		pg_query_free_plpgsql_parse_result(r);
		r = cgm_plpgsql_parse_body(fn, retries[i], fn->source);
		if (!r.error)
			break;
	}
	return r;
}

/* The offset of each line's start, in the walk's arena. */
static void index_lines(walk *w)
{
	int n = 1;
	for (const char *p = w->body; *p; p++)
		n += *p == '\n';
	w->line_starts = cgm_arena_alloc(w->a, sizeof(size_t) * (size_t)n);
	w->nlines = 0;
	w->line_starts[w->nlines++] = 0;
	for (const char *p = w->body; *p; p++)
		if (*p == '\n')
			w->line_starts[w->nlines++] = (size_t)(p + 1 - w->body);
}

/* Whether the body names the version, or a function returning it. */
static bool names_version(const char *source, const cgm_server_versions *v)
{
	if (strcasestr(source, "server_version_num"))
		return true;
	for (int i = 0; i < v->nfunctions; i++)
		if (strcasestr(source, v->names[i]))
			return true;
	return false;
}

int cgm_verbranch_dead_lines(const cgm_function *fn, const cgm_server_versions *versions, int *first,
			     int *last, int max)
{
	if (!versions || versions->lowest <= 0 || versions->highest < versions->lowest || !fn->source ||
	    !fn->language || strcmp(fn->language, "plpgsql") != 0 || !names_version(fn->source, versions))
		return 0;
	cgm_arena *a = cgm_arena_new();
	PgQueryPlpgsqlParseResult r = parse_body(a, fn);
	if (r.error || !r.plpgsql_funcs) {
		pg_query_free_plpgsql_parse_result(r);
		cgm_arena_free(a);
		return 0;
	}
	walk w = { .a = a, .body = fn->source, .versions = versions };
	index_lines(&w);
	const jd_node *funcs = jd_parse(a, r.plpgsql_funcs, strlen(r.plpgsql_funcs));
	const jd_node *function = jd_get(jd_at(funcs, 0), "PLpgSQL_function");
	if (function && shallow(function, 0)) {
		const jd_node *action = jd_get(function, "action");
		/* declarations are anchors too, of no branch: a nested
		 * block's defaults run where it starts */
		const jd_node *datums = jd_get(function, "datums");
		w.place = -1;
		for (size_t d = 0; d < jd_size(datums); d++)
			add_anchor(&w, (int)jd_integer(jd_get(jd_get(jd_at(datums, d), "PLpgSQL_var"), "lineno")));
		w.place = 0;
		collect_anchors(&w, action, 0);
		find_version_vars(&w, function);
		w.place = 0;
		walk_node(&w, action, 0);
	}
	pg_query_free_plpgsql_parse_result(r);
	int n = w.ndead < max ? w.ndead : max;
	for (int i = 0; i < n; i++) {
		first[i] = w.first[i];
		last[i] = w.last[i];
	}
	cgm_arena_free(a);
	return n;
}

int cgm_verbranch_prune(cgm_arena *arena, cgm_function *fn, const cgm_server_versions *versions)
{
	if (fn->nsites == 0)
		return 0;
	int first[MAX_DEAD], last[MAX_DEAD];
	int ndead = cgm_verbranch_dead_lines(fn, versions, first, last, MAX_DEAD);
	int kept = 0, pruned = 0;
	for (int i = 0; ndead > 0 && i < fn->nsites; i++) {
		bool dead = false;
		for (int k = 0; k < ndead && !dead; k++)
			dead = fn->sites[i].line >= first[k] && fn->sites[i].line <= last[k];
		if (dead) {
			pruned++;
			continue;
		}
		if (kept != i) {
			fn->sites[kept] = fn->sites[i];
			if (fn->site_exprs)
				fn->site_exprs[kept] = fn->site_exprs[i];
		}
		kept++;
	}
	if (pruned > 0) {
		fn->nsites = kept;
		int *lines = cgm_arena_alloc(arena, sizeof(int) * (size_t)(2 * ndead + 1));
		lines[0] = ndead;
		for (int k = 0; k < ndead; k++) {
			lines[1 + 2 * k] = first[k];
			lines[2 + 2 * k] = last[k];
		}
		fn->other_version_lines = lines;
	}
	return pruned;
}

/* The expression `SELECT expr[;]` returns, when that is all the body is. */
static const char *selected_expression(cgm_arena *a, const char *body)
{
	/* past white space and comments (E-Maj's _pg_version_num() says
	 * what it returns first) */
	for (size_t past = 1; past > 0; body += past) {
		while (*body == ' ' || *body == '\t' || *body == '\n' || *body == '\r')
			body++;
		past = cgm_sql_skip_comment(body, 0);
	}
	if (strncasecmp(body, "select", 6) != 0 || cgm_sql_ident_char((unsigned char)body[6]))
		return NULL;
	size_t len = strlen(body);
	while (len > 6 && strchr(" \t\n\r;", body[len - 1]))
		len--;
	/* one statement: no `;` left inside (a literal's would only make
	 * the expression fail to evaluate) */
	const char *expr = cgm_arena_strndup(a, body + 6, len - 6);
	return strchr(expr, ';') ? NULL : expr;
}

cgm_server_versions *cgm_verbranch_versions(cgm_model *model, long long lowest, long long highest)
{
	cgm_arena *a = model->arena;
	cgm_server_versions *v = cgm_arena_alloc(a, sizeof *v);
	memset(v, 0, sizeof *v);
	v->lowest = lowest;
	v->highest = highest;
	int cap = 0;
	for (int i = 0; i < model->nfunctions; i++) {
		const cgm_function *f = &model->functions[i];
		if (f->builtin || f->nargs != 0 || f->kind != CGM_KIND_FUNCTION || !f->language ||
		    strcmp(f->language, "sql") != 0 || !f->source || f->atomic_body ||
		    !strcasestr(f->source, "server_version_num"))
			continue;
		const char *expr = selected_expression(a, f->source);
		char *text = NULL;
		bool reads = expr && cgm_do_eval_version_value(expr, lowest, &text) > 0;
		free(text);
		if (!reads)
			continue;
		if (v->nfunctions == cap) {
			cap = cap ? cap * 2 : 4;
			const char **schemas = cgm_arena_alloc(a, sizeof(char *) * (size_t)cap);
			const char **names = cgm_arena_alloc(a, sizeof(char *) * (size_t)cap);
			const char **exprs = cgm_arena_alloc(a, sizeof(char *) * (size_t)cap);
			bool *bare = cgm_arena_alloc(a, sizeof(bool) * (size_t)cap);
			for (int k = 0; k < v->nfunctions; k++) {
				schemas[k] = v->schemas[k];
				names[k] = v->names[k];
				exprs[k] = v->exprs[k];
				bare[k] = v->bare[k];
			}
			v->schemas = schemas, v->names = names, v->exprs = exprs, v->bare = bare;
		}
		int k = v->nfunctions++;
		v->schemas[k] = f->schema;
		v->names[k] = f->name;
		v->exprs[k] = expr;
		/* Written bare, the name is this function's only when no other
		 * function of no argument has it, whatever the path. */
		int same = 0;
		for (int j = 0; j < model->nfunctions; j++)
			same += model->functions[j].nargs == 0 && model->functions[j].name &&
				strcasecmp(model->functions[j].name, f->name) == 0;
		v->bare[k] = same == 1;
	}
	return v;
}
