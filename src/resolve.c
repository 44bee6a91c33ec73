/*
 * resolve.c - each call site to the function PostgreSQL would call, and the
 * static edges of the graph.
 *
 * In:  an indexed model (cgm_model_index) whose functions carry their sites,
 *      argument types, defaults, VARIADIC and search_path; the relation
 *      effects index (cgmap/relfx.h) for relation and DDL sites.
 * Out: site->resolution and site->targets (every candidate when ambiguous),
 *      model->edges (static provenance), old trigger sites that fire
 *      nothing dropped.  Everything is allocated in model->arena (the arenas of
 *      the other resolving threads are adopted by it); the sites kept of a
 *      body extracted here share their equal rare records (keep_rare), which
 *      nothing writes after (a site resolved again, or given its runs by
 *      merge.c, gets its own first).
 *
 * Callers are resolved in runs of consecutive functions on one thread per
 * core (cgm_resolve_options.threads); each run's edges are counted by the
 * thread that resolved it, then a second pass writes them at the run's
 * offset (runs in caller order) into one array of the final size, so the
 * edges come out the same, in the same order, on any number of threads,
 * and are never copied.
 *
 * Rules, after PostgreSQL's own (func_get_detail / func_select_candidate):
 * the schema is the one written, else each schema of the function's own
 * search_path, else of the database default, with pg_catalog first unless
 * the path places it; candidates must take the written number of arguments
 * (defaults and VARIADIC counted) and every name of `name => value`; a
 * candidate masks one that takes the arguments as the same types in a
 * later schema, or in its own when the other must expand its VARIADIC
 * array, and ties with one of its own schema otherwise (the call is
 * "not unique" if the tied one is the choice: CGM_RES_NOT_UNIQUE); then
 * known argument types (literals, casts, declared variables) must match
 * exactly or by an implicit cast, the most exact matches win, and an
 * untyped string literal prefers a string-category parameter.  When that
 * still leaves several, all are linked and flagged ambiguous.
 */
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmap/argdefault.h"
#include "cgmap/error.h"
#include "cgmap/hash.h"
#include "cgmap/intern.h"
#include "cgmap/exprtype.h"
#include "cgmap/extract_cache.h"
#include "cgmap/ops.h"
#include "cgmap/pipeline.h"
#include "cgmap/relfx.h"
#include "cgmap/rlsbypass.h"
#include "cgmap/types.h"
#include "resolve_ops.h"
#include "verbranch.h"

/* ---- names -> functions ----------------------------------------------- */

/* Resolution looks up a name for each of a hundred thousand call sites and
 * filters the functions of that name by schema and kind: the index answers
 * both from its own compact arrays, so a site touches a function's struct
 * only when it is a real candidate (the structs are scattered over
 * megabytes, and those cache misses were most of resolution's time). */
typedef struct name_entry {
	const char *name;
	int index;     /* into model->functions */
	int schema;    /* into name_index.schemas, -1 when the function has none */
	bool procedure;
} name_entry;

/* All entries of one name: entries[first, first + count), by index. */
typedef struct name_run {
	const char *name;
	uint64_t hash;
	int first, count;
} name_run;

typedef struct name_index {
	name_entry *entries;       /* by name, then index */
	int n;
	name_run *runs;
	int nruns;
	int *slots;                /* open addressing on the name hash: a run or -1 */
	size_t mask;
	const char **schemas;      /* distinct schema names, sorted */
	int nschemas;
} name_index;

/* Schema ids of the index are positions in a sorted list of names. */
#define NO_SUCH_SCHEMA (-2)

static int compare_entries(const void *a, const void *b)
{
	const name_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->index - y->index;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The id of a schema name, NO_SUCH_SCHEMA when no function lives there. */
static int schema_id(const name_index *ix, const char *schema)
{
	const char **hit = ix->nschemas ? bsearch(&schema, ix->schemas, (size_t)ix->nschemas,
						  sizeof(char *), compare_strings)
					: NULL;
	return hit ? (int)(hit - ix->schemas) : NO_SUCH_SCHEMA;
}

static void build_name_index(name_index *ix, const cgm_model *model)
{
	memset(ix, 0, sizeof *ix);
	int n = model->nfunctions;
	ix->n = n;
	ix->entries = cgm_xcalloc((size_t)n, sizeof(name_entry));
	ix->schemas = cgm_xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		const cgm_function *f = &model->functions[i];
		ix->entries[i] = (name_entry){ .name = f->name ? f->name : "",
					       .index = i,
					       .procedure = f->kind == CGM_KIND_PROCEDURE };
		if (f->schema)
			ix->schemas[ix->nschemas++] = f->schema;
	}
	qsort(ix->entries, (size_t)n, sizeof(name_entry), compare_entries);
	qsort(ix->schemas, (size_t)ix->nschemas, sizeof(char *), compare_strings);
	int distinct = 0;
	for (int i = 0; i < ix->nschemas; i++)
		if (distinct == 0 || strcmp(ix->schemas[distinct - 1], ix->schemas[i]) != 0)
			ix->schemas[distinct++] = ix->schemas[i];
	ix->nschemas = distinct;
	ix->runs = cgm_xcalloc((size_t)n, sizeof(name_run));
	for (int i = 0; i < n; i++) {
		name_entry *e = &ix->entries[i];
		const char *schema = model->functions[e->index].schema;
		e->schema = schema ? schema_id(ix, schema) : -1;
		if (ix->nruns == 0 || strcmp(ix->runs[ix->nruns - 1].name, e->name) != 0)
			ix->runs[ix->nruns++] = (name_run){ e->name, cgm_fnv1a(e->name), i, 0 };
		ix->runs[ix->nruns - 1].count++;
	}
	size_t size = 16;
	while (size < (size_t)ix->nruns * 2)
		size *= 2;
	ix->slots = cgm_xcalloc(size, sizeof(int));
	ix->mask = size - 1;
	for (size_t i = 0; i < size; i++)
		ix->slots[i] = -1;
	for (int r = 0; r < ix->nruns; r++) {
		size_t j = ix->runs[r].hash & ix->mask;
		while (ix->slots[j] >= 0)
			j = (j + 1) & ix->mask;
		ix->slots[j] = r;
	}
}

static void free_name_index(name_index *ix)
{
	free(ix->entries);
	free(ix->runs);
	free(ix->slots);
	free((void *)ix->schemas);
}

/* First entry with that name, and how many there are. */
static const name_entry *lookup_name(const name_index *ix, const char *name, int *count)
{
	uint64_t h = cgm_fnv1a(name);
	for (size_t j = h & ix->mask; ix->slots[j] >= 0; j = (j + 1) & ix->mask) {
		const name_run *run = &ix->runs[ix->slots[j]];
		if (run->hash == h && strcmp(run->name, name) == 0) {
			*count = run->count;
			return ix->entries + run->first;
		}
	}
	*count = 0;
	return ix->entries;
}

/* ---- one call site ---------------------------------------------------- */

typedef struct candidate {
	int index;
	bool expanded; /* takes its VARIADIC array as separate arguments */
	bool not_unique; /* another of its schema takes the same arguments here */
	int tie;         /* that other (a function index), when not_unique */
	int *param_of; /* param_of[i]: parameter position taken by argument i */
} candidate;

/* Can `f` take the number and names of the arguments of `s`?  Fills
 * param_of; the types are PostgreSQL's choice (cgm_select_candidates). */
static bool arguments_fit(const cgm_function *f, const cgm_site *s, candidate *c)
{
	int n = s->nargs, N = f->nargs;
	const char *const *names = cgm_site_get_rare(s)->argnames;
	bool named_any = false;
	int positional = 0;
	for (int i = 0; i < n; i++) {
		if (names && names[i])
			named_any = true;
		else if (!named_any)
			positional++;
		else
			return false; /* positional after named: PostgreSQL rejects it */
	}
	bool expand_variadic = false;
	if (s->variadic_call) {
		if (!f->variadic || named_any || n != N)
			return false;
	} else if (n > N) {
		if (!f->variadic || named_any)
			return false;
		expand_variadic = true;
	} else if (f->variadic && !named_any && n == N - 0 && N > 0) {
		/* f(a, b) on f(x, VARIADIC y[]): b is one variadic element. */
		expand_variadic = true;
	}
	bool covered[256] = { false };
	if (N > 255)
		return false;
	for (int i = 0; i < n; i++) {
		int p;
		if (i < positional) {
			p = i < N ? i : N - 1;
		} else {
			p = -1;
			for (int k = 0; f->argnames && k < N; k++)
				if (f->argnames[k] && strcmp(f->argnames[k], names[i]) == 0) {
					p = k;
					break;
				}
			if (p < 0 || covered[p])
				return false;
		}
		covered[p] = true;
		c->param_of[i] = p;
	}
	/* Parameters not given must have defaults (a VARIADIC one may be empty
	 * only when written with no element: PostgreSQL requires one). */
	int first_default = N - f->ndefaults;
	for (int p = 0; p < N; p++)
		if (!covered[p] && p < first_default)
			return false;

	c->expanded = expand_variadic;
	return true;
}

/* Shared by every resolving thread, read only while they run. */
typedef struct resolver {
	cgm_model *model;
	const cgm_resolve_options *opts;
	name_index names;
	cgm_catalog *catalog;
	cgm_ops_resolver *ops; /* operators, casts, aggregates (resolve_ops.c) */
	cgm_argdefaults *defaults; /* what parameters' defaults call (argdefault.c) */
} resolver;

/* Schemas to search for function `caller`, pg_catalog placed
 * (cgm_function_path, ops.h). */
static const char **search_path_of(const resolver *rv, const cgm_function *caller, int *count,
				   const char **scratch, int scratch_len)
{
	*count = cgm_function_path(rv->model, caller, scratch, scratch_len);
	return scratch;
}

static int schema_rank(const char *schema, const char *const *path, int npath)
{
	for (int i = 0; i < npath; i++)
		if (strcmp(path[i], schema) == 0)
			return i;
	return -1;
}

/* The type candidate c of function f takes argument a as. */
static const char *taken_as(const cgm_function *f, const candidate *c, int a)
{
	int p = c->param_of[a];
	if (c->expanded && p == f->nargs - 1 && f->variadic && f->variadic_elem)
		return f->variadic_elem;
	return f->argtypes[p];
}

/* Do two candidates take the call's nargs arguments as the same types
 * (FuncnameGetCandidates compares these, not the whole signatures: f(int)
 * and f(int, text DEFAULT '') both take f(1) as an integer)? */
static bool same_arguments_taken(const cgm_function *f, const candidate *c, const cgm_function *g,
				 const candidate *d, int nargs)
{
	for (int a = 0; a < nargs; a++)
		if (strcmp(taken_as(f, c, a), taken_as(g, d, a)) != 0)
			return false;
	return true;
}

/* The schema of the type named like the call `s` (in its schema, else the
 * first of that name on the caller's path, as LookupTypeName finds it), or
 * NULL when there is none. */
static const char *type_named(const resolver *rv, const cgm_function *caller, const cgm_site *s)
{
	const cgm_model *m = rv->model;
	const char *scratch[64];
	int npath = 0;
	const char *const *path =
		s->schema ? &s->schema : search_path_of(rv, caller, &npath, scratch, 64);
	if (s->schema)
		npath = 1;
	const char *schema = NULL;
	int best = npath;
	for (int t = 0; t < m->ntypes; t++)
		if (strcmp(m->types[t].name, s->name) == 0) {
			int rank = schema_rank(m->types[t].schema, path, npath);
			if (rank >= 0 && rank < best) {
				best = rank;
				schema = m->types[t].schema;
			}
		}
	return schema;
}

/* A one-argument call that names no function is no call when PostgreSQL
 * reads it otherwise: a function-style cast to a type of that name
 * (`mytype(x)`), or attribute notation on a row whose type has a column of
 * that name (`id(r)` is `r.id`) - never for an argument of a scalar type. */
static bool not_a_call(const resolver *rv, const cgm_function *caller, const cgm_site *s)
{
	if (s->nargs != 1)
		return false;
	const cgm_model *m = rv->model;
	if (type_named(rv, caller, s))
		return true;
	const char *arg = s->argtypes ? s->argtypes[0] : NULL;
	if (s->schema || (arg && (cgm_type_is_builtin(arg) || strcmp(arg, "unknown") == 0)))
		return false;
	const char *key = s->name;
	return m->ncolumns > 0 &&
	       bsearch(&key, m->columns, (size_t)m->ncolumns, sizeof(char *), compare_strings) != NULL;
}

/* `typename('literal')`: with no function of the name taking an untyped
 * literal exactly, PostgreSQL reads a one-argument call named after a type
 * that is not a table's or composite's row type as a cast of the literal
 * to it (func_get_detail's FUNCDETAIL_COERCION, FuncNameAsType): hstore(NULL)
 * calls neither hstore(record) nor hstore(text[]).  The type's schema, or
 * NULL for a call: the type is the first of that name on the path, as
 * LookupTypeName finds it. */
static const char *literal_cast(const resolver *rv, const cgm_function *caller, const cgm_site *s)
{
	if (s->nargs != 1 || !s->argtypes || !s->argtypes[0] ||
	    strcmp(s->argtypes[0], "unknown") != 0)
		return NULL;
	const char **names = cgm_site_get_rare(s)->argnames;
	if (names && names[0])
		return NULL;
	const cgm_model *m = rv->model;
	const char *schema = type_named(rv, caller, s);
	if (!schema)
		return NULL;
	for (int r = 0; r < m->nrelations; r++)
		if (strcmp(m->relations[r].name, s->name) == 0 &&
		    strcmp(m->relations[r].schema, schema) == 0)
			return NULL; /* a row type: the call stays a call */
	return schema;
}

/* Working memory of one choice among overloads: most calls have a handful
 * of candidates, kept on the stack; more go to the heap. */
enum { FEW = 16, FEW_PARAMS = 128 };
typedef struct choice {
	candidate few_cands[FEW];
	int few_params[FEW_PARAMS], few_ranks[FEW];
	const char *few_decl[FEW_PARAMS];
	cgm_candidate few_sel[FEW];
	candidate *cands;
	int *params, *ranks;
	const char **decl;
	cgm_candidate *sel;
	bool heap;
	int *out;      /* the functions chosen, PostgreSQL's first (heap) */
	bool not_unique; /* the one chosen ties with another of its schema:
	                  * PostgreSQL refuses the call (out: both) */
} choice;

static void choice_free(choice *ch)
{
	if (ch->heap) {
		free(ch->cands);
		free(ch->params);
		free(ch->ranks);
		free(ch->decl);
		free(ch->sel);
	}
	free(ch->out);
	ch->out = NULL;
}

/* The functions the call `s` may mean, after PostgreSQL's rules, into
 * ch->out: returns 1 when PostgreSQL calls exactly that one, more when it
 * could not choose (or cgmap cannot tell), 0 when none fits.  The site's
 * argtypes are taken as typed already. */
static int choose(const resolver *rv, const cgm_function *caller, const cgm_site *s, choice *ch)
{
	const cgm_model *model = rv->model;
	memset(ch, 0, offsetof(choice, few_cands));
	ch->out = NULL;
	ch->not_unique = false;
	int count = 0;
	const name_entry *e = lookup_name(&rv->names, s->name, &count);
	/* Schemas as ids of the name index: the filter below compares integers. */
	int site_schema = s->schema ? schema_id(&rv->names, s->schema) : NO_SUCH_SCHEMA;
	int path[64];
	int npath = 0;
	if (!s->schema && count > 0) {
		const char *scratch[64];
		const char **names = search_path_of(rv, caller, &npath, scratch, 64);
		for (int p = 0; p < npath; p++)
			path[p] = schema_id(&rv->names, names[p]);
	}
	int nargs = s->nargs;
	size_t nparams = (size_t)count * (size_t)(nargs + 1) + 1;
	ch->heap = !(count <= FEW && nparams <= FEW_PARAMS);
	ch->cands = ch->heap ? cgm_xcalloc((size_t)count + 1, sizeof(candidate)) : ch->few_cands;
	ch->params = ch->heap ? cgm_xcalloc(nparams, sizeof(int)) : ch->few_params;
	ch->ranks = ch->heap ? cgm_xcalloc((size_t)count + 1, sizeof(int)) : ch->few_ranks;
	ch->decl = ch->heap ? cgm_xcalloc(nparams, sizeof(char *)) : ch->few_decl;
	ch->sel = ch->heap ? cgm_xcalloc((size_t)count + 1, sizeof(cgm_candidate)) : ch->few_sel;
	candidate *cands = ch->cands;
	int *ranks = ch->ranks;
	int ncand = 0;
	for (int i = 0; i < count; i++) {
		if (e[i].schema < 0)
			continue;
		int rank = -1;
		if (s->schema) {
			if (e[i].schema != site_schema)
				continue;
			rank = 0;
		} else {
			for (int p = 0; p < npath && rank < 0; p++)
				if (path[p] == e[i].schema)
					rank = p;
			if (rank < 0)
				continue;
		}
		/* Procedures only through CALL, functions never through CALL. */
		if (e[i].procedure != (s->kind == CGM_SITE_CALL_STMT))
			continue;
		const cgm_function *f = &model->functions[e[i].index];
		candidate c = { .index = e[i].index, .param_of = ch->params + ncand * (nargs + 1) };
		if (!arguments_fit(f, s, &c))
			continue;
		/* Two that take the arguments as the same types: the one earlier
		 * on the path masks the other; in one schema, one taking them as
		 * they are masks one expanding its VARIADIC array; else neither
		 * can be told apart, and PostgreSQL marks the first "not unique"
		 * (FuncnameGetCandidates). */
		bool masked = false;
		for (int j = 0; j < ncand; j++) {
			const cgm_function *g = &model->functions[cands[j].index];
			if (!same_arguments_taken(f, &c, g, &cands[j], nargs))
				continue;
			if (rank < ranks[j] || (rank == ranks[j] && cands[j].expanded && !c.expanded)) {
				/* keep j's own param_of storage */
				int *keep = cands[j].param_of;
				memcpy(keep, c.param_of, sizeof(int) * (size_t)(nargs + 1));
				cands[j] = c;
				cands[j].param_of = keep;
				ranks[j] = rank;
			} else if (rank == ranks[j] && c.expanded == cands[j].expanded) {
				cands[j].not_unique = true;
				cands[j].tie = c.index;
			}
			masked = true;
			break;
		}
		if (masked)
			continue;
		ranks[ncand] = rank;
		cands[ncand++] = c;
	}
	if (ncand == 0)
		return 0;
	/* Each candidate's declared type at each argument. */
	for (int i = 0; i < ncand; i++) {
		const cgm_function *f = &model->functions[cands[i].index];
		const char **decl = ch->decl + i * (nargs + 1);
		for (int a = 0; a < nargs; a++)
			decl[a] = taken_as(f, &cands[i], a);
		ch->sel[i] = (cgm_candidate){ .index = i, .params = decl, .expanded = cands[i].expanded };
	}
	const char *const *types = (const char *const *)s->argtypes;
	const char *none[1] = { NULL };
	if (!types && nargs > 0)
		return 0; /* every site with arguments carries their types */
	int n = cgm_select_candidates(rv->catalog, nargs, types ? types : none, ch->sel, ncand);
	/* A function taking the arguments as they are wins over a VARIADIC one
	 * that must expand its array to take them (as FuncnameGetCandidates). */
	if (n > 1) {
		int plain = 0;
		for (int i = 0; i < n; i++)
			plain += !ch->sel[i].expanded;
		if (plain > 0 && plain < n) {
			int k = 0;
			for (int i = 0; i < n; i++)
				if (!ch->sel[i].expanded)
					ch->sel[k++] = ch->sel[i];
			n = k;
		}
	}
	if (n > 1 && types && cgm_candidates_tie(rv->catalog, nargs, types, ch->sel, n)) {
		/* Every argument typed, and still a tie: PostgreSQL cannot
		 * choose either, and refuses the call (func_select_candidate). */
		ch->not_unique = true;
		ch->out = cgm_xcalloc((size_t)n, sizeof(int));
		for (int i = 0; i < n; i++)
			ch->out[i] = cands[ch->sel[i].index].index;
		return n;
	}
	if (n == 1 && cands[ch->sel[0].index].not_unique) {
		/* PostgreSQL found the tie before the types: it refuses the call */
		ch->not_unique = true;
		ch->out = cgm_xcalloc(2, sizeof(int));
		ch->out[0] = cands[ch->sel[0].index].index;
		ch->out[1] = cands[ch->sel[0].index].tie;
		return 2;
	}
	ch->out = cgm_xcalloc((size_t)(n ? n : 1), sizeof(int));
	for (int i = 0; i < n; i++)
		ch->out[i] = cands[ch->sel[i].index].index;
	return n;
}

/* What typing asks resolution: the result of the call `call` whose
 * arguments have those types, when PostgreSQL calls exactly one function. */
typedef struct typing_ctx {
	const resolver *rv;
	const cgm_function *caller;
	cgm_typer *typer;
} typing_ctx;

static const char *call_result(void *arg, const cgm_expr *call, const char *const *argtypes,
			       const cgm_function **called)
{
	typing_ctx *tc = arg;
	if (called)
		*called = NULL;
	cgm_site_rare names = { .argnames = call->names };
	cgm_site tmp = { .kind = CGM_SITE_CALL, .name = call->name, .schema = call->schema,
			 .nargs = call->nargs, .rare = call->names ? &names : NULL,
			 .argtypes = (const char **)argtypes, .variadic_call = call->flag };
	const char *none[1] = { NULL };
	if (tmp.nargs == 0)
		tmp.argtypes = none;
	choice ch;
	int n = choose(tc->rv, tc->caller, &tmp, &ch);
	const char *type = NULL;
	if (n == 1 && !ch.not_unique) {
		const cgm_function *f = &tc->rv->model->functions[ch.out[0]];
		if (called)
			*called = f;
		const char *params[100];
		if (call->nargs <= 100) {
			candidate c = { .param_of = ch.params };
			int pbuf[101];
			c.param_of = pbuf;
			if (arguments_fit(f, &tmp, &c)) {
				for (int a = 0; a < call->nargs; a++)
					params[a] = taken_as(f, &c, a);
				type = cgm_result_type(tc->rv->catalog, tc->typer->arena, f->result, call->nargs,
						       params, argtypes);
			}
		}
	}
	if (n > 1 && !ch.not_unique) {
		/* Overloads cgmap cannot tell apart that all return some array
		 * (array_agg(anynonarray) and array_agg(anyarray) of a value of
		 * unknown type): the call is some array all the same. */
		bool arrays = true;
		for (int i = 0; i < n && arrays; i++) {
			const char *r = tc->rv->model->functions[ch.out[i]].result;
			arrays = r && (strcmp(r, "anyarray") == 0 || strcmp(r, "anycompatiblearray") == 0);
		}
		if (arrays)
			type = "anyarray";
	}
	if (n == 0 && !ch.not_unique)
		type = cgm_call_without_function(tc->typer, call, call->nargs == 1 ? argtypes[0] : NULL);
	choice_free(&ch);
	return type;
}

static void resolve_call(const resolver *rv, cgm_typer *typer, cgm_arena *arena,
			 const cgm_function *caller, cgm_site *s, const cgm_site_exprs *x)
{
	const cgm_model *model = rv->model;
	/* unnest(a, b, ...) in FROM is ROWS FROM (unnest(a), unnest(b), ...). */
	if (strcmp(s->name, "unnest") == 0 && s->nargs > 1 &&
	    (!s->schema || strcmp(s->schema, "pg_catalog") == 0)) {
		cgm_site one = *s;
		one.nargs = 1;
		resolve_call(rv, typer, arena, caller, &one, x);
		s->resolution = one.resolution;
		s->ntargets = one.ntargets;
		s->targets = one.targets;
		return;
	}
	/* Each argument's type from its expression, where it can be known. */
	const cgm_expr *const *argexprs = x ? x->argexprs : NULL;
	for (int i = 0; s->argtypes && i < s->nargs; i++) {
		const char *t = argexprs && argexprs[i] ? cgm_expr_type(typer, argexprs[i]) : NULL;
		if (t)
			s->argtypes[i] = t;
	}
	const char *cast_schema = literal_cast(rv, caller, s);
	if (cast_schema) {
		cgm_resolve_literal_cast(rv->ops, arena, s,
					 cgm_quote_qualified(arena, cast_schema, s->name));
		return;
	}
	choice ch;
	int ncand = choose(rv, caller, s, &ch);
	if (x && x->runtime_typed && ncand > 1) {
		/* The overload a run-time part's type picks: the dynamic site's
		 * to tell (dynsql.c's possible targets), not an edge to each. */
		s->resolution = CGM_RES_NONE;
		choice_free(&ch);
		return;
	}
	if (ch.not_unique) {
		/* The two tied, for the reports; no edge: the call never runs. */
		s->ntargets = ncand;
		s->targets = cgm_arena_alloc(arena, sizeof(int) * (size_t)ncand);
		for (int i = 0; i < ncand; i++)
			s->targets[i] = ch.out[i];
		for (int i = 1; i < ncand; i++)
			for (int j = i; j > 0 && s->targets[j] < s->targets[j - 1]; j--) {
				int t = s->targets[j];
				s->targets[j] = s->targets[j - 1];
				s->targets[j - 1] = t;
			}
		s->resolution = CGM_RES_NOT_UNIQUE;
		choice_free(&ch);
		return;
	}
	bool ambiguous = ncand > 1;
	if (ncand > 1) {
		/* PostgreSQL calls one of them, or refuses the call: never link the
		 * caller to itself on a guess (a false recursion), unless it is
		 * all there is. */
		int self = (int)(caller - model->functions);
		int k = 0;
		for (int i = 0; i < ncand; i++)
			if (ch.out[i] != self)
				ch.out[k++] = ch.out[i];
		if (k > 0)
			ncand = k;
	}
	if (ncand == 0) {
		s->resolution = not_a_call(rv, caller, s) ? CGM_RES_NONE : CGM_RES_MISSING;
		/* In an IF that runs only when an extension is installed, in a
		 * database without it: the call never runs (pg_partman's of
		 * pg_jobmon), so its missing callee is expected. */
		const char *needs = cgm_site_get_rare(s)->requires_extension;
		if (s->resolution == CGM_RES_MISSING && needs && cgm_model_has_extension(model, needs) == 0)
			s->handles_missing = true;
	} else {
		s->ntargets = ncand;
		s->targets = cgm_arena_alloc(arena, sizeof(int) * (size_t)ncand);
		bool all_external = true;
		for (int i = 0; i < ncand; i++) {
			s->targets[i] = ch.out[i];
			if (!model->functions[ch.out[i]].builtin)
				all_external = false;
		}
		/* Deterministic order of candidates. */
		for (int i = 1; i < ncand; i++)
			for (int j = i; j > 0 && s->targets[j] < s->targets[j - 1]; j--) {
				int t = s->targets[j];
				s->targets[j] = s->targets[j - 1];
				s->targets[j - 1] = t;
			}
		s->resolution = ambiguous ? CGM_RES_AMBIGUOUS
				: all_external ? CGM_RES_BUILTIN
					       : CGM_RES_RESOLVED;
		if (ambiguous && all_external)
			s->resolution = CGM_RES_BUILTIN;
	}
	choice_free(&ch);
}

/* A call in a parameter's default expression (argdefault.c), typed as the
 * body `expr_fn` it was parsed as, placed by its owner's search_path. */
static void resolve_default_call(void *ctx, cgm_arena *arena, const cgm_function *owner,
				 const cgm_function *expr_fn, cgm_site *s, const cgm_site_exprs *x)
{
	const resolver *rv = ctx;
	const char *scratch[64];
	int npath = 0;
	const char **path = search_path_of(rv, owner, &npath, scratch, 64);
	cgm_typer typer = { .catalog = rv->catalog, .model = rv->model, .fn = expr_fn,
			    .arena = arena, .path = path, .npath = npath, .call_result = call_result };
	typing_ctx tc = { .rv = rv, .caller = owner, .typer = &typer };
	typer.ctx = &tc;
	resolve_call(rv, &typer, arena, owner, s, x);
}

/* A call that leaves parameters out runs their defaults in the caller's
 * query: what those call are targets of the site too, via default. */
static void default_targets(const resolver *rv, cgm_arena *arena, cgm_site *s)
{
	if (!rv->defaults || s->resolution != CGM_RES_RESOLVED || s->nargs > 100)
		return;
	int ncalls = s->ntargets;
	for (int t = 0; t < ncalls; t++) {
		int g = s->targets[t];
		if (cgm_site_target_via(s, t) != CGM_VIA_CALL || !cgm_argdefaults_any(rv->defaults, g))
			continue;
		const cgm_function *f = &rv->model->functions[g];
		int param_of[101];
		candidate c = { .param_of = param_of };
		if (f->nargs > 255 || !arguments_fit(f, s, &c))
			continue;
		bool given[256] = { false };
		for (int a = 0; a < s->nargs; a++)
			if (param_of[a] >= 0 && param_of[a] < 256)
				given[param_of[a]] = true;
		for (int p = f->nargs - f->ndefaults; p < f->nargs; p++) {
			if (given[p])
				continue;
			const cgm_argdefault_call *calls;
			int n = cgm_argdefaults_of(rv->defaults, g, p, &calls);
			for (int k = 0; k < n; k++)
				cgm_site_add_target(arena, s, calls[k].target, CGM_VIA_DEFAULT,
						    calls[k].object);
		}
	}
}

/* ---- edges ------------------------------------------------------------ */

typedef struct edge_key {
	int from, to;
	cgm_via via;
	const char *object;
	int line;
	bool ambiguous;
} edge_key;

static int compare_objects(const char *x, const char *y)
{
	if (x == y)
		return 0;
	if (!x || !y)
		return x ? 1 : -1;
	return strcmp(x, y);
}

static int compare_edge_keys(const void *a, const void *b)
{
	const edge_key *x = a, *y = b;
	if (x->from != y->from)
		return x->from - y->from;
	if (x->to != y->to)
		return x->to - y->to;
	if (x->via != y->via)
		return (int)x->via - (int)y->via;
	int c = compare_objects(x->object, y->object);
	if (c)
		return c;
	return x->line - y->line;
}

static bool same_edge(const edge_key *x, const edge_key *y)
{
	return x->from == y->from && x->to == y->to && x->via == y->via &&
	       compare_objects(x->object, y->object) == 0;
}

/* The edges of one run of consecutive callers [first, last): one per (from,
 * to, via), ordered so, their distinct lines sorted.  Runs taken in caller
 * order give the edges of the whole model in that same order.  With `out`
 * NULL only counts them; otherwise writes them to out (zeroed, room for
 * the count), their lines in `arena`.  Returns the count. */
static int build_edges(cgm_edge *out, const cgm_model *model, cgm_arena *arena, int first,
		       int last, bool include_builtins)
{
	int cap = 64, n = 0;
	edge_key *keys = cgm_xcalloc((size_t)cap, sizeof(edge_key));
	for (int f = first; f < last; f++) {
		const cgm_function *fn = &model->functions[f];
		for (int i = 0; i < fn->nsites; i++) {
			const cgm_site *s = &fn->sites[i];
			if (s->resolution != CGM_RES_RESOLVED && s->resolution != CGM_RES_AMBIGUOUS &&
			    !(s->resolution == CGM_RES_BUILTIN && include_builtins))
				continue;
			for (int t = 0; t < s->ntargets; t++) {
				if (model->functions[s->targets[t]].builtin && !include_builtins)
					continue;
				if (n == cap) {
					cap *= 2;
					keys = cgm_xrealloc(keys, sizeof(edge_key) * (size_t)cap);
				}
				keys[n].from = f;
				keys[n].to = s->targets[t];
				keys[n].via = cgm_site_target_via(s, t);
				keys[n].object = cgm_site_target_object(s, t);
				keys[n].line = s->line;
				keys[n].ambiguous = s->resolution == CGM_RES_AMBIGUOUS ||
						    (s->resolution == CGM_RES_BUILTIN && s->ntargets > 1);
				n++;
			}
		}
	}
	qsort(keys, (size_t)n, sizeof(edge_key), compare_edge_keys);
	/* The lines of all the run's edges in one array (a key a line at
	 * most): most edges have one line, which alone would take a 16-byte
	 * allocation. */
	int *lines = out && n ? cgm_arena_alloc(arena, sizeof(int) * (size_t)n) : NULL;
	int nedges = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && same_edge(&keys[j], &keys[i]))
			j++;
		if (out) {
			cgm_edge *e = &out[nedges];
			e->from = keys[i].from;
			e->to = keys[i].to;
			e->via = keys[i].via;
			e->object = keys[i].object;
			e->provenance = CGM_EDGE_STATIC;
			e->lines = lines;
			for (int k = i; k < j; k++) {
				if (keys[k].ambiguous)
					e->ambiguous = true;
				if (e->nlines == 0 || e->lines[e->nlines - 1] != keys[k].line)
					e->lines[e->nlines++] = keys[k].line;
			}
			lines += e->nlines;
		}
		nedges++;
		i = j;
	}
	free(keys);
	return nedges;
}

/* ---- all functions, on several threads -------------------------------- */

/* Callers are resolved in runs of this many: small enough to spread the
 * work evenly, large enough that taking a run costs nothing. */
#define RUN_LENGTH 64
#define MAX_THREADS 64

typedef struct resolve_job {
	const resolver *rv;
	bool include_builtins;
	cgm_coercions coercions; /* for bodies extracted here (extract_pending) */
	struct cgm_extract_cache *cache; /* bodies extracted by an earlier run, or NULL */
	int nruns;
	int *run_edges;        /* nruns: the first pass counts each run's edges, then
	                        * the index in model->edges of its first edge */
	bool write_edges;      /* second pass: the edges written in place */
	pthread_mutex_t lock;
	int next_run;
} resolve_job;

typedef struct resolve_worker {
	resolve_job *job;
	cgm_arena *arena;      /* targets and edge lines of the runs it takes */
	cgm_arena *scratch;    /* one body's parse and typing, reset after it */
	cgm_intern *strings;   /* the kept sites' strings, one copy each, in arena */
	struct rare_table *rares; /* the kept sites' rare records, one copy each */
	cgm_extract_cache_slot *cached; /* this thread's fetches and keeps, or NULL */
	pthread_t thread;
} resolve_worker;

/* The rare records of kept sites (cgm_site_rare), one copy of each
 * distinct one per thread: the relation sites of different functions
 * that read or write the same table the same way run the same effects
 * (a sixth of a map's sites, most alike).  Heap memory, freed with the
 * worker; the records are in its arena.  A shared record is never written:
 * resolving a site again gives it its own first (resolve_function). */
typedef struct rare_slot {
	cgm_site_rare *x;     /* NULL: empty */
	uint64_t hash;
	int ntargets;         /* of the sites sharing it: the length of target_via */
} rare_slot;

typedef struct rare_table {
	rare_slot *slots;
	size_t cap, used;
} rare_table;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 1099511628211ULL;
	return h ^ (h >> 29);
}

/* Hash of a record whose strings and lists are interned (equal ones are
 * the same pointers) and of its target_via bytes. */
static uint64_t rare_hash(const cgm_site_rare *x, int ntargets)
{
	uint64_t h = 1469598103934665603ULL;
	h = mix(h, x->events);
	h = mix(h, (uint64_t)(unsigned)x->ncolumns);
	h = mix(h, (uint64_t)(uintptr_t)x->columns);
	h = mix(h, (uint64_t)(uintptr_t)x->reads);
	h = mix(h, (uint64_t)(uintptr_t)x->text);
	h = mix(h, (uint64_t)(uintptr_t)x->argnames);
	h = mix(h, (uint64_t)(uintptr_t)x->target_object);
	h = mix(h, (uint64_t)(uintptr_t)x->requires_extension);
	h = mix(h, (uint64_t)(unsigned)ntargets);
	h = mix(h, x->target_via != NULL);
	for (int i = 0; x->target_via && i < ntargets; i++)
		h = mix(h, x->target_via[i]);
	return h;
}

static bool rare_equal(const cgm_site_rare *a, const cgm_site_rare *b, int ntargets)
{
	if (a->events != b->events || a->ncolumns != b->ncolumns || a->columns != b->columns ||
	    a->nreads != b->nreads || a->reads != b->reads || a->text != b->text || a->argnames != b->argnames ||
	    a->target_object != b->target_object || a->requires_extension != b->requires_extension ||
	    !a->target_via != !b->target_via)
		return false;
	return !a->target_via ||
	       memcmp(a->target_via, b->target_via, sizeof(cgm_via) * (size_t)ntargets) == 0;
}

static void rare_table_free(rare_table *t)
{
	if (t)
		free(t->slots);
	free(t);
}

/* The kept copy of `x` (interned strings, target_via of ntargets entries
 * anywhere): an equal one kept before, or a new one in `arena`. */
static cgm_site_rare *keep_rare(rare_table *t, cgm_arena *arena, const cgm_site_rare *x,
				int ntargets)
{
	if ((t->used + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		rare_slot *slots = cgm_xcalloc(cap, sizeof(rare_slot));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].x) {
				size_t j = t->slots[i].hash & (cap - 1);
				while (slots[j].x)
					j = (j + 1) & (cap - 1);
				slots[j] = t->slots[i];
			}
		free(t->slots);
		t->slots = slots;
		t->cap = cap;
	}
	uint64_t h = rare_hash(x, ntargets);
	size_t j = h & (t->cap - 1);
	for (; t->slots[j].x; j = (j + 1) & (t->cap - 1))
		if (t->slots[j].hash == h && t->slots[j].ntargets == ntargets &&
		    rare_equal(t->slots[j].x, x, ntargets))
			return t->slots[j].x;
	size_t n = x->target_via ? (size_t)(ntargets > 0 ? ntargets : 1) : 0;
	cgm_site_rare *k = cgm_arena_alloc(arena, sizeof(cgm_site_rare) + n);
	*k = *x;
	if (x->target_via) {
		k->target_via = (cgm_via *)(k + 1);
		memcpy(k->target_via, x->target_via, sizeof(cgm_via) * (size_t)ntargets);
	}
	t->slots[j] = (rare_slot){ k, h, ntargets };
	t->used++;
	return k;
}

/* A statement on a relation, or DDL: what it runs on the relation's behalf
 * (relfx.c), the relation found along the caller's search_path. */
static void resolve_relation_site(const resolver *rv, cgm_arena *arena, const cgm_function *caller,
				  cgm_site *s, unsigned ddl_facts, uint64_t valued_columns)
{
	s->resolution = CGM_RES_NONE;
	if (!rv->opts || !rv->opts->relfx)
		return;
	const char *scratch[64];
	int npath = 0;
	const char **path = search_path_of(rv, caller, &npath, scratch, 64);
	cgm_relfx_resolve_site(rv->opts->relfx, arena, path, npath, s, ddl_facts, valued_columns);
	/* A SECURITY DEFINER function's statements on its own tables never
	 * run their policies (rlsbypass.h). */
	cgm_rls_drop_bypassed(rv->model, caller, s);
}

/* Attribute notation (`row.name`, rawtree.h) is a call of name(row) only
 * when the row's type has no column `name`: then the row's type is the
 * argument's. */
static bool attribute_call(cgm_typer *typer, cgm_site *s, const cgm_site_exprs *x)
{
	if (s->nargs != 1 || !s->argtypes || !x->argexprs || !x->argexprs[0])
		return false;
	const char *row = cgm_attribute_row_type(typer, x->argexprs[0], s->name);
	if (!row)
		return false;
	s->argtypes[0] = row;
	return true;
}

/* Is function `f` volatile, for an ADD COLUMN default that calls it?  Its
 * catalog volatility; a builtin the model has none for is volatile when
 * cgm_builtin_is_volatile says so, any other function without one may be. */
static bool is_volatile(const cgm_function *f)
{
	if (f->volatility)
		return f->volatility == 'v';
	return f->builtin ? cgm_builtin_is_volatile(f->name) : true;
}

/* The column an ADD COLUMN adds becoming of its user type `type` (a
 * column_type site, cgm_site_exprs): a domain's checks, and for a column
 * without a DEFAULT (type_default) what the domain's own DEFAULT calls, via
 * default.  False when it runs no function worth an edge. */
static bool resolve_column_type(const resolver *rv, cgm_arena *arena, cgm_typer *typer,
				cgm_function *fn, cgm_site *s, const cgm_site_exprs *x)
{
	bool checks = cgm_resolve_opcast_site(rv->ops, arena, typer, fn, s, x);
	if (!checks)
		cgm_site_clear_targets(s);
	const char *type = x->type_default ? cgm_resolve_type_name(rv->ops, arena, fn, s->name) : NULL;
	bool builtins = rv->opts && rv->opts->include_builtins;
	for (int i = 0; type && i < rv->model->ndomain_defaults; i++) {
		const cgm_domain_default *dd = &rv->model->domain_defaults[i];
		if (dd->function < 0 || strcmp(dd->type, type) != 0 ||
		    (rv->model->functions[dd->function].builtin && !builtins))
			continue;
		cgm_site_add_target(arena, s, dd->function, CGM_VIA_DEFAULT, dd->object);
	}
	if (s->ntargets == 0)
		return false;
	cgm_resolve_settle(rv->ops, s, false);
	return true;
}

/* Does the DEFAULT of domain `type` (qualified) call a function that is
 * volatile, or one not mapped, which may be? */
static bool domain_default_volatile(const resolver *rv, const char *type)
{
	for (int i = 0; type && i < rv->model->ndomain_defaults; i++) {
		const cgm_domain_default *dd = &rv->model->domain_defaults[i];
		if (strcmp(dd->type, type) == 0 &&
		    (dd->function < 0 || is_volatile(&rv->model->functions[dd->function])))
			return true;
	}
	return false;
}

/* The ADD COLUMN groups (cgm_site_exprs.rewrite_group) of `fn` that
 * rewrite the table, a bit each (group_rewrites): a default calling a
 * volatile function (AddRelationNewConstraints stores one that is not as
 * the rows' missing value, without a rewrite), or a column of a domain
 * with constraints (each row is checked), or of a type the catalog does
 * not know, or one without a DEFAULT of a domain whose own is volatile.
 * The default's sites are resolved here on copies, ahead of the
 * statement's sites that come before them; a call of nothing found may be
 * volatile. */
#define MAX_GROUPS 64
static bool group_rewrites(uint64_t groups, int group)
{
	return group > MAX_GROUPS || ((groups >> (group - 1)) & 1);
}

static uint64_t volatile_groups(const resolver *rv, cgm_typer *typer, cgm_arena *arena,
				cgm_function *fn)
{
	uint64_t groups = 0;
	for (int i = 0; fn->site_exprs && i < fn->nsites; i++) {
		const cgm_site_exprs *x = &fn->site_exprs[i];
		if (x->default_of <= 0 || group_rewrites(groups, x->default_of))
			continue; /* decided already (past MAX_GROUPS: taken as volatile) */
		if (x->column_type) {
			const char *type = cgm_resolve_type_name(rv->ops, arena, fn, fn->sites[i].name);
			if (cgm_type_domain_constrained(rv->catalog, type) != 0 ||
			    (x->type_default && domain_default_volatile(rv, type)))
				groups |= (uint64_t)1 << (x->default_of - 1);
			continue;
		}
		cgm_site s = fn->sites[i];
		s.ntargets = 0;
		s.targets = NULL;
		if (s.rare) {
			cgm_site_rare *own = cgm_arena_alloc(arena, sizeof(cgm_site_rare));
			*own = *s.rare;
			own->target_via = NULL;
			own->target_object = NULL;
			s.rare = own;
		}
		if (s.kind == CGM_SITE_OPERATOR || s.kind == CGM_SITE_CAST) {
			if (!cgm_resolve_opcast_site(rv->ops, arena, typer, fn, &s, x))
				continue; /* a builtin operator or cast */
		} else if (s.kind == CGM_SITE_CALL || s.kind == CGM_SITE_PERFORM) {
			if (x->attribute && !attribute_call(typer, &s, x))
				continue; /* a column */
			resolve_call(rv, typer, arena, fn, &s, x);
		} else {
			continue;
		}
		bool found = s.resolution == CGM_RES_RESOLVED || s.resolution == CGM_RES_AMBIGUOUS ||
			     s.resolution == CGM_RES_BUILTIN;
		bool volatile_call = !found || s.ntargets == 0;
		for (int t = 0; t < s.ntargets && !volatile_call; t++)
			volatile_call = s.targets[t] >= 0 && s.targets[t] < rv->model->nfunctions &&
					is_volatile(&rv->model->functions[s.targets[t]]);
		if (volatile_call)
			groups |= (uint64_t)1 << (x->default_of - 1);
	}
	return groups;
}

/* Every site of one caller; an old snapshot's trigger site that fires
 * nothing is no call site (relation sites stay: what a function reads and
 * writes is part of the map).
 * Writes only the caller's own sites. */
static void resolve_function(const resolver *rv, cgm_arena *arena, cgm_function *fn)
{
	const char *scratch[64];
	int npath = 0;
	const char **path = search_path_of(rv, fn, &npath, scratch, 64);
	cgm_typer typer = { .catalog = rv->catalog, .model = rv->model, .fn = fn, .arena = arena,
			    .path = path, .npath = npath, .call_result = call_result };
	typing_ctx tc = { .rv = rv, .caller = fn, .typer = &typer };
	typer.ctx = &tc;
	uint64_t rewriting = volatile_groups(rv, &typer, arena, fn);
	int kept = 0;
	for (int i = 0; i < fn->nsites; i++) {
		cgm_site *s = &fn->sites[i];
		const cgm_site_exprs *x = fn->site_exprs ? &fn->site_exprs[i] : NULL;
		s->ntargets = 0;
		s->targets = NULL;
		if (s->rare) {
			/* Kept records may be shared (keep_rare): its own, to write. */
			cgm_site_rare *own = cgm_arena_alloc(arena, sizeof(cgm_site_rare));
			*own = *s->rare;
			own->target_via = NULL;
			own->target_object = NULL;
			s->rare = own;
		}
		if (s->kind == CGM_SITE_DYNAMIC) {
			s->resolution = CGM_RES_NONE;
		} else if (s->kind == CGM_SITE_TRIGGER || s->kind == CGM_SITE_RELATION ||
			   s->kind == CGM_SITE_DDL) {
			unsigned facts = x ? x->ddl_facts : 0;
			if (x && x->rewrite_group > 0) {
				/* ALTER TABLE ... ADD COLUMN: a rewrite only for a
				 * volatile default (volatile_groups). */
				bool rewrites = group_rewrites(rewriting, x->rewrite_group);
				if (s->kind == CGM_SITE_RELATION && !rewrites)
					continue; /* no index is built again */
				if (rewrites)
					facts &= ~(unsigned)CGM_DDL_REWRITES_NOTHING;
			}
			resolve_relation_site(rv, arena, fn, s, facts, x ? x->valued_columns : 0);
		} else if (x && x->column_type) {
			if (!resolve_column_type(rv, arena, &typer, fn, s, x))
				continue;
		} else if (s->kind == CGM_SITE_OPERATOR || s->kind == CGM_SITE_CAST) {
			/* Only those that reach a function worth an edge are kept. */
			if (!cgm_resolve_opcast_site(rv->ops, arena, &typer, fn, s, x))
				continue;
		} else {
			if (x && x->attribute && !attribute_call(&typer, s, x))
				continue; /* a column */
			resolve_call(rv, &typer, arena, fn, s, x);
			if (x && x->attribute && s->resolution != CGM_RES_RESOLVED &&
			    s->resolution != CGM_RES_AMBIGUOUS && s->resolution != CGM_RES_BUILTIN)
				continue; /* no function PostgreSQL would call: its error, not a call */
			cgm_resolve_call_effects(rv->ops, arena, fn, s);
			default_targets(rv, arena, s);
		}
		if (s->kind == CGM_SITE_TRIGGER && s->ntargets == 0)
			continue;
		if (fn->site_exprs)
			fn->site_exprs[kept] = *x;
		fn->sites[kept++] = *s;
	}
	fn->nsites = kept;
}

/* A body extracted into the scratch arena and resolved: its sites and
 * parse errors copied into the thread's arena with what the outputs read
 * (not their expressions, fn->site_exprs, which only typing needed), every string
 * and string list interned (equal lists shared: nothing writes them after
 * resolution), the targets and mechanisms of all its sites in one array
 * each, so the scratch arena can be reset.  At 100,000 functions a map
 * keeps 1.7 million sites: a few bytes of each count. */
static void keep_resolved(resolve_worker *w, cgm_function *fn)
{
	cgm_site *sites = NULL;
	size_t ntargets = 0;
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site *s = &fn->sites[i];
		size_t n = (size_t)(s->ntargets > 0 ? s->ntargets : 0);
		if (s->targets)
			ntargets += n;
	}
	int *targets = ntargets ? cgm_arena_alloc(w->arena, sizeof(int) * ntargets) : NULL;
	static int no_targets[1];
	if (fn->nsites)
		sites = cgm_arena_alloc(w->arena, sizeof(cgm_site) * (size_t)fn->nsites);
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site *s = &fn->sites[i];
		cgm_site *k = &sites[i];
		*k = *s;
		k->stmt = cgm_intern_str(w->strings, s->stmt);
		k->schema = cgm_intern_str(w->strings, s->schema);
		k->name = cgm_intern_str(w->strings, s->name);
		k->argtypes = cgm_intern_strs(w->strings, s->argtypes, s->nargs);
		k->rare = NULL;
		size_t n = (size_t)(s->ntargets > 0 ? s->ntargets : 0);
		if (s->targets) {
			/* A site without targets keeps a non-NULL (empty) array. */
			k->targets = n ? targets : no_targets;
			memcpy(k->targets, s->targets, sizeof(int) * n);
			targets += n;
		}
		const cgm_site_rare *r = s->rare;
		/* Why a missing callee may be absent: kept on that site only. */
		const char *needs = r && s->resolution == CGM_RES_MISSING ? r->requires_extension : NULL;
		if (!r || !(r->events || r->ncolumns || r->reads || r->text || r->argnames ||
			    r->target_via || r->target_object || needs))
			continue;
		/* The few sites with more keep it in a record, shared by the
		 * sites whose records are equal. */
		cgm_site_rare x = { .events = r->events, .ncolumns = r->ncolumns };
		x.text = cgm_intern_str(w->strings, r->text);
		x.argnames = cgm_intern_strs(w->strings, r->argnames, s->nargs);
		x.columns = cgm_intern_strs(w->strings, r->columns, r->ncolumns);
		x.nreads = r->nreads;
		x.reads = cgm_intern_strs(w->strings, r->reads, r->nreads);
		x.target_via = r->target_via;
		x.target_object = cgm_intern_strs(w->strings, r->target_object, s->ntargets);
		x.requires_extension = cgm_intern_str(w->strings, needs);
		k->rare = keep_rare(w->rares, w->arena, &x, (int)n);
	}
	fn->sites = sites;
	fn->site_exprs = NULL; /* in the scratch arena, reset next */
	cgm_parse_error *errors = NULL;
	if (fn->nerrors)
		errors = cgm_arena_alloc(w->arena, sizeof(cgm_parse_error) * (size_t)fn->nerrors);
	for (int i = 0; i < fn->nerrors; i++) {
		errors[i].line = fn->errors[i].line;
		errors[i].message = cgm_arena_strdup(w->arena, fn->errors[i].message);
	}
	fn->errors = errors;
	fn->extract_pending = false;
}

/* One caller.  A body left to resolution is extracted into the scratch
 * arena, resolved there and kept compact; the rest of its parse goes with
 * the reset. */
static void resolve_one(resolve_worker *w, cgm_function *fn)
{
	const resolver *rv = w->job->rv;
	if (!fn->extract_pending) {
		cgm_verbranch_prune(w->arena, fn, rv->opts->versions);
		resolve_function(rv, w->arena, fn);
		return;
	}
	if (!w->scratch) {
		w->scratch = cgm_arena_new();
		w->strings = cgm_intern_new(w->arena);
		w->rares = cgm_xcalloc(1, sizeof(rare_table));
		if (w->job->cache)
			w->cached = cgm_extract_cache_slot_new(w->job->cache);
	}
	if (w->cached) {
		/* Keyed by everything extraction reads, so a body fetched is the
		 * body parsed; kept before resolution writes into its sites. */
		cgm_extract_key key;
		cgm_extract_cache_key(&key, fn, w->job->coercions);
		if (!cgm_extract_cache_fetch(w->cached, &key, w->scratch, fn)) {
			cgm_extract_function_with(w->scratch, fn, w->job->coercions);
			cgm_extract_cache_keep(w->cached, &key, fn);
		}
	} else {
		cgm_extract_function_with(w->scratch, fn, w->job->coercions);
	}
	/* the lines left out in the worker's arena, which the model adopts */
	cgm_verbranch_prune(w->arena, fn, rv->opts->versions);
	resolve_function(rv, w->scratch, fn);
	keep_resolved(w, fn);
	cgm_arena_reset(w->scratch);
}

static void *resolve_worker_main(void *arg)
{
	resolve_worker *w = arg;
	resolve_job *job = w->job;
	cgm_model *model = job->rv->model;
	for (;;) {
		pthread_mutex_lock(&job->lock);
		int run = job->next_run++;
		pthread_mutex_unlock(&job->lock);
		if (run >= job->nruns)
			break;
		int first = run * RUN_LENGTH;
		int last = first + RUN_LENGTH < model->nuser ? first + RUN_LENGTH : model->nuser;
		if (job->write_edges) {
			/* No edges at all: model->edges is NULL, and NULL + 0 is
			 * undefined in C. */
			if (model->edges)
				build_edges(model->edges + job->run_edges[run], model, w->arena, first,
					    last, job->include_builtins);
			continue;
		}
		for (int f = first; f < last; f++)
			resolve_one(w, &model->functions[f]);
		/* Of functions outside its run a thread reads only what resolution
		 * never writes (names, schemas, arguments, the builtin flag): runs
		 * resolved at once cannot disturb each other. */
		job->run_edges[run] = build_edges(NULL, model, w->arena, first, last,
						  job->include_builtins);
	}
	return NULL;
}

/* One pass over every run, on `threads` threads (this one included);
 * returns how many threads besides this one ran. */
static int run_pass(resolve_job *job, resolve_worker *workers, int threads, int started_before)
{
	job->next_run = 0;
	int started = 0;
	for (int t = 1; t < threads; t++) {
		if (t > started_before)
			workers[t] = (resolve_worker){ .job = job, .arena = cgm_arena_new() };
		if (pthread_create(&workers[t].thread, NULL, resolve_worker_main, &workers[t]) != 0) {
			if (t > started_before)
				cgm_arena_free(workers[t].arena);
			break; /* fewer threads only make it slower */
		}
		started = t;
	}
	resolve_worker_main(&workers[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(workers[t].thread, NULL);
	return started > started_before ? started : started_before;
}

static int thread_count(int wanted, int nruns)
{
	if (wanted <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		wanted = n > 0 ? (int)n : 1;
	}
	if (wanted > MAX_THREADS)
		wanted = MAX_THREADS;
	return wanted < nruns ? wanted : (nruns > 0 ? nruns : 1);
}

int cgm_resolve(cgm_model *model, const cgm_resolve_options *opts)
{
	if (!model->lookup)
		return cgm_error(CGM_EUSAGE, "the model must be indexed before resolution");
	/* The element type of each VARIADIC array, which an expanded call's
	 * arguments are typed against (a live catalog does not give it). */
	for (int i = 0; i < model->nfunctions; i++) {
		cgm_function *f = &model->functions[i];
		if (f->variadic && !f->variadic_elem && f->nargs > 0 && f->argtypes)
			f->variadic_elem = cgm_variadic_element(model->arena, f->argtypes[f->nargs - 1]);
	}
	resolver rv = { .model = model, .opts = opts, .catalog = cgm_catalog_new(model) };
	build_name_index(&rv.names, model);
	cgm_ops_index(model);
	rv.ops = cgm_ops_resolver_new(model, opts && opts->include_builtins);
	rv.defaults = cgm_argdefaults_build(model, opts && opts->include_builtins,
					    resolve_default_call, &rv);
	if (model->ncolumns > 1)
		qsort(model->columns, (size_t)model->ncolumns, sizeof(char *), compare_strings);

	resolve_job job = { .rv = &rv, .include_builtins = opts && opts->include_builtins,
			    .coercions = opts ? opts->coercions : CGM_COERCE_ALL,
			    .cache = opts ? opts->extract_cache : NULL };
	job.nruns = (model->nuser + RUN_LENGTH - 1) / RUN_LENGTH;
	job.run_edges = cgm_xcalloc((size_t)(job.nruns ? job.nruns : 1), sizeof(int));
	pthread_mutex_init(&job.lock, NULL);
	int threads = thread_count(opts ? opts->threads : 0, job.nruns);
	resolve_worker workers[MAX_THREADS];
	/* This thread resolves too, straight into the model's arena. */
	workers[0] = (resolve_worker){ .job = &job, .arena = model->arena };
	int started = run_pass(&job, workers, threads, 0);
	free_name_index(&rv.names);
	cgm_catalog_free(rv.catalog);
	cgm_ops_resolver_free(rv.ops);
	cgm_argdefaults_free(rv.defaults);
	/* What only resolving used goes before the edges' array is made: the
	 * map's memory peaks then (the edges, 78 MB at 100,000 functions, come
	 * on top of every site).  The strings and records the tables index
	 * stay in the workers' arenas. */
	for (int t = 0; t <= started; t++) {
		cgm_intern_free(workers[t].strings);
		workers[t].strings = NULL;
		rare_table_free(workers[t].rares);
		workers[t].rares = NULL;
		cgm_arena_free(workers[t].scratch);
		workers[t].scratch = NULL;
	}
#ifdef __GLIBC__
	/* The threads' heaps hold the pages their scratch gave back: returned
	 * now, they are not counted twice under the edges. */
	malloc_trim(0);
#endif

	/* The edges in one array of their final size, each run's written in
	 * place by a second pass: the same edges, in the same order, however
	 * many threads took them, and never a second copy of them all. */
	long total_edges = 0;
	for (int r = 0; r < job.nruns; r++) {
		int n = job.run_edges[r];
		job.run_edges[r] = (int)total_edges;
		total_edges += n;
	}
	if (total_edges > INT_MAX) {
		free(job.run_edges);
		pthread_mutex_destroy(&job.lock);
		for (int t = 1; t <= started; t++)
			cgm_arena_adopt(model->arena, workers[t].arena);
		return cgm_error(CGM_ESOURCE, "more than %d edges in the map (resolve.c, cgm_resolve)",
				 INT_MAX);
	}
	model->nedges = 0;
	cgm_model_reserve_edges(model, (int)total_edges);
	/* build_edges writes into zeroed edges (an earlier resolution's
	 * array is reused). */
	if (total_edges > 0)
		memset(model->edges, 0, sizeof(cgm_edge) * (size_t)total_edges);
	model->nedges = (int)total_edges;
	job.write_edges = true;
	started = run_pass(&job, workers, threads, started);
	for (int t = 0; t <= started; t++)
		if (t > 0)
			cgm_arena_adopt(model->arena, workers[t].arena);
	pthread_mutex_destroy(&job.lock);
	free(job.run_edges);
	model->include_builtins = opts && opts->include_builtins;
	return 0;
}
