/*
 * doblock.c - the schema-changing SQL of a DO block (see doblock.h).
 *
 * In: a block's body.  Out: SQL texts in the caller's arena; the PL/pgSQL
 * parse tree (libpg_query's JSON, read with jsondom into an arena of its
 * own) and the parse results are freed before returning.
 */
#include "doblock.h"

#include <pg_query.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/strbuf.h"
#include "cgmap/pipeline.h"
#include "jsondom.h"
#include "sqllex.h"
#include "sqlprep.h"

typedef struct collected {
	cgm_arena *arena;
	cgm_do_sql *items;
	int n, cap;
} collected;

static void add(collected *c, const char *sql, int line)
{
	if (!sql || !*sql)
		return;
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 8;
		c->items = cgm_arena_grow(c->arena, c->items, (size_t)c->n, (size_t)cap, sizeof(cgm_do_sql));
		c->cap = cap;
	}
	c->items[c->n].sql = cgm_arena_strdup(c->arena, sql);
	c->items[c->n].line = line > 0 ? line : 1;
	c->n++;
}

/* EXECUTE's SQL when it is constant, as extraction reads it. */
static void add_constant(collected *c, const char *expr, int line)
{
	char *sql = expr ? cgm_extract_constant_sql(expr) : NULL;
	add(c, sql, line);
	free(sql);
}

static const char *expr_query(const jd_node *expr)
{
	return jd_string(jd_get(jd_get(expr, "PLpgSQL_expr"), "query"));
}

static void walk(collected *c, const jd_node *stmts, int depth);

static void walk_statement(collected *c, const jd_node *wrapper, int depth)
{
	const char *kind;
	jd_node *stmt;
	jd_object_foreach(wrapper, kind, stmt)
	{
		int line = (int)jd_integer(jd_get(stmt, "lineno"));
		if (strcmp(kind, "PLpgSQL_stmt_execsql") == 0)
			add(c, expr_query(jd_get(stmt, "sqlstmt")), line);
		else if (strcmp(kind, "PLpgSQL_stmt_dynexecute") == 0)
			add_constant(c, expr_query(jd_get(stmt, "query")), line);
		else if (strcmp(kind, "PLpgSQL_stmt_block") == 0)
			walk(c, jd_get(stmt, "body"), depth + 1);
		else if (strcmp(kind, "PLpgSQL_stmt_if") == 0)
			walk(c, jd_get(stmt, "then_body"), depth + 1);
	}
}

static void walk(collected *c, const jd_node *stmts, int depth)
{
	/* jsondom bounds the tree's depth; this bounds the walk's stack. */
	if (depth > 64)
		return;
	for (size_t i = 0; i < jd_size(stmts); i++)
		walk_statement(c, jd_at(stmts, i), depth);
}


int cgm_do_block_sql(cgm_arena *arena, const char *body, cgm_do_sql **out)
{
	*out = NULL;
	char tag[32];
	cgm_sql_dollar_tag(tag, sizeof tag, body);
	/* What extraction refuses of a body (sqlprep.h) is not read here
	 * either: PostgreSQL's lexer would take too long over it. */
	cgm_sql_problem problem;
	if (!cgm_sql_check(body, CGM_SQL_CHECK_LEXER, &problem))
		return 0;
	cgm_strbuf sql = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&sql, "CREATE FUNCTION cgmap_do() RETURNS void LANGUAGE plpgsql AS ");
	cgm_strbuf_puts(&sql, tag);
	cgm_strbuf_puts(&sql, body);
	cgm_strbuf_puts(&sql, tag);
	PgQueryPlpgsqlParseResult r = pg_query_parse_plpgsql(cgm_strbuf_cstr(&sql));
	cgm_strbuf_free(&sql);
	collected c = { .arena = arena };
	if (!r.error && r.plpgsql_funcs) {
		cgm_arena *tree_arena = cgm_arena_new();
		jd_node *funcs = jd_parse(tree_arena, r.plpgsql_funcs, strlen(r.plpgsql_funcs));
		jd_node *action = jd_get(jd_get(jd_at(funcs, 0), "PLpgSQL_function"), "action");
		walk_statement(&c, action, 0);
		cgm_arena_free(tree_arena);
	}
	pg_query_free_plpgsql_parse_result(r);
	*out = c.items;
	return c.n;
}
