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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/strbuf.h"
#include "cgmap/pipeline.h"
#include "doeval.h"
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
	/* Inside branches taken for want of knowing their conditions: a
	 * RETURN there does not end the walk. */
	int guessing;
	bool returned;
	int guarded; /* blocks with an EXCEPTION clause around */
	bool found_known; /* FOUND was set from a query the files tell */
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
	r->session->apply(r->session->ctx, sql, line > 0 ? line : 1, r->guarded > 0);
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

/* What a SELECT ... INTO reads of the settings: current_setting('x'), or
 * setting or reset_val of pg_settings' row x; NULL when anything else. */
static const char *setting_read(runner *r, const char *what)
{
	if (!what)
		return NULL;
	const char *setting = cgm_do_vars_current_setting(r->arena, what);
	if (setting)
		return show(r, setting);
	bool reset = false;
	setting = cgm_do_vars_settings_row(r->arena, what, &reset);
	if (!setting)
		return NULL;
	if (!reset)
		return show(r, setting);
	return r->session->show_reset ? r->session->show_reset(r->session->ctx, setting) : NULL;
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

/* An EXECUTE's SQL naming the database through current_database(), which
 * the files cannot tell: applied when it is ALTER DATABASE ... SET or
 * RESET, which the map applies whatever the name (heap), else NULL. */
static char *database_sql(runner *r, const char *expr)
{
	if (!expr || !strcasestr(expr, "current_database"))
		return NULL;
	cgm_do_vars_set_database(r->vars, "current_database");
	char *sql = constant(r, expr);
	cgm_do_vars_set_database(r->vars, NULL);
	if (sql && !cgm_do_vars_alters_database(sql)) {
		free(sql);
		sql = NULL;
	}
	return sql;
}

/* A number or boolean as written (`1`, `-2.5`, `true`), in the arena, or
 * NULL: constant() takes text only. */
static const char *scalar(runner *r, const char *expr)
{
	while (*expr == ' ' || *expr == '\t' || *expr == '\n' || *expr == '\r')
		expr++;
	size_t len = strlen(expr);
	while (len > 0 && (expr[len - 1] == ' ' || expr[len - 1] == '\t' || expr[len - 1] == '\n' ||
			   expr[len - 1] == '\r'))
		len--;
	if ((len == 4 && strncasecmp(expr, "true", 4) == 0) || (len == 5 && strncasecmp(expr, "false", 5) == 0))
		return cgm_arena_strndup(r->arena, expr, len);
	size_t i = expr[0] == '-' ? 1 : 0, digits = 0, dots = 0;
	for (; i < len; i++) {
		if (expr[i] >= '0' && expr[i] <= '9')
			digits++;
		else if (expr[i] == '.' && dots++ == 0)
			continue;
		else
			return NULL;
	}
	return digits ? cgm_arena_strndup(r->arena, expr, len) : NULL;
}

/* The value `expr` gives a variable: a setting it reads, or a constant. */
static const char *value_of(runner *r, const char *expr)
{
	const char *setting = expr ? cgm_do_vars_current_setting(r->arena, expr) : NULL;
	if (setting)
		return show(r, setting);
	const char *number = expr ? scalar(r, expr) : NULL;
	if (number)
		return number;
	char *c = constant(r, expr);
	if (!c && expr && r->session->catalog && strcasestr(expr, "extension")) {
		/* v := (SELECT count(*) = 1 FROM pg_extension WHERE ...) */
		char *substituted = cgm_do_vars_substitute(r->vars, expr);
		if (substituted && cgm_do_eval_value(substituted, r->session->catalog, &c) < 0)
			c = NULL;
		free(substituted);
	}
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

/* FOUND after a statement that sets it from rows the files cannot
 * tell: unknown again (until a query of pg_extension sets it, FOUND is no
 * variable of the table, so the condition naming it is undecided). */
static void forget_found(runner *r)
{
	if (r->found_known)
		cgm_do_vars_set(r->vars, "found", NULL);
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

/* 1 or 0 as the IF condition `cond` holds with the values known, -1 when
 * the files cannot tell. */
static int decide(runner *r, const jd_node *cond)
{
	const char *expr = expr_query(cond);
	char *substituted = expr ? cgm_do_vars_substitute(r->vars, expr) : NULL;
	int holds = substituted ? cgm_do_eval_condition_in(substituted, r->session->catalog) : -1;
	free(substituted);
	return holds;
}

/* A call `f(...)` (or `schema.f(...)`) that is the whole expression, its
 * arguments' values known: applied as `SELECT f(...)`, which runs what f
 * runs.  `SELECT f(...)` as PERFORM keeps it is taken too.  Whether it
 * was applied. */
static bool apply_call(runner *r, const char *expr, int line)
{
	if (!expr)
		return false;
	const char *p = selected(expr);
	p = p ? p : expr;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	size_t i = 0;
	while (cgm_sql_ident_char((unsigned char)p[i]) || (p[i] == '.' && i > 0))
		i++;
	if (i == 0 || p[i] != '(' || (p[0] >= '0' && p[0] <= '9') || p[0] == '$')
		return false;
	char *substituted = cgm_do_vars_substitute(r->vars, p);
	if (substituted) {
		cgm_strbuf sql = CGM_STRBUF_INIT;
		cgm_strbuf_puts(&sql, "SELECT ");
		cgm_strbuf_puts(&sql, substituted);
		apply(r, cgm_arena_strdup(r->arena, cgm_strbuf_cstr(&sql)), line);
		cgm_strbuf_free(&sql);
	}
	bool applied = substituted != NULL;
	free(substituted);
	return applied;
}

static void walk(runner *r, const jd_node *stmts, int depth);

/* An IF whose conditions the files cannot tell: its first branch that
 * changes the schema (see the header). */
static void walk_if_guessing(runner *r, const jd_node *stmt, int depth)
{
	r->guessing++;
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
	r->guessing--;
}

/* What the statements under `node` may assign (assignments, INTO
 * targets, GET DIAGNOSTICS, loop variables) becomes unknown; the other
 * variables keep their values. */
static void forget_assigned(runner *r, const jd_node *node, int depth)
{
	if (depth > 64) {
		cgm_do_vars_forget(r->vars);
		return;
	}
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			forget_assigned(r, jd_at(node, i), depth + 1);
		return;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
	{
		if (strcmp(key, "PLpgSQL_stmt_assign") == 0 || strcmp(key, "PLpgSQL_diag_item") == 0) {
			const jd_node *varno = jd_get(value, strcmp(key, "PLpgSQL_stmt_assign") == 0 ? "varno" : "target");
			cgm_do_vars_set(r->vars, datum_name(r, jd_integer(varno)), NULL);
		} else if (strcmp(key, "target") == 0 || strcmp(key, "var") == 0) {
			set_target(r, value, NULL);
			const char *kind;
			jd_node *var;
			jd_object_foreach(value, kind, var)
			{
				(void)kind;
				cgm_do_vars_set(r->vars, jd_string(jd_get(var, "refname")), NULL);
			}
		} else if (jd_is_object(value) || jd_is_array(value)) {
			forget_assigned(r, value, depth + 1);
		}
	}
}

/* An IF whose conditions the files cannot tell, in a routine the files
 * call: no branch is taken.  A routine's conditions test what it was
 * given and what the catalog holds (xTuple's add_column alters a column
 * that exists and adds one that does not), so the DO block's guess would
 * apply what does not run.  What its branches EXECUTE is said, what they
 * assign becomes unknown. */
static void skip_if(runner *r, const jd_node *stmt, int depth)
{
	report_unfollowed(r, stmt, depth + 1);
	forget_assigned(r, stmt, depth + 1);
	forget_found(r);
}

static void walk_if(runner *r, const jd_node *stmt, int depth)
{
	const jd_node *taken = NULL;
	int holds = decide(r, jd_get(stmt, "cond"));
	if (holds == 1)
		taken = jd_get(stmt, "then_body");
	const jd_node *elsifs = jd_get(stmt, "elsif_list");
	for (size_t k = 0; k < jd_size(elsifs) && holds == 0; k++) {
		const jd_node *elsif = jd_get(jd_at(elsifs, k), "PLpgSQL_if_elsif");
		holds = decide(r, jd_get(elsif, "cond"));
		if (holds == 1)
			taken = jd_get(elsif, "stmts");
	}
	if (holds < 0) {
		if (r->session->procedure_arguments || r->session->function_result)
			skip_if(r, stmt, depth);
		else
			walk_if_guessing(r, stmt, depth);
		return;
	}
	walk(r, holds == 1 ? taken : jd_get(stmt, "else_body"), depth + 1);
}

/* A query of pg_extension by name (docatalog.h), `SELECT ... INTO target`
 * or PERFORM (no target): the target's value and FOUND, as it would run;
 * whether the files tell. */
static bool read_catalog(runner *r, const char *sql, const jd_node *target)
{
	/* Not worth substituting and parsing: most queries read no extension. */
	if (!sql || !r->session->catalog || !strcasestr(sql, "extension"))
		return false;
	char *substituted = cgm_do_vars_substitute(r->vars, sql);
	char *value = NULL;
	bool found = false;
	int known = substituted ? cgm_do_eval_query(substituted, r->session->catalog, &value, &found) : -1;
	free(substituted);
	if (known < 0)
		return false;
	if (target && value) {
		set_target(r, target, value);
	} else if (target) {
		const jd_node *fields = jd_get(jd_get(target, "PLpgSQL_row"), "fields");
		if (jd_size(fields) == 1)
			cgm_do_vars_set_null(r->vars, jd_string(jd_get(jd_at(fields, 0), "name")));
		else
			set_target(r, target, NULL);
	}
	free(value);
	cgm_do_vars_set(r->vars, "found", found ? "true" : "false");
	r->found_known = true;
	return true;
}

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
				/* SELECT current_setting('search_path') INTO v, or
				 * SELECT reset_val INTO v FROM pg_settings WHERE
				 * name = 'search_path' */
				const char *setting = setting_read(r, selected(sql));
				if (setting || !read_catalog(r, sql, jd_get(stmt, "target"))) {
					set_target(r, jd_get(stmt, "target"), setting);
					forget_found(r);
				}
				apply(r, as_written(r, sql), line);
			} else {
				forget_found(r);
				if (!apply_call(r, sql, line))
					apply(r, as_written(r, sql), line);
			}
		} else if (strcmp(kind, "PLpgSQL_stmt_dynexecute") == 0) {
			const char *expr = expr_query(jd_get(stmt, "query"));
			char *sql = constant(r, expr);
			if (!sql)
				sql = database_sql(r, expr);
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
			const char *assigned = assigned_expr(expr_query(jd_get(stmt, "expr")));
			apply_call(r, assigned, line);
			cgm_do_vars_set(r->vars, name, value_of(r, assigned));
		} else if (strcmp(kind, "PLpgSQL_stmt_perform") == 0) {
			/* PERFORM 1 FROM pg_extension WHERE ...; IF FOUND THEN */
			if (!read_catalog(r, expr_query(jd_get(stmt, "expr")), NULL))
				forget_found(r);
			apply_call(r, expr_query(jd_get(stmt, "expr")), line);
		} else if (strcmp(kind, "PLpgSQL_stmt_return") == 0) {
			apply_call(r, expr_query(jd_get(stmt, "expr")), line);
			if (!r->guessing)
				r->returned = true;
		} else if (strcmp(kind, "PLpgSQL_stmt_block") == 0) {
			bool guards = jd_get(stmt, "exceptions") != NULL;
			r->guarded += guards;
			walk(r, jd_get(stmt, "body"), depth + 1);
			r->guarded -= guards;
		} else if (strcmp(kind, "PLpgSQL_stmt_call") == 0) {
			/* A DO block of its own, which PL/pgSQL parses as it parses
			 * CALL (is_call false): the session runs it. */
			const char *sql = expr_query(jd_get(stmt, "expr"));
			if (!jd_is_true(jd_get(stmt, "is_call"))) {
				apply(r, sql, line);
			} else {
				/* A CALL of a procedure, its arguments' values known. */
				char *call = sql ? cgm_do_vars_substitute(r->vars, sql) : NULL;
				if (call)
					apply(r, cgm_arena_strdup(r->arena, call), line);
				free(call);
			}
		} else if (strcmp(kind, "PLpgSQL_stmt_if") == 0) {
			walk_if(r, stmt, depth);
		} else if (strcmp(kind, "PLpgSQL_stmt_getdiag") == 0) {
			/* GET DIAGNOSTICS n := ROW_COUNT: what it sets is unknown. */
			const jd_node *items = jd_get(stmt, "diag_items");
			for (size_t i = 0; i < jd_size(items); i++)
				cgm_do_vars_set(r->vars,
						datum_name(r, jd_integer(jd_get(jd_get(jd_at(items, i), "PLpgSQL_diag_item"),
										"target"))),
						NULL);
		} else if (strstr(kind, "loop") || strstr(kind, "while") || strncmp(kind, "PLpgSQL_stmt_for", 16) == 0 ||
			   strcmp(kind, "PLpgSQL_stmt_case") == 0) {
			report_unfollowed(r, stmt, depth + 1);
			forget_assigned(r, stmt, depth + 1);
			forget_found(r);
		} else if (jd_get(stmt, "target")) {
			set_target(r, jd_get(stmt, "target"), NULL);
			forget_found(r); /* FETCH */
		} else if (strcmp(kind, "PLpgSQL_stmt_return_query") == 0) {
			forget_found(r);
		}
	}
}

static void walk(runner *r, const jd_node *stmts, int depth)
{
	/* jsondom bounds the tree's depth; this bounds the walk's stack. */
	if (depth > 64)
		return;
	for (size_t i = 0; i < jd_size(stmts) && !r->returned; i++)
		walk_statement(r, jd_at(stmts, i), depth);
}

/* The parameters' names and `name ALIAS FOR $n`'s, each with the value
 * the call gives; the names bound, into *bound (arena), their count
 * returned. */
static int bind_arguments(runner *r, const char ***bound)
{
	const cgm_do_session *s = r->session;
	int cap = s->nargs + 8, n = 0;
	*bound = cgm_arena_alloc(r->arena, sizeof(char *) * (size_t)cap);
	for (int i = 0; i < s->nargs; i++) {
		const char *value = s->argument_values ? s->argument_values[i] : NULL;
		cgm_do_vars_set(r->vars, cgm_arena_printf(r->arena, "$%d", i + 1), value);
		const char *name = s->argument_names ? s->argument_names[i] : NULL;
		if (name) {
			cgm_do_vars_set(r->vars, name, value);
			(*bound)[n++] = name;
		}
	}
	/* ALIAS FOR, in the DECLARE section (before the first BEGIN). */
	const char *b = r->body;
	for (size_t i = 0; b[i] && n < cap;) {
		size_t past = cgm_sql_skip_opaque(b, i);
		if (past > i) {
			i = past;
			continue;
		}
		if (!cgm_sql_ident_char((unsigned char)b[i]) || (i > 0 && cgm_sql_ident_char((unsigned char)b[i - 1]))) {
			i++;
			continue;
		}
		size_t end = i;
		while (cgm_sql_ident_char((unsigned char)b[end]))
			end++;
		if (end - i == 5 && strncasecmp(b + i, "begin", 5) == 0)
			break;
		size_t j = end;
		while (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r')
			j++;
		if (strncasecmp(b + j, "alias", 5) == 0 && !cgm_sql_ident_char((unsigned char)b[j + 5])) {
			j += 5;
			while (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r')
				j++;
			if (strncasecmp(b + j, "for", 3) == 0 && !cgm_sql_ident_char((unsigned char)b[j + 3])) {
				j += 3;
				while (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r')
					j++;
				long k = b[j] == '$' && b[j + 1] >= '1' && b[j + 1] <= '9' ? strtol(b + j + 1, NULL, 10) : 0;
				if (k >= 1 && k <= s->nargs) {
					const char *name = cgm_arena_strndup(r->arena, b + i, end - i);
					cgm_do_vars_set(r->vars, name, s->argument_values ? s->argument_values[k - 1] : NULL);
					(*bound)[n++] = name;
				}
			}
		}
		i = end;
	}
	return n;
}

/* The declared variables, with the values of their defaults; the
 * parameters (`bound`) keep the values the call gave. */
static void declare(runner *r, const char *const *bound, int nbound)
{
	for (size_t i = 0; i < jd_size(r->datums); i++) {
		const jd_node *var = jd_get(jd_at(r->datums, i), "PLpgSQL_var");
		const char *name = jd_string(jd_get(var, "refname"));
		bool parameter = false;
		for (int k = 0; name && k < nbound && !parameter; k++)
			parameter = strcasecmp(bound[k], name) == 0;
		if (name && !parameter)
			cgm_do_vars_set(r->vars, name, value_of(r, expr_query(jd_get(var, "default_val"))));
	}
}

/* The block's body parsed as the body of a function, or of a procedure
 * or function taking the session's arguments (caller frees the result). */
static PgQueryPlpgsqlParseResult parse_block(const char *tag, const char *body,
					     const cgm_do_session *session)
{
	cgm_strbuf sql = CGM_STRBUF_INIT;
	const char *arguments = session->procedure_arguments;
	if (session->function_result)
		cgm_strbuf_printf(&sql, "CREATE FUNCTION cgmap_do(%s) RETURNS %s LANGUAGE plpgsql AS ",
				  arguments ? arguments : "", session->function_result);
	else if (arguments)
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

/* A body parsed: its PLpgSQL_function tree, in `arena`, or NULL when
 * PostgreSQL would refuse it; *rewritten gets the atomic-body rewrite
 * the tree was read from (heap), or NULL. */
static const jd_node *parse_body(cgm_arena *arena, const char *body, const cgm_do_session *session,
				 char **rewritten)
{
	*rewritten = NULL;
	char tag[32];
	cgm_sql_dollar_tag(tag, sizeof tag, body);
	/* What extraction refuses of a body (sqlprep.h) is not read here
	 * either: PostgreSQL's lexer would take too long over it. */
	cgm_sql_problem problem;
	if (!cgm_sql_check(body, CGM_SQL_CHECK_LEXER, &problem))
		return NULL;
	PgQueryPlpgsqlParseResult parsed = parse_block(tag, body, session);
	/* `name ALIAS FOR $n`, which libpg_query cannot read, and the like
	 * (plpgsql_rewrite.h): declarations only, so each statement's text
	 * is the body's as written. */
	char *retyped = parsed.error && session->nargs
				? cgm_plpgsql_rewrite(body, parsed.error->message, session->argument_types, session->nargs)
				: NULL;
	if (retyped) {
		pg_query_free_plpgsql_parse_result(parsed);
		parsed = parse_block(tag, retyped, session);
	}
	/* A CREATE FUNCTION ... BEGIN ATOMIC in the block, which libpg_query's
	 * PL/pgSQL parser ends at its first `;`: read as a string body. */
	*rewritten = parsed.error ? cgm_plpgsql_atomic_as_string(body) : NULL;
	if (*rewritten) {
		pg_query_free_plpgsql_parse_result(parsed);
		parsed = parse_block(tag, *rewritten, session);
	}
	const jd_node *function = NULL;
	if (!parsed.error && parsed.plpgsql_funcs) {
		jd_node *funcs = jd_parse(arena, parsed.plpgsql_funcs, strlen(parsed.plpgsql_funcs));
		function = jd_get(jd_at(funcs, 0), "PLpgSQL_function");
	}
	pg_query_free_plpgsql_parse_result(parsed);
	free(retyped);
	return function;
}

/* ---- routines parsed once (cgm_do_cache) ---- */

typedef struct cached_body {
	const char *body, *arguments, *result; /* the key: the caller's pointers */
	const jd_node *function;               /* NULL: refused */
	char *rewritten;
} cached_body;

struct cgm_do_cache {
	cgm_arena *arena; /* the trees */
	cached_body *entries;
	size_t n, cap;    /* cap a power of two, at most half full */
};

cgm_do_cache *cgm_do_cache_new(void)
{
	cgm_do_cache *c = calloc(1, sizeof *c);
	if (c)
		c->arena = cgm_arena_new();
	return c;
}

void cgm_do_cache_free(cgm_do_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++)
		free(c->entries[i].rewritten);
	free(c->entries);
	cgm_arena_free(c->arena);
	free(c);
}

static size_t slot_of(const cgm_do_cache *c, const char *body, const char *arguments, const char *result)
{
	size_t h = ((uintptr_t)body >> 4) * 31u + ((uintptr_t)arguments >> 4) * 17u + ((uintptr_t)result >> 4);
	size_t i = (h * 0x9E3779B97F4A7C15ull) & (c->cap - 1);
	while (c->entries[i].body &&
	       (c->entries[i].body != body || c->entries[i].arguments != arguments || c->entries[i].result != result))
		i = (i + 1) & (c->cap - 1);
	return i;
}

/* The session's routine parsed, from the cache or parsed into it. */
static const cached_body *cached_parse(cgm_do_cache *c, const char *body, const cgm_do_session *session)
{
	if (2 * (c->n + 1) > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		cached_body *old = c->entries;
		size_t old_cap = c->cap;
		c->entries = calloc(cap, sizeof *c->entries);
		if (!c->entries) {
			c->entries = old;
			return NULL;
		}
		c->cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].body)
				c->entries[slot_of(c, old[i].body, old[i].arguments, old[i].result)] = old[i];
		free(old);
	}
	size_t i = slot_of(c, body, session->procedure_arguments, session->function_result);
	cached_body *e = &c->entries[i];
	if (!e->body) {
		e->body = body;
		e->arguments = session->procedure_arguments;
		e->result = session->function_result;
		e->function = parse_body(c->arena, body, session, &e->rewritten);
		c->n++;
	}
	return e;
}

int cgm_do_block_run(const char *body, const cgm_do_session *session)
{
	runner r = { .session = session, .body = body, .arena = cgm_arena_new() };
	char *rewritten = NULL;
	const jd_node *function;
	const cached_body *cached = session->cache ? cached_parse(session->cache, body, session) : NULL;
	if (cached) {
		function = cached->function;
		r.rewritten = cached->rewritten;
	} else {
		function = parse_body(r.arena, body, session, &rewritten);
		r.rewritten = rewritten;
	}
	if (function) {
		r.vars = cgm_do_vars_new(r.arena);
		r.datums = jd_get(function, "datums");
		const char **bound;
		int nbound = bind_arguments(&r, &bound);
		declare(&r, bound, nbound);
		walk_statement(&r, jd_get(function, "action"), 0);
	}
	cgm_arena_free(r.arena);
	free(rewritten);
	return r.n;
}

int cgm_do_sql_body_run(const char *body, const cgm_do_session *session)
{
	runner r = { .session = session, .body = "", .arena = cgm_arena_new() };
	r.vars = cgm_do_vars_new(r.arena);
	const char **bound;
	bind_arguments(&r, &bound);
	/* Its parameters, by name and $n, replaced by their values: what it
	 * runs with a parameter of unknown value is not applied. */
	char *sql = cgm_do_vars_substitute(r.vars, body);
	if (sql)
		apply(&r, cgm_arena_strdup(r.arena, sql), 1);
	free(sql);
	cgm_arena_free(r.arena);
	return r.n;
}
