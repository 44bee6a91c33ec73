/*
 * doeval.c - a PL/pgSQL condition of known values, decided (doeval.h).
 *
 * In: the condition's text, or a query's, and what the catalog tells
 * (docatalog.h).  Out: 1, 0 or -1, and a query's value (heap, the
 * caller's).  `SELECT <condition>` is parsed by libpg_query, its JSON
 * read into an arena of its own; both are freed before returning.
 */
#include "doeval.h"

#include <ctype.h>
#include <errno.h>
#include <pg_query.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/sqlformat.h"
#include "cgmap/strbuf.h"
#include "docatalog.h"
#include "jsondom.h"

/* CANT: the files cannot tell (not SQL's NULL, which is a value). */
typedef enum { CANT, NUL, TEXT, INT, BOOL } value_kind;

typedef struct value {
	value_kind kind;
	const char *text; /* TEXT, in the arena */
	long long integer;
	bool boolean;
	bool array; /* TEXT: an array's text ('{a,b}'::text[]), not compared */
} value;

static const value cant = { .kind = CANT };

/* What an expression is evaluated in: the arena, the catalog a subquery
 * of pg_extension reads (docatalog.h; NULL: none), and inside such a
 * subquery's target its row: the extension's name, or for an aggregate
 * target the count of the rows. */
typedef struct scope {
	cgm_arena *a;
	const cgm_do_catalog *catalog;
	const char *extname; /* the row's name; NULL: no row here */
	const char *name_column; /* the column holding it */
	long long count;     /* count(*): the rows; -1 outside an aggregate */
	/* What current_setting('server_version_num') gives (0: unknown),
	 * and whether the expression read it. */
	long long version;
	bool *read_version;
} scope;

static value of_bool(bool b) { return (value){ .kind = BOOL, .boolean = b }; }

/* A text as boolean input takes it (boolin's words, whole). */
static bool text_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "t", "true", "y", "yes", "on", "1", NULL };
	static const char *const no[] = { "f", "false", "n", "no", "off", "0", NULL };
	for (int i = 0; yes[i]; i++)
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, true;
	for (int i = 0; no[i]; i++)
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, true;
	return false;
}

static bool text_integer(const char *s, long long *out)
{
	if (!*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* The last name of a qualified name list ([{"String":{"sval":...}}]). */
static const char *last_name(const jd_node *names)
{
	size_t n = jd_size(names);
	return n ? jd_string(jd_get(jd_get(jd_at(names, n - 1), "String"), "sval")) : NULL;
}

static value eval(const scope *s, const jd_node *node, int depth);

static value constant(const jd_node *c)
{
	if (jd_is_true(jd_get(c, "isnull")))
		return (value){ .kind = NUL };
	const jd_node *s = jd_get(c, "sval");
	if (s) {
		const char *text = jd_string(jd_get(s, "sval"));
		return (value){ .kind = TEXT, .text = text ? text : "" };
	}
	const jd_node *i = jd_get(c, "ival");
	if (i)
		return (value){ .kind = INT, .integer = jd_integer(jd_get(i, "ival")) };
	const jd_node *b = jd_get(c, "boolval");
	if (b)
		return of_bool(jd_is_true(jd_get(b, "boolval")));
	return cant; /* a numeric, a bit string */
}

/* A text, integer or boolean value as its text, or NULL. */
static const char *as_text(const scope *s, value v)
{
	if (v.kind == TEXT)
		return v.text;
	if (v.kind == INT)
		return cgm_arena_printf(s->a, "%lld", v.integer);
	if (v.kind == BOOL)
		return v.boolean ? "true" : "false";
	return NULL;
}

static value cast(const scope *s, const jd_node *tc, int depth)
{
	value v = eval(s, jd_get(tc, "arg"), depth + 1);
	const jd_node *type_name = jd_get(tc, "typeName"); /* a TypeName's fields, unwrapped */
	if (jd_get(type_name, "TypeName"))
		type_name = jd_get(type_name, "TypeName");
	const char *type = last_name(jd_get(type_name, "names"));
	if (v.kind == CANT || v.kind == NUL || !type)
		return v.kind == NUL ? v : cant;
	if (jd_get(type_name, "arrayBounds")) {
		if (v.kind != TEXT)
			return cant;
		v.array = true;
		return v;
	}
	if (strcmp(type, "text") == 0 || strcmp(type, "varchar") == 0 || strcmp(type, "name") == 0) {
		if (v.kind == TEXT)
			return v;
		return (value){ .kind = TEXT, .text = as_text(s, v) };
	}
	if (strcmp(type, "bool") == 0) {
		bool b;
		if (v.kind == BOOL)
			return v;
		return v.kind == TEXT && text_bool(v.text, &b) ? of_bool(b) : cant;
	}
	if (strcmp(type, "int2") == 0 || strcmp(type, "int4") == 0 || strcmp(type, "int8") == 0) {
		long long i;
		if (v.kind == INT)
			return v;
		return v.kind == TEXT && text_integer(v.text, &i) ? (value){ .kind = INT, .integer = i } : cant;
	}
	return cant; /* regclass, a date: compared as their types compare */
}

/* The elements of a one-dimensional array's text ('{a,"b c"}'), or -1
 * when it is not one (another dimension, bounds, not an array). */
static int array_elements(const char *s)
{
	while (*s == ' ')
		s++;
	if (*s++ != '{')
		return -1;
	while (*s == ' ')
		s++;
	if (*s == '}')
		return s[1] ? -1 : 0;
	int n = 1;
	bool quoted = false;
	for (; *s; s++) {
		if (quoted && *s == '\\' && s[1])
			s++;
		else if (*s == '"')
			quoted = !quoted;
		else if (!quoted && *s == '{')
			return -1;
		else if (!quoted && *s == ',')
			n++;
		else if (!quoted && *s == '}')
			return s[1] ? -1 : n;
	}
	return -1;
}

/* array_length(a, 1) and cardinality(a) of an array's text: the number
 * of its elements; array_length of an empty array is NULL. */
static value array_size(const scope *s, const char *name, const jd_node *args, int depth)
{
	bool length = strcmp(name, "array_length") == 0;
	if (jd_size(args) != (length ? 2u : 1u))
		return cant;
	value v = eval(s, jd_at(args, 0), depth + 1);
	if (length) {
		value dim = eval(s, jd_at(args, 1), depth + 1);
		if (dim.kind != INT || dim.integer != 1)
			return cant;
	}
	if (v.kind == NUL)
		return v;
	int n = v.kind == TEXT ? array_elements(v.text) : -1;
	if (n < 0)
		return cant;
	if (n == 0 && length)
		return (value){ .kind = NUL };
	return (value){ .kind = INT, .integer = n };
}

/* current_setting('server_version_num'[, missing_ok]): the server's
 * version as the scope has it; any other setting is unknown here (a
 * variable holds the search_path a block read, dovars.h). */
static value setting(const scope *s, const jd_node *args, int depth)
{
	value name = eval(s, jd_at(args, 0), depth + 1);
	if (name.kind != TEXT || strcasecmp(name.text, "server_version_num") != 0 || s->version <= 0)
		return cant;
	*s->read_version = true;
	return (value){ .kind = TEXT, .text = cgm_arena_printf(s->a, "%lld", s->version) };
}

static value call(const scope *s, const jd_node *fc, int depth)
{
	const jd_node *names = jd_get(fc, "funcname");
	const char *name = last_name(names);
	const jd_node *args = jd_get(fc, "args");
	const char *schema = jd_size(names) == 2 ? jd_string(jd_get(jd_get(jd_at(names, 0), "String"), "sval"))
						: "pg_catalog";
	if (!name || jd_size(names) > 2 || !schema || strcmp(schema, "pg_catalog") != 0)
		return cant;
	if (strcmp(name, "count") == 0 && jd_is_true(jd_get(fc, "agg_star")) && !jd_get(fc, "agg_filter") &&
	    !jd_get(fc, "over"))
		return s->count >= 0 ? (value){ .kind = INT, .integer = s->count } : cant;
	if (strcmp(name, "array_length") == 0 || strcmp(name, "cardinality") == 0)
		return array_size(s, name, args, depth);
	if (strcmp(name, "current_setting") == 0 && (jd_size(args) == 1 || jd_size(args) == 2))
		return setting(s, args, depth);
	if (jd_size(args) != 1)
		return cant;
	if (strcmp(name, "upper") != 0 && strcmp(name, "lower") != 0 && strcmp(name, "quote_ident") != 0)
		return cant;
	value v = eval(s, jd_at(args, 0), depth + 1);
	if (v.kind != TEXT)
		return v.kind == NUL ? v : cant;
	cgm_strbuf out = CGM_STRBUF_INIT;
	/* false for non-ASCII text: the database's collation decides */
	bool known = cgm_sql_text_function(&out, name, &v.text, 1);
	value folded = known ? (value){ .kind = TEXT, .text = cgm_arena_strdup(s->a, cgm_strbuf_cstr(&out)) } : cant;
	cgm_strbuf_free(&out);
	return folded;
}

/* -1, 0, 1 as l compares to r, or 2 when the files cannot tell; a quoted
 * literal against an integer or a boolean is read as one. */
static int compare(value l, value r)
{
	if (l.array || r.array)
		return 2; /* equal arrays may be spelt apart ('{a, b}', '{a,b}') */
	if (l.kind == TEXT && r.kind != TEXT) {
		value t = l;
		l = r;
		r = t;
		int c = compare(l, r);
		return c == 2 ? 2 : -c;
	}
	if (r.kind == TEXT && l.kind == INT) {
		long long i;
		if (!text_integer(r.text, &i))
			return 2;
		r = (value){ .kind = INT, .integer = i };
	} else if (r.kind == TEXT && l.kind == BOOL) {
		bool b;
		if (!text_bool(r.text, &b))
			return 2;
		r = of_bool(b);
	}
	if (l.kind != r.kind)
		return 2;
	switch (l.kind) {
	case TEXT: {
		/* Equality of texts is bytewise; their order is the collation's. */
		int c = strcmp(l.text, r.text);
		return c < 0 ? -1 : c > 0;
	}
	case INT:
		return l.integer < r.integer ? -1 : l.integer > r.integer;
	case BOOL:
		return (int)l.boolean - (int)r.boolean;
	default:
		return 2;
	}
}

/* Bytes of the UTF-8 character at p (1 for a stray byte). */
static size_t char_bytes(const unsigned char *p)
{
	size_t n = *p < 0x80 ? 1 : *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC0 ? 2 : 1;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 1;
	return n;
}

/* Does `text` match the LIKE `pattern` (% any run, _ one character, a
 * backslash quoting the next)?  Greedy with one backtrack point, linear
 * in practice: the last % seen takes one more character on a mismatch.
 * `fold` compares ASCII letters without case (ILIKE); 1, 0, or -1 when
 * the files cannot tell (a non-ASCII letter under ILIKE: the collation's). */
static int like_match(const char *text, const char *pattern, bool fold)
{
	const unsigned char *t = (const unsigned char *)text, *p = (const unsigned char *)pattern;
	const unsigned char *star_p = NULL, *star_t = NULL;
	while (*t) {
		if (fold && (*t >= 0x80 || (*p >= 0x80 && *p != '%')))
			return -1;
		if (*p == '%') {
			while (*p == '%')
				p++;
			if (!*p)
				return 1;
			star_p = p;
			star_t = t;
			continue;
		}
		if (*p == '_') {
			p++;
			t += char_bytes(t);
			continue;
		}
		const unsigned char *lit = *p == '\\' && p[1] ? p + 1 : p;
		if (*lit && (fold ? tolower(*lit) == tolower(*t) : *lit == *t)) {
			p = lit + 1;
			t++;
			continue;
		}
		if (!star_p)
			return 0;
		p = star_p;
		t = ++star_t;
	}
	while (*p == '%')
		p++;
	return *p == '\0';
}

static value operator(const scope *s, const jd_node *e, int depth)
{
	const char *kind = jd_string(jd_get(e, "kind"));
	const char *op = last_name(jd_get(e, "name"));
	if (!kind || !op)
		return cant;
	value l = eval(s, jd_get(e, "lexpr"), depth + 1);
	if (strcmp(kind, "AEXPR_IN") == 0) {
		/* x IN (a, b): any equal; NOT IN (op <>): none equal. */
		const jd_node *items = jd_get(jd_get(jd_get(e, "rexpr"), "List"), "items");
		bool in = strcmp(op, "=") == 0, unknown = l.kind == CANT, null = l.kind == NUL;
		for (size_t i = 0; i < jd_size(items) && !unknown; i++) {
			value r = eval(s, jd_at(items, i), depth + 1);
			if (r.kind == NUL) {
				null = true;
				continue;
			}
			int c = r.kind == CANT ? 2 : compare(l, r);
			if (c == 2)
				unknown = true;
			else if (c == 0)
				return of_bool(in);
		}
		if (unknown)
			return cant;
		return null ? (value){ .kind = NUL } : of_bool(!in);
	}
	bool like = strcmp(kind, "AEXPR_LIKE") == 0, ilike = strcmp(kind, "AEXPR_ILIKE") == 0;
	if (strcmp(kind, "AEXPR_OP") != 0 && !like && !ilike)
		return cant;
	value r = eval(s, jd_get(e, "rexpr"), depth + 1);
	if (l.kind == CANT || r.kind == CANT)
		return cant;
	if (l.kind == NUL || r.kind == NUL)
		return (value){ .kind = NUL };
	if (like || ilike) {
		/* x LIKE 'p%' (~~), NOT LIKE (!~~), ILIKE (~~*), NOT ILIKE (!~~*):
		 * PostGIS's AddToSearchPath tests the database's path so. */
		if (l.kind != TEXT || r.kind != TEXT)
			return cant;
		int m = like_match(l.text, r.text, ilike);
		return m < 0 ? cant : of_bool(op[0] == '!' ? !m : m);
	}
	if (strcmp(op, "||") == 0) {
		/* 'x' || y: text; an integer or boolean operand as its text */
		const char *lt = as_text(s, l), *rt = as_text(s, r);
		if (!lt || !rt || l.array || r.array)
			return cant;
		return (value){ .kind = TEXT, .text = cgm_arena_printf(s->a, "%s%s", lt, rt) };
	}
	int c = compare(l, r);
	bool text = l.kind == TEXT && r.kind == TEXT;
	if (c == 2)
		return cant;
	if (strcmp(op, "=") == 0)
		return of_bool(c == 0);
	if (strcmp(op, "<>") == 0 || strcmp(op, "!=") == 0)
		return of_bool(c != 0);
	if (text)
		return cant;
	if (strcmp(op, "<") == 0)
		return of_bool(c < 0);
	if (strcmp(op, "<=") == 0)
		return of_bool(c <= 0);
	if (strcmp(op, ">") == 0)
		return of_bool(c > 0);
	if (strcmp(op, ">=") == 0)
		return of_bool(c >= 0);
	return cant;
}

/* A value as a condition: true, false (NULL too), or CANT. */
static int truth(value v)
{
	bool b;
	if (v.kind == BOOL)
		return v.boolean;
	if (v.kind == NUL)
		return 0;
	if (v.kind == TEXT && text_bool(v.text, &b))
		return b;
	return -1;
}

static value boolean(const scope *s, const jd_node *e, int depth)
{
	const char *op = jd_string(jd_get(e, "boolop"));
	const jd_node *args = jd_get(e, "args");
	if (!op)
		return cant;
	if (strcmp(op, "NOT_EXPR") == 0) {
		value v = eval(s, jd_at(args, 0), depth + 1);
		if (v.kind == NUL)
			return v;
		int t = truth(v);
		return t < 0 ? cant : of_bool(!t);
	}
	bool and = strcmp(op, "AND_EXPR") == 0;
	bool unknown = false, null = false;
	for (size_t i = 0; i < jd_size(args); i++) {
		value v = eval(s, jd_at(args, i), depth + 1);
		if (v.kind == NUL) {
			null = true;
			continue;
		}
		int t = truth(v);
		if (t < 0)
			unknown = true;
		else if (t == !and)
			return of_bool(!and); /* a false AND, a true OR */
	}
	if (unknown)
		return cant;
	return null ? (value){ .kind = NUL } : of_bool(and);
}

/* Does the expression hold a function call (any: count_only false), or
 * a call of count(*) (the target of an aggregate query)? */
static bool holds_call(const jd_node *node, int depth, bool count_only)
{
	if (!node || depth > 64)
		return false;
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			if (holds_call(jd_at(node, i), depth + 1, count_only))
				return true;
		return false;
	}
	if (!jd_is_object(node))
		return false;
	const jd_node *fc = jd_get(node, "FuncCall");
	const char *name = fc ? last_name(jd_get(fc, "funcname")) : NULL;
	if (fc && (!count_only || (name && jd_is_true(jd_get(fc, "agg_star")) && strcmp(name, "count") == 0)))
		return true;
	const char *key;
	jd_node *member;
	jd_object_foreach(node, key, member)
	{
		(void)key;
		if (holds_call(member, depth + 1, count_only))
			return true;
	}
	return false;
}

/* The value of a query of pg_extension's one target, of its row or, for
 * an aggregate, of the count of its rows; *found as PL/pgSQL's FOUND
 * after SELECT ... INTO (an aggregate has its one row). */
static value query_value(const scope *s, const jd_node *select, int depth, bool *found)
{
	const char *name, *column;
	int rows = cgm_do_catalog_rows(select, s->catalog, &name, &column);
	const jd_node *targets = jd_get(select, "targetList");
	*found = false;
	if (rows < 0 || jd_size(targets) != 1)
		return cant;
	const jd_node *target = jd_get(jd_get(jd_at(targets, 0), "ResTarget"), "val");
	scope inner = { .a = s->a, .catalog = s->catalog, .count = -1, .version = s->version,
			.read_version = s->read_version };
	if (holds_call(target, 0, true))
		inner.count = rows;
	else if (rows == 0 && holds_call(target, 0, false))
		return cant; /* max(...) of no rows is one row: what it is, the files cannot tell */
	else if (rows == 0)
		return (value){ .kind = NUL };
	else
		inner.extname = name, inner.name_column = column;
	*found = true;
	return eval(&inner, target, depth + 1);
}

/* A subquery of pg_extension: whether it has a row (EXISTS), or its
 * value (a scalar subquery). */
static value sublink(const scope *s, const jd_node *link, int depth)
{
	const char *type = jd_string(jd_get(link, "subLinkType"));
	const jd_node *select = jd_get(jd_get(link, "subselect"), "SelectStmt");
	if (!type)
		return cant;
	const jd_node *targets = jd_get(select, "targetList");
	const char *op = jd_string(jd_get(select, "op"));
	if (strcmp(type, "EXPR_SUBLINK") == 0 && jd_size(targets) == 1 && !jd_get(select, "fromClause") &&
	    !jd_get(select, "whereClause") && !jd_get(select, "groupClause") && !jd_get(select, "havingClause") &&
	    !jd_get(select, "withClause") && !jd_get(select, "limitCount") && (!op || strcmp(op, "SETOP_NONE") == 0))
		/* (SELECT current_setting('server_version_num')::int) */
		return eval(s, jd_get(jd_get(jd_at(targets, 0), "ResTarget"), "val"), depth + 1);
	if (strcmp(type, "EXISTS_SUBLINK") == 0) {
		const char *name, *column;
		int rows = cgm_do_catalog_rows(select, s->catalog, &name, &column);
		/* a call in the target may be an aggregate's, whose one row exists */
		return rows < 0 || holds_call(targets, 0, false) ? cant : of_bool(rows > 0);
	}
	bool found;
	return strcmp(type, "EXPR_SUBLINK") == 0 ? query_value(s, select, depth, &found) : cant;
}

/* A column of the row a subquery of pg_extension reads: its name. */
static value column(const scope *s, const jd_node *ref)
{
	const jd_node *fields = jd_get(ref, "fields");
	size_t n = jd_size(fields);
	const char *name = n ? jd_string_node(jd_at(fields, n - 1)) : NULL;
	if (!s->extname || !name || n > 2 || strcmp(name, s->name_column) != 0)
		return cant;
	return (value){ .kind = TEXT, .text = s->extname };
}

static value eval(const scope *s, const jd_node *node, int depth)
{
	/* jsondom bounds the tree's depth; this bounds the stack. */
	if (!node || depth > 64)
		return cant;
	const char *kind;
	jd_node *n;
	jd_object_foreach(node, kind, n)
	{
		if (strcmp(kind, "A_Const") == 0)
			return constant(n);
		if (strcmp(kind, "TypeCast") == 0)
			return cast(s, n, depth);
		if (strcmp(kind, "FuncCall") == 0)
			return call(s, n, depth);
		if (strcmp(kind, "A_Expr") == 0)
			return operator(s, n, depth);
		if (strcmp(kind, "BoolExpr") == 0)
			return boolean(s, n, depth);
		if (strcmp(kind, "SubLink") == 0)
			return sublink(s, n, depth);
		if (strcmp(kind, "ColumnRef") == 0)
			return column(s, n);
		if (strcmp(kind, "NullTest") == 0) {
			value v = eval(s, jd_get(n, "arg"), depth + 1);
			if (v.kind == CANT)
				return cant;
			bool is_null = v.kind == NUL;
			const char *test = jd_string(jd_get(n, "nulltesttype"));
			return of_bool(test && strcmp(test, "IS_NOT_NULL") == 0 ? !is_null : is_null);
		}
		return cant;
	}
	return cant;
}

/* The value of `expr` (SELECT <expr>, one target, nothing else), or
 * CANT; its text in `a` when it is text. */
static value evaluate(cgm_arena *a, const char *expr, const cgm_do_catalog *catalog, long long version,
		      bool *read_version)
{
	if (!expr)
		return cant;
	cgm_strbuf sql = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&sql, "SELECT ");
	cgm_strbuf_puts(&sql, expr);
	PgQueryParseResult parsed = pg_query_parse(cgm_strbuf_cstr(&sql));
	cgm_strbuf_free(&sql);
	value result = cant;
	if (!parsed.error && parsed.parse_tree) {
		const jd_node *tree = jd_parse(a, parsed.parse_tree, strlen(parsed.parse_tree));
		const jd_node *stmts = jd_get(tree, "stmts");
		const jd_node *select = jd_get(jd_get(jd_at(stmts, 0), "stmt"), "SelectStmt");
		const jd_node *targets = jd_get(select, "targetList");
		/* One expression, nothing else: a `;` could have ended it. */
		if (jd_size(stmts) == 1 && jd_size(targets) == 1 && !jd_get(select, "fromClause") &&
		    !jd_get(select, "whereClause")) {
			const scope s = { .a = a, .catalog = catalog, .count = -1, .version = version,
					  .read_version = read_version };
			result = eval(&s, jd_get(jd_get(jd_at(targets, 0), "ResTarget"), "val"), 0);
		}
	}
	pg_query_free_parse_result(parsed);
	return result;
}

/* A known value as its text would read (heap), or NULL for SQL's NULL. */
static char *value_text(cgm_arena *a, value v)
{
	if (v.kind == TEXT)
		return strdup(v.text);
	if (v.kind == INT)
		return strdup(cgm_arena_printf(a, "%lld", v.integer));
	if (v.kind == BOOL)
		return strdup(v.boolean ? "true" : "false");
	return NULL;
}

int cgm_do_eval_condition_in(const char *expr, const cgm_do_catalog *catalog)
{
	cgm_arena *a = cgm_arena_new();
	/* The files stand for any release of one major version: a condition
	 * on the version is decided when its first and its last release
	 * decide it alike (`< 90600`, `>= 120000`), not `>= 150004`. */
	long long major = catalog && catalog->server_major > 0 ? catalog->server_major : 0;
	bool read_version = false;
	int result = truth(evaluate(a, expr, catalog, major * 10000, &read_version));
	if (read_version && result >= 0 && truth(evaluate(a, expr, catalog, major * 10000 + 9999, &read_version)) != result)
		result = -1;
	cgm_arena_free(a);
	return result;
}

int cgm_do_eval_condition_at(const char *expr, long long version, bool *read_version)
{
	cgm_arena *a = cgm_arena_new();
	*read_version = false;
	int result = truth(evaluate(a, expr, NULL, version, read_version));
	cgm_arena_free(a);
	return result;
}

int cgm_do_eval_version_value(const char *expr, long long version, char **text)
{
	*text = NULL;
	cgm_arena *a = cgm_arena_new();
	bool read_version = false;
	value v = evaluate(a, expr, NULL, version, &read_version);
	int known = v.kind == CANT || v.array || !read_version ? -1 : 1;
	if (known > 0)
		*text = value_text(a, v);
	cgm_arena_free(a);
	return known;
}

int cgm_do_eval_condition(const char *expr)
{
	return cgm_do_eval_condition_in(expr, NULL);
}

int cgm_do_eval_query(const char *query, const cgm_do_catalog *catalog, char **text, bool *found)
{
	*text = NULL;
	*found = false;
	if (!query || !catalog)
		return -1;
	PgQueryParseResult parsed = pg_query_parse(query);
	cgm_arena *a = cgm_arena_new();
	int known = -1;
	if (!parsed.error && parsed.parse_tree) {
		const jd_node *tree = jd_parse(a, parsed.parse_tree, strlen(parsed.parse_tree));
		const jd_node *stmts = jd_get(tree, "stmts");
		const jd_node *select = jd_get(jd_get(jd_at(stmts, 0), "stmt"), "SelectStmt");
		bool read_version = false; /* the version is unknown here: never read */
		const scope s = { .a = a, .catalog = catalog, .count = -1, .read_version = &read_version };
		value v = jd_size(stmts) == 1 && !jd_get(select, "intoClause") ? query_value(&s, select, 0, found)
									  : cant;
		if (v.kind != CANT) {
			known = 1;
			*text = value_text(a, v);
		}
	}
	cgm_arena_free(a);
	pg_query_free_parse_result(parsed);
	return known;
}

int cgm_do_eval_value(const char *expr, const cgm_do_catalog *catalog, char **text)
{
	*text = NULL;
	if (!expr || !catalog)
		return -1;
	cgm_arena *a = cgm_arena_new();
	bool read_version = false; /* the version is one value only for conditions */
	value v = evaluate(a, expr, catalog, 0, &read_version);
	int known = v.kind == CANT || v.array ? -1 : 1;
	if (known > 0)
		*text = value_text(a, v);
	cgm_arena_free(a);
	return known;
}
