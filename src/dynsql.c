/*
 * dynsql.c - dynamic SQL read before it runs.
 *
 * In:  the expression of a dynamic EXECUTE site (cgm_site_get_rare(site)->text) and the
 *      model's functions and triggers.
 * Out: the template its constant parts spell (variables as a placeholder),
 *      the statement kind, whether it can call a user function, and its
 *      possible targets: functions whose schema, name pattern and argument
 *      count fit a call the template spells (`'handler_' || kind || '()'`,
 *      `format('SELECT %I.%I($1)', s, f)`), plus the triggers of a constant
 *      table it writes and the event triggers DDL fires.  Everything is malloc'd and freed by
 *      cgm_dynsql_info_free(); nothing goes into the model.
 *
 * A template of several statements can call what any of them can (the
 * first names the site's kind).  The expression is split at its top-level
 * `||`; a string literal (plain,
 * E'', dollar-quoted, with a cast) is constant text, `format('...', ...)`
 * is its template with its constant arguments put in (sqlformat.h) and its
 * run-time ones as variables for %I and %s and as a literal for %L,
 * anything else is a variable.  Variables in value positions are taken as values
 * and names: a template whose constant parts spell no call (and that is not
 * a SELECT or another statement that may read a view or run a script) calls
 * nothing but the triggers of its table.  A parenthesised list after a
 * relation's name (CREATE TABLE t (...), CREATE INDEX ON t (...), COPY t
 * (...), INSERT INTO t (...), CREATE VIEW v (...), REFERENCES t (...)) is
 * its columns, not a call.  DDL runs the functions of the event triggers
 * its command tag fires (model->event_triggers, as for a static DDL site)
 * and only what it evaluates as it runs: CREATE INDEX its expressions and
 * predicate, ALTER TABLE / DOMAIN the defaults, checks and USING it adds, a
 * partition its bounds; the defaults, checks and bodies CREATE stores run
 * later, on rows, and DROP, GRANT, COMMENT, RENAME, OWNER TO run nothing.
 * Statements of roles, databases and tablespaces (a COMMENT, SECURITY
 * LABEL or GRANT on one too, or a GRANT of a role), SET, VACUUM and
 * transaction control run no user code at all, and neither does the value
 * of one call of a function that returns void (void_call).
 */
#include "cgmap/dynsql.h"
#include "cgmap/hash.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/error.h"
#include "cgmap/relfx.h"
#include "cgmap/sqlformat.h"
#include "cgmap/strbuf.h"
#include "litnames.h"

#define VAR '\x01'

/* A literal at p ('...', E'...', $tag$...$tag$), optionally cast (::text);
 * its content appended to out; the end, or NULL when p is not one. */
static const char *read_literal(cgm_strbuf *out, const char *p)
{
	bool escapes = false;
	if ((*p == 'E' || *p == 'e') && p[1] == '\'') {
		escapes = true;
		p++;
	}
	if (*p == '\'') {
		for (p++; *p; p++) {
			if (*p == '\'') {
				if (p[1] == '\'') {
					cgm_strbuf_putc(out, '\'');
					p++;
					continue;
				}
				break;
			}
			if (escapes && *p == '\\' && p[1]) {
				p++;
				cgm_strbuf_putc(out, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
				continue;
			}
			cgm_strbuf_putc(out, *p);
		}
		if (*p != '\'')
			return NULL;
		p++;
	} else if (*p == '$') {
		const char *tag_end = p + 1;
		while (isalnum((unsigned char)*tag_end) || *tag_end == '_')
			tag_end++;
		if (*tag_end != '$')
			return NULL;
		size_t tlen = (size_t)(tag_end - p) + 1;
		const char *body = tag_end + 1;
		const char *close = body;
		while ((close = strchr(close, '$')) && strncmp(close, p, tlen) != 0)
			close++;
		if (!close)
			return NULL;
		cgm_strbuf_add(out, body, (size_t)(close - body));
		p = close + tlen;
	} else {
		return NULL;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (p[0] == ':' && p[1] == ':') {
		p += 2;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == ' ')
			p++;
	}
	return p;
}

static bool blank_to(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!isspace((unsigned char)*p))
			return false;
	return true;
}

/* Where the top-level text at p ends, literals skipped: for a part, at
 * its `||` or the NUL; for an argument of a call's list, at its comma or
 * the list's closing parenthesis, or at `end`. */
static const char *top_level_end(const char *p, const char *end, bool argument)
{
	int depth = 0;
	cgm_strbuf skip = CGM_STRBUF_INIT;
	while (end ? p < end : *p != '\0') {
		if (*p == '\'' || ((*p == 'E' || *p == 'e') && p[1] == '\'') ||
		    (*p == '$' && !isdigit((unsigned char)p[1]))) {
			const char *q = read_literal(&skip, p);
			cgm_strbuf_reset(&skip);
			if (q) {
				p = q;
				continue;
			}
		}
		if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			if (argument && depth == 0)
				break;
			depth--;
		} else if (argument ? *p == ',' && depth == 0
				    : depth <= 0 && p[0] == '|' && p[1] == '|') {
			break;
		}
		p++;
	}
	cgm_strbuf_free(&skip);
	return end && p > end ? end : p;
}

/* The template format() spells with the arguments at `args` (the text
 * after its parenthesis): a constant argument's value as format() puts it
 * (sqlformat.h), a run-time one VAR for %I and %s and a literal for %L.
 * False when the template is no literal or format() would fail. */
static bool format_template(cgm_strbuf *out, const char *args, const char *end)
{
	while (args < end && isspace((unsigned char)*args))
		args++;
	cgm_strbuf tmpl = CGM_STRBUF_INIT;
	const char *after = read_literal(&tmpl, args);
	if (!after || after > end) {
		cgm_strbuf_free(&tmpl);
		return false;
	}
	enum { MAX_ARGS = 100 }; /* format() takes at most 100 (FUNC_MAX_ARGS) */
	cgm_format_arg fargs[MAX_ARGS];
	cgm_strbuf texts[MAX_ARGS];
	int nargs = 0;
	const char *p = after;
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (p < end && *p == ',' && nargs < MAX_ARGS) {
		const char *a = p + 1;
		const char *a_end = top_level_end(a, end, true);
		while (a < a_end && isspace((unsigned char)*a))
			a++;
		const char *a_last = a_end;
		while (a_last > a && isspace((unsigned char)a_last[-1]))
			a_last--;
		cgm_strbuf *text = &texts[nargs];
		*text = (cgm_strbuf)CGM_STRBUF_INIT;
		cgm_format_arg *fa = &fargs[nargs++];
		*fa = (cgm_format_arg){ CGM_FORMAT_ARG_RUNTIME, NULL };
		const char *lit_end = read_literal(text, a);
		bool digits = a < a_last;
		for (const char *c = a; c < a_last; c++)
			digits &= isdigit((unsigned char)*c) || (c == a && *c == '-' && a_last - a > 1);
		if (lit_end && lit_end <= a_last && blank_to(lit_end, a_last)) {
			fa->kind = CGM_FORMAT_ARG_TEXT;
		} else if (a_last - a == 4 && strncasecmp(a, "null", 4) == 0) {
			fa->kind = CGM_FORMAT_ARG_NULL;
		} else if (digits) {
			cgm_strbuf_reset(text);
			cgm_strbuf_add(text, a, (size_t)(a_last - a));
			fa->kind = CGM_FORMAT_ARG_TEXT;
		}
		if (fa->kind == CGM_FORMAT_ARG_TEXT)
			fa->text = cgm_strbuf_cstr(text);
		p = a_end;
	}
	static const cgm_format_unknown unknown = { VAR, "'x'" };
	cgm_strbuf text = CGM_STRBUF_INIT;
	cgm_format_result r = cgm_sql_format(&text, cgm_strbuf_cstr(&tmpl), fargs, nargs, &unknown);
	if (r != CGM_FORMAT_FAILS && text.len)
		cgm_strbuf_add(out, text.data, text.len);
	cgm_strbuf_free(&text);
	for (int k = 0; k < nargs; k++)
		cgm_strbuf_free(&texts[k]);
	cgm_strbuf_free(&tmpl);
	return r != CGM_FORMAT_FAILS;
}

/* The template of the whole expression; false when no part is constant. */
static bool build_template(cgm_strbuf *out, const char *text)
{
	bool constant = false;
	const char *p = text;
	while (*p) {
		const char *end = top_level_end(p, NULL, false);
		const char *s = p;
		while (s < end && isspace((unsigned char)*s))
			s++;
		cgm_strbuf lit = CGM_STRBUF_INIT;
		const char *after = s < end ? read_literal(&lit, s) : NULL;
		if (after && after <= end && blank_to(after, end)) {
			cgm_strbuf_puts(out, cgm_strbuf_cstr(&lit));
			constant = true;
		} else if ((size_t)(end - s) > 7 &&
			   (strncasecmp(s, "format(", 7) == 0 ||
			    strncasecmp(s, "pg_catalog.format(", 18) == 0)) {
			const char *open = strchr(s, '(');
			if (format_template(out, open + 1, end))
				constant = true;
			else
				cgm_strbuf_putc(out, VAR);
		} else if (s < end) {
			cgm_strbuf_putc(out, VAR);
		}
		cgm_strbuf_free(&lit);
		p = *end ? end + 2 : end;
	}
	return constant;
}

static bool is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' || c == VAR || c == '"';
}

/* The upper-cased word at *p, advancing past it (empty at a VAR). */
static void next_word(char *buf, size_t len, const char **p)
{
	while (isspace((unsigned char)**p) || **p == '(')
		(*p)++;
	size_t n = 0;
	while (**p && (isalnum((unsigned char)**p) || **p == '_')) {
		if (n + 1 < len)
			buf[n++] = (char)toupper((unsigned char)**p);
		(*p)++;
	}
	buf[n] = '\0';
}

/* Statements that run no user code at all: not even an event trigger
 * fires for them. */
static const char *const no_call_statements[] = {
	"SET", "RESET", "LOCK", "NOTIFY", "LISTEN", "UNLISTEN", "DISCARD", "VACUUM",
	"ANALYZE", "SAVEPOINT", "RELEASE", "BEGIN", "START", "END", "ABORT", "COMMIT",
	"ROLLBACK", "DEALLOCATE", "CLOSE", "FETCH", "MOVE", "SHOW", "CHECKPOINT", NULL
};

/* Objects of CREATE / ALTER / DROP no event trigger fires for (shared
 * objects, event triggers themselves) and whose statements run no user code. */
static const char *const global_objects[] = {
	"ROLE", "USER", "GROUP", "DATABASE", "TABLESPACE", "EVENT TRIGGER", "SYSTEM", NULL
};

/* The objects of CREATE / ALTER / DROP, as their command tags spell them;
 * the longer first where one starts another. */
static const char *const object_names[] = {
	"MATERIALIZED VIEW", "FOREIGN DATA WRAPPER", "FOREIGN TABLE", "EVENT TRIGGER",
	"TEXT SEARCH CONFIGURATION", "TEXT SEARCH DICTIONARY", "TEXT SEARCH PARSER",
	"TEXT SEARCH TEMPLATE", "OPERATOR CLASS", "OPERATOR FAMILY", "ACCESS METHOD",
	"USER MAPPING", "DEFAULT PRIVILEGES", "LARGE OBJECT", "TABLE", "INDEX", "SEQUENCE",
	"VIEW", "TYPE", "DOMAIN", "FUNCTION", "PROCEDURE", "ROUTINE", "AGGREGATE", "SCHEMA",
	"TRIGGER", "POLICY", "RULE", "EXTENSION", "OPERATOR", "CAST", "COLLATION",
	"CONVERSION", "STATISTICS", "SERVER", "LANGUAGE", "PUBLICATION", "SUBSCRIPTION",
	"TRANSFORM", "OWNED", "ROLE", "USER", "GROUP", "DATABASE", "TABLESPACE", "SYSTEM",
	NULL
};

/* Words between CREATE and its object that do not change the command tag
 * (CREATE OR REPLACE FUNCTION, CREATE UNLOGGED TABLE, CREATE UNIQUE INDEX). */
static const char *const create_modifiers[] = {
	"OR", "REPLACE", "GLOBAL", "LOCAL", "TEMP", "TEMPORARY", "UNLOGGED", "UNIQUE",
	"RECURSIVE", "TRUSTED", "PROCEDURAL", "CONSTRAINT", "DEFAULT", NULL
};

static const char *const not_callee_words[] = {
	"IN", "VALUES", "EXISTS", "ANY", "ALL", "SOME", "AS", "OVER", "FILTER", "AND", "OR",
	"NOT", "WHERE", "SELECT", "ON", "USING", "FROM", "JOIN", "INTO", "TABLE", "RETURNING",
	"WITH", "SET", "RESET", "CHECK", "DEFAULT", "PRIMARY", "KEY", "UNIQUE", "REFERENCES",
	"CAST", "ROW", "ARRAY", "WITHIN", "GROUP", "BY", "THEN", "ELSE", "WHEN", "CASE",
	"LIMIT", "UPDATE", "DELETE", "INSERT", "CALL", "PERFORM", "EXECUTE", "INDEX", "VIEW",
	"INCLUDE", "TO", "EXCLUDE",
	/* type names with a modifier: numeric(10,2), varchar(20), time(3) */
	"NUMERIC", "DECIMAL", "DEC", "VARCHAR", "CHAR", "CHARACTER", "VARYING", "BIT",
	"TIMESTAMP", "TIME", "INTERVAL", "FLOAT", NULL
};

/* NAME( after these words names a table, type or definition, not a call:
 * INSERT INTO t (cols), CREATE TABLE [IF NOT EXISTS] t (cols), COPY t
 * (cols), CREATE VIEW v (cols), PARTITION OF t (...), REFERENCES t (cols). */
static const char *const not_call_prefixes[] = {
	"INTO", "TABLE", "INDEX", "VIEW", "REFERENCES", "TYPE", "FUNCTION", "PROCEDURE",
	"ONLY", "UPDATE", "AGGREGATE", "TRIGGER", "EXISTS", "COPY", "OF", NULL
};

static bool in_list(const char *const *list, const char *word)
{
	for (int i = 0; list[i]; i++)
		if (strcasecmp(list[i], word) == 0)
			return true;
	return false;
}

static bool arity_fits(const cgm_function *f, int nargs);

/* ---- the reader: user functions by name, and each call pattern's
 * matches computed once ---- */

/* One call pattern of a template (schema glob, name glob, argument count)
 * and every user function it fits, in model order. */
typedef struct pattern {
	char *key;        /* schema \x02 name \x02 nargs */
	int *fns, nfns;
	int marked_by;    /* cgm_dynsql_possible_targets: the function whose
	                   * sites marked these (its own index excepted), -1 */
	bool marked_all;
} pattern;

struct cgm_dynsql_reader {
	const cgm_model *model;
	int *by_name, nby_name; /* callable user functions sorted by name */
	/* Open addressing on the key's hash; each pattern allocated on its
	 * own, so that a site's lists keep pointing to it when the table
	 * grows under a later call of the same site. */
	pattern **patterns;
	int npatterns, cap_patterns;
};

/* Call shapes of one template united one by one; past these, their
 * matches go into the site's own list. */
#define SHAPES_MAX 64

/* The lists one site unites: pattern matches (shared) or lists of its own
 * (a table's triggers, event triggers). */
typedef struct site_lists {
	const int *list[SHAPES_MAX + 2]; /* shapes, then event triggers or own */
	int len[SHAPES_MAX + 2];
	pattern *from[SHAPES_MAX + 2]; /* the pattern a list is, or NULL */
	int n;
	int *own;          /* a table's trigger functions, sorted */
	int nown;
	bool overflow;     /* more call shapes than list[] holds: the rest were
	                    * merged into own */
} site_lists;

static int compare_by_name(const void *a, const void *b, void *arg)
{
	const cgm_model *m = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(m->functions[x].name, m->functions[y].name);
	return c ? c : x - y;
}

/* The first of the reader's functions (sorted by name) whose name's
 * first n bytes are not below name's, by bisection. */
static int first_by_name(const cgm_dynsql_reader *r, const char *name, size_t n)
{
	int lo = 0, hi = r->nby_name;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strncmp(r->model->functions[r->by_name[mid]].name, name, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int compare_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

cgm_dynsql_reader *cgm_dynsql_reader_new(const cgm_model *model)
{
	cgm_dynsql_reader *r = cgm_xcalloc(1, sizeof *r);
	r->model = model;
	r->by_name = cgm_xcalloc((size_t)model->nuser + 1, sizeof(int));
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		if (f->is_trigger || !f->name || !f->schema)
			continue;
		r->by_name[r->nby_name++] = i;
	}
	if (r->nby_name)
		qsort_r(r->by_name, (size_t)r->nby_name, sizeof(int), compare_by_name, (void *)model);
	r->cap_patterns = 64;
	r->patterns = cgm_xcalloc((size_t)r->cap_patterns, sizeof(pattern *));
	return r;
}

void cgm_dynsql_reader_free(cgm_dynsql_reader *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->cap_patterns; i++) {
		if (!r->patterns[i])
			continue;
		free(r->patterns[i]->key);
		free(r->patterns[i]->fns);
		free(r->patterns[i]);
	}
	free(r->patterns);
	free(r->by_name);
	free(r);
}

static pattern **pattern_slot(cgm_dynsql_reader *r, const char *key)
{
	size_t mask = (size_t)r->cap_patterns - 1;
	for (size_t i = cgm_fnv1a(key) & mask;; i = (i + 1) & mask)
		if (!r->patterns[i] || strcmp(r->patterns[i]->key, key) == 0)
			return &r->patterns[i];
}

/* The literal start of a name glob (up to its first wildcard or escape). */
static size_t glob_prefix(const char *glob)
{
	size_t n = 0;
	while (glob[n] && glob[n] != '*' && glob[n] != '?' && glob[n] != '[' && glob[n] != '\\')
		n++;
	return n;
}

/* The user functions a call pattern fits, computed on first use.  Only the
 * functions whose name starts with the glob's literal prefix are tried. */
static pattern *pattern_matches(cgm_dynsql_reader *r, const char *schema, const char *name,
				int nargs)
{
	cgm_strbuf key = CGM_STRBUF_INIT;
	cgm_strbuf_printf(&key, "%s\x02%s\x02%d", schema, name, nargs);
	pattern **slot = pattern_slot(r, cgm_strbuf_cstr(&key));
	if (*slot) {
		cgm_strbuf_free(&key);
		return *slot;
	}
	if (2 * (r->npatterns + 1) > r->cap_patterns) {
		pattern **old = r->patterns;
		int old_cap = r->cap_patterns;
		r->cap_patterns *= 2;
		r->patterns = cgm_xcalloc((size_t)r->cap_patterns, sizeof(pattern *));
		for (int i = 0; i < old_cap; i++)
			if (old[i])
				*pattern_slot(r, old[i]->key) = old[i];
		free(old);
		slot = pattern_slot(r, cgm_strbuf_cstr(&key));
	}
	r->npatterns++;
	pattern *p = cgm_xcalloc(1, sizeof *p);
	*slot = p;
	p->key = key.data;
	p->marked_by = -1;
	const cgm_model *m = r->model;
	size_t plen = glob_prefix(name);
	for (int k = first_by_name(r, name, plen); k < r->nby_name; k++) {
		int i = r->by_name[k];
		const cgm_function *f = &m->functions[i];
		if (strncmp(f->name, name, plen) != 0)
			break;
		if (schema[0] && fnmatch(schema, f->schema, 0) != 0)
			continue;
		if (fnmatch(name, f->name, 0) != 0 || !arity_fits(f, nargs))
			continue;
		p->fns = cgm_xrealloc(p->fns, sizeof(int) * (size_t)(p->nfns + 1));
		p->fns[p->nfns++] = i;
	}
	if (p->nfns > 1)
		qsort(p->fns, (size_t)p->nfns, sizeof(int), compare_int);
	return p;
}

static void add_own(site_lists *sl, int fn)
{
	for (int i = 0; i < sl->nown; i++)
		if (sl->own[i] == fn)
			return;
	sl->own = cgm_xrealloc(sl->own, sizeof(int) * (size_t)(sl->nown + 1));
	sl->own[sl->nown++] = fn;
}

static void add_list(site_lists *sl, pattern *p, const int *list, int len)
{
	if (len == 0)
		return;
	if (sl->n >= SHAPES_MAX && list != sl->own) {
		/* A template of more call shapes than this is rare; their
		 * matches still count, through the site's own list. */
		sl->overflow = true;
		for (int i = 0; i < len; i++)
			add_own(sl, list[i]);
		return;
	}
	sl->list[sl->n] = list;
	sl->len[sl->n] = len;
	sl->from[sl->n] = p;
	sl->n++;
}

/* One name part (identifier chars and VARs, maybe quoted): a glob, * for VAR. */
static void glob_part(char *out, size_t len, const char *s, size_t n)
{
	size_t k = 0;
	bool quoted = n >= 2 && s[0] == '"' && s[n - 1] == '"';
	for (size_t i = quoted ? 1 : 0; i < (quoted ? n - 1 : n) && k + 2 < len; i++) {
		char c = s[i];
		if (c == VAR)
			out[k++] = '*';
		else if (c == '*' || c == '?' || c == '[' || c == '\\') {
			out[k++] = '\\';
			out[k++] = c;
		} else
			out[k++] = quoted ? c : (char)tolower((unsigned char)c);
	}
	out[k] = '\0';
}

static bool arity_fits(const cgm_function *f, int nargs)
{
	if (nargs < 0)
		return true;
	if (f->variadic && nargs >= f->nargs - 1 - f->ndefaults)
		return true;
	return nargs <= f->nargs && nargs >= f->nargs - f->ndefaults;
}

/* The upper-cased word ending before `end` (spaces skipped back), into buf;
 * where it starts. */
static const char *word_before(char *buf, size_t len, const char *t, const char *end)
{
	const char *w = end;
	while (w > t && isspace((unsigned char)w[-1]))
		w--;
	const char *ws = w;
	while (ws > t && isalpha((unsigned char)ws[-1]))
		ws--;
	size_t n = 0;
	for (const char *c = ws; c < w && n + 1 < len; c++)
		buf[n++] = (char)toupper((unsigned char)*c);
	buf[n] = '\0';
	return ws;
}

/* Every call shape NAME( ... ) of the template from `from` on: matching user
 * functions.  A NAME( that is a relation and its column list is none: after
 * INTO, TABLE [IF NOT EXISTS], COPY, VIEW, PARTITION OF, REFERENCES (the
 * prefixes above); in CREATE INDEX (`index`), the relation after ON [ONLY]
 * and the access method after USING; EXCLUDE USING gist (...), PARTITION BY
 * RANGE (...).  Calls inside the list (CREATE INDEX ON t (lower(x))) are
 * still calls. */
static void scan_calls(site_lists *sl, cgm_dynsql_reader *r, const char *t, const char *from,
		       bool index)
{
	char prev[32] = "", prev2[32] = "";
	bool quoted = false; /* inside a literal of the template */
	for (const char *c = t; c < from; c++)
		if (*c == '\'')
			quoted = !quoted;
	if (quoted) /* `from` is in a literal: never, as its callers find it */
		return;
	for (const char *p = from; *p; p++) {
		if (*p == '\'') { /* a literal inside the template */
			for (p++; *p && *p != '\''; p++)
				;
			if (!*p)
				break;
			continue;
		}
		if (*p != '(')
			continue;
		const char *end = p;
		while (end > t && isspace((unsigned char)end[-1]))
			end--;
		const char *start = end;
		while (start > t && (is_word(start[-1]) || start[-1] == '.'))
			start--;
		if (start == end)
			continue;
		/* the word before the name: INTO t(...), TABLE t(...) are no calls */
		const char *ws = word_before(prev, sizeof prev, t, start);
		word_before(prev2, sizeof prev2, t, ws);
		if (in_list(not_call_prefixes, prev) ||
		    (index && (strcmp(prev, "ON") == 0 || strcmp(prev, "USING") == 0)) ||
		    (strcmp(prev, "USING") == 0 && strcmp(prev2, "EXCLUDE") == 0) ||
		    (strcmp(prev, "BY") == 0 && strcmp(prev2, "PARTITION") == 0))
			continue;
		char name[256], schema[256] = "";
		const char *dot = NULL;
		for (const char *q = start; q < end; q++)
			if (*q == '.')
				dot = q;
		if (dot) {
			glob_part(schema, sizeof schema, start, (size_t)(dot - start));
			glob_part(name, sizeof name, dot + 1, (size_t)(end - dot - 1));
		} else {
			glob_part(name, sizeof name, start, (size_t)(end - start));
		}
		if (!name[0] || (!schema[0] && !strchr(name, '*') && in_list(not_callee_words, name)))
			continue;
		/* Arguments: top-level commas; a lone variable is any number. */
		int depth = 0, commas = 0;
		bool any = false, only_var = true, empty = true;
		const char *q = p + 1;
		for (; *q; q++) {
			if (*q == '(')
				depth++;
			else if (*q == ')') {
				if (depth-- == 0)
					break;
			} else if (*q == ',' && depth == 0)
				commas++;
			if (!isspace((unsigned char)*q)) {
				empty = false;
				if (*q != VAR)
					only_var = false;
			}
		}
		if (!empty && only_var)
			any = true;
		int nargs = any ? -1 : empty ? 0 : commas + 1;
		pattern *pt = pattern_matches(r, schema, name, nargs);
		add_list(sl, pt, pt->fns, pt->nfns);
	}
}

/* Trigger functions of the triggers on `table` ("s.t" or "t"). */
static void add_table_triggers(site_lists *sl, const cgm_model *model, const char *table)
{
	const char *dot = strrchr(table, '.');
	const char *name = dot ? dot + 1 : table;
	for (int i = 0; i < model->ntriggers; i++) {
		const cgm_trigger *tg = &model->triggers[i];
		if (!tg->table_name || strcmp(tg->table_name, name) != 0)
			continue;
		if (dot && tg->table_schema &&
		    (strlen(tg->table_schema) != (size_t)(dot - table) ||
		     strncmp(tg->table_schema, table, (size_t)(dot - table)) != 0))
			continue;
		if (tg->function >= 0 && tg->function < model->nuser)
			add_own(sl, tg->function);
	}
}

/* The table's trigger functions (and the shapes past SHAPES_MAX) as one
 * more sorted list. */
static void close_lists(site_lists *sl)
{
	if (sl->nown > 1)
		qsort(sl->own, (size_t)sl->nown, sizeof(int), compare_int);
	add_list(sl, NULL, sl->own, sl->nown);
}

/* Every list of the site in one: total distinct functions, the first
 * CGM_DYNSQL_TARGETS_KEPT of them (in model order) kept. */
static void unite(cgm_dynsql_info *out, site_lists *sl)
{
	close_lists(sl);
	if (sl->n == 1) { /* the usual case: one call shape, no merging */
		out->total = sl->len[0];
		out->ntargets = out->total < CGM_DYNSQL_TARGETS_KEPT ? out->total
								      : CGM_DYNSQL_TARGETS_KEPT;
		out->targets = cgm_xcalloc((size_t)out->ntargets + 1, sizeof(int));
		memcpy(out->targets, sl->list[0], sizeof(int) * (size_t)out->ntargets);
		return;
	}
	int pos[SHAPES_MAX + 2] = { 0 };
	int last = -1;
	for (;;) {
		int best = -1;
		for (int l = 0; l < sl->n; l++)
			if (pos[l] < sl->len[l] && (best < 0 || sl->list[l][pos[l]] < best))
				best = sl->list[l][pos[l]];
		if (best < 0)
			break;
		for (int l = 0; l < sl->n; l++)
			while (pos[l] < sl->len[l] && sl->list[l][pos[l]] == best)
				pos[l]++;
		if (best == last)
			continue;
		last = best;
		if (out->ntargets < CGM_DYNSQL_TARGETS_KEPT) {
			out->targets = cgm_xrealloc(out->targets,
						    sizeof(int) * (size_t)(out->ntargets + 1));
			out->targets[out->ntargets++] = best;
		}
		out->total++;
	}
}

/* What a statement runs of the user code, by its kind. */
typedef enum runs {
	RUNS_ANY,      /* what it spells, and what it reads (views) or runs
	                * (scripts): SELECT, CALL, CREATE TABLE AS, CREATE
	                * EXTENSION, a statement cgmap cannot name */
	RUNS_DML,      /* what it spells and what its table runs */
	RUNS_SPELLED,  /* what it spells (CREATE INDEX's expressions, ALTER
	                * TABLE's defaults, checks and USING, a partition's
	                * bounds) and the event triggers */
	RUNS_DEFINES,  /* DDL that stores, changes or drops definitions: the
	                * event triggers only (CREATE TABLE's defaults and checks
	                * run later, on rows; DROP, GRANT, COMMENT, RENAME) */
	RUNS_NOTHING,  /* no user code (SET, VACUUM, transaction control, roles) */
} runs;

/* Whether the word `w` (upper case, of the template) starts at p, as a word. */
static bool word_at(const char *p, const char *w)
{
	size_t n = strlen(w);
	return strncasecmp(p, w, n) == 0 && !is_word(p[n]);
}

/* The first `w1 w2` (w2 NULL: w1 alone) of the template from p on, outside
 * literals and, with `top`, at the top level of parentheses; NULL if none. */
static const char *find_words(const char *p, const char *w1, const char *w2, bool top)
{
	int depth = 0;
	for (const char *q = p; *q; q++) {
		if (*q == '\'') {
			while (*++q && *q != '\'')
				;
			if (!*q)
				return NULL;
			continue;
		}
		if (*q == '(')
			depth++;
		else if (*q == ')')
			depth--;
		if ((top && depth != 0) || (q > p && is_word(q[-1])) || !word_at(q, w1))
			continue;
		if (!w2)
			return q;
		const char *n = q + strlen(w1);
		while (isspace((unsigned char)*n))
			n++;
		if (word_at(n, w2))
			return q;
	}
	return NULL;
}

/* The object of CREATE / ALTER / DROP at *p (TABLE, MATERIALIZED VIEW, ...)
 * into buf, advancing past it; CREATE's modifiers before it are skipped, and
 * so is a variable when a known object follows it (`CREATE %s TABLE`).
 * Empty when it is no known object. */
static void read_object(char *buf, size_t len, const char **p, bool create)
{
	buf[0] = '\0';
	const char *q = *p;
	for (int guard = 0; guard < 8; guard++) {
		while (isspace((unsigned char)*q))
			q++;
		if (*q == VAR) {
			q++;
			continue;
		}
		bool modifier = false;
		for (int i = 0; create && create_modifiers[i]; i++)
			if (word_at(q, create_modifiers[i])) {
				/* CREATE DEFAULT CONVERSION, but no DEFAULT PRIVILEGES */
				q += strlen(create_modifiers[i]);
				modifier = true;
				break;
			}
		if (!modifier)
			break;
	}
	for (int i = 0; object_names[i]; i++) {
		const char *o = object_names[i], *c = q;
		bool match = true;
		/* words of the object name, any spaces between them */
		while (*o && match) {
			const char *sp = strchr(o, ' ');
			size_t n = sp ? (size_t)(sp - o) : strlen(o);
			match = strncasecmp(c, o, n) == 0 && !is_word(c[n]);
			if (!match)
				break; /* c may be shorter than n: not past its end */
			c += n;
			o += n;
			if (*o == ' ') {
				o++;
				while (isspace((unsigned char)*c))
					c++;
			}
		}
		if (match) {
			snprintf(buf, len, "%s", object_names[i]);
			*p = c;
			return;
		}
	}
}

/* The functions of the event triggers a statement of `tag` fires; tag
 * NULL: its object is not known, any `verb ...` tag. */
static void add_event_triggers(site_lists *sl, const cgm_model *model, const char *tag,
			       const char *verb)
{
	for (int i = 0; i < model->nevent_triggers; i++) {
		const cgm_event_trigger *et = &model->event_triggers[i];
		if (et->function < 0 || et->function >= model->nuser)
			continue;
		bool fires = false;
		if (tag) {
			fires = cgm_event_trigger_fires(et, tag);
		} else if (verb && et->ntags == 0) {
			char any[64];
			snprintf(any, sizeof any, "%s TABLE", verb);
			fires = cgm_event_trigger_fires(et, any);
		} else if (verb) {
			size_t n = strlen(verb);
			for (int k = 0; k < et->ntags && !fires; k++)
				fires = et->tags[k] && strncmp(et->tags[k], verb, n) == 0 &&
					et->tags[k][n] == ' ' && cgm_event_trigger_fires(et, et->tags[k]);
		}
		if (fires)
			add_own(sl, et->function);
	}
}

/* The statement kind of the template at p (its command tag where it has
 * one: "CREATE TABLE", "ALTER EXTENSION", "CREATE TABLE AS"), what it runs,
 * whether event triggers fire for it (tag set, or `verb` when its object is
 * a variable), and where the calls that run start (NULL: none). */
typedef struct stmt_kind {
	char statement[80]; /* a verb (32) and an object (40) always fit */
	char verb[32];  /* CREATE, ALTER, DROP, GRANT, ... when DDL */
	bool ddl;       /* event triggers fire for it */
	bool tagged;    /* statement is its command tag */
	runs runs;
	bool index;     /* CREATE INDEX: ON t (...) and USING m (...) are no calls */
	const char *calls_from;
} stmt_kind;

/* Whether the object a COMMENT, SECURITY LABEL, GRANT or REVOKE at p is
 * ON is one no event trigger fires for (global_objects, a configuration
 * PARAMETER), or whether a GRANT or REVOKE has no ON at all: a role's
 * membership, which no event trigger sees either. */
static bool on_global_object(const char *p, bool grant)
{
	const char *on = find_words(p, "ON", NULL, true);
	if (!on)
		return grant;
	on += 2;
	while (isspace((unsigned char)*on))
		on++;
	if (word_at(on, "PARAMETER"))
		return true;
	char obj[40];
	read_object(obj, sizeof obj, &on, false);
	return in_list(global_objects, obj);
}

static void read_kind(stmt_kind *k, const char *t)
{
	memset(k, 0, sizeof *k);
	k->runs = RUNS_ANY;
	k->calls_from = t;
	const char *p = t;
	char w1[32], w2[32];
	next_word(w1, sizeof w1, &p);
	if (!w1[0])
		return;
	snprintf(k->statement, sizeof k->statement, "%s", w1);
	bool create = strcmp(w1, "CREATE") == 0;
	if (create || strcmp(w1, "ALTER") == 0 || strcmp(w1, "DROP") == 0) {
		char obj[40];
		snprintf(k->verb, sizeof k->verb, "%s", w1);
		read_object(obj, sizeof obj, &p, create);
		k->ddl = !in_list(global_objects, obj);
		if (!obj[0]) {
			/* an object cgmap does not know, or a variable: the verb */
			const char *q = p;
			next_word(w2, sizeof w2, &q);
			if (w2[0] && (size_t)snprintf(k->statement, sizeof k->statement, "%s %s",
						      w1, w2) >= sizeof k->statement)
				snprintf(k->statement, sizeof k->statement, "%s", w1);
			k->runs = strcmp(w1, "DROP") == 0 ? RUNS_DEFINES : RUNS_ANY;
			return;
		}
		snprintf(k->statement, sizeof k->statement, "%s %s", w1, obj);
		k->tagged = k->ddl;
		if (!k->ddl) {
			k->runs = RUNS_NOTHING;
		} else if (create && strcmp(obj, "INDEX") == 0) {
			k->runs = RUNS_SPELLED;
			k->index = true;
		} else if (create && strcmp(obj, "TABLE") == 0) {
			if (find_words(p, "AS", NULL, true)) {
				snprintf(k->statement, sizeof k->statement, "CREATE TABLE AS");
			} else {
				/* columns, defaults and checks are definitions; the
				 * bounds of a partition are evaluated now */
				k->runs = RUNS_SPELLED;
				k->calls_from = find_words(p, "FOR", "VALUES", false);
			}
		} else if (create && (strcmp(obj, "MATERIALIZED VIEW") == 0 ||
				      strcmp(obj, "EXTENSION") == 0)) {
			k->runs = RUNS_ANY; /* its query, its script */
		} else if (!create && strcmp(w1, "ALTER") == 0 &&
			   (strcmp(obj, "TABLE") == 0 || strcmp(obj, "FOREIGN TABLE") == 0 ||
			    strcmp(obj, "DOMAIN") == 0)) {
			k->runs = RUNS_SPELLED; /* ADD ... DEFAULT, CHECK, TYPE ... USING */
		} else if (strcmp(w1, "ALTER") == 0 && strcmp(obj, "EXTENSION") == 0 &&
			   find_words(p, "UPDATE", NULL, true)) {
			k->runs = RUNS_ANY; /* its update scripts */
		} else {
			k->runs = RUNS_DEFINES;
		}
		/* CREATE TABLE AS, CREATE MATERIALIZED VIEW ... WITH NO DATA: the
		 * query is planned, not run */
		if (create && k->runs == RUNS_ANY && strcmp(obj, "EXTENSION") != 0 &&
		    find_words(p, "NO", "DATA", true))
			k->runs = RUNS_DEFINES;
		return;
	}
	const char *q = p;
	next_word(w2, sizeof w2, &q);
	if (strcmp(w1, "GRANT") == 0 || strcmp(w1, "REVOKE") == 0 || strcmp(w1, "COMMENT") == 0 ||
	    (strcmp(w1, "SECURITY") == 0 && strcmp(w2, "LABEL") == 0) ||
	    (strcmp(w1, "IMPORT") == 0 && strcmp(w2, "FOREIGN") == 0)) {
		if (strcmp(w1, "SECURITY") == 0)
			snprintf(k->statement, sizeof k->statement, "SECURITY LABEL");
		else if (strcmp(w1, "IMPORT") == 0)
			snprintf(k->statement, sizeof k->statement, "IMPORT FOREIGN SCHEMA");
		snprintf(k->verb, sizeof k->verb, "%s", w1);
		k->ddl = k->tagged = true;
		k->runs = RUNS_DEFINES;
		if (strcmp(w1, "IMPORT") != 0 &&
		    on_global_object(p, strcmp(w1, "GRANT") == 0 || strcmp(w1, "REVOKE") == 0)) {
			k->ddl = k->tagged = false;
			k->runs = RUNS_NOTHING;
		}
	} else if (strcmp(w1, "REFRESH") == 0) {
		snprintf(k->statement, sizeof k->statement, "REFRESH MATERIALIZED VIEW");
		snprintf(k->verb, sizeof k->verb, "%s", w1);
		k->ddl = k->tagged = true; /* its query runs: RUNS_ANY */
	} else if (in_list(no_call_statements, w1)) {
		k->runs = RUNS_NOTHING;
	} else if (strcmp(w1, "INSERT") == 0 || strcmp(w1, "UPDATE") == 0 ||
		   strcmp(w1, "DELETE") == 0 || strcmp(w1, "TRUNCATE") == 0) {
		k->runs = RUNS_DML;
	}
}

/* Whether the whole expression is one call of a function every function
 * of that name (in that schema, when one is written) returns void: its
 * value, void's output, is the empty string (or NULL, for a strict one
 * given one), which EXECUTE runs as no statement or refuses.  The call
 * itself is the site's static call edge.  `EXECUTE f(x)` written for
 * `PERFORM f(x)` (MusicBrainz's remove_unused_url) runs nothing more. */
static bool void_call(const cgm_dynsql_reader *r, const char *text)
{
	char part[2][64]; /* NAMEDATALEN: a longer name is left alone */
	int nparts = 0;
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	for (;;) {
		size_t n = 0;
		if (!(isalpha((unsigned char)*p) || *p == '_'))
			return false;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '$') {
			if (n + 1 >= sizeof part[0])
				return false;
			part[nparts][n++] = (char)tolower((unsigned char)*p++);
		}
		part[nparts++][n] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '.' || nparts == 2)
			break;
		p++;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (*p != '(')
		return false;
	/* its argument list closes at the end of the expression */
	const char *e = p;
	do {
		e = top_level_end(e + 1, NULL, true);
	} while (*e == ',');
	if (*e != ')' || !blank_to(e + 1, e + 1 + strlen(e + 1)))
		return false;
	const char *schema = nparts == 2 ? part[0] : NULL;
	const char *name = part[nparts - 1];
	/* The functions of that name, from the reader's index by name: a
	 * site is read once per output, and a scan of every function for
	 * each made the whole run several times slower at 10,000 functions. */
	const cgm_model *m = r->model;
	int lo = 0, hi = r->nby_name;
	while (lo < hi) { /* first name >= name */
		int mid = lo + (hi - lo) / 2;
		if (strcmp(m->functions[r->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool found = false;
	for (int k = lo; k < r->nby_name; k++) {
		const cgm_function *f = &m->functions[r->by_name[k]];
		if (strcmp(f->name, name) != 0)
			break;
		if (schema && strcmp(f->schema, schema) != 0)
			continue;
		if (!f->result || strcmp(f->result, "void") != 0)
			return false;
		found = true;
	}
	return found;
}

/* Where the statement of the template at p ends: its top-level `;` (not
 * in a quoted literal, a dollar-quoted body or brackets), or its NUL. */
static const char *statement_end(const char *p)
{
	int depth = 0;
	for (; *p; p++) {
		if (*p == '\'') {
			while (*++p && *p != '\'')
				;
			if (!*p)
				return p;
		} else if (*p == '$' && (p[1] == '$' || isalpha((unsigned char)p[1]) || p[1] == '_')) {
			const char *q = p + 1;
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
			if (*q != '$')
				continue;
			size_t taglen = (size_t)(q - p) + 1;
			const char *close = q + 1;
			for (; *close && strncmp(close, p, taglen) != 0; close++)
				;
			if (!*close)
				return close;
			p = close + taglen - 1;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && depth > 0) {
			depth--;
		} else if (*p == ';' && depth == 0) {
			return p;
		}
	}
	return p;
}

/* One statement `t` of a site's template (no blank first) read into out
 * and sl: its kind (the first statement's names the site), its table, its
 * possible targets; whether it can call a user function. */
static bool read_statement(cgm_dynsql_info *out, site_lists *sl, cgm_dynsql_reader *r,
			   const char *t, bool first)
{
	const cgm_model *model = r->model;
	stmt_kind k;
	read_kind(&k, t);
	if (first && k.statement[0])
		out->statement = strdup(k.statement);
	if (k.runs == RUNS_NOTHING)
		return false;
	if (k.ddl)
		add_event_triggers(sl, model, k.tagged ? k.statement : NULL, k.verb);
	if (k.runs == RUNS_DEFINES)
		return sl->nown > 0;
	char *table = NULL;
	if (k.runs == RUNS_DML) {
		/* INSERT INTO t, UPDATE [ONLY] t, DELETE FROM t, TRUNCATE [TABLE] t */
		const char *q = t;
		char w[32];
		next_word(w, sizeof w, &q);
		if (strcmp(w, "INSERT") == 0 || strcmp(w, "DELETE") == 0)
			next_word(w, sizeof w, &q); /* INTO, FROM */
		while (isspace((unsigned char)*q))
			q++;
		if (strncasecmp(q, "ONLY ", 5) == 0 || strncasecmp(q, "TABLE ", 6) == 0)
			q = strchr(q, ' ') + 1;
		while (isspace((unsigned char)*q))
			q++;
		const char *e = q;
		while (*e && (isalnum((unsigned char)*e) || *e == '_' || *e == '.' || *e == '"'))
			e++;
		if (e > q && *e != VAR && (e == q || e[-1] != VAR)) {
			table = cgm_xcalloc((size_t)(e - q) + 1, 1);
			size_t n = 0;
			for (const char *c = q; c < e; c++)
				if (*c != '"')
					table[n++] = *c;
			add_table_triggers(sl, model, table);
		}
	}
	if (k.calls_from)
		scan_calls(sl, r, t, k.calls_from, k.index);
	bool can_call = true;
	if ((k.runs == RUNS_DML && table) || k.runs == RUNS_SPELLED) {
		/* variables taken as values and names: what the lists hold */
		bool any = sl->nown > 0;
		for (int l = 0; l < sl->n && !any; l++)
			any = sl->len[l] > 0;
		can_call = any;
	}
	if (first)
		out->table = table;
	else
		free(table);
	return can_call;
}

/* The site read into out (statement, table, can_call) and its lists of
 * possible targets into sl.  A template of several statements
 * (`DROP VIEW %I; CREATE VIEW ...`) can call what any of them can. */
static void read_site(cgm_dynsql_info *out, site_lists *sl, cgm_dynsql_reader *r,
		      const cgm_site *site)
{
	memset(out, 0, sizeof *out);
	memset(sl, 0, sizeof *sl);
	out->can_call = true;
	if (!cgm_site_get_rare(site)->text)
		return;
	if (void_call(r, cgm_site_get_rare(site)->text)) {
		out->can_call = false;
		return;
	}
	cgm_strbuf tb = CGM_STRBUF_INIT;
	bool constant = build_template(&tb, cgm_site_get_rare(site)->text);
	const char *t = cgm_strbuf_cstr(&tb);
	if (!constant) {
		cgm_strbuf_free(&tb);
		return;
	}
	bool can_call = false, first = true;
	for (const char *p = t;;) {
		const char *end = statement_end(p);
		char *one = cgm_xcalloc((size_t)(end - p) + 1, 1);
		memcpy(one, p, (size_t)(end - p));
		const char *q = one;
		while (isspace((unsigned char)*q))
			q++;
		if (*q) {
			can_call |= read_statement(out, sl, r, q, first);
			first = false;
		}
		free(one);
		if (!*end)
			break;
		p = end + 1;
	}
	out->can_call = can_call || first;
	cgm_strbuf_free(&tb);
}

void cgm_dynsql_read_with(cgm_dynsql_info *out, cgm_dynsql_reader *r, const cgm_site *site)
{
	site_lists sl;
	read_site(out, &sl, r, site);
	unite(out, &sl);
	free(sl.own);
}

int cgm_dynsql_mark_targets(unsigned char *seen, cgm_dynsql_reader *r, const cgm_site *site)
{
	cgm_dynsql_info info;
	site_lists sl;
	read_site(&info, &sl, r, site);
	close_lists(&sl);
	int marked = 0;
	for (int l = 0; l < sl.n; l++)
		for (int k = 0; k < sl.len[l]; k++) {
			int fn = sl.list[l][k];
			if (fn >= 0 && fn < r->model->nuser && !seen[fn]) {
				seen[fn] = 1;
				marked++;
			}
		}
	free(sl.own);
	cgm_dynsql_info_free(&info);
	return marked;
}

void cgm_dynsql_read(cgm_dynsql_info *out, const cgm_model *model, const cgm_site *site)
{
	cgm_dynsql_reader *r = cgm_dynsql_reader_new(model);
	cgm_dynsql_read_with(out, r, site);
	cgm_dynsql_reader_free(r);
}

void cgm_dynsql_info_free(cgm_dynsql_info *info)
{
	free(info->statement);
	free(info->table);
	free(info->targets);
	memset(info, 0, sizeof *info);
}

static bool list_has(const int *list, int len, int fn)
{
	return bsearch(&fn, list, (size_t)len, sizeof(int), compare_int) != NULL;
}

/* A body's literal naming a call: every user function of that name (and
 * schema, when named) but the body's own may be what the text calls. */
typedef struct named_in_text {
	const cgm_dynsql_reader *reader;
	bool *out;
	int self;
} named_in_text;

static void on_literal_call(void *arg, const char *schema, const char *name)
{
	const named_in_text *n = arg;
	const cgm_dynsql_reader *r = n->reader;
	const cgm_model *m = r->model;
	/* The terminator compared too: the name itself, not a prefix. */
	for (int k = first_by_name(r, name, strlen(name) + 1); k < r->nby_name; k++) {
		int fn = r->by_name[k];
		const cgm_function *f = &m->functions[fn];
		if (strcmp(f->name, name) != 0)
			break;
		if (fn != n->self && (!schema || strcmp(f->schema, schema) == 0))
			n->out[fn] = true;
	}
}

/* Each pattern's matches are marked once for the first function whose site
 * names it (that function itself excepted: a function reaching itself is
 * not reached) and once more when another function's site names it too. */
void cgm_dynsql_possible_targets(bool *out, const cgm_model *model)
{
	cgm_dynsql_reader *r = cgm_dynsql_reader_new(model);
	/* SQL text a body builds in pieces no parse puts together (code that
	 * generates SQL): a call it names in a literal may run (litnames.h). */
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		if (!f->analysed || !f->source)
			continue;
		named_in_text n = { r, out, i };
		cgm_literal_calls(f->source, on_literal_call, &n);
	}
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		for (int s = 0; s < f->nsites; s++) {
			if (f->sites[s].kind != CGM_SITE_DYNAMIC)
				continue;
			cgm_dynsql_info info;
			site_lists sl;
			read_site(&info, &sl, r, &f->sites[s]);
			add_list(&sl, NULL, sl.own, sl.nown);
			for (int l = 0; l < sl.n; l++) {
				pattern *p = sl.from[l];
				if (p && (p->marked_all || p->marked_by == i))
					continue;
				if (p && p->marked_by >= 0) {
					if (list_has(p->fns, p->nfns, p->marked_by))
						out[p->marked_by] = true;
					p->marked_all = true;
					continue;
				}
				for (int k = 0; k < sl.len[l]; k++)
					if (sl.list[l][k] != i)
						out[sl.list[l][k]] = true;
				if (p)
					p->marked_by = i;
			}
			free(sl.own);
			cgm_dynsql_info_free(&info);
		}
	}
	cgm_dynsql_reader_free(r);
}
