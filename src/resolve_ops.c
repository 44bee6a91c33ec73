/*
 * resolve_ops.c - what PostgreSQL runs behind an expression, for resolve.c.
 *
 * In:  a linked model (operators and casts ordered by cgm_ops_index,
 *      aggregates linked), operator and cast sites with the operand types
 *      extraction knew, and call sites resolve.c has resolved.
 * Out: site targets with target_via (operator, cast, aggregate) and
 *      target_object ("operator app.===(app.money,app.money)", "cast
 *      (integer AS app.money)", "aggregate app.mysum(numeric)"), in the
 *      arena given; the resolver's own indexes are malloc'd and freed by
 *      cgm_ops_resolver_free.
 *
 * Rules:
 * - an operator site resolves like PostgreSQL's oper_select_candidate
 *   (cgm_operator_lookup): the schema written in OPERATOR(s.op), else the
 *   caller's search_path; operand types exact, then coercible.  An edge
 *   goes to the operator's function when it is a mapped one (any, with
 *   --include-builtins).  When an operand's type is unknown and pg_catalog
 *   also defines an operator of that symbol that fits, the expression most
 *   likely runs the builtin one: no edge (typing the operand decides it).
 *   Several fitting user operators are all linked, flagged ambiguous.
 *   When the chosen operator takes another type than an operand has, the
 *   user cast that coerces the operand runs too (via cast).
 * - a cast site (CAST(x AS t), x::t) resolves to the cast from the
 *   source type to the target; with the source unknown, to every user cast
 *   to that target, flagged ambiguous - unless the target is a pg_catalog
 *   type (the value may be of any type then; typing decides).  A literal
 *   never makes a cast site (extract.c): its type's input function reads it.
 * - a cast PostgreSQL applies by itself (an assignment, RETURN, SELECT INTO,
 *   a column value: coerce.c) resolves when typing knows the value's type
 *   and the target's and a user cast of context assignment or implicit
 *   joins them; anything else is dropped (an explicit-only cast would make
 *   PostgreSQL refuse the statement, or coerce through text I/O).
 * - a call resolved to an aggregate or window function gains every support
 *   function of it (transition, final, combine, serialize, deserialize and
 *   the moving-aggregate ones), which PostgreSQL calls from the caller's
 *   statement; a call resolved to exactly one function gains the user casts
 *   (implicit ones) that turn its known argument types into the parameters'.
 */
#include "resolve_ops.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/coerce.h"
#include "cgmap/domaincheck.h"
#include "cgmap/exprtype.h"
#include "cgmap/ops.h"
#include "cgmap/types.h"

typedef struct type_entry {
	const char *name;   /* as canonical text prints it (quoted when needed) */
	const char *schema;
} type_entry;

struct cgm_ops_resolver {
	const cgm_model *model;
	bool include_builtins;
	const char **op_names;  /* symbols with an operator worth an edge, sorted */
	int nop_names;
	const char **cast_targets; /* target types of casts worth an edge, sorted */
	int ncast_targets;
	type_entry *types;      /* user types by name, for unqualified type text */
	int ntypes;
	int *aggregate_of;      /* per function index: its aggregate record or -1 */
	cgm_domain_index *domains; /* the checks of domains (domaincheck.h) */
};

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int compare_types(const void *a, const void *b)
{
	const type_entry *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* Sort and drop duplicates; returns the new count. */
static int sort_unique(const char **items, int n)
{
	if (n == 0)
		return 0;
	qsort(items, (size_t)n, sizeof(char *), compare_strings);
	int k = 1;
	for (int i = 1; i < n; i++)
		if (strcmp(items[i], items[k - 1]) != 0)
			items[k++] = items[i];
	return k;
}

static bool worth_edge(const cgm_ops_resolver *r, int fn)
{
	return fn >= 0 && (r->include_builtins || !r->model->functions[fn].builtin);
}

static bool listed(const char *const *items, int n, const char *key)
{
	return n > 0 && key && bsearch(&key, items, (size_t)n, sizeof(char *), compare_strings);
}

cgm_ops_resolver *cgm_ops_resolver_new(const cgm_model *model, bool include_builtins)
{
	cgm_ops_resolver *r = cgm_xcalloc(1, sizeof *r);
	r->model = model;
	r->include_builtins = include_builtins;
	r->op_names = cgm_xcalloc((size_t)model->noperators + 1, sizeof(char *));
	for (int i = 0; i < model->noperators; i++)
		if (worth_edge(r, model->operators[i].function))
			r->op_names[r->nop_names++] = model->operators[i].name;
	r->nop_names = sort_unique(r->op_names, r->nop_names);
	r->cast_targets = cgm_xcalloc((size_t)model->ncasts + 1, sizeof(char *));
	for (int i = 0; i < model->ncasts; i++)
		if (worth_edge(r, model->casts[i].function))
			r->cast_targets[r->ncast_targets++] = model->casts[i].target;
	r->ncast_targets = sort_unique(r->cast_targets, r->ncast_targets);
	/* User types (pg_catalog's print unqualified already; a name that
	 * needs quotes stays as written). */
	r->types = cgm_xcalloc((size_t)model->ntypes + 1, sizeof(type_entry));
	for (int i = 0; i < model->ntypes; i++) {
		const cgm_relation *t = &model->types[i];
		if (t->schema && t->name && strcmp(t->schema, "pg_catalog") != 0 &&
		    !cgm_ident_needs_quotes(t->name))
			r->types[r->ntypes++] = (type_entry){ t->name, t->schema };
	}
	qsort(r->types, (size_t)r->ntypes, sizeof(type_entry), compare_types);
	r->aggregate_of = cgm_xcalloc((size_t)model->nfunctions + 1, sizeof(int));
	for (int i = 0; i < model->nfunctions; i++)
		r->aggregate_of[i] = -1;
	for (int i = 0; i < model->naggregates; i++) {
		int fn = model->aggregates[i].aggregate;
		if (fn >= 0 && fn < model->nfunctions)
			r->aggregate_of[fn] = i;
	}
	r->domains = cgm_domain_index_new(model, include_builtins);
	return r;
}

void cgm_ops_resolver_free(cgm_ops_resolver *r)
{
	if (!r)
		return;
	free(r->op_names);
	free(r->cast_targets);
	free(r->types);
	free(r->aggregate_of);
	cgm_domain_index_free(r->domains);
	free(r);
}

/* ---- types ------------------------------------------------------------ */

static bool qualified(const char *t)
{
	bool quoted = false;
	for (const char *p = t; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '.' && !quoted)
			return true;
	}
	return false;
}

/* A type as extraction wrote it ("money_t", "money_t[]" when unqualified)
 * qualified with the schema of the user type of that name first on the
 * path, as format_type prints it with an empty search_path. */
static const char *qualify_type(const cgm_ops_resolver *r, cgm_arena *arena, const char *t,
				const char *const *path, int npath)
{
	if (!t || r->ntypes == 0 || strcmp(t, "unknown") == 0 || qualified(t))
		return t;
	size_t len = strlen(t);
	size_t base = len > 2 && strcmp(t + len - 2, "[]") == 0 ? len - 2 : len;
	char name[256];
	if (base >= sizeof name)
		return t;
	memcpy(name, t, base);
	name[base] = '\0';
	type_entry key = { name, NULL };
	type_entry *hit = bsearch(&key, r->types, (size_t)r->ntypes, sizeof(type_entry), compare_types);
	if (!hit)
		return t;
	while (hit > r->types && strcmp(hit[-1].name, name) == 0)
		hit--;
	const type_entry *end = r->types + r->ntypes;
	for (int p = 0; p < npath; p++) {
		if (strcmp(path[p], "pg_catalog") == 0) {
			if (cgm_catalog_type(arena, name))
				return t; /* a builtin type of that name comes first */
			continue;
		}
		for (const type_entry *e = hit; e < end && strcmp(e->name, name) == 0; e++)
			if (strcmp(e->schema, path[p]) == 0)
				return cgm_arena_printf(arena, "%s.%s", cgm_quote_ident(arena, e->schema), t);
	}
	return t;
}

/* ---- targets ---------------------------------------------------------- */

/* Append a target with its mechanism (the site's earlier targets keep theirs). */
void cgm_site_add_target(cgm_arena *arena, cgm_site *s, int fn, cgm_via via, const char *object)
{
	for (int t = 0; t < s->ntargets; t++)
		if (s->targets[t] == fn && cgm_site_target_via(s, t) == via &&
		    ((!object && !cgm_site_target_object(s, t)) ||
		     (object && cgm_site_target_object(s, t) &&
		      strcmp(object, cgm_site_target_object(s, t)) == 0)))
			return;
	int n = s->ntargets;
	int *targets = cgm_arena_alloc(arena, sizeof(int) * (size_t)(n + 1));
	cgm_via *vias = cgm_arena_alloc(arena, sizeof(cgm_via) * (size_t)(n + 1));
	const char **objects = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(n + 1));
	for (int t = 0; t < n; t++) {
		targets[t] = s->targets[t];
		vias[t] = cgm_site_target_via(s, t);
		objects[t] = cgm_site_target_object(s, t);
	}
	targets[n] = fn;
	vias[n] = via;
	objects[n] = object;
	s->targets = targets;
	cgm_site_rare *rare = cgm_site_rare_of(arena, s);
	rare->target_via = vias;
	rare->target_object = objects;
	s->ntargets = n + 1;
}

/* The user cast that coerces a value of `from` to `to` implicitly, if its
 * function is worth an edge: as a target of s. */
static void coercion_target(const cgm_ops_resolver *r, cgm_arena *arena, cgm_site *s,
			    const char *from, const char *to)
{
	if (!from || !to || strcmp(from, "unknown") == 0 || strcmp(from, to) == 0)
		return;
	const cgm_cast *c = cgm_cast_find(r->model, from, to);
	if (c && c->context == 'i' && worth_edge(r, c->function))
		cgm_site_add_target(arena, s, c->function, CGM_VIA_CAST, cgm_cast_object(arena, c));
}

/* Resolution of a site whose targets are all set: builtin when none is
 * mapped, ambiguous when asked. */
void cgm_resolve_settle(const cgm_ops_resolver *r, cgm_site *s, bool ambiguous)
{
	bool all_builtin = true;
	for (int t = 0; t < s->ntargets; t++)
		if (!r->model->functions[s->targets[t]].builtin)
			all_builtin = false;
	s->resolution = ambiguous ? CGM_RES_AMBIGUOUS : all_builtin ? CGM_RES_BUILTIN : CGM_RES_RESOLVED;
}

enum { MAX_PATH = 64, MAX_CANDIDATES = 64 };

static bool resolve_operator(const cgm_ops_resolver *r, cgm_arena *arena, const cgm_function *caller,
			     cgm_site *s)
{
	if (!listed(r->op_names, r->nop_names, s->name) || s->nargs < 1 || s->nargs > 2)
		return false;
	const char *path[MAX_PATH];
	int npath = cgm_function_path(r->model, caller, path, MAX_PATH);
	bool prefix = s->nargs == 1;
	const char *left = prefix ? NULL : qualify_type(r, arena, s->argtypes[0], path, npath);
	const char *right = qualify_type(r, arena, s->argtypes[prefix ? 0 : 1], path, npath);
	const cgm_operator *cands[MAX_CANDIDATES];
	int n = cgm_operator_lookup(r->model, s->schema, path, npath, s->name, left, right, prefix,
				    cands, MAX_CANDIDATES);
	if (n > MAX_CANDIDATES)
		n = MAX_CANDIDATES;
	bool untyped = (!prefix && !left) || !right;
	bool builtin_fits = false;
	for (int k = 0; k < n; k++)
		builtin_fits = builtin_fits || cands[k]->builtin;
	if (n > 1 && untyped && builtin_fits)
		return false;
	/* Every operand typed (an untyped literal is typed "unknown") and still
	 * several: PostgreSQL cannot choose either, and refuses the statement
	 * ("operator is not unique"): nothing runs, and the tied user operators
	 * are kept for the reports as a refused call's are (no edge). */
	bool refused = n > 1 && !untyped && !cgm_type_is_polymorphic(right) &&
		       (prefix || !cgm_type_is_polymorphic(left));
	cgm_site_clear_targets(s);
	for (int k = 0; k < n; k++)
		if (worth_edge(r, cands[k]->function))
			cgm_site_add_target(arena, s, cands[k]->function, CGM_VIA_OPERATOR,
				   cgm_operator_object(arena, cands[k]));
	if (s->ntargets == 0)
		return false;
	if (refused) {
		s->resolution = CGM_RES_NOT_UNIQUE;
		return true;
	}
	if (n == 1) {
		/* Operands the operator takes as another type, by a user cast. */
		if (!prefix)
			coercion_target(r, arena, s, left, cands[0]->left);
		coercion_target(r, arena, s, right, cands[0]->right);
	}
	cgm_resolve_settle(r, s, n > 1);
	return true;
}

const char *cgm_resolve_type_name(const cgm_ops_resolver *r, cgm_arena *arena,
				  const cgm_function *caller, const char *type)
{
	const char *path[MAX_PATH];
	int npath = cgm_function_path(r->model, caller, path, MAX_PATH);
	return qualify_type(r, arena, type, path, npath);
}

static bool resolve_cast(const cgm_ops_resolver *r, cgm_arena *arena, const cgm_function *caller,
			 cgm_site *s)
{
	if (s->nargs != 1 || !s->name)
		return false;
	const char *path[MAX_PATH];
	int npath = cgm_function_path(r->model, caller, path, MAX_PATH);
	const char *target = qualify_type(r, arena, s->name, path, npath);
	const char *source = qualify_type(r, arena, s->argtypes ? s->argtypes[0] : NULL, path, npath);
	if (source && strcmp(source, target) == 0)
		return false;
	cgm_site_clear_targets(s);
	if (source && strcmp(source, "unknown") == 0) {
		/* A literal becomes of the type by its input function, at parse
		 * time, never by a cast; a domain's checks still run each time
		 * the statement does (the planner folds no CoerceToDomain). */
		cgm_domain_check_targets(r->domains, arena, s, source, target);
		if (s->ntargets == 0)
			return false;
		cgm_resolve_settle(r, s, false);
		return true;
	}
	/* A cast to a domain runs its checks, whatever cast gets the value
	 * to the base type. */
	cgm_domain_check_targets(r->domains, arena, s, source, target);
	bool cast_target = listed(r->cast_targets, r->ncast_targets, target);
	if (source || !cast_target) {
		/* A record (ROW(...)::t) becomes a composite type by a row
		 * conversion, never a pg_cast row. */
		const cgm_cast *c = source && cast_target ? cgm_cast_find(r->model, source, target) : NULL;
		if (c && worth_edge(r, c->function))
			cgm_site_add_target(arena, s, c->function, CGM_VIA_CAST, cgm_cast_object(arena, c));
		if (s->ntargets == 0)
			return false;
		cgm_resolve_settle(r, s, false);
		return true;
	}
	int count;
	const cgm_cast *casts = cgm_casts_to(r->model, target, &count);
	for (int i = 0; i < count; i++)
		if (casts[i].builtin && !r->include_builtins) {
			/* a builtin type's value may be anything: typing decides */
			if (s->ntargets == 0)
				return false;
			cgm_resolve_settle(r, s, false);
			return true;
		}
	/* A cast from the type to itself applies a length (typmod), which a
	 * value of the type needs only when one is written: not a candidate. */
	for (int i = 0; i < count; i++)
		if (worth_edge(r, casts[i].function) && strcmp(casts[i].source, target) != 0)
			cgm_site_add_target(arena, s, casts[i].function, CGM_VIA_CAST,
				   cgm_cast_object(arena, &casts[i]));
	if (s->ntargets == 0)
		return false;
	cgm_resolve_settle(r, s, true);
	return true;
}

/* A cast PostgreSQL applies by itself (coerce.c): the value's type and the
 * target's known, a user cast between them of context assignment or
 * implicit.  The types found are kept on the site (name, argtypes[0]), as a
 * written cast's are. */
static bool resolve_coercion(const cgm_ops_resolver *r, cgm_arena *arena, cgm_typer *typer,
			     const cgm_function *caller, cgm_site *s, const cgm_site_exprs *x)
{
	if (s->nargs != 1 || !s->argtypes)
		return false;
	const char *path[MAX_PATH];
	int npath = cgm_function_path(r->model, caller, path, MAX_PATH);
	const char *target = qualify_type(r, arena, cgm_coercion_target(typer, s, x), path, npath);
	bool cast = target && listed(r->cast_targets, r->ncast_targets, target);
	if (!target || (!cast && !cgm_domain_checked(r->domains, target)))
		return false;
	const char *source = qualify_type(r, arena, cgm_coercion_source(typer, x), path, npath);
	if (source && strcmp(source, target) == 0)
		return false;
	cgm_site_clear_targets(s);
	const cgm_cast *c = cast && source ? cgm_cast_find(r->model, source, target) : NULL;
	if (c && (c->context == 'a' || c->context == 'i') && worth_edge(r, c->function))
		cgm_site_add_target(arena, s, c->function, CGM_VIA_CAST, cgm_cast_object(arena, c));
	/* The value stored into a domain (a value of unknown type as much as
	 * one of another type) passes its checks. */
	cgm_domain_check_targets(r->domains, arena, s, source, target);
	if (s->ntargets == 0)
		return false;
	s->name = target;
	s->argtypes[0] = source;
	cgm_resolve_settle(r, s, false);
	return true;
}

bool cgm_resolve_literal_cast(const cgm_ops_resolver *r, cgm_arena *arena, cgm_site *s,
			      const char *type)
{
	cgm_site_clear_targets(s);
	cgm_domain_check_targets(r->domains, arena, s, "unknown", type);
	if (s->ntargets == 0) {
		s->resolution = CGM_RES_NONE;
		return false;
	}
	cgm_resolve_settle(r, s, false);
	return true;
}

bool cgm_resolve_opcast_site(const cgm_ops_resolver *r, cgm_arena *arena, cgm_typer *typer,
			     const cgm_function *caller, cgm_site *s, const cgm_site_exprs *x)
{
	s->resolution = CGM_RES_NONE;
	const cgm_expr *coerce_to = x ? x->coerce_to : NULL;
	const cgm_expr *const *argexprs = x ? x->argexprs : NULL;
	/* No user operator of the symbol: nothing to type the operands for. */
	if (s->kind == CGM_SITE_OPERATOR && !listed(r->op_names, r->nop_names, s->name))
		return false;
	/* Operands and cast values the parser could not type (calls' results,
	 * subexpressions) typed now, from the catalog, as call arguments are. */
	for (int i = 0; !coerce_to && typer && argexprs && s->argtypes && i < s->nargs; i++)
		if (!s->argtypes[i] && argexprs[i])
			s->argtypes[i] = cgm_expr_type(typer, argexprs[i]);
	bool kept = s->kind == CGM_SITE_OPERATOR ? resolve_operator(r, arena, caller, s)
		    : coerce_to			     ? resolve_coercion(r, arena, typer, caller, s, x)
						     : resolve_cast(r, arena, caller, s);
	if (!kept) {
		cgm_site_clear_targets(s);
	}
	return kept;
}

void cgm_resolve_call_effects(const cgm_ops_resolver *r, cgm_arena *arena,
			      const cgm_function *caller, cgm_site *s)
{
	if (s->ntargets == 0 || (s->resolution != CGM_RES_RESOLVED && s->resolution != CGM_RES_AMBIGUOUS &&
				 s->resolution != CGM_RES_BUILTIN))
		return;
	/* A cast of a literal (typename('x')) runs checks, not a call. */
	if (s->rare && s->rare->target_via && s->rare->target_via[0] != CGM_VIA_CALL)
		return;
	const cgm_model *m = r->model;
	int ncalls = s->ntargets;
	for (int t = 0; t < ncalls; t++) {
		int a = r->aggregate_of[s->targets[t]];
		if (a < 0)
			continue;
		const cgm_aggregate *agg = &m->aggregates[a];
		const char *object = NULL;
		for (int k = 0; k < agg->nsupport; k++) {
			if (!worth_edge(r, agg->support[k]))
				continue;
			if (!object)
				object = cgm_aggregate_object(arena, agg);
			cgm_site_add_target(arena, s, agg->support[k], CGM_VIA_AGGREGATE, object);
		}
	}
	if (ncalls != 1 || s->variadic_call)
		return;
	/* Arguments to parameters of another type, positional or named
	 * (`p => v`): the user casts that coerce those of known type, the
	 * checks of a domain parameter for any value not of the domain
	 * already.  Not the elements of a VARIADIC array. */
	const cgm_function *f = &m->functions[s->targets[0]];
	if (!f->argtypes)
		return;
	const char *path[MAX_PATH];
	int npath = -1;
	const char *const *names = cgm_site_get_rare(s)->argnames;
	for (int i = 0; i < s->nargs; i++) {
		int p = i;
		if (names && names[i]) {
			p = -1;
			for (int k = 0; f->argnames && k < f->nargs; k++)
				if (f->argnames[k] && strcmp(f->argnames[k], names[i]) == 0)
					p = k;
			if (p < 0)
				continue;
		}
		if (p >= f->nargs || (f->variadic && p >= f->nargs - 1))
			continue;
		const char *param = f->argtypes[p];
		const char *given = s->argtypes ? s->argtypes[i] : NULL;
		bool cast = given && listed(r->cast_targets, r->ncast_targets, param);
		if (!cast && !cgm_domain_checked(r->domains, param))
			continue;
		if (npath < 0)
			npath = cgm_function_path(m, caller, path, MAX_PATH);
		const char *from = qualify_type(r, arena, given, path, npath);
		if (cast)
			coercion_target(r, arena, s, from, param);
		cgm_domain_check_targets(r->domains, arena, s, from, param);
	}
}
