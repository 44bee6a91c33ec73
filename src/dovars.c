/*
 * dovars.c - the values a DO block's variables hold (see dovars.h).
 */
#include "dovars.h"

#include <ctype.h>
#include <pg_query.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/sqlformat.h"
#include "cgmap/strbuf.h"
#include "docatalog.h"
#include "jsondom.h"
#include "sqllex.h"
#include "sqlprep.h"

typedef struct do_var {
	const char *name;  /* lower-cased */
	const char *value; /* NULL: unknown */
	bool null;         /* SQL's NULL (value "") */
} do_var;

struct cgm_do_vars {
	cgm_arena *arena;
	do_var *vars;
	int n, cap;
	const char *database; /* what current_database() gives, or NULL: kept */
};

void cgm_do_vars_set_database(cgm_do_vars *vars, const char *name)
{
	vars->database = name;
}

cgm_do_vars *cgm_do_vars_new(cgm_arena *arena)
{
	cgm_do_vars *v = cgm_arena_alloc(arena, sizeof *v);
	v->arena = arena;
	return v;
}

static char *lowered(cgm_arena *arena, const char *s, size_t len)
{
	char *out = cgm_arena_alloc(arena, len + 1);
	for (size_t i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[len] = '\0';
	return out;
}

static do_var *find(const cgm_do_vars *v, const char *name, size_t len)
{
	for (int i = v->n - 1; i >= 0; i--)
		if (strlen(v->vars[i].name) == len && strncasecmp(v->vars[i].name, name, len) == 0)
			return &v->vars[i];
	return NULL;
}

void cgm_do_vars_set(cgm_do_vars *v, const char *name, const char *value)
{
	if (!name)
		return;
	do_var *var = find(v, name, strlen(name));
	if (!var) {
		if (v->n == v->cap) {
			int cap = v->cap ? v->cap * 2 : 8;
			v->vars = cgm_arena_grow(v->arena, v->vars, (size_t)v->n, (size_t)cap, sizeof(do_var));
			v->cap = cap;
		}
		var = &v->vars[v->n++];
		var->name = lowered(v->arena, name, strlen(name));
	}
	var->value = value ? cgm_arena_strdup(v->arena, value) : NULL;
	var->null = false;
}

void cgm_do_vars_set_null(cgm_do_vars *v, const char *name)
{
	cgm_do_vars_set(v, name, "");
	if (name)
		find(v, name, strlen(name))->null = true;
}

void cgm_do_vars_forget(cgm_do_vars *v)
{
	for (int i = 0; i < v->n; i++)
		v->vars[i].value = NULL;
}

cgm_do_vars *cgm_do_vars_copy(const cgm_do_vars *v)
{
	cgm_do_vars *c = cgm_do_vars_new(v->arena);
	c->vars = cgm_arena_alloc(v->arena, sizeof(do_var) * (size_t)(v->n ? v->n : 1));
	memcpy(c->vars, v->vars, sizeof(do_var) * (size_t)v->n);
	c->n = c->cap = v->n;
	return c;
}

void cgm_do_vars_restore(cgm_do_vars *v, const cgm_do_vars *copy)
{
	/* Names and values are the arena's: the entries are shared. */
	if (copy->n > v->cap) {
		v->vars = cgm_arena_grow(v->arena, v->vars, (size_t)v->n, (size_t)copy->n, sizeof(do_var));
		v->cap = copy->n;
	}
	memcpy(v->vars, copy->vars, sizeof(do_var) * (size_t)copy->n);
	v->n = copy->n;
}

/* The variable's value as a literal, or the name as written when it
 * names none (`var` NULL); false when its value is unknown. */
static bool put_value(cgm_strbuf *out, const do_var *var, const char *name, size_t len)
{
	if (var && !var->value)
		return false;
	if (var && var->null)
		cgm_strbuf_puts(out, "NULL");
	else if (var)
		cgm_sql_quote_literal(out, var->value);
	else
		cgm_strbuf_add(out, name, len);
	return true;
}

/* Where a call of current_database() (or pg_catalog's) starting at `i`
 * ends, or 0 when none starts there. */
static size_t database_call(const char *expr, size_t i)
{
	if (i > 0 && (cgm_sql_ident_char((unsigned char)expr[i - 1]) || expr[i - 1] == '.'))
		return 0;
	size_t at = i;
	if (strncasecmp(expr + at, "pg_catalog.", 11) == 0)
		at += 11;
	if (strncasecmp(expr + at, "current_database", 16) != 0 ||
	    cgm_sql_ident_char((unsigned char)expr[at + 16]))
		return 0;
	at += 16;
	while (expr[at] == ' ' || expr[at] == '\t' || expr[at] == '\n' || expr[at] == '\r')
		at++;
	if (expr[at] != '(')
		return 0;
	at++;
	while (expr[at] == ' ' || expr[at] == '\t' || expr[at] == '\n' || expr[at] == '\r')
		at++;
	return expr[at] == ')' ? at + 1 : 0;
}

char *cgm_do_vars_substitute(const cgm_do_vars *v, const char *expr)
{
	cgm_strbuf out = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&out, "");
	size_t i = 0;
	while (expr[i]) {
		size_t past = cgm_sql_skip_opaque(expr, i);
		if (past > i) {
			cgm_strbuf_add(&out, expr + i, past - i);
			i = past;
			continue;
		}
		unsigned char c = (unsigned char)expr[i];
		if (c == '$' && expr[i + 1] >= '0' && expr[i + 1] <= '9' &&
		    (i == 0 || !cgm_sql_ident_char((unsigned char)expr[i - 1]))) {
			/* A positional parameter, `$2`: the variable "$2". */
			size_t end = i + 1;
			while (expr[end] >= '0' && expr[end] <= '9')
				end++;
			if (!put_value(&out, find(v, expr + i, end - i), expr + i, end - i)) {
				cgm_strbuf_free(&out);
				return NULL;
			}
			i = end;
			continue;
		}
		bool starts = cgm_sql_ident_char(c) && !(c >= '0' && c <= '9') && c != '$' &&
			      (i == 0 || (!cgm_sql_ident_char((unsigned char)expr[i - 1]) && expr[i - 1] != '.'));
		size_t called = v->database ? database_call(expr, i) : 0;
		if (called) {
			cgm_sql_quote_literal(&out, v->database);
			i = called;
			continue;
		}
		if (!starts) {
			cgm_strbuf_putc(&out, expr[i++]);
			continue;
		}
		size_t end = i;
		while (cgm_sql_ident_char((unsigned char)expr[end]))
			end++;
		size_t next = end;
		while (expr[next] == ' ' || expr[next] == '\t' || expr[next] == '\n' || expr[next] == '\r')
			next++;
		size_t before = i;
		while (before > 0 && (expr[before - 1] == ' ' || expr[before - 1] == '\t' || expr[before - 1] == '\n'))
			before--;
		/* Not a function's name, a qualified name's part or a type cast to. */
		bool cast = before >= 2 && expr[before - 1] == ':' && expr[before - 2] == ':';
		const do_var *var = expr[next] == '(' || expr[next] == '.' || cast ? NULL : find(v, expr + i, end - i);
		if (!put_value(&out, var, expr + i, end - i)) {
			cgm_strbuf_free(&out);
			return NULL;
		}
		i = end;
	}
	char *s = strdup(cgm_strbuf_cstr(&out));
	cgm_strbuf_free(&out);
	return s;
}

/* The first statement of `sql` parsed into the arena, or NULL when it does
 * not parse or holds more than one. */
static jd_node *only_statement(cgm_arena *arena, const char *sql)
{
	cgm_sql_problem problem;
	if (!cgm_sql_check(sql, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem))
		return NULL;
	PgQueryParseResult r = pg_query_parse(sql);
	jd_node *stmt = NULL;
	if (!r.error) {
		jd_node *tree = jd_parse(arena, r.parse_tree, strlen(r.parse_tree));
		jd_node *stmts = jd_get(tree, "stmts");
		if (jd_size(stmts) == 1)
			stmt = jd_get(jd_at(stmts, 0), "stmt");
	}
	pg_query_free_parse_result(r);
	return stmt;
}

/* `SELECT what` parsed into the arena: what a SELECT ... INTO selects. */
static jd_node *selected_query(cgm_arena *arena, const char *what)
{
	cgm_strbuf sql = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&sql, "SELECT ");
	cgm_strbuf_puts(&sql, what);
	jd_node *select = jd_get(only_statement(arena, cgm_strbuf_cstr(&sql)), "SelectStmt");
	cgm_strbuf_free(&sql);
	return select;
}

const char *cgm_do_vars_current_setting(cgm_arena *arena, const char *expr)
{
	if (!strcasestr(expr, "current_setting"))
		return NULL; /* not worth a parse: most expressions are not */
	cgm_arena *scratch = cgm_arena_new();
	jd_node *select = selected_query(scratch, expr);
	const char *setting = NULL;
	jd_node *targets = jd_get(select, "targetList");
	jd_node *call = jd_get(jd_get(jd_get(jd_at(targets, 0), "ResTarget"), "val"), "FuncCall");
	jd_node *names = jd_get(call, "funcname");
	size_t n = jd_size(names);
	const char *name = n ? jd_string(jd_get(jd_get(jd_at(names, n - 1), "String"), "sval")) : NULL;
	const char *schema = n == 2 ? jd_string(jd_get(jd_get(jd_at(names, 0), "String"), "sval")) : NULL;
	jd_node *args = jd_get(call, "args");
	const char *arg = jd_string(jd_get(jd_get(jd_get(jd_at(args, 0), "A_Const"), "sval"), "sval"));
	if (jd_size(targets) == 1 && !jd_get(select, "fromClause") && !jd_get(select, "whereClause") &&
	    name && strcmp(name, "current_setting") == 0 && (n == 1 || (schema && strcmp(schema, "pg_catalog") == 0)) &&
	    jd_size(args) == 1 && arg)
		setting = lowered(arena, arg, strlen(arg));
	cgm_arena_free(scratch);
	return setting;
}

const char *cgm_do_vars_settings_row(cgm_arena *arena, const char *expr, bool *reset)
{
	*reset = false;
	if (!strcasestr(expr, "pg_settings"))
		return NULL;
	cgm_arena *scratch = cgm_arena_new();
	jd_node *select = selected_query(scratch, expr);
	const char *setting = NULL;
	/* One column, setting or reset_val, ... */
	jd_node *targets = jd_get(select, "targetList");
	jd_node *ref = jd_get(jd_get(jd_get(jd_at(targets, 0), "ResTarget"), "val"), "ColumnRef");
	jd_node *fields = jd_get(ref, "fields");
	const char *column = jd_size(fields) ? jd_string_node(jd_at(fields, jd_size(fields) - 1)) : NULL;
	/* ... of pg_settings alone, WHERE name = 'x' (docatalog.h). */
	const char *table = cgm_do_catalog_table(select, "pg_settings");
	const char *value = table ? cgm_do_catalog_key(jd_get(select, "whereClause"), table, "name") : NULL;
	if (jd_size(targets) == 1 && column && (strcmp(column, "setting") == 0 || strcmp(column, "reset_val") == 0) &&
	    value) {
		setting = lowered(arena, value, strlen(value));
		*reset = strcmp(column, "reset_val") == 0;
	}
	cgm_arena_free(scratch);
	return setting;
}

bool cgm_do_vars_alters_database(const char *sql)
{
	if (!strcasestr(sql, "database"))
		return false;
	cgm_arena *scratch = cgm_arena_new();
	jd_node *stmt = only_statement(scratch, sql);
	bool alters = jd_get(stmt, "AlterDatabaseSetStmt") != NULL;
	cgm_arena_free(scratch);
	return alters;
}

const char *cgm_do_vars_shown(cgm_arena *arena, const char *sql)
{
	if (!strcasestr(sql, "show"))
		return NULL;
	cgm_arena *scratch = cgm_arena_new();
	const char *name = jd_string(jd_get(jd_get(only_statement(scratch, sql), "VariableShowStmt"), "name"));
	const char *setting = name ? lowered(arena, name, strlen(name)) : NULL;
	cgm_arena_free(scratch);
	return setting;
}
