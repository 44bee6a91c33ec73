/*
 * plpgsql_params.c - a PL/pgSQL function's parameters as PL/pgSQL numbers
 * them, and a header that names them all for libpg_query.
 *
 * In:  a function of the model: `arguments` (as pg_get_function_arguments
 *      prints them: "integer, OUT b text DEFAULT ..."), `result` (a RETURNS
 *      TABLE's columns are parameters too), argnames.
 * Out: the parameters in the caller's arena, and the arguments text with
 *      every unnamed one named "$n" (also in the arena).  The parse tree is
 *      read in an arena of its own, freed before returning.
 *
 * Why: PL/pgSQL knows parameter n as the variable `$n`, counting OUT
 * parameters too (pl_comp.c), so `$1 := h()` assigns an unnamed OUT
 * parameter, and `$2` in a function (OUT int, text) is the text.  The
 * catalog-less parser of libpg_query 15-4.0.0 declares named parameters
 * only: an unnamed one, named `"$n"` in the header extraction hands it,
 * becomes the variable `$n` as in PostgreSQL; and typing a `$n` needs the
 * numbering with OUT parameters, which the model's argtypes (inputs only)
 * do not have.
 */
#include "plpgsql_params.h"

#include <pg_query.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cgmap/strbuf.h"
#include "cgmap/types.h"
#include "jsondom.h"
#include "sqllex.h"

/* Only OUT, INOUT, TABLE and unnamed parameters need this module's work:
 * a function with named inputs only (most of them) is left alone without
 * a parse. */
static bool worth_reading(const cgm_function *fn)
{
	if (!fn->arguments)
		return false;
	if (fn->result && strncasecmp(fn->result, "TABLE(", 6) == 0)
		return true;
	if (strstr(fn->arguments, "OUT "))
		return true;
	for (int i = 0; i < fn->nargs; i++)
		if (!fn->argnames || !fn->argnames[i])
			return true;
	return false;
}

int cgm_plpgsql_params(cgm_arena *arena, const cgm_function *fn, cgm_plparam **params,
		       const char **named)
{
	*params = NULL;
	*named = NULL;
	if (!worth_reading(fn))
		return 0;
	static const char head[] = "CREATE FUNCTION f(";
	const size_t at = sizeof head - 1;
	bool table = fn->result && strncasecmp(fn->result, "TABLE(", 6) == 0;
	cgm_strbuf sql = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&sql, head);
	cgm_strbuf_puts(&sql, fn->arguments);
	cgm_strbuf_puts(&sql, ") RETURNS ");
	cgm_strbuf_puts(&sql, table ? fn->result : "void");
	cgm_strbuf_puts(&sql, " LANGUAGE plpgsql AS ''");
	PgQueryParseResult r = pg_query_parse(cgm_strbuf_cstr(&sql));
	cgm_strbuf_free(&sql);
	cgm_arena *tmp = cgm_arena_new();
	const jd_node *list = NULL;
	if (!r.error) {
		jd_node *tree = jd_parse(tmp, r.parse_tree, strlen(r.parse_tree));
		const jd_node *stmt = jd_get(jd_get(jd_at(jd_get(tree, "stmts"), 0), "stmt"),
					     "CreateFunctionStmt");
		list = jd_get(stmt, "parameters");
	}
	int n = (int)jd_size(list);
	size_t arglen = strlen(fn->arguments);
	cgm_plparam *out = n > 0 ? cgm_arena_alloc(arena, sizeof(cgm_plparam) * (size_t)n) : NULL;
	cgm_strbuf text = CGM_STRBUF_INIT;
	size_t copied = 0; /* arguments before this offset are in text */
	bool renamed = false, readable = true;
	for (int i = 0; i < n; i++) {
		const jd_node *p = jd_get(jd_at(list, (size_t)i), "FunctionParameter");
		const jd_node *type = jd_get(p, "argType");
		const char *mode = jd_string(jd_get(p, "mode"));
		const char *name = jd_string(jd_get(p, "name"));
		out[i].name = name ? cgm_arena_strdup(arena, name) : NULL;
		out[i].type = type ? cgm_type_canonical_json(arena, type, NULL) : NULL;
		out[i].input = !mode || (strcmp(mode, "FUNC_PARAM_OUT") != 0 &&
					 strcmp(mode, "FUNC_PARAM_TABLE") != 0);
		if (name || strcmp(mode ? mode : "", "FUNC_PARAM_TABLE") == 0)
			continue;
		/* The name goes where the type starts, after any mode word. */
		long loc = (long)jd_integer(jd_get(type, "location")) - (long)at;
		if (!type || loc < (long)copied || (size_t)loc > arglen) {
			readable = false;
			continue;
		}
		cgm_strbuf_add(&text, fn->arguments + copied, (size_t)loc - copied);
		char label[24];
		snprintf(label, sizeof label, "\"$%d\" ", i + 1);
		cgm_strbuf_puts(&text, label);
		copied = (size_t)loc;
		renamed = true;
	}
	if (renamed && readable) {
		cgm_strbuf_puts(&text, fn->arguments + copied);
		*named = cgm_arena_strdup(arena, cgm_strbuf_cstr(&text));
	}
	cgm_strbuf_free(&text);
	cgm_arena_free(tmp);
	pg_query_free_parse_result(r);
	*params = out;
	return n;
}

/* Whether the word `DEFAULT` (any case, whole) starts at s[i]. */
static bool default_word_at(const char *s, size_t i)
{
	return (i == 0 || !cgm_sql_ident_char((unsigned char)s[i - 1])) && strncasecmp(s + i, "default", 7) == 0 &&
	       !cgm_sql_ident_char((unsigned char)s[i + 7]);
}

const char *cgm_plpgsql_args_without_defaults(cgm_arena *arena, const char *arguments)
{
	if (!arguments)
		return NULL;
	cgm_strbuf out = CGM_STRBUF_INIT;
	bool dropped = false, in_default = false;
	int depth = 0;
	size_t i = 0, kept = 0; /* arguments[kept, i) not written yet */
	while (arguments[i]) {
		size_t past = cgm_sql_skip_opaque(arguments, i);
		if (past > i) {
			i = past;
			continue;
		}
		char c = arguments[i];
		if (c == '(' || c == '[') {
			depth++;
		} else if ((c == ')' || c == ']') && depth > 0) {
			depth--;
		} else if (depth == 0 && c == ',' && in_default) {
			in_default = false;
			kept = i; /* the comma and what follows stay */
		} else if (depth == 0 && !in_default &&
			   ((c == '=' && arguments[i + 1] != '>') || default_word_at(arguments, i))) {
			size_t end = i;
			while (end > kept && (arguments[end - 1] == ' ' || arguments[end - 1] == '\t' ||
					      arguments[end - 1] == '\n' || arguments[end - 1] == '\r'))
				end--;
			cgm_strbuf_add(&out, arguments + kept, end - kept);
			in_default = dropped = true;
		}
		i++;
	}
	if (!in_default)
		cgm_strbuf_add(&out, arguments + kept, i - kept);
	const char *result = dropped ? cgm_arena_strdup(arena, cgm_strbuf_cstr(&out)) : NULL;
	cgm_strbuf_free(&out);
	return result;
}

/* The function's CREATE statement around `body`: parameters and result
 * let the PL/pgSQL parser know its variables (and NEW/OLD of triggers). */
PgQueryPlpgsqlParseResult cgm_plpgsql_parse_body(const cgm_function *fn, const char *arguments,
						  const char *body)
{
	char tag[32];
	cgm_sql_dollar_tag(tag, sizeof tag, body);
	/* Pieces appended, not formatted: the body is most of the text, and
	 * printf-style formatting copied it twice. */
	cgm_strbuf sql = CGM_STRBUF_INIT;
	bool proc = fn->kind == CGM_KIND_PROCEDURE;
	cgm_strbuf_puts(&sql, proc ? "CREATE PROCEDURE cgmap_f(" : "CREATE FUNCTION cgmap_f(");
	cgm_strbuf_puts(&sql, arguments ? arguments : "");
	cgm_strbuf_puts(&sql, ") ");
	if (!proc) {
		cgm_strbuf_puts(&sql, "RETURNS ");
		cgm_strbuf_puts(&sql, fn->result ? fn->result : "void");
		cgm_strbuf_puts(&sql, " ");
	}
	cgm_strbuf_puts(&sql, "LANGUAGE plpgsql AS ");
	cgm_strbuf_puts(&sql, tag);
	cgm_strbuf_puts(&sql, body);
	cgm_strbuf_puts(&sql, tag);
	PgQueryPlpgsqlParseResult r = pg_query_parse_plpgsql(cgm_strbuf_cstr(&sql));
	cgm_strbuf_free(&sql);
	return r;
}
