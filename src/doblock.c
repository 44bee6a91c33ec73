/*
 * doblock.c - the schema-changing SQL of a DO block (see doblock.h).
 *
 * In: a block's body and its session.  Out: SQL texts to the session's
 * `apply`, as they run; the PL/pgSQL parse tree (libpg_query's JSON, read
 * with jsondom into an arena of its own), the variables' values, the
 * parse results and a body rewritten for libpg_query (an atomic body,
 * plpgsql_rewrite.h) are freed before returning.
 */
#include "doblock.h"

#include <pg_query.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/strbuf.h"
#include "cgmap/pipeline.h"
#include "dovars.h"
#include "jsondom.h"
#include "plpgsql_locate.h"
#include "plpgsql_rewrite.h"
#include "sqllex.h"
#include "sqlprep.h"

typedef struct runner {
	const cgm_do_session *session;
	cgm_arena *arena; /* the parse tree's, and the values' */
	cgm_do_vars *vars;
	const jd_node *datums;
	int n;
	int ddl; /* of them, statements that may change the schema (changes_schema) */
	/* The body as written, and as parsed when a rewrite made it one
	 * libpg_query reads (plpgsql_rewrite.h), else NULL; the offset in it
	 * the next statement is looked for from. */
	const char *body, *rewritten;
	long from;
} runner;

/* Does `sql` start (past blanks, brackets and comments) with one of the
 * commands, a whole word? */
static bool starts_with_command(const char *sql, const char *const *commands)
{
	size_t i = 0;
	for (;;) { /* past blanks and comments */
		while (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r' || sql[i] == '(')
			i++;
		size_t past = sql[i] == '-' || sql[i] == '/' ? cgm_sql_skip_opaque(sql, i) : i;
		if (past == i)
			break;
		i = past;
	}
	for (int k = 0; commands[k]; k++) {
		size_t len = strlen(commands[k]);
		if (strncasecmp(sql + i, commands[k], len) != 0)
			continue;
		char next = sql[i + len]; /* the strings matched: sql is that long */
		if (next == '\0' || next == ' ' || next == '\t' || next == '\n' || next == '\r' || next == '$' ||
		    next == '\'')
			return true;
	}
	return false;
}

/* Does `sql` start with a command that may change the schema or the
 * session's search_path (CREATE, ALTER, DROP, DO, SET, COMMENT, GRANT,
 * REVOKE), as opposed to a query or a row change? */
static bool changes_schema(const char *sql)
{
	static const char *const commands[] = { "create", "alter", "drop", "do", "set",
						"comment", "grant", "revoke", NULL };
	return starts_with_command(sql, commands);
}

static void apply(runner *r, const char *sql, int line)
{
	if (!sql || !*sql)
		return;
	r->session->apply(r->session->ctx, sql, line > 0 ? line : 1);
	r->n++;
	if (changes_schema(sql))
		r->ddl++;
}

/* A statement's text as the body wrote it: what the rewrite changed in
 * it (an atomic body, at the same offsets) put back. */
static const char *as_written(runner *r, const char *sql)
{
	if (!r->rewritten || !sql)
		return sql;
	long at = cgm_plpgsql_locate(r->rewritten, r->from, sql);
	if (at < 0)
		return sql;
	size_t len = strlen(sql);
	r->from = at + (long)len;
	if (memcmp(r->rewritten + at, r->body + at, len) == 0)
		return sql;
	return cgm_arena_strndup(r->arena, r->body + at, len);
}

static const char *show(runner *r, const char *setting)
{
	return setting && r->session->show ? r->session->show(r->session->ctx, setting) : NULL;
}

/* The constant SQL (or text) `expr` yields with the variables' values
 * known, as extraction reads it (heap), or NULL. */
static char *constant(runner *r, const char *expr)
{
	char *substituted = expr ? cgm_do_vars_substitute(r->vars, expr) : NULL;
	char *sql = substituted ? cgm_extract_constant_sql(substituted) : NULL;
	free(substituted);
	return sql;
}

/* The value `expr` gives a variable: a setting it reads, or a constant. */
static const char *value_of(runner *r, const char *expr)
{
	const char *setting = expr ? cgm_do_vars_current_setting(r->arena, expr) : NULL;
	if (setting)
		return show(r, setting);
	char *c = constant(r, expr);
	const char *value = c ? cgm_arena_strdup(r->arena, c) : NULL;
	free(c);
	return value;
}

static const char *expr_query(const jd_node *expr)
{
	return jd_string(jd_get(jd_get(expr, "PLpgSQL_expr"), "query"));
}

static const char *datum_name(const runner *r, long long varno)
{
	const jd_node *d = varno >= 0 ? jd_at(r->datums, (size_t)varno) : NULL;
	const char *kind;
	jd_node *datum;
	jd_object_foreach(d, kind, datum)
	{
		if (strcmp(kind, "PLpgSQL_var") == 0 || strcmp(kind, "PLpgSQL_rec") == 0)
			return jd_string(jd_get(datum, "refname"));
	}
	return NULL;
}

/* An INTO target's variables: one of them gets `value` (the only one),
 * the others an unknown value. */
static void set_target(runner *r, const jd_node *target, const char *value)
{
	const jd_node *row = jd_get(target, "PLpgSQL_row");
	const jd_node *fields = jd_get(row, "fields");
	for (size_t i = 0; i < jd_size(fields); i++)
		cgm_do_vars_set(r->vars, jd_string(jd_get(jd_at(fields, i), "name")),
				jd_size(fields) == 1 ? value : NULL);
	if (!row) {
		const char *kind;
		jd_node *datum;
		jd_object_foreach(target, kind, datum)
		{
			(void)kind;
			cgm_do_vars_set(r->vars, jd_string(jd_get(datum, "refname")), NULL);
		}
	}
}

/* `v := expr` as PL/pgSQL keeps it: the expression after `:=` (or `=`). */
static const char *assigned_expr(const char *query)
{
	for (size_t i = 0; query && query[i];) {
		size_t past = cgm_sql_skip_opaque(query, i);
		if (past > i) {
			i = past;
			continue;
		}
		if (query[i] == ':' && query[i + 1] == '=')
			return query + i + 2;
		if (query[i] == '=')
			return query + i + 1;
		i++;
	}
	return NULL;
}

/* What a query selects, past its SELECT keyword, or NULL. */
static const char *selected(const char *q)
{
	while (q && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
		q++;
	return q && strncasecmp(q, "select", 6) == 0 && (q[6] == ' ' || q[6] == '\t' || q[6] == '\n' || q[6] == '\r')
		       ? q + 6
		       : NULL;
}

/* Whether an EXECUTE's expression may run SQL that changes the schema:
 * unless it starts with constant text (a literal, or format()'s template)
 * whose command does not. */
static bool may_change_schema(const char *expr)
{
	const char *p = expr;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '(')
		p++;
	if (strncasecmp(p, "format", 6) == 0) {
		p += 6;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '(')
			p++;
	}
	if (*p == 'E' || *p == 'e')
		p++;
	if (*p != '\'')
		return true; /* a variable, a call: anything */
	/* Of the commands that change the schema, those that make, change or
	 * drop what the map holds, or its search_path (not GRANT, COMMENT). */
	static const char *const commands[] = { "create", "alter", "drop", "do", "set", NULL };
	return starts_with_command(p + 1, commands);
}

/* The EXECUTEs of statements not followed (a loop's body, a CASE): none
 * is applied (what a loop makes would be made once per turn); those that
 * may change the schema are said. */
static void report_unfollowed(runner *r, const jd_node *node, int depth)
{
	if (!r->session->unknown || depth > 64)
		return;
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			report_unfollowed(r, jd_at(node, i), depth + 1);
		return;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
	{
		if (strcmp(key, "PLpgSQL_stmt_dynexecute") == 0) {
			const char *expr = expr_query(jd_get(value, "query"));
			if (expr && may_change_schema(expr))
				r->session->unknown(r->session->ctx, expr, (int)jd_integer(jd_get(value, "lineno")));
		} else if (jd_is_object(value) || jd_is_array(value)) {
			report_unfollowed(r, value, depth + 1);
		}
	}
}

static void walk(runner *r, const jd_node *stmts, int depth);

static void walk_statement(runner *r, const jd_node *wrapper, int depth)
{
	const char *kind;
	jd_node *stmt;
	jd_object_foreach(wrapper, kind, stmt)
	{
		int line = (int)jd_integer(jd_get(stmt, "lineno"));
		if (strcmp(kind, "PLpgSQL_stmt_execsql") == 0) {
			const char *sql = expr_query(jd_get(stmt, "sqlstmt"));
			if (jd_is_true(jd_get(stmt, "into"))) {
				/* SELECT current_setting('search_path') INTO v */
				const char *what = selected(sql);
				const char *setting = what ? cgm_do_vars_current_setting(r->arena, what) : NULL;
				set_target(r, jd_get(stmt, "target"), show(r, setting));
			}
			apply(r, as_written(r, sql), line);
		} else if (strcmp(kind, "PLpgSQL_stmt_dynexecute") == 0) {
			const char *expr = expr_query(jd_get(stmt, "query"));
			char *sql = constant(r, expr);
			const char *shown = sql ? cgm_do_vars_shown(r->arena, sql) : NULL;
			if (jd_is_true(jd_get(stmt, "into")))
				set_target(r, jd_get(stmt, "target"), show(r, shown));
			if (!shown)
				apply(r, sql, line);
			if (!sql && expr && r->session->unknown && may_change_schema(expr))
				r->session->unknown(r->session->ctx, expr, line);
			free(sql);
		} else if (strcmp(kind, "PLpgSQL_stmt_assign") == 0) {
			const char *name = datum_name(r, jd_integer(jd_get(stmt, "varno")));
			cgm_do_vars_set(r->vars, name, value_of(r, assigned_expr(expr_query(jd_get(stmt, "expr")))));
		} else if (strcmp(kind, "PLpgSQL_stmt_block") == 0) {
			walk(r, jd_get(stmt, "body"), depth + 1);
		} else if (strcmp(kind, "PLpgSQL_stmt_call") == 0) {
			/* A DO block of its own, which PL/pgSQL parses as it parses
			 * CALL (is_call false): the session runs it. */
			const char *sql = expr_query(jd_get(stmt, "expr"));
			if (!jd_is_true(jd_get(stmt, "is_call")))
				apply(r, sql, line);
		} else if (strcmp(kind, "PLpgSQL_stmt_if") == 0) {
			/* The first branch that changes the schema: THEN for "IF
			 * NOT EXISTS (...) THEN CREATE ...", ELSE for "IF found
			 * THEN RAISE NOTICE 'exists' ELSE CREATE ...". */
			int before = r->ddl;
			walk(r, jd_get(stmt, "then_body"), depth + 1);
			const jd_node *elsifs = jd_get(stmt, "elsif_list");
			bool then_ddl = r->ddl != before;
			/* When no branch changes the schema, THEN's values stand:
			 * "IF version >= 150000 THEN q := '...new...'; ELSE q :=
			 * '...old...'; END IF; EXECUTE q;" as a current server runs
			 * it, the first branch as for DDL. */
			cgm_do_vars *then_values = then_ddl ? NULL : cgm_do_vars_copy(r->vars);
			for (size_t k = 0; k < jd_size(elsifs) && r->ddl == before; k++)
				walk(r, jd_get(jd_get(jd_at(elsifs, k), "PLpgSQL_if_elsif"), "stmts"), depth + 1);
			if (r->ddl == before)
				walk(r, jd_get(stmt, "else_body"), depth + 1);
			if (then_values && r->ddl == before)
				cgm_do_vars_restore(r->vars, then_values);
			else if (elsifs || jd_get(stmt, "else_body"))
				cgm_do_vars_forget(r->vars); /* a branch not followed may assign anything */
		} else if (strstr(kind, "loop") || strstr(kind, "while") || strncmp(kind, "PLpgSQL_stmt_for", 16) == 0 ||
			   strcmp(kind, "PLpgSQL_stmt_case") == 0 || strcmp(kind, "PLpgSQL_stmt_getdiag") == 0) {
			report_unfollowed(r, stmt, depth + 1);
			cgm_do_vars_forget(r->vars);
		} else if (jd_get(stmt, "target")) {
			set_target(r, jd_get(stmt, "target"), NULL);
		}
	}
}

static void walk(runner *r, const jd_node *stmts, int depth)
{
	/* jsondom bounds the tree's depth; this bounds the walk's stack. */
	if (depth > 64)
		return;
	for (size_t i = 0; i < jd_size(stmts); i++)
		walk_statement(r, jd_at(stmts, i), depth);
}

/* The declared variables, with the values of their defaults. */
static void declare(runner *r)
{
	for (size_t i = 0; i < jd_size(r->datums); i++) {
		const jd_node *var = jd_get(jd_at(r->datums, i), "PLpgSQL_var");
		const char *name = jd_string(jd_get(var, "refname"));
		if (name)
			cgm_do_vars_set(r->vars, name, value_of(r, expr_query(jd_get(var, "default_val"))));
	}
}

/* The block's body parsed as the body of a function, or of a procedure
 * taking `arguments` (caller frees the result). */
static PgQueryPlpgsqlParseResult parse_block(const char *tag, const char *body,
					     const char *arguments)
{
	cgm_strbuf sql = CGM_STRBUF_INIT;
	if (arguments)
		cgm_strbuf_printf(&sql, "CREATE PROCEDURE cgmap_do(%s) LANGUAGE plpgsql AS ", arguments);
	else
		cgm_strbuf_puts(&sql, "CREATE FUNCTION cgmap_do() RETURNS void LANGUAGE plpgsql AS ");
	cgm_strbuf_puts(&sql, tag);
	cgm_strbuf_puts(&sql, body);
	cgm_strbuf_puts(&sql, tag);
	PgQueryPlpgsqlParseResult parsed = pg_query_parse_plpgsql(cgm_strbuf_cstr(&sql));
	cgm_strbuf_free(&sql);
	return parsed;
}

int cgm_do_block_run(const char *body, const cgm_do_session *session)
{
	char tag[32];
	cgm_sql_dollar_tag(tag, sizeof tag, body);
	/* What extraction refuses of a body (sqlprep.h) is not read here
	 * either: PostgreSQL's lexer would take too long over it. */
	cgm_sql_problem problem;
	if (!cgm_sql_check(body, CGM_SQL_CHECK_LEXER, &problem))
		return 0;
	PgQueryPlpgsqlParseResult parsed = parse_block(tag, body, session->procedure_arguments);
	runner r = { .session = session, .body = body };
	/* A CREATE FUNCTION ... BEGIN ATOMIC in the block, which libpg_query's
	 * PL/pgSQL parser ends at its first `;`: read as a string body. */
	char *rewritten = parsed.error ? cgm_plpgsql_atomic_as_string(body) : NULL;
	if (rewritten) {
		pg_query_free_plpgsql_parse_result(parsed);
		parsed = parse_block(tag, rewritten, session->procedure_arguments);
		r.rewritten = rewritten;
	}
	if (!parsed.error && parsed.plpgsql_funcs) {
		r.arena = cgm_arena_new();
		r.vars = cgm_do_vars_new(r.arena);
		jd_node *funcs = jd_parse(r.arena, parsed.plpgsql_funcs, strlen(parsed.plpgsql_funcs));
		jd_node *function = jd_get(jd_at(funcs, 0), "PLpgSQL_function");
		r.datums = jd_get(function, "datums");
		declare(&r);
		walk_statement(&r, jd_get(function, "action"), 0);
		cgm_arena_free(r.arena);
	}
	pg_query_free_plpgsql_parse_result(parsed);
	free(rewritten);
	return r.n;
}
