/*
 * coerce.c - the casts PostgreSQL applies without one being written (see
 * cgmap/coerce.h): assignments, RETURN, SELECT INTO and column values.
 *
 * In:  from extraction, the texts and expression trees of those
 *      statements; from resolution, the typer of the function.
 * Out: CGM_SITE_CAST sites with coerce_to set in their expressions
 *      (cgm_site_exprs), in the arena given, and at
 *      resolution the source and target types of each.  resolve_ops.c
 *      turns them into edges `via cast` when a user cast of context
 *      assignment or implicit joins the two types, and drops the rest (most:
 *      the values are of the target type, or only builtin casts run).
 */
#include "cgmap/coerce.h"

#include <ctype.h>
#include <string.h>

#include "cgmap/strbuf.h"

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static bool ident_char(char c)
{
	return ident_start(c) || isdigit((unsigned char)c) || c == '$';
}

const char *cgm_coercion_assign_target(cgm_arena *arena, const char *text)
{
	if (!text)
		return NULL;
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	cgm_strbuf name = CGM_STRBUF_INIT;
	if (*p == '"') {
		/* A quoted name: "" stands for one quote. */
		for (p++;; p++) {
			if (!*p) {
				cgm_strbuf_free(&name);
				return NULL;
			}
			if (*p == '"') {
				if (p[1] != '"')
					break;
				p++;
			}
			cgm_strbuf_putc(&name, *p);
		}
		p++;
	} else if (ident_start(*p)) {
		for (; ident_char(*p); p++)
			cgm_strbuf_putc(&name, (char)tolower((unsigned char)*p));
	} else {
		return NULL;
	}
	while (isspace((unsigned char)*p))
		p++;
	bool assigns = (p[0] == ':' && p[1] == '=') || (p[0] == '=' && p[1] != '=');
	const char *out = assigns && name.len > 0 ? cgm_arena_strdup(arena, cgm_strbuf_cstr(&name)) : NULL;
	cgm_strbuf_free(&name);
	return out;
}

const char *cgm_coercion_return_type(const cgm_function *fn)
{
	if (!fn || fn->kind == CGM_KIND_PROCEDURE || fn->is_trigger || !fn->result)
		return NULL;
	const char *r = fn->result;
	static const char *const none[] = { "void", "trigger", "event_trigger", "record", NULL };
	for (int i = 0; none[i]; i++)
		if (strcmp(r, none[i]) == 0)
			return NULL;
	if (strncmp(r, "SETOF ", 6) == 0 || strncmp(r, "TABLE(", 6) == 0 || cgm_type_is_polymorphic(r))
		return NULL;
	return r;
}

const cgm_expr *cgm_coercion_type_expr(cgm_arena *arena, const char *type)
{
	cgm_expr *e = cgm_arena_alloc(arena, sizeof *e);
	memset(e, 0, sizeof *e);
	e->kind = CGM_EXPR_CONST;
	e->type = type;
	return e;
}

const cgm_expr *cgm_coercion_column_expr(cgm_arena *arena, const char *schema, const char *name,
					 const char *column)
{
	cgm_scope *scope = cgm_arena_alloc(arena, sizeof *scope);
	memset(scope, 0, sizeof *scope);
	cgm_scope_item *it = cgm_arena_alloc(arena, sizeof *it);
	memset(it, 0, sizeof *it);
	it->schema = schema;
	it->name = name;
	it->alias = name;
	scope->nitems = 1;
	scope->items = it;
	cgm_expr *e = cgm_arena_alloc(arena, sizeof *e);
	memset(e, 0, sizeof *e);
	e->kind = CGM_EXPR_NAME;
	e->nnames = 1;
	const char **names = cgm_arena_alloc(arena, sizeof(char *));
	names[0] = column;
	e->names = names;
	e->scope = scope;
	return e;
}

void cgm_coercion_site(cgm_arena *arena, cgm_site *s, cgm_site_exprs *x,
		       const cgm_expr *value, const cgm_expr *target, int line)
{
	s->kind = CGM_SITE_CAST;
	s->line = line;
	s->nargs = 1;
	s->argtypes = cgm_arena_alloc(arena, sizeof(char *));
	s->argtypes[0] = NULL;
	const cgm_expr **exprs = cgm_arena_alloc(arena, sizeof(cgm_expr *));
	exprs[0] = value;
	x->argexprs = exprs;
	x->coerce_to = target;
}

const char *cgm_coercion_target(cgm_typer *typer, const cgm_site *s, const cgm_site_exprs *x)
{
	if (!typer || !x || !x->coerce_to)
		return NULL;
	const char *to = cgm_expr_type(typer, x->coerce_to);
	if (!to || strcmp(to, "unknown") == 0 || strcmp(to, "record") == 0)
		return NULL;
	/* RETURN and SELECT INTO fill a row type field by field from a row:
	 * no cast of the whole value; an assignment or a column casts it. */
	if (x->coerce_to->kind != CGM_EXPR_NAME && (!s->stmt || strcmp(s->stmt, "assign") != 0) &&
	    cgm_type_is_composite(typer, to))
		return NULL;
	return to;
}

const char *cgm_coercion_source(cgm_typer *typer, const cgm_site_exprs *x)
{
	if (!typer || !x || !x->argexprs || !x->argexprs[0])
		return NULL;
	const char *from = cgm_expr_type(typer, x->argexprs[0]);
	if (from && strcmp(from, "unknown") == 0) {
		/* A column takes an untyped literal by the type's input function;
		 * PL/pgSQL evaluates `'x'` as a query, whose output is text. */
		return x->coerce_to && x->coerce_to->kind == CGM_EXPR_NAME ? NULL : "text";
	}
	return from;
}
