/*
 * dynsql.c - dynamic SQL read before it runs.
 *
 * In:  the expression of a dynamic EXECUTE site (site->text) and the
 *      model's functions and triggers.
 * Out: the template its constant parts spell (variables as a placeholder),
 *      the statement kind, whether it can call a user function, and its
 *      possible targets: functions whose schema, name pattern and argument
 *      count fit a call the template spells (`'handler_' || kind || '()'`,
 *      `format('SELECT %I.%I($1)', s, f)`), plus the triggers of a constant
 *      table it writes.  Everything is malloc'd and freed by
 *      cgm_dynsql_info_free(); nothing goes into the model.
 *
 * The expression is split at its top-level `||`; a string literal (plain,
 * E'', dollar-quoted, with a cast) is constant text, `format('...', ...)`
 * is its template with %I and %s as variables and %L as a literal, anything
 * else is a variable.  Variables in value positions are taken as values:
 * a template whose constant parts spell no call (and that is not a SELECT
 * or another statement that may read a view) calls nothing but the triggers
 * of its table.  DDL that never runs user code (DROP, ALTER SEQUENCE,
 * GRANT, ...) calls only event trigger functions.
 */
#include "cgmap/dynsql.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/error.h"
#include "cgmap/strbuf.h"

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

/* The template format() spells with its first argument: %I, %s -> VAR,
 * %L -> a quoted literal, %% -> %.  False when the template is no literal. */
static bool format_template(cgm_strbuf *out, const char *args, const char *end)
{
	while (args < end && isspace((unsigned char)*args))
		args++;
	cgm_strbuf lit = CGM_STRBUF_INIT;
	const char *after = read_literal(&lit, args);
	if (!after || after > end) {
		cgm_strbuf_free(&lit);
		return false;
	}
	const char *t = cgm_strbuf_cstr(&lit);
	for (; *t; t++) {
		if (*t != '%') {
			cgm_strbuf_putc(out, *t);
			continue;
		}
		t++;
		if (*t == '%') {
			cgm_strbuf_putc(out, '%');
			continue;
		}
		/* [argpos$][flags][width] then the type */
		while (*t && (isdigit((unsigned char)*t) || *t == '$' || *t == '-' || *t == '*'))
			t++;
		if (*t == 'L')
			cgm_strbuf_puts(out, "'x'");
		else if (*t == 'I' || *t == 's')
			cgm_strbuf_putc(out, VAR);
		else if (!*t)
			break;
		else
			cgm_strbuf_putc(out, VAR);
	}
	cgm_strbuf_free(&lit);
	return true;
}

/* The end of one top-level part (at `||` or the end of the text). */
static const char *part_end(const char *p)
{
	int depth = 0;
	cgm_strbuf skip = CGM_STRBUF_INIT;
	while (*p) {
		if (*p == '\'' || ((*p == 'E' || *p == 'e') && p[1] == '\'') ||
		    (*p == '$' && !isdigit((unsigned char)p[1]))) {
			const char *q = read_literal(&skip, p);
			cgm_strbuf_reset(&skip);
			if (q) {
				p = q;
				continue;
			}
		}
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (depth <= 0 && p[0] == '|' && p[1] == '|')
			break;
		p++;
	}
	cgm_strbuf_free(&skip);
	return p;
}

/* The template of the whole expression; false when no part is constant. */
static bool build_template(cgm_strbuf *out, const char *text)
{
	bool constant = false;
	const char *p = text;
	while (*p) {
		const char *end = part_end(p);
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

static const char *const no_call_statements[] = {
	"DROP", "GRANT", "REVOKE", "COMMENT", "SET", "RESET", "LOCK", "NOTIFY", "LISTEN",
	"UNLISTEN", "DISCARD", "VACUUM", "ANALYZE", "SAVEPOINT", "RELEASE", "BEGIN",
	"COMMIT", "ROLLBACK", "DEALLOCATE", "CLOSE", "FETCH", "MOVE", "SHOW", NULL
};

static const char *const not_callee_words[] = {
	"IN", "VALUES", "EXISTS", "ANY", "ALL", "SOME", "AS", "OVER", "FILTER", "AND", "OR",
	"NOT", "WHERE", "SELECT", "ON", "USING", "FROM", "JOIN", "INTO", "TABLE", "RETURNING",
	"WITH", "SET", "CHECK", "DEFAULT", "PRIMARY", "KEY", "UNIQUE", "REFERENCES", "CAST",
	"ROW", "ARRAY", "WITHIN", "GROUP", "BY", "THEN", "ELSE", "WHEN", "CASE", "LIMIT",
	"UPDATE", "DELETE", "INSERT", "CALL", "PERFORM", "EXECUTE", "INDEX", "VIEW", NULL
};

/* NAME( after these words names a table, type or definition, not a call. */
static const char *const not_call_prefixes[] = {
	"INTO", "TABLE", "INDEX", "VIEW", "REFERENCES", "TYPE", "FUNCTION", "PROCEDURE",
	"ONLY", "UPDATE", "AGGREGATE", "TRIGGER", NULL
};

static bool in_list(const char *const *list, const char *word)
{
	for (int i = 0; list[i]; i++)
		if (strcasecmp(list[i], word) == 0)
			return true;
	return false;
}

static void add_target(cgm_dynsql_info *out, int fn)
{
	for (int i = 0; i < out->ntargets; i++)
		if (out->targets[i] == fn)
			return;
	out->targets = cgm_xrealloc(out->targets, sizeof(int) * (size_t)(out->ntargets + 1));
	out->targets[out->ntargets++] = fn;
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

/* Every call shape NAME( ... ) of the template: matching user functions. */
static void scan_calls(cgm_dynsql_info *out, const cgm_model *model, const char *t)
{
	char prev[32] = "";
	for (const char *p = t; *p; p++) {
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
		const char *w = start;
		while (w > t && isspace((unsigned char)w[-1]))
			w--;
		const char *ws = w;
		while (ws > t && isalpha((unsigned char)ws[-1]))
			ws--;
		snprintf(prev, sizeof prev, "%.*s", (int)(w - ws), ws);
		if (in_list(not_call_prefixes, prev))
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
		for (int i = 0; i < model->nuser; i++) {
			const cgm_function *f = &model->functions[i];
			if (f->is_trigger || !f->name || !f->schema)
				continue;
			if (schema[0] && fnmatch(schema, f->schema, 0) != 0)
				continue;
			if (fnmatch(name, f->name, 0) != 0 || !arity_fits(f, nargs))
				continue;
			add_target(out, i);
		}
	}
}

static bool has_event_triggers(const cgm_model *model)
{
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		if (f->result && strcmp(f->result, "event_trigger") == 0)
			return true;
	}
	return false;
}

static void add_event_triggers(cgm_dynsql_info *out, const cgm_model *model)
{
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		if (f->result && strcmp(f->result, "event_trigger") == 0)
			add_target(out, i);
	}
}

/* Trigger functions of the triggers on `table` ("s.t" or "t"). */
static void add_table_triggers(cgm_dynsql_info *out, const cgm_model *model, const char *table)
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
			add_target(out, tg->function);
	}
}

void cgm_dynsql_read(cgm_dynsql_info *out, const cgm_model *model, const cgm_site *site)
{
	memset(out, 0, sizeof *out);
	out->can_call = true;
	if (!site->text)
		return;
	cgm_strbuf tb = CGM_STRBUF_INIT;
	bool constant = build_template(&tb, site->text);
	const char *t = cgm_strbuf_cstr(&tb);
	if (!constant) {
		cgm_strbuf_free(&tb);
		return;
	}
	const char *p = t;
	while (isspace((unsigned char)*p))
		p++;
	char w1[32], w2[32];
	next_word(w1, sizeof w1, &p);
	const char *after1 = p;
	next_word(w2, sizeof w2, &p);
	if (w1[0]) {
		bool two = strcmp(w1, "DROP") == 0 || strcmp(w1, "ALTER") == 0 ||
			   strcmp(w1, "CREATE") == 0;
		out->statement = two && w2[0] ? strdup("") : strdup(w1);
		if (two && w2[0]) {
			free(out->statement);
			size_t len = strlen(w1) + strlen(w2) + 2;
			out->statement = cgm_xcalloc(len, 1);
			snprintf(out->statement, len, "%s %s", w1, w2);
		}
	}
	(void)after1;
	const char *stmt = out->statement ? out->statement : "";
	if (in_list(no_call_statements, w1) || strcmp(stmt, "ALTER SEQUENCE") == 0 ||
	    strcmp(stmt, "CREATE SEQUENCE") == 0 || strcmp(stmt, "CREATE SCHEMA") == 0 ||
	    strcmp(stmt, "CREATE ROLE") == 0 || strcmp(stmt, "ALTER ROLE") == 0) {
		/* DDL fires event triggers (DROP, ALTER, CREATE, GRANT, COMMENT);
		 * the others run no user code at all. */
		bool ddl = strcmp(w1, "DROP") == 0 || strcmp(w1, "ALTER") == 0 ||
			   strcmp(w1, "CREATE") == 0 || strcmp(w1, "GRANT") == 0 ||
			   strcmp(w1, "REVOKE") == 0 || strcmp(w1, "COMMENT") == 0;
		out->can_call = ddl && has_event_triggers(model);
		if (out->can_call)
			add_event_triggers(out, model);
		cgm_strbuf_free(&tb);
		return;
	}
	bool dml = strcmp(w1, "INSERT") == 0 || strcmp(w1, "UPDATE") == 0 ||
		   strcmp(w1, "DELETE") == 0 || strcmp(w1, "TRUNCATE") == 0;
	if (dml) {
		/* INSERT INTO t, UPDATE [ONLY] t, DELETE FROM t, TRUNCATE [TABLE] t */
		const char *q = strcmp(w1, "UPDATE") == 0 ? after1 : p;
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
			out->table = cgm_xcalloc((size_t)(e - q) + 1, 1);
			size_t k = 0;
			for (const char *c = q; c < e; c++)
				if (*c != '"')
					out->table[k++] = *c;
			add_table_triggers(out, model, out->table);
		}
	}
	scan_calls(out, model, t);
	if (dml && out->table)
		out->can_call = out->ntargets > 0;
	cgm_strbuf_free(&tb);
}

void cgm_dynsql_info_free(cgm_dynsql_info *info)
{
	free(info->statement);
	free(info->table);
	free(info->targets);
	memset(info, 0, sizeof *info);
}

void cgm_dynsql_possible_targets(bool *out, const cgm_model *model)
{
	for (int i = 0; i < model->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		for (int s = 0; s < f->nsites; s++) {
			if (f->sites[s].kind != CGM_SITE_DYNAMIC)
				continue;
			cgm_dynsql_info info;
			cgm_dynsql_read(&info, model, &f->sites[s]);
			for (int k = 0; k < info.ntargets; k++)
				if (info.targets[k] != i)
					out[info.targets[k]] = true;
			cgm_dynsql_info_free(&info);
		}
	}
}
