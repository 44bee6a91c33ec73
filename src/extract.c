/*
 * extract.c - call sites of every PL/pgSQL and SQL function body.
 *
 * In:  functions of the model with language, kind, arguments, result and
 *      source (the body) filled by a source.
 * Out: fn->sites (call, PERFORM, CALL, DML that may fire triggers, calls in
 *      constant EXECUTE SQL, dynamic EXECUTE sites, operators and casts with
 *      their operand types) with the line of each in
 *      the body, fn->site_exprs (the expressions resolution types, beside
 *      the sites, NULL when none has any), and fn->errors when the body
 *      does not parse.  Everything is
 *      copied into the arena given; every libpg_query result and JSON tree is
 *      freed before the function returns.
 *
 * PL/pgSQL: pg_query_parse_plpgsql gives the statement tree with each
 * embedded expression as text ("x := f(1)", "f(x) > 0", "SELECT ...");
 * each is turned into a statement libpg_query parses, and its FuncCall,
 * CallStmt and DML nodes become sites.  SQL is read from the raw parse tree
 * (rawtree.c); a statement it does not know, and the constant SQL of an
 * EXECUTE, from libpg_query's JSON.  Line of a site: the body's line at the
 * call's offset in its expression plus where the expression stands in the
 * body (plpgsql_locate.c, searching from its statement's line: PL/pgSQL's
 * text of a statement with INTO has the clause blanked, newlines too).
 */
#include <ctype.h>
#include <pg_query.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/error.h"
#include "cgmap/coerce.h"
#include "cgmap/exprtype.h"
#include "cgmap/ops.h"
#include "cgmap/limits.h"
#include "cgmap/pipeline.h"
#include "cgmap/strbuf.h"
#include "cgmap/relfx.h"
#include "cgmap/sqlformat.h"
#include "cgmap/types.h"
#include "jsontok.h"
#include "plpgsql_locate.h"
#include "plpgsql_params.h"
#include "plpgsql_rewrite.h"
#include "rawtree.h"
#include "sqllex.h"
#include "execvars.h"
#include "extguard.h"
#include "sqlprep.h"

#define MAX_REWRITES 24

#define EXTRACT_STRING(x) #x
#define EXTRACT_NUMBER(x) EXTRACT_STRING(x)

typedef struct var_type {
	const char *name;     /* lower-cased variable or parameter name */
	const char *type;     /* canonical type, NULL when unknown */
	const char *declared; /* type as declared, canonicalised on first use */
	bool canonical;       /* type holds the canonical form of declared */
	cgm_expr *expr;       /* the variable for typing (CGM_EXPR_VAR), made on first use */
} var_type;

/* An ADD COLUMN default whose calls decide a rewrite: its tokens. */
#define MAX_ADDED_DEFAULTS 16
typedef struct added_default {
	int start, end; /* [start, end) in the parse's tokens */
	int group;
} added_default;

typedef struct extract_ctx {
	cgm_arena *arena;
	cgm_function *fn;
	cgm_coercions coercions; /* the casts a coercion may run (cgmap/pipeline.h) */

	const char *body;       /* the body as parsed (rewrites keep its lines) */
	int *line_starts;       /* offsets of each line start in body */
	int nlines;

	cgm_site *sites;        /* heap while collecting, copied at the end */
	cgm_site_exprs *exprs;  /* beside sites (cap_sites entries): their expressions */
	int nsites, cap_sites;
	cgm_parse_error *errors;
	int nerrors, cap_errors;

	var_type *vars;
	int nvars, cap_vars;
	/* FROM scopes whose items' expressions bind_vars has bound. */
	const struct cgm_scope **bound_scopes;
	int nbound_scopes, cap_bound_scopes;
	/* A PL/pgSQL function's parameters numbered as PL/pgSQL numbers them
	 * (OUT ones too), each the variable "$n", when they differ from the
	 * model's input argtypes (plpgsql_params.h); else 0. */
	int nplparams;
	/* The arguments the PL/pgSQL parser is handed: fn->arguments, or with
	 * its unnamed parameters named "$n" so that `$n := ...` parses. */
	const char *plargs;

	/* The statement being walked. */
	const char *stmt_kind;
	int stmt_line;
	bool in_perform;

	/* The expression being walked: parsed text `parsed`, whose offset o is
	 * offset o + delta of the original expression text `orig`, which stands
	 * at body offset `base` (or -1 when it could not be found, then lines
	 * count from stmt_line).  In constant EXECUTE SQL, literal_line >= 0 is
	 * the line of the literal and lines count within it. */
	const char *parsed;
	const char *orig;
	long delta;
	long base;
	int literal_line;
	bool via_literal;
	bool in_runtime_parts; /* walking the SQL of walk_runtime_parts */
	/* Parsing a BEGIN ATOMIC body inside the CREATE made for it
	 * (extract_sql): that CREATE is the function itself, no DDL it runs. */
	bool atomic_wrapper;
	bool in_call_stmt;
	/* The USING values of the EXECUTE being walked, for the $n of its
	 * constant SQL: bound in the function, NULL for one that does not
	 * parse as a value (using_values). */
	const struct cgm_expr **using_values;
	int nusing_values;
	/* The constant SQL each variable can hold, for an EXECUTE of one
	 * (execvars.h); NULL when the body's tree was not walked. */
	cgm_exec_vars *exec_vars;
	int current_step;   /* the tree step being replayed, -1 outside replay_tree */
	size_t exec_walked; /* bytes of variables' SQL walked for EXECUTEs of them */
	size_t exec_walked_sites; /* and the sites they made */
	struct {
		const char *text;
		long offset;
		int newlines;
	} literal_counted;  /* literal_newlines */
	/* Per step, NULL until an EXECUTE of a variable needs them (heap):
	 * the statement open there (its own for a STEP_STATEMENT: the one
	 * holding it), -1 at the top, and the end of the outermost loop
	 * statement around it, -1 when none (index_steps). */
	int *step_parent, *step_loop_end;

	/* PL/pgSQL expressions wait here and are parsed as one text: one parser
	 * call per function instead of one per expression. */
	bool batching;
	struct pending_expr *pending;
	int npending, cap_pending;

	/* The trees the PL/pgSQL parser built to check each text of the body
	 * (rawtree.h, cgm_raw_capture), their sites kept in the arena: a text
	 * found here is not parsed again. */
	struct captured_text *captured;
	int ncaptured, cap_captured, captured_cursor;
	struct captured_event *events;
	int nevents, cap_events, events_mark;

	/* The PL/pgSQL tree walked from libpg_query's structs (rawtree.h,
	 * cgm_raw_plpgsql_visitor): its steps, replayed once the parse is over,
	 * or none (walked = false) when the tree was printed as JSON. */
	bool walked;
	struct tree_step *steps;
	int nsteps, cap_steps;
	const struct pending_expr *batch; /* set while scanning the batch */
	const char *raw_text;   /* the text the raw tree is read from */
	int raw_mark;           /* sites before the raw statement being read */
	int last_checked;       /* the checked text replay_expression replayed, or -1 */
	long loc_shift;         /* JSON of one statement cut from raw_text: where it starts */

	/* The body's cursor statements (plpgsql_rewrite.h): those the rewrite
	 * made ASSERTs of take their own kind back; heap, or NULL. */
	cgm_cursor_read *cursor_stmts;
	int ncursor_stmts;
	int assert_line, asserts_seen; /* ASSERT statements walked on assert_line */

	jt_doc sqldoc;          /* tokens of the last SQL parse tree */
	/* Variables whose `r.col` became `r` (plpgsql_rewrite.c): a one-part
	 * name of one of them may stand for a field, so it is not typed. */
	char *rewritten[8];
	int nrewritten;
	bool rewrites_overflow; /* more than fit: no one-part variable is typed */
	/* What lives only while the function is extracted (the captured
	 * operators and casts: most reach nothing and their sites are dropped
	 * by resolution); created on first use. */
	cgm_arena *scratch;
	int json_depth;         /* levels of the PL/pgSQL tree's JSON walked into */
	bool json_too_deep;
	/* The ADD COLUMN defaults of the SQL parse being scanned whose calls
	 * decide whether their ALTER TABLE rewrites the table (token ranges,
	 * with their group: cgm_site_exprs.rewrite_group), and the token the
	 * scan is at: a site made there is the default's (default_of). */
	added_default defaults[MAX_ADDED_DEFAULTS];
	int ndefaults;
	int rewrite_group;      /* groups made so far in this function */
	int scan_token;         /* -1 outside scan_sql */
	/* The user types of the columns the ALTER TABLE being read adds, for
	 * its group (adds_rewriting_column): resolution knows which are
	 * domains with constraints, which make PostgreSQL rewrite the table. */
	const char *added_types[MAX_ADDED_DEFAULTS];
	bool added_type_defaults[MAX_ADDED_DEFAULTS]; /* without a DEFAULT of its own */
	int nadded_types;
	/* Blocks whose EXCEPTION clause names undefined_function around the
	 * statement being read (their bodies, not their handlers): a site
	 * there handles a missing callee (cgm_site.handles_missing). */
	int guards;
	int guards_outside;     /* JSON walk: the count outside the innermost block */
	/* The extension the IF around the statement being read finds in
	 * pg_extension before running its THEN statements (extguard.h), or
	 * NULL. */
	const char *requires_extension;
	/* Tree steps being recorded: the blocks with an EXCEPTION clause and
	 * the IFs whose scope (tree_step.scope_end) is not closed yet. */
	int *open_scopes;
	int nopen_scopes, cap_open_scopes;
} extract_ctx;

static bool field_rewritten(const extract_ctx *ctx, const char *name)
{
	if (ctx->rewrites_overflow)
		return true;
	for (int i = 0; i < ctx->nrewritten; i++)
		if (strcmp(ctx->rewritten[i], name) == 0)
			return true;
	return false;
}

/* "\"r.col\" is not a known variable": remember r. */
static void note_field_rewrite(extract_ctx *ctx, const char *message)
{
	const char *q1 = strchr(message, '"');
	const char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
	const char *dot = q1 && q2 ? memchr(q1 + 1, '.', (size_t)(q2 - q1 - 1)) : NULL;
	if (!dot) {
		ctx->rewrites_overflow = true;
		return;
	}
	/* PL/pgSQL names variables as written; its lookups fold case. */
	size_t n = (size_t)(dot - q1 - 1);
	char *name = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		name[i] = (char)tolower((unsigned char)q1[1 + i]);
	name[n] = '\0';
	if (field_rewritten(ctx, name)) {
		free(name); /* another field of the same variable */
		return;
	}
	if (ctx->nrewritten == (int)(sizeof ctx->rewritten / sizeof ctx->rewritten[0])) {
		free(name);
		ctx->rewrites_overflow = true;
		return;
	}
	ctx->rewritten[ctx->nrewritten++] = name;
}

/* An expression waiting for the batch, with the context its sites need. */
typedef struct pending_expr {
	char *parsed;        /* heap */
	const char *orig;    /* lives in the PL/pgSQL tree until the batch runs */
	long delta, base;
	const char *stmt_kind;
	int stmt_line;
	bool in_perform;
	int guards;          /* ctx->guards where it stands */
	const char *requires_extension; /* ctx->requires_extension where it stands */
	long offset;         /* where `parsed` starts in the batch text */
	char *owned;         /* the expression text, freed with the batch */
} pending_expr;

/* A text the PL/pgSQL parser checked: its sites are events[first..] up to
 * the next text's first (or nevents). */
typedef struct captured_text {
	const char *text;
	int first;
	bool unknown; /* a statement the walker does not know: parse it again */
	const char *constant; /* the SQL the expression always yields, or NULL */
	int constant_location;
	bool appended;        /* constant is what an assignment appends to its
			       * variable (`q := q || ' AND b'`), not its value */
	const cgm_expr *row;  /* a SELECT's row (for a record variable), or NULL */
} captured_text;

typedef struct captured_event {
	bool relation;
	struct captured_opcast *opcast; /* an operator or cast, else NULL */
	int location;
	const char *schema, *name; /* the callee, or the relation */
	bool variadic, call_stmt, attribute, unscoped;
	int nargs;
	cgm_raw_arg *args;
	const cgm_expr *const *argexprs;
	unsigned events;
	int ncolumns;
	const char **columns;
	const cgm_expr *const *values; /* a relation's column values (rawtree.h) */
	int nleading;
	int nreads;           /* a read's columns (rawtree.h), NULL: all */
	const char **reads;
} captured_event;

/* An operator expression or a cast a checked text holds. */
typedef struct captured_opcast {
	bool cast;
	cgm_raw_operator op;  /* operator: strings and shapes in ctx->scratch */
	const cgm_raw_arg *target, *value; /* cast */
	int location;
} captured_opcast;

/* One step of the PL/pgSQL tree, in the order its JSON lists them. */
typedef struct tree_step {
	enum { STEP_VAR, STEP_STATEMENT, STEP_END, STEP_EXPRESSION, STEP_INTO, STEP_SETS } what;
	const char *kind;   /* STEP_STATEMENT (static) */
	int lineno;         /* STEP_VAR, STEP_STATEMENT */
	const char *text;   /* STEP_EXPRESSION: its text; STEP_VAR, STEP_INTO, STEP_SETS: the name */
	bool whole;         /* STEP_SETS: assigned as a whole (cgm_raw_plpgsql_visitor.sets) */
	const char *field;  /* STEP_EXPRESSION (static) */
	const char *type;   /* STEP_VAR: as declared, NULL when unknown */
	const char *default_text, *cursor_text; /* STEP_VAR */
	int scope_end;      /* STEP_STATEMENT of a block with an EXCEPTION clause: the
	                     * step its handlers start at; of an IF: the step after its
	                     * THEN statements; -1 while open, 0 for other statements */
	bool guards;        /* ... the block's clause names undefined_function */
	const char *requires; /* ... the extension the IF's condition needs, or NULL */
} tree_step;

/* ---- lines ------------------------------------------------------------ */

static void index_lines(extract_ctx *ctx)
{
	int cap = 64, n = 0;
	int *starts = malloc(sizeof(int) * (size_t)cap);
	starts[n++] = 0;
	for (int i = 0; ctx->body[i]; i++)
		if (ctx->body[i] == '\n') {
			if (n == cap) {
				cap *= 2;
				starts = realloc(starts, sizeof(int) * (size_t)cap);
			}
			starts[n++] = i + 1;
		}
	ctx->line_starts = starts;
	ctx->nlines = n;
}

static int line_of_offset(const extract_ctx *ctx, long offset)
{
	int lo = 0, hi = ctx->nlines - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (ctx->line_starts[mid] <= offset)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo + 1;
}

static int count_newlines(const char *s, long upto)
{
	int n = 0;
	for (long i = 0; i < upto && s[i]; i++)
		if (s[i] == '\n')
			n++;
	return n;
}

/* Newlines in the constant SQL being walked before offset `upto`.  Its
 * sites come in the order of its text, mostly: counting on from the last
 * offset asked keeps a long statement of many sites from being counted
 * over and over.  walk_literal_sql clears the count for each text. */
static int literal_newlines(extract_ctx *ctx, long upto)
{
	long i = 0;
	int n = 0;
	if (ctx->literal_counted.text == ctx->parsed && ctx->literal_counted.offset <= upto) {
		i = ctx->literal_counted.offset;
		n = ctx->literal_counted.newlines;
	}
	for (const char *s = ctx->parsed; i < upto && s[i]; i++)
		if (s[i] == '\n')
			n++;
	ctx->literal_counted.text = ctx->parsed;
	ctx->literal_counted.offset = i;
	ctx->literal_counted.newlines = n;
	return n;
}

/* Line in the body of a location in the parsed text. */
static int line_of_location(extract_ctx *ctx, long location)
{
	if (location < 0)
		location = 0;
	if (ctx->literal_line > 0)
		return ctx->literal_line + literal_newlines(ctx, location);
	long off = location + ctx->delta;
	if (off < 0)
		off = 0;
	if (ctx->base >= 0)
		return line_of_offset(ctx, ctx->base + off);
	return ctx->stmt_line + count_newlines(ctx->orig, off);
}

/* Where the expression text stands in the body, searching from the start
 * of its statement's line (an INTO clause PL/pgSQL blanked out of it
 * standing for what the body has there); -1 when it was transformed beyond
 * recognition. */
static long find_in_body(const extract_ctx *ctx, const char *text)
{
	if (ctx->stmt_line < 1 || ctx->stmt_line > ctx->nlines || !*text)
		return -1;
	return cgm_plpgsql_locate(ctx->body, ctx->line_starts[ctx->stmt_line - 1], text);
}

/* ---- collecting ------------------------------------------------------- */

static cgm_site *new_site(extract_ctx *ctx)
{
	if (ctx->nsites == ctx->cap_sites) {
		ctx->cap_sites = ctx->cap_sites ? ctx->cap_sites * 2 : 16;
		ctx->sites = cgm_xrealloc(ctx->sites, sizeof(cgm_site) * (size_t)ctx->cap_sites);
		ctx->exprs = cgm_xrealloc(ctx->exprs, sizeof(cgm_site_exprs) * (size_t)ctx->cap_sites);
	}
	memset(&ctx->exprs[ctx->nsites], 0, sizeof(cgm_site_exprs));
	for (int i = 0; i < ctx->ndefaults && ctx->scan_token >= 0; i++)
		if (ctx->scan_token >= ctx->defaults[i].start && ctx->scan_token < ctx->defaults[i].end)
			ctx->exprs[ctx->nsites].default_of = ctx->defaults[i].group;
	cgm_site *s = &ctx->sites[ctx->nsites++];
	memset(s, 0, sizeof(*s));
	s->stmt = ctx->stmt_kind;
	s->via_literal = ctx->via_literal;
	s->handles_missing = ctx->guards > 0;
	if (ctx->requires_extension)
		cgm_site_rare_of(ctx->arena, s)->requires_extension = ctx->requires_extension;
	return s;
}

/* The expressions of a site being collected (new_site's). */
static cgm_site_exprs *exprs_of(extract_ctx *ctx, const cgm_site *s)
{
	return &ctx->exprs[s - ctx->sites];
}

/* The names of a site's arguments, allocated (nargs entries, NULL for a
 * positional one) once one is named: a site with positional arguments only
 * keeps none. */
static const char **named_arg(extract_ctx *ctx, cgm_site *s)
{
	cgm_site_rare *x = cgm_site_rare_of(ctx->arena, s);
	if (!x->argnames)
		x->argnames = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)s->nargs);
	return x->argnames;
}

/* A cast PostgreSQL applies by itself (coerce.c). */
static void new_coercion_site(extract_ctx *ctx, const cgm_expr *value, const cgm_expr *target,
			      int line)
{
	cgm_site *s = new_site(ctx);
	cgm_coercion_site(ctx->arena, s, exprs_of(ctx, s), value, target, line);
}

static void add_error(extract_ctx *ctx, int line, const char *message)
{
	if (ctx->nerrors == ctx->cap_errors) {
		ctx->cap_errors = ctx->cap_errors ? ctx->cap_errors * 2 : 4;
		ctx->errors = realloc(ctx->errors, sizeof(cgm_parse_error) * (size_t)ctx->cap_errors);
	}
	ctx->errors[ctx->nerrors].line = line;
	ctx->errors[ctx->nerrors].message = cgm_arena_strdup(ctx->arena, message);
	ctx->nerrors++;
}

static void add_var(extract_ctx *ctx, const char *name, const char *type)
{
	if (!name)
		return;
	if (ctx->nvars == ctx->cap_vars) {
		ctx->cap_vars = ctx->cap_vars ? ctx->cap_vars * 2 : 16;
		ctx->vars = realloc(ctx->vars, sizeof(var_type) * (size_t)ctx->cap_vars);
	}
	ctx->vars[ctx->nvars].name = name;
	ctx->vars[ctx->nvars].type = type;
	ctx->vars[ctx->nvars].declared = NULL;
	ctx->vars[ctx->nvars].canonical = false;
	ctx->vars[ctx->nvars].expr = NULL;
	ctx->nvars++;
}

static const char *var_lookup(extract_ctx *ctx, const char *name)
{
	/* Inner declarations come later and shadow outer ones. */
	for (int i = ctx->nvars - 1; i >= 0; i--)
		if (strcmp(ctx->vars[i].name, name) == 0) {
			var_type *v = &ctx->vars[i];
			/* Most variables are never passed to a call: canonicalise
			 * their type only when one is. */
			if (v->declared && !v->canonical) {
				v->type = cgm_type_canonical_text(ctx->arena, v->declared, NULL);
				v->canonical = true;
			}
			return v->type;
		}
	return NULL;
}

/* The variable `name` as typing sees it (inner declarations shadow outer
 * ones, as in var_lookup), or NULL when no variable has that name. */
static cgm_expr *var_expr(extract_ctx *ctx, const char *name)
{
	for (int i = ctx->nvars - 1; i >= 0; i--) {
		var_type *v = &ctx->vars[i];
		if (strcmp(v->name, name) != 0)
			continue;
		if (!v->expr) {
			v->expr = cgm_arena_alloc(ctx->arena, sizeof(cgm_expr));
			v->expr->kind = CGM_EXPR_VAR;
			if (v->declared) {
				v->expr->name = v->declared;
			} else {
				v->expr->type = v->type; /* a parameter: canonical already */
				v->expr->flag = true;
			}
		}
		return v->expr;
	}
	return NULL;
}

/* The type of $n: in SQL the n-th input argument; in PL/pgSQL the
 * variable $n, which counts OUT parameters too. */
static const char *using_value_type(extract_ctx *ctx, long n);

static const char *param_type(extract_ctx *ctx, long n)
{
	if (ctx->via_literal)
		return using_value_type(ctx, n); /* EXECUTE's USING values (using_values) */
	if (ctx->nplparams > 0) {
		char name[24];
		snprintf(name, sizeof name, "$%ld", n);
		return n >= 1 && n <= ctx->nplparams ? var_lookup(ctx, name) : NULL;
	}
	const cgm_function *fn = ctx->fn;
	return n >= 1 && n <= fn->nargs && fn->argtypes ? fn->argtypes[n - 1] : NULL;
}

static void bind_vars(extract_ctx *ctx, const cgm_expr *e, int depth);

/* The expressions of the FROM items a name is looked up in (a function's
 * arguments, a subquery's or CTE's columns) bound too, each scope once:
 * `FROM (SELECT p AS n) s` gives s.n the type of the variable p. */
static void bind_scope_vars(extract_ctx *ctx, const cgm_scope *scope, int depth)
{
	for (; scope; scope = scope->parent) {
		for (int i = 0; i < ctx->nbound_scopes; i++)
			if (ctx->bound_scopes[i] == scope)
				return; /* and its parents with it */
		if (ctx->nbound_scopes == 4096)
			return; /* enough: the rest stays untyped */
		if (ctx->nbound_scopes == ctx->cap_bound_scopes) {
			int cap = ctx->cap_bound_scopes ? ctx->cap_bound_scopes * 2 : 16;
			ctx->bound_scopes = cgm_arena_grow(ctx->arena, ctx->bound_scopes, (size_t)ctx->nbound_scopes,
							   (size_t)cap, sizeof(*ctx->bound_scopes));
			ctx->cap_bound_scopes = cap;
		}
		ctx->bound_scopes[ctx->nbound_scopes++] = scope;
		for (int i = 0; i < scope->nitems; i++) {
			const cgm_scope_item *it = &scope->items[i];
			bind_vars(ctx, it->func, depth + 1);
			if (it->colexprs)
				for (int k = 0; k < it->ncolumns; k++)
					bind_vars(ctx, it->colexprs[k], depth + 1);
		}
	}
}

/* Names in an argument that are PL/pgSQL variables point to them (the
 * variable as it stands now: a record assigned later is another), and so
 * does a $n numbered with OUT parameters (param_type); so do those of the
 * FROM items its names are looked up in (bind_scope_vars). */
static void bind_vars(extract_ctx *ctx, const cgm_expr *e, int depth)
{
	/* In the constant SQL of an EXECUTE, $n is the n-th value of its
	 * USING (using_values), not the function's. */
	static const cgm_expr literal_param = { .kind = CGM_EXPR_OTHER };
	if (!e || depth > 64 || (ctx->nvars == 0 && !ctx->via_literal))
		return;
	if (e->kind == CGM_EXPR_PARAM && ctx->via_literal) {
		const cgm_expr *value = e->param >= 1 && e->param <= ctx->nusing_values
						? ctx->using_values[e->param - 1]
						: NULL;
		((cgm_expr *)e)->var = value ? value : &literal_param;
		return;
	}
	if (e->scope)
		bind_scope_vars(ctx, e->scope, depth);
	if (e->kind == CGM_EXPR_NAME && !e->var && e->nnames >= 1 &&
	    !(e->nnames == 1 && field_rewritten(ctx, e->names[0])))
		((cgm_expr *)e)->var = var_expr(ctx, e->names[0]);
	if (e->kind == CGM_EXPR_PARAM && !e->var && ctx->nplparams > 0 && e->param >= 1 &&
	    e->param <= ctx->nplparams) {
		char name[24];
		snprintf(name, sizeof name, "$%d", e->param);
		((cgm_expr *)e)->var = var_expr(ctx, name);
	}
	for (int i = 0; i < e->nargs; i++)
		bind_vars(ctx, e->args[i], depth + 1);
}

/* The values of an EXECUTE's USING (their texts), for the $n of its
 * constant SQL: each typed as PL/pgSQL passes it, in the function (its
 * variables and parameters), an unknown literal or NULL as text
 * (pl_exec.c, exec_eval_using_params).  n 0: none. */
static void using_values(extract_ctx *ctx, const char *const *texts, int n)
{
	static const cgm_expr text_value = { .kind = CGM_EXPR_CONST, .type = "text" };
	ctx->nusing_values = 0;
	ctx->using_values = NULL;
	if (n <= 0)
		return;
	const cgm_expr **values = cgm_arena_alloc(ctx->arena, sizeof(cgm_expr *) * (size_t)n);
	for (int i = 0; i < n; i++) {
		const cgm_expr *v = texts[i] ? cgm_raw_value_expr(ctx->arena, texts[i]) : NULL;
		if (v && v->kind == CGM_EXPR_CONST && (!v->type || strcmp(v->type, "unknown") == 0))
			v = &text_value;
		if (v)
			bind_vars(ctx, v, 0);
		values[i] = v;
	}
	ctx->using_values = values;
	ctx->nusing_values = n;
}

/* The type of the USING value a $n of constant EXECUTE SQL stands for,
 * where the statement is read from libpg_query's JSON (a utility statement
 * such as CREATE TABLE AS), whose sites carry argument types, not
 * expressions: a literal's, a cast's, a variable's or a parameter's;
 * NULL for any other value, left untyped. */
static const char *using_value_type(extract_ctx *ctx, long n)
{
	const cgm_expr *e = n >= 1 && n <= ctx->nusing_values ? ctx->using_values[n - 1] : NULL;
	for (int depth = 0; e && depth < 8; depth++) {
		switch (e->kind) {
		case CGM_EXPR_CONST:
		case CGM_EXPR_CAST:
			return e->type && strcmp(e->type, "unknown") != 0 ? e->type : NULL;
		case CGM_EXPR_NAME:
		case CGM_EXPR_PARAM:
			e = e->var;
			break;
		case CGM_EXPR_VAR:
			if (e->flag)
				return e->type;
			return e->name ? cgm_type_canonical_text(ctx->arena, e->name, NULL) : NULL;
		default:
			return NULL;
		}
	}
	return NULL;
}

/* A query's row goes to the record variable `name` (SELECT INTO, FOR IN). */
static void assign_row(extract_ctx *ctx, const char *name, const cgm_expr *row)
{
	cgm_expr *old = var_expr(ctx, name);
	if (!old || !row)
		return;
	cgm_expr *v = cgm_arena_alloc(ctx->arena, sizeof(cgm_expr));
	*v = *old;
	if (strcmp(v->name ? v->name : "", "record") != 0)
		return; /* a typed variable keeps its declared type */
	v->nargs = 1;
	v->args = cgm_arena_alloc(ctx->arena, sizeof(cgm_expr *));
	v->args[0] = row;
	for (int i = ctx->nvars - 1; i >= 0; i--)
		if (ctx->vars[i].expr == old) {
			ctx->vars[i].expr = v;
			break;
		}
}

/* ---- JSON helpers ----------------------------------------------------- */

/* The sval of {"String": {"sval": ...}} at i, into the arena. */
static char *string_node(extract_ctx *ctx, const jt_doc *d, int i)
{
	return jt_strdup(d, jt_get(d, jt_get(d, i, "String"), "sval"), ctx->arena);
}

static bool string_node_is(const jt_doc *d, int i, const char *s)
{
	return jt_eq(d, jt_get(d, jt_get(d, i, "String"), "sval"), s);
}

/* ---- argument types --------------------------------------------------- */

/* Canonical name of the TypeName object at i. */
static const char *typename_canonical(extract_ctx *ctx, const jt_doc *d, int i)
{
	int names = jt_get(d, i, "names");
	int n = names >= 0 ? d->tokens[names].size : 0;
	if (n == 0 || jt_get(d, i, "pct_type") >= 0)
		return NULL;
	const char *name = string_node(ctx, d, jt_elem(d, names, n - 1));
	const char *schema = n >= 2 ? string_node(ctx, d, jt_elem(d, names, n - 2)) : NULL;
	int bounds = jt_get(d, i, "arrayBounds");
	int dims = bounds >= 0 ? d->tokens[bounds].size : 0;
	return name ? cgm_type_canonical(ctx->arena, schema, name, dims, NULL) : NULL;
}

/* Concatenation: text when a side is text or a string literal, an array
 * when a side is one. */
static const char *concat_type(const char *l, const char *r)
{
	for (int side = 0; side < 2; side++) {
		const char *t = side ? r : l;
		size_t n = t ? strlen(t) : 0;
		if (n > 2 && strcmp(t + n - 2, "[]") == 0)
			return t;
	}
	if ((l && (strcmp(l, "unknown") == 0 || strcmp(l, "text") == 0)) ||
	    (r && (strcmp(r, "unknown") == 0 || strcmp(r, "text") == 0)))
		return "text";
	return NULL;
}

/* What PostgreSQL would know of the type of the argument at i before
 * resolution. */
static const char *arg_type(extract_ctx *ctx, const jt_doc *d, int arg)
{
	int v;
	if ((v = jt_get(d, arg, "A_Const")) >= 0) {
		if (jt_get(d, v, "isnull") >= 0 || jt_get(d, v, "sval") >= 0)
			return "unknown";
		if (jt_get(d, v, "ival") >= 0)
			return "integer";
		int fval = jt_get(d, v, "fval");
		if (fval >= 0) {
			/* Integers too large for int4 come as fval without a dot. */
			int f = jt_get(d, fval, "fval");
			if (f >= 0) {
				const char *t = d->text + d->tokens[f].start;
				int len = d->tokens[f].end - d->tokens[f].start;
				bool integral = true;
				for (int k = 0; k < len; k++)
					if (t[k] == '.' || t[k] == 'e' || t[k] == 'E')
						integral = false;
				if (integral)
					return len > 18 ? "numeric" : "bigint";
			}
			return "numeric";
		}
		if (jt_get(d, v, "boolval") >= 0)
			return "boolean";
		if (jt_get(d, v, "bsval") >= 0)
			return "bit";
		return NULL;
	}
	if ((v = jt_get(d, arg, "TypeCast")) >= 0)
		return typename_canonical(ctx, d, jt_get(d, v, "typeName"));
	if ((v = jt_get(d, arg, "ColumnRef")) >= 0) {
		int fields = jt_get(d, v, "fields");
		if (fields >= 0 && d->tokens[fields].size == 1) {
			int sv = jt_get(d, jt_get(d, jt_elem(d, fields, 0), "String"), "sval");
			if (sv < 0)
				return NULL;
			char name[128];
			int len = d->tokens[sv].end - d->tokens[sv].start;
			if (len <= 0 || len >= (int)sizeof name)
				return NULL;
			memcpy(name, d->text + d->tokens[sv].start, (size_t)len);
			name[len] = '\0';
			return field_rewritten(ctx, name) ? NULL : var_lookup(ctx, name);
		}
		return NULL;
	}
	if ((v = jt_get(d, arg, "NamedArgExpr")) >= 0)
		return arg_type(ctx, d, jt_get(d, v, "arg"));
	if ((v = jt_get(d, arg, "ParamRef")) >= 0)
		return param_type(ctx, jt_long(d, jt_get(d, v, "number"), 0));
	if ((v = jt_get(d, arg, "A_Expr")) >= 0 && jt_eq(d, jt_get(d, v, "kind"), "AEXPR_OP") &&
	    string_node_is(d, jt_elem(d, jt_get(d, v, "name"), 0), "||"))
		return concat_type(arg_type(ctx, d, jt_get(d, v, "lexpr")),
				   arg_type(ctx, d, jt_get(d, v, "rexpr")));
	return NULL;
}

/* The same, from the raw tree's argument shape. */
static const char *raw_arg_type(extract_ctx *ctx, const cgm_raw_arg *a)
{
	switch (a->kind) {
	case CGM_RAW_ARG_UNKNOWN:
		return "unknown";
	case CGM_RAW_ARG_INTEGER:
		return "integer";
	case CGM_RAW_ARG_BIGINT:
		return "bigint";
	case CGM_RAW_ARG_NUMERIC:
		return "numeric";
	case CGM_RAW_ARG_BOOLEAN:
		return "boolean";
	case CGM_RAW_ARG_BIT:
		return "bit";
	case CGM_RAW_ARG_CAST:
		return a->type_name ? cgm_type_canonical(ctx->arena, a->type_schema, a->type_name,
							 a->type_dims, NULL)
				    : NULL;
	case CGM_RAW_ARG_COLUMN:
		return field_rewritten(ctx, a->column) ? NULL : var_lookup(ctx, a->column);
	case CGM_RAW_ARG_PARAM:
		return param_type(ctx, a->param);
	case CGM_RAW_ARG_CONCAT:
		return concat_type(raw_arg_type(ctx, a->left), raw_arg_type(ctx, a->right));
	default:
		return NULL;
	}
}

/* ---- sites from parse trees ------------------------------------------- */

/* In a batch, the expression a location falls in becomes the context, and
 * the location is made relative to it. */
static long locate(extract_ctx *ctx, long location)
{
	if (!ctx->batch)
		return location;
	int lo = 0, hi = ctx->npending - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (ctx->batch[mid].offset <= location)
			lo = mid;
		else
			hi = mid - 1;
	}
	const pending_expr *e = &ctx->batch[lo];
	ctx->parsed = e->parsed;
	ctx->orig = e->orig;
	ctx->delta = e->delta;
	ctx->base = e->base;
	ctx->stmt_kind = e->stmt_kind;
	ctx->stmt_line = e->stmt_line;
	ctx->in_perform = e->in_perform;
	ctx->guards = e->guards;
	ctx->requires_extension = e->requires_extension;
	return location - e->offset;
}

/* A call site at `location` of the parsed text; kind from the context. */
static cgm_site *new_call_site(extract_ctx *ctx, long location, const char *name, bool call_stmt)
{
	cgm_site *s = new_site(ctx);
	/* A CALL in constant EXECUTE SQL calls a procedure all the same
	 * (via_literal tells where it stands). */
	s->kind = call_stmt	   ? CGM_SITE_CALL_STMT
		  : ctx->via_literal ? CGM_SITE_EXEC_LITERAL
		  : ctx->in_perform ? CGM_SITE_PERFORM
				    : CGM_SITE_CALL;
	s->name = name;
	s->line = line_of_location(ctx, location);
	return s;
}

/* A part of an EXECUTE's SQL known only at run time (constant_sql), and
 * the name it becomes for the parser (walk_runtime_parts). */
#define RUNTIME_MARK '\x02'
#define RUNTIME_MARK_TEXT "\x02"
#define RUNTIME_NAME "cgmap_runtime_part"

static bool names_runtime_part(const char *name)
{
	return name && strstr(name, RUNTIME_NAME);
}

/* Whether a column `qualifier.x` (or `x`, qualifier NULL) may be one of
 * a relation a run-time part names, in scope sc or those around it. */
static bool column_of_runtime_part(const cgm_scope *sc, const char *qualifier)
{
	for (int depth = 0; sc && depth < 64; sc = sc->parent, depth++)
		for (int i = 0; i < sc->nitems; i++) {
			const cgm_scope_item *it = &sc->items[i];
			bool runtime = names_runtime_part(it->name) || names_runtime_part(it->schema);
			const char *called = it->alias ? it->alias : it->name;
			if (!qualifier && runtime)
				return true;
			if (qualifier && called && strcmp(called, qualifier) == 0)
				return runtime;
		}
	return false;
}

/* Whether expression e reads a run-time part of the SQL: the part itself,
 * or a column of a relation it names. */
static bool reads_runtime_part(const cgm_expr *e, int depth)
{
	if (!e || depth > 64)
		return false;
	if (names_runtime_part(e->name) || names_runtime_part(e->schema))
		return true;
	if (e->kind == CGM_EXPR_NAME && e->nnames > 0 &&
	    column_of_runtime_part(e->scope, e->nnames > 1 ? e->names[e->nnames - 2] : NULL))
		return true;
	for (int k = 0; e->names && k < e->nnames; k++)
		if (names_runtime_part(e->names[k]))
			return true;
	for (int k = 0; e->args && k < e->nargs; k++)
		if (reads_runtime_part(e->args[k], depth + 1))
			return true;
	return false;
}

/* Whether the JSON value at v holds the name of a run-time part
 * (walk_runtime_parts). */
static bool json_names_runtime_part(const jt_doc *d, int v)
{
	static const size_t len = sizeof(RUNTIME_NAME) - 1;
	for (int k = v, end = jt_skip(d, v); k < end; k++) {
		const jt_token *t = &d->tokens[k];
		if (t->type == JT_STRING && (size_t)(t->end - t->start) >= len &&
		    memmem(d->text + t->start, (size_t)(t->end - t->start), RUNTIME_NAME, len))
			return true;
	}
	return false;
}

/* The FuncCall object at fc. */
static void on_funccall(extract_ctx *ctx, const jt_doc *d, int fc)
{
	int names = jt_get(d, fc, "funcname");
	int n = names >= 0 ? d->tokens[names].size : 0;
	if (n == 0)
		return;
	long location = locate(ctx, jt_long(d, jt_get(d, fc, "location"), 0) + ctx->loc_shift);
	char *name = string_node(ctx, d, jt_elem(d, names, n - 1));
	if (!name)
		return;
	cgm_site *s = new_call_site(ctx, location, name, ctx->in_call_stmt);
	if (n >= 2)
		s->schema = string_node(ctx, d, jt_elem(d, names, n - 2));
	s->variadic_call = jt_true(d, jt_get(d, fc, "func_variadic"));
	int args = jt_get(d, fc, "args");
	s->nargs = args >= 0 ? d->tokens[args].size : 0;
	if (s->nargs > 0 && ctx->in_runtime_parts)
		exprs_of(ctx, s)->runtime_typed = json_names_runtime_part(d, args);
	if (s->nargs > 0) {
		s->argtypes = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)s->nargs);
		int arg = args + 1;
		for (int i = 0; i < s->nargs; i++) {
			int named = jt_get(d, arg, "NamedArgExpr");
			if (named >= 0)
				named_arg(ctx, s)[i] = jt_strdup(d, jt_get(d, named, "name"), ctx->arena);
			s->argtypes[i] = arg_type(ctx, d, arg);
			arg = jt_skip(d, arg);
		}
	}
}

/* The `name`s of the ResTarget list at list (an INSERT's columns, an
 * UPDATE's SET), into s; none when one has no name. */
static void json_columns(extract_ctx *ctx, const jt_doc *d, int list, cgm_site *s)
{
	int n = list >= 0 ? d->tokens[list].size : 0;
	if (n == 0)
		return;
	const char **cols = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)n);
	int e = list + 1;
	for (int i = 0; i < n; i++, e = jt_skip(d, e)) {
		cols[i] = jt_strdup(d, jt_get(d, jt_get(d, e, "ResTarget"), "name"), ctx->arena);
		if (!cols[i])
			return;
	}
	cgm_site_rare *x = cgm_site_rare_of(ctx->arena, s);
	x->ncolumns = n;
	x->columns = cols;
}

/* The relation at rel (a RangeVar, wrapped or not) read or written. */
static cgm_site *on_dml(extract_ctx *ctx, const jt_doc *d, int rel, unsigned events)
{
	int rv = jt_get(d, rel, "RangeVar");
	if (rv < 0)
		rv = rel;
	int relname = jt_get(d, rv, "relname");
	if (relname < 0 || !events)
		return NULL;
	/* libpg_query's JSON leaves false out: no "inh" is ONLY. */
	if (!jt_true(d, jt_get(d, rv, "inh")) &&
	    (events & (CGM_EV_UPDATE | CGM_EV_DELETE | CGM_EV_TRUNCATE | CGM_EV_REWRITE |
		       CGM_EV_ANALYZE | CGM_EV_VALIDATE)))
		events |= CGM_EV_ONLY;
	long location = locate(ctx, jt_long(d, jt_get(d, rv, "location"), 0) + ctx->loc_shift);
	cgm_site *s = new_site(ctx);
	s->kind = CGM_SITE_RELATION;
	s->name = jt_strdup(d, relname, ctx->arena);
	s->schema = jt_strdup(d, jt_get(d, rv, "schemaname"), ctx->arena);
	cgm_site_rare_of(ctx->arena, s)->events = events;
	s->line = line_of_location(ctx, location);
	return s;
}

/* Is the RangeVar object at rv a relation read: an item of a FROM or USING
 * list, a side of a JOIN, MERGE's source or a TABLESAMPLE's relation, and
 * not a CTE's name (any CTE of the parse, the JSON path keeps no scopes)? */
static bool json_read(const jt_doc *d, int rv)
{
	int wrapper = d->tokens[rv].parent;         /* the "RangeVar" key */
	int node = wrapper >= 0 ? d->tokens[wrapper].parent : -1; /* {"RangeVar": ...} */
	int up = node >= 0 ? d->tokens[node].parent : -1;
	if (up < 0)
		return false;
	if (d->tokens[up].type == JT_ARRAY)
		up = d->tokens[up].parent;
	if (up < 0 || d->tokens[up].type != JT_STRING)
		return false;
	if (!jt_eq(d, up, "fromClause") && !jt_eq(d, up, "usingClause") && !jt_eq(d, up, "larg") &&
	    !jt_eq(d, up, "rarg") && !jt_eq(d, up, "sourceRelation") && !jt_eq(d, up, "relation"))
		return false;
	if (jt_eq(d, up, "relation")) { /* only a TABLESAMPLE's */
		int owner = d->tokens[up].parent;
		int key = owner >= 0 ? d->tokens[owner].parent : -1;
		if (key < 0 || !jt_eq(d, key, "RangeTableSample"))
			return false;
	}
	if (jt_get(d, rv, "schemaname") >= 0)
		return true;
	int name = jt_get(d, rv, "relname");
	for (int k = 0; k + 1 < d->count; k++)
		if (d->tokens[k].type == JT_STRING && d->tokens[k].size == 1 && jt_eq(d, k, "ctename") &&
		    d->tokens[k + 1].type == JT_STRING && name >= 0 &&
		    d->tokens[k + 1].end - d->tokens[k + 1].start == d->tokens[name].end - d->tokens[name].start &&
		    memcmp(d->text + d->tokens[k + 1].start, d->text + d->tokens[name].start,
			   (size_t)(d->tokens[name].end - d->tokens[name].start)) == 0)
			return false;
	return true;
}

/* What the DDL statement `node` at token `body` cannot do (cgm_ddl_facts),
 * from an ALTER TABLE's subcommand types; an ADD COLUMN rewrites the table
 * only as added_column_rewrites says (`adds_rewrite`). */
static unsigned ddl_facts_of(const jt_doc *d, const char *node, int body, bool adds_rewrite)
{
	enum { MAX_CMDS = 64 };
	char names[MAX_CMDS][40];
	const char *subtypes[MAX_CMDS];
	int n = 0;
	int cmds = strcmp(node, "AlterTableStmt") == 0 ? jt_get(d, body, "cmds") : -1;
	int count = cmds >= 0 && d->tokens[cmds].type == JT_ARRAY ? d->tokens[cmds].size : 0;
	if (count > MAX_CMDS)
		return 0;
	for (int i = 0, c = cmds + 1; i < count; i++, c = jt_skip(d, c)) {
		int sub = jt_get(d, jt_get(d, c, "AlterTableCmd"), "subtype");
		int len = sub >= 0 && d->tokens[sub].type == JT_STRING
				  ? d->tokens[sub].end - d->tokens[sub].start
				  : -1;
		if (len <= 0 || len >= (int)sizeof names[0])
			return 0;
		memcpy(names[n], d->text + d->tokens[sub].start, (size_t)len);
		names[n][len] = '\0';
		/* SET DEFAULT and DROP DEFAULT share the subtype: only the
		 * latter drops what sql_drop reports (cgm_ddl_facts). */
		if (strcmp(names[n], "AT_ColumnDefault") == 0 &&
		    jt_get(d, jt_get(d, c, "AlterTableCmd"), "def") >= 0)
			snprintf(names[n], sizeof names[n], "AT_ColumnDefault(set)");
		subtypes[n] = names[n];
		n++;
	}
	unsigned facts = cgm_ddl_facts(node, subtypes, n);
	return adds_rewrite ? facts & ~(unsigned)CGM_DDL_REWRITES_NOTHING : facts;
}

/* What extraction can tell of a call's volatility without a catalog. */
typedef enum { CALL_STEADY, CALL_VOLATILE, CALL_UNKNOWN } call_volatility;

/* A call of schema.name (schema NULL when unqualified): pg_catalog's
 * volatile functions (cgm_builtin_is_volatile) and the stable or immutable
 * ones defaults use are known; any other function's volatility is its
 * catalog entry's, which resolution reads (volatile_groups in resolve.c). */
static call_volatility call_volatility_of(const char *schema, const char *name)
{
	static const char *const steady_builtins[] = {
		"now", "statement_timestamp", "transaction_timestamp", "current_setting", "lower",
		"upper", "concat", "concat_ws", "format", "to_char", "date_trunc", "make_date",
		"make_interval", "jsonb_build_object", "json_build_object", "jsonb_build_array",
		"json_build_array", "to_jsonb", "to_json", "array_fill", "length", "md5",
		"timezone", "replace", "substr", "btrim", "trim", NULL
	};
	if (!name)
		return CALL_UNKNOWN;
	bool catalog = !schema || strcmp(schema, "pg_catalog") == 0;
	if (catalog && cgm_builtin_is_volatile(name))
		return CALL_VOLATILE;
	for (int i = 0; catalog && steady_builtins[i]; i++)
		if (strcmp(name, steady_builtins[i]) == 0)
			return CALL_STEADY;
	return CALL_UNKNOWN;
}

/* The volatility of the calls in the JSON value at token i: volatile when
 * one is, unknown when one may be, else steady. */
static call_volatility json_calls_volatility(const jt_doc *d, int i)
{
	if (i < 0)
		return CALL_STEADY;
	call_volatility all = CALL_STEADY;
	int end = jt_skip(d, i);
	for (int k = i; k < end && k < d->count; k++) {
		/* No column may stand in a default: a name there is a part of
		 * an EXECUTE's SQL known at run time (walk_runtime_parts),
		 * which may be random() as well as 0. */
		if (jt_eq(d, k, "ColumnRef"))
			return CALL_VOLATILE;
		if (!jt_eq(d, k, "FuncCall"))
			continue;
		int names = jt_get(d, k + 1, "funcname");
		int n = names >= 0 && d->tokens[names].type == JT_ARRAY ? d->tokens[names].size : 0;
		const char *parts[3] = { NULL, NULL, NULL };
		char buf[3][64];
		int np = 0;
		for (int p = 0, x = names + 1; p < n; p++, x = jt_skip(d, x)) {
			int sval = jt_get(d, jt_get(d, x, "String"), "sval");
			int len = sval >= 0 ? d->tokens[sval].end - d->tokens[sval].start : -1;
			if (np < 3 && len >= 0 && len < (int)sizeof buf[0]) {
				memcpy(buf[np], d->text + d->tokens[sval].start, (size_t)len);
				buf[np][len] = '\0';
				parts[np] = buf[np];
			}
			np++;
		}
		call_volatility v = np < 1 || np > 2 ? CALL_UNKNOWN
						     : call_volatility_of(np == 2 ? parts[0] : NULL, parts[np - 1]);
		if (v == CALL_VOLATILE)
			return CALL_VOLATILE;
		if (v == CALL_UNKNOWN)
			all = CALL_UNKNOWN;
	}
	return all;
}

/* Whether an ADD COLUMN rewrites the table: surely not, surely, or only
 * when its default calls a volatile function, which resolution tells. */
typedef enum { ADD_KEEPS, ADD_REWRITES, ADD_IF_VOLATILE } add_rewrite;

/* Does the column an ALTER TABLE ... ADD COLUMN (the AlterTableCmd at
 * token `cmd`) adds make PostgreSQL 15 rewrite the table?  Since 11 it
 * evaluates a default once and stores it as the rows' missing value
 * instead, unless ATExecAddColumn asks for a rewrite: an identity or a
 * stored generated column, a default that is volatile once planned
 * (AddRelationNewConstraints: serial's nextval(), random(), a VOLATILE
 * function not inlined away), or a type that is a domain with constraints
 * (DomainHasConstraints: then each row's value is checked, the default or
 * NULL).  A default calling a function whose volatility only the catalog
 * knows gives ADD_IF_VOLATILE with the default's token at *expr (the
 * sites made there are the default's, which resolution reads), and so
 * does a type outside pg_catalog that is no array, named at *user_type
 * (the catalog tells a constrained domain from an enum, a composite type
 * or a domain without constraints); an added column of a builtin type with
 * no default, a constant or a stable builtin one rewrites nothing.  (A
 * domain's own volatile default is not seen: README's "What the map does
 * not see".) */
static add_rewrite added_column_rewrites(extract_ctx *ctx, const jt_doc *d, int cmd, int *expr,
					 const char **user_type, bool *own_default)
{
	*expr = -1;
	*user_type = NULL;
	*own_default = false;
	add_rewrite by_default = ADD_KEEPS;
	int def = jt_get(d, jt_get(d, cmd, "def"), "ColumnDef");
	int cons = jt_get(d, def, "constraints");
	int ncons = cons >= 0 && d->tokens[cons].type == JT_ARRAY ? d->tokens[cons].size : 0;
	for (int k = 0, x = cons + 1; k < ncons; k++, x = jt_skip(d, x)) {
		int con = jt_get(d, x, "Constraint");
		int type = jt_get(d, con, "contype");
		if (jt_eq(d, type, "CONSTR_GENERATED") || jt_eq(d, type, "CONSTR_IDENTITY"))
			return ADD_REWRITES;
		if (!jt_eq(d, type, "CONSTR_DEFAULT"))
			continue;
		*own_default = true;
		int raw = jt_get(d, con, "raw_expr");
		call_volatility v = json_calls_volatility(d, raw);
		if (v == CALL_VOLATILE)
			return ADD_REWRITES;
		if (v == CALL_UNKNOWN) {
			by_default = ADD_IF_VOLATILE;
			*expr = raw;
		}
	}
	int tn = jt_get(d, def, "typeName"); /* a TypeName field: not wrapped */
	if (jt_get(d, tn, "arrayBounds") >= 0)
		return by_default; /* an array of a domain checks nothing */
	int names = jt_get(d, tn, "names");
	int n = names >= 0 && d->tokens[names].type == JT_ARRAY ? d->tokens[names].size : 0;
	if (n < 1 || n > 2)
		return ADD_REWRITES;
	const char *parts[2] = { NULL, NULL };
	for (int p = 0, x = names + 1; p < n; p++, x = jt_skip(d, x))
		parts[p] = jt_strdup(d, jt_get(d, jt_get(d, x, "String"), "sval"), ctx->arena);
	if (!parts[n - 1])
		return ADD_REWRITES;
	if (n == 2 && !parts[0])
		return ADD_REWRITES;
	if (n == 2 && strcmp(parts[0], "pg_catalog") == 0)
		return by_default;
	if (n == 1) {
		/* transformColumnDefinition makes these a sequence and its nextval(). */
		static const char *const serials[] = { "serial", "serial4", "bigserial", "serial8",
						       "smallserial", "serial2", NULL };
		for (int i = 0; serials[i]; i++)
			if (strcmp(parts[0], serials[i]) == 0)
				return ADD_REWRITES;
	}
	const char *type = cgm_type_canonical(ctx->arena, n == 2 ? parts[0] : NULL, parts[n - 1], 0, NULL);
	if (!type)
		return ADD_REWRITES;
	if (n == 1 && cgm_type_is_builtin(type))
		return by_default;
	*user_type = type;
	return ADD_IF_VOLATILE;
}

/* Does ALTER TABLE (at token `body`) add a column that rewrites the table
 * (added_column_rewrites)?  For ADD_IF_VOLATILE, the defaults that decide
 * are kept in ctx->defaults under a new group (ctx->rewrite_group), which
 * marks the sites made in them. */
static add_rewrite adds_rewriting_column(extract_ctx *ctx, const jt_doc *d, const char *node, int body)
{
	if (strcmp(node, "AlterTableStmt") != 0)
		return ADD_KEEPS;
	int cmds = jt_get(d, body, "cmds");
	int count = cmds >= 0 && d->tokens[cmds].type == JT_ARRAY ? d->tokens[cmds].size : 0;
	add_rewrite all = ADD_KEEPS;
	int first = ctx->ndefaults;
	ctx->nadded_types = 0;
	for (int i = 0, c = cmds + 1; i < count; i++, c = jt_skip(d, c)) {
		int cmd = jt_get(d, c, "AlterTableCmd"), expr;
		if (!jt_eq(d, jt_get(d, cmd, "subtype"), "AT_AddColumn"))
			continue;
		const char *user_type;
		bool own_default;
		add_rewrite a = added_column_rewrites(ctx, d, cmd, &expr, &user_type, &own_default);
		if (a == ADD_REWRITES)
			all = ADD_REWRITES;
		else if (a == ADD_IF_VOLATILE && all == ADD_KEEPS)
			all = ADD_IF_VOLATILE;
		if (a != ADD_IF_VOLATILE)
			continue;
		if (expr >= 0 && ctx->ndefaults < MAX_ADDED_DEFAULTS)
			ctx->defaults[ctx->ndefaults++] = (added_default){ expr, jt_skip(d, expr), 0 };
		else if (expr >= 0)
			all = ADD_REWRITES; /* too many to follow: it may */
		if (user_type && ctx->nadded_types < MAX_ADDED_DEFAULTS) {
			ctx->added_type_defaults[ctx->nadded_types] = !own_default;
			ctx->added_types[ctx->nadded_types++] = user_type;
		}
		else if (user_type)
			all = ADD_REWRITES;
	}
	if (all != ADD_IF_VOLATILE) {
		ctx->ndefaults = first;
		ctx->nadded_types = 0;
		return all;
	}
	ctx->rewrite_group++;
	for (int k = first; k < ctx->ndefaults; k++)
		ctx->defaults[k].group = ctx->rewrite_group;
	return all;
}

/* The relation whose indexes DDL statement `node` (at token `body`) builds
 * again, evaluating their expressions for every row: an ALTER TABLE that
 * rewrites the table (a column's new type, SET LOGGED or UNLOGGED, SET
 * ACCESS METHOD, a column added that rewrites it: `adds_rewrite`, from
 * adds_rewriting_column),
 * REINDEX TABLE, CLUSTER.
 * Its token, or -1. */
static int rebuilt_relation(const jt_doc *d, const char *node, int body, bool adds_rewrite)
{
	if (strcmp(node, "ReindexStmt") == 0)
		return jt_eq(d, jt_get(d, body, "kind"), "REINDEX_OBJECT_TABLE")
			       ? jt_get(d, body, "relation")
			       : -1;
	if (strcmp(node, "ClusterStmt") == 0)
		return jt_get(d, body, "relation");
	if (strcmp(node, "AlterTableStmt") != 0 || !jt_eq(d, jt_get(d, body, "objtype"), "OBJECT_TABLE"))
		return -1;
	int cmds = jt_get(d, body, "cmds");
	int count = cmds >= 0 && d->tokens[cmds].type == JT_ARRAY ? d->tokens[cmds].size : 0;
	for (int i = 0, c = cmds + 1; i < count; i++, c = jt_skip(d, c)) {
		int sub = jt_get(d, jt_get(d, c, "AlterTableCmd"), "subtype");
		if (jt_eq(d, sub, "AT_AlterColumnType") || jt_eq(d, sub, "AT_SetLogged") ||
		    jt_eq(d, sub, "AT_SetUnLogged") || jt_eq(d, sub, "AT_SetAccessMethod"))
			return jt_get(d, body, "relation");
	}
	return adds_rewrite ? jt_get(d, body, "relation") : -1;
}

/* ANALYZE of tables (their index expressions run on the rows sampled),
 * ALTER TABLE ... VALIDATE CONSTRAINT (the checks named run on every row,
 * the constraints' names the site's columns) and ALTER TABLE ... ATTACH
 * PARTITION (the table's partition keys run on every row attached): a
 * relation site each. */
static void maintenance_sites(extract_ctx *ctx, const jt_doc *d, const char *node, int body)
{
	if (strcmp(node, "VacuumStmt") == 0 && !jt_true(d, jt_get(d, body, "is_vacuumcmd"))) {
		int rels = jt_get(d, body, "rels");
		int n = rels >= 0 && d->tokens[rels].type == JT_ARRAY ? d->tokens[rels].size : 0;
		for (int i = 0, r = rels + 1; i < n; i++, r = jt_skip(d, r)) {
			int rel = jt_get(d, jt_get(d, r, "VacuumRelation"), "relation");
			if (rel >= 0)
				on_dml(ctx, d, rel, CGM_EV_ANALYZE);
		}
		return;
	}
	if (strcmp(node, "AlterTableStmt") != 0 || !jt_eq(d, jt_get(d, body, "objtype"), "OBJECT_TABLE"))
		return;
	int cmds = jt_get(d, body, "cmds");
	int count = cmds >= 0 && d->tokens[cmds].type == JT_ARRAY ? d->tokens[cmds].size : 0;
	const char **names = NULL;
	int nnames = 0;
	bool attaches = false;
	for (int i = 0, c = cmds + 1; i < count; i++, c = jt_skip(d, c)) {
		int cmd = jt_get(d, c, "AlterTableCmd");
		int name = jt_get(d, cmd, "name");
		attaches |= jt_eq(d, jt_get(d, cmd, "subtype"), "AT_AttachPartition");
		if (!jt_eq(d, jt_get(d, cmd, "subtype"), "AT_ValidateConstraint") || name < 0 ||
		    d->tokens[name].type != JT_STRING)
			continue;
		names = cgm_arena_grow(ctx->arena, (void *)names, (size_t)nnames, (size_t)nnames + 1,
				       sizeof(char *));
		names[nnames++] = jt_strdup(d, name, ctx->arena);
	}
	if (attaches)
		on_dml(ctx, d, jt_get(d, body, "relation"), CGM_EV_ATTACH);
	cgm_site *s = nnames ? on_dml(ctx, d, jt_get(d, body, "relation"), CGM_EV_VALIDATE) : NULL;
	if (s) {
		cgm_site_rare *x = cgm_site_rare_of(ctx->arena, s);
		x->columns = names;
		x->ncolumns = nnames;
	}
}

/* The value of a column an ADD COLUMN of group `group` adds becoming of
 * user type `type` (each row's default, or NULL): a domain's checks, run
 * on every row of the rewrite its constraints force (column_type), and,
 * for a column without a DEFAULT (`type_default`), the domain's own. */
static void column_type_site(extract_ctx *ctx, int line, const char *type, bool type_default, int group)
{
	cgm_site *s = new_site(ctx);
	s->kind = CGM_SITE_CAST;
	s->name = type;
	s->line = line;
	s->nargs = 1;
	s->argtypes = cgm_arena_alloc(ctx->arena, sizeof(char *));
	s->argtypes[0] = "unknown";
	exprs_of(ctx, s)->default_of = group;
	exprs_of(ctx, s)->column_type = true;
	exprs_of(ctx, s)->type_default = type_default;
}

/* DDL statements of the parse: a site each, named by its command tag. */
/* A DDL statement of command `tag` at `line`, which cannot do what
 * `facts` says (CGM_DDL_*). */
static cgm_site *new_ddl_site(extract_ctx *ctx, const char *tag, int line, unsigned facts)
{
	cgm_site *s = new_site(ctx);
	s->kind = CGM_SITE_DDL;
	s->name = tag;
	s->line = line;
	exprs_of(ctx, s)->ddl_facts = facts;
	return s;
}

static void json_ddl(extract_ctx *ctx, const jt_doc *d)
{
	int stmts = jt_get(d, 0, "stmts");
	int n = stmts >= 0 ? d->tokens[stmts].size : 0;
	int e = stmts + 1;
	for (int i = 0; i < n; i++, e = jt_skip(d, e)) {
		int stmt = jt_get(d, e, "stmt");
		if (stmt < 0 || d->tokens[stmt].type != JT_OBJECT || d->tokens[stmt].size != 1)
			continue;
		char node[64];
		int len = d->tokens[stmt + 1].end - d->tokens[stmt + 1].start;
		if (len <= 0 || len >= (int)sizeof node)
			continue;
		memcpy(node, d->text + d->tokens[stmt + 1].start, (size_t)len);
		node[len] = '\0';
		int body = stmt + 2;
		char objtype[64] = "";
		static const char *const objkeys[] = { "objtype", "removeType", "renameType",
						      "objectType", "kind", NULL };
		for (int k = 0; objkeys[k]; k++) {
			int o = jt_get(d, body, objkeys[k]);
			if (o >= 0 && d->tokens[o].type == JT_STRING) {
				int ol = d->tokens[o].end - d->tokens[o].start;
				if (ol > 0 && ol < (int)sizeof objtype) {
					memcpy(objtype, d->text + d->tokens[o].start, (size_t)ol);
					objtype[ol] = '\0';
				}
				break;
			}
		}
		bool flag = jt_true(d, jt_get(d, body, "is_procedure")) ||
			    jt_true(d, jt_get(d, body, "is_grant")) ||
			    jt_true(d, jt_get(d, body, "is_from"));
		const char *tag = cgm_ddl_command_tag(node, objtype, flag);
		if (ctx->atomic_wrapper && strcmp(node, "CreateFunctionStmt") == 0)
			tag = NULL;
		add_rewrite adds = adds_rewriting_column(ctx, d, node, body);
		bool adds_rewrite = adds == ADD_REWRITES;
		int rebuilt = rebuilt_relation(d, node, body, adds_rewrite);
		/* Rewritten only if an added column's default is volatile:
		 * the sites carry the group resolution decides for. */
		int group = adds == ADD_IF_VOLATILE ? ctx->rewrite_group : 0;
		int maybe_rebuilt = group && rebuilt < 0 ? jt_get(d, body, "relation") : -1;
		maintenance_sites(ctx, d, node, body);
		if (!tag) {
			/* REINDEX and CLUSTER fire no event trigger, but build
			 * indexes. */
			if (rebuilt >= 0)
				on_dml(ctx, d, rebuilt, CGM_EV_REWRITE);
			continue;
		}
		/* A statement's location counts from the end of the one before:
		 * its first word stands after the blanks. */
		long at = jt_long(d, jt_get(d, e, "stmt_location"), 0) + ctx->loc_shift;
		const char *text = ctx->raw_text ? ctx->raw_text : ctx->parsed;
		size_t text_len = text ? strlen(text) : 0;
		while (at >= 0 && (size_t)at < text_len && isspace((unsigned char)text[at]))
			at++;
		long location = locate(ctx, at);
		cgm_site *s = new_ddl_site(ctx, tag, line_of_location(ctx, location),
					   ddl_facts_of(d, node, body, adds_rewrite));
		exprs_of(ctx, s)->rewrite_group = group;
		int ddl_line = s->line; /* new_site may move the sites */
		for (int k = 0; group && k < ctx->nadded_types; k++)
			column_type_site(ctx, ddl_line, ctx->added_types[k], ctx->added_type_defaults[k], group);
		ctx->nadded_types = 0;
		if (rebuilt >= 0)
			on_dml(ctx, d, rebuilt, CGM_EV_REWRITE);
		cgm_site *r = maybe_rebuilt >= 0 ? on_dml(ctx, d, maybe_rebuilt, CGM_EV_REWRITE) : NULL;
		if (r)
			exprs_of(ctx, r)->rewrite_group = group;
	}
}

static unsigned merge_events(const jt_doc *d, int merge)
{
	unsigned ev = 0;
	int clauses = jt_get(d, merge, "mergeWhenClauses");
	int n = clauses >= 0 ? d->tokens[clauses].size : 0;
	int c = clauses + 1;
	for (int i = 0; i < n; i++, c = jt_skip(d, c)) {
		int cmd = jt_get(d, jt_get(d, c, "MergeWhenClause"), "commandType");
		if (jt_eq(d, cmd, "CMD_INSERT"))
			ev |= CGM_EV_INSERT;
		else if (jt_eq(d, cmd, "CMD_UPDATE"))
			ev |= CGM_EV_UPDATE;
		else if (jt_eq(d, cmd, "CMD_DELETE"))
			ev |= CGM_EV_DELETE;
	}
	return ev;
}

static void on_json_aexpr(extract_ctx *ctx, const jt_doc *d, int obj);
typedef struct folded_ranges folded_ranges;
static void on_json_case(extract_ctx *ctx, const jt_doc *d, int obj, folded_ranges *folded);
static void on_json_typecast(extract_ctx *ctx, const jt_doc *d, int obj);

static void record_dynamic(extract_ctx *ctx, const char *text);

/* The constant a boolean node folds to (rawtree.c's const_bool): 1, 0, or
 * -1 when it is none.  The node at i is an object holding one key. */
static int json_const_bool(const jt_doc *d, int i, int depth)
{
	if (i < 0 || depth > 64)
		return -1;
	int c = jt_get(d, i, "A_Const");
	if (c >= 0) {
		int b = jt_get(d, c, "boolval");
		return b < 0 || jt_get(d, c, "isnull") >= 0 ? -1 : jt_true(d, jt_get(d, b, "boolval"));
	}
	int tc = jt_get(d, i, "TypeCast");
	if (tc >= 0) {
		int names = jt_get(d, jt_get(d, tc, "typeName"), "names");
		int n = names >= 0 ? d->tokens[names].size : 0;
		int last = n > 0 ? jt_get(d, jt_elem(d, names, n - 1), "String") : -1;
		int arg = jt_get(d, jt_get(d, tc, "arg"), "A_Const");
		if (last < 0 || arg < 0 || jt_get(d, jt_get(d, tc, "typeName"), "arrayBounds") >= 0 ||
		    (!jt_eq(d, jt_get(d, last, "sval"), "bool") && !jt_eq(d, jt_get(d, last, "sval"), "boolean")) ||
		    jt_get(d, arg, "isnull") >= 0)
			return -1;
		int b = jt_get(d, arg, "boolval");
		if (b >= 0)
			return jt_true(d, jt_get(d, b, "boolval"));
		char *v = jt_strdup_heap(d, jt_get(d, jt_get(d, arg, "sval"), "sval"));
		int r = cgm_raw_bool_literal(v);
		free(v);
		return r;
	}
	int be = jt_get(d, i, "BoolExpr");
	if (be < 0)
		return -1;
	int args = jt_get(d, be, "args");
	int n = args >= 0 ? d->tokens[args].size : 0;
	int op = jt_get(d, be, "boolop");
	if (jt_eq(d, op, "NOT_EXPR")) {
		int v = n == 1 ? json_const_bool(d, jt_elem(d, args, 0), depth + 1) : -1;
		return v < 0 ? -1 : !v;
	}
	int decisive = jt_eq(d, op, "AND_EXPR") ? 0 : 1, known = 0;
	for (int a = 0; a < n; a++) {
		int v = json_const_bool(d, jt_elem(d, args, a), depth + 1);
		if (v == decisive)
			return decisive;
		known += v >= 0;
	}
	return known == n ? !decisive : -1;
}

/* Token ranges the planner folds away, met ahead of the scan (a CASE's arms
 * after WHEN true). */
enum { MAX_FOLDED = 256 };
struct folded_ranges {
	int start[MAX_FOLDED], end[MAX_FOLDED];
	int n;
};

static void fold_range(folded_ranges *f, const jt_doc *d, int value)
{
	if (value >= 0 && f->n < MAX_FOLDED) {
		f->start[f->n] = value;
		f->end[f->n++] = jt_skip(d, value);
	}
}

/* What a DDL statement at key k (its node at obj) stores, to run later on
 * rows or when called, and does not run itself: a table's column
 * defaults, checks and generated columns, a view's query, a function's
 * parameter defaults and body (but the body a BEGIN ATOMIC function is
 * read from, extract_sql), a trigger's WHEN, a policy's expressions, a
 * domain's constraints, a rule's condition and actions, a SET DEFAULT, the
 * query of a CREATE TABLE AS or materialized view WITH NO DATA.  What a
 * statement evaluates as it runs stays: an index's expressions, a
 * partition's bounds, an added column's default and an added check
 * (evaluated or checked on the rows there are), a USING. */
static void fold_definitions(const extract_ctx *ctx, const jt_doc *d, int k, int obj,
			     folded_ranges *folded)
{
	static const struct {
		const char *node, *field;
	} stored[] = {
		{ "CreateStmt", "tableElts" },      { "CreateStmt", "constraints" },
		{ "ViewStmt", "query" },            { "CreateFunctionStmt", "parameters" },
		{ "CreateTrigStmt", "whenClause" }, { "CreatePolicyStmt", "qual" },
		{ "CreatePolicyStmt", "with_check" }, { "AlterPolicyStmt", "qual" },
		{ "AlterPolicyStmt", "with_check" }, { "CreateDomainStmt", "constraints" },
		{ "RuleStmt", "whereClause" },      { "RuleStmt", "actions" },
	};
	for (size_t i = 0; i < sizeof stored / sizeof stored[0]; i++)
		if (jt_eq(d, k, stored[i].node))
			fold_range(folded, d, jt_get(d, obj, stored[i].field));
	if (jt_eq(d, k, "CreateFunctionStmt") && !ctx->atomic_wrapper)
		fold_range(folded, d, jt_get(d, obj, "sql_body"));
	else if (jt_eq(d, k, "AlterTableCmd") && jt_eq(d, jt_get(d, obj, "subtype"), "AT_ColumnDefault"))
		fold_range(folded, d, jt_get(d, obj, "def"));
	else if (jt_eq(d, k, "AlterDomainStmt") && jt_eq(d, jt_get(d, obj, "subtype"), "T"))
		fold_range(folded, d, jt_get(d, obj, "def"));
	else if (jt_eq(d, k, "CreateTableAsStmt") &&
		 jt_true(d, jt_get(d, jt_get(d, obj, "into"), "skipData")))
		fold_range(folded, d, jt_get(d, obj, "query"));
}

/* The sites of a libpg_query parse tree.  Only FuncCall, CallStmt, DML,
 * relations read, DDL, A_Expr and TypeCast nodes make sites, and
 * ExecuteStmt a dynamic one; tokens come in document order, so sites do
 * too.  What the planner folds to a constant (`false AND x`, a CASE's
 * WHEN false arm) makes none: it never runs. */
static void scan_sql(extract_ctx *ctx, const jt_doc *d)
{
	ctx->ndefaults = 0;
	ctx->scan_token = -1; /* the DDL sites are no default's */
	json_ddl(ctx, d);
	folded_ranges folded;
	folded.n = 0;
	for (int k = 0; k + 1 < d->count; k++) {
		ctx->scan_token = k;
		bool skipped = false;
		for (int f = 0; f < folded.n && !skipped; f++)
			if (folded.start[f] == k) {
				k = folded.end[f] - 1;
				skipped = true;
			}
		if (skipped)
			continue;
		const jt_token *t = &d->tokens[k];
		/* A key: a string with one child, followed by an object. */
		if (t->type != JT_STRING || t->size != 1 || d->tokens[k + 1].type != JT_OBJECT)
			continue;
		char first = d->text[t->start];
		if (first == 'C' || first == 'V' || first == 'R' || first == 'A')
			fold_definitions(ctx, d, k, k + 1, &folded);
		if (first != 'F' && first != 'C' && first != 'I' && first != 'U' && first != 'D' &&
		    first != 'M' && first != 'T' && first != 'R' && first != 'A' && first != 'P' &&
		    first != 'E' && first != 'B')
			continue;
		int obj = k + 1;
		/* The node holding the key is the object just before it. */
		if (jt_eq(d, k, "BoolExpr") && !jt_eq(d, jt_get(d, obj, "boolop"), "NOT_EXPR") &&
		    k > 0 && d->tokens[k - 1].type == JT_OBJECT && d->tokens[k - 1].size == 1 &&
		    json_const_bool(d, k - 1, 0) >= 0) {
			k = jt_skip(d, obj) - 1; /* folded to a constant: none of it runs */
			continue;
		}
		if (jt_eq(d, k, "PrepareStmt")) {
			/* PREPARE only parses its query: what it calls runs where
			 * an EXECUTE of it runs, not here. */
			k = jt_skip(d, obj) - 1;
		} else if (jt_eq(d, k, "ExecuteStmt")) {
			/* EXECUTE of a prepared statement runs a query prepared
			 * elsewhere: as unknown here as a dynamic EXECUTE's. */
			char *name = jt_strdup_heap(d, jt_get(d, obj, "name"));
			record_dynamic(ctx, name ? name : "?");
			free(name);
		} else if (jt_eq(d, k, "RangeVar")) {
			if (json_read(d, obj))
				on_dml(ctx, d, obj, CGM_EV_SELECT);
		} else if (jt_eq(d, k, "FuncCall")) {
			on_funccall(ctx, d, obj);
		} else if (jt_eq(d, k, "A_Expr")) {
			on_json_aexpr(ctx, d, obj);
		} else if (jt_eq(d, k, "CaseExpr")) {
			on_json_case(ctx, d, obj, &folded);
		} else if (jt_eq(d, k, "TypeCast")) {
			on_json_typecast(ctx, d, obj);
		} else if (jt_eq(d, k, "CallStmt")) {
			/* Typed fields come unwrapped: funccall is the FuncCall itself;
			 * the scan goes on into it, so skip its own key. */
			int fc = jt_get(d, obj, "funccall");
			bool saved = ctx->in_call_stmt;
			ctx->in_call_stmt = true;
			on_funccall(ctx, d, fc);
			ctx->in_call_stmt = saved;
		} else if (jt_eq(d, k, "InsertStmt")) {
			cgm_site *s = on_dml(ctx, d, jt_get(d, obj, "relation"), CGM_EV_INSERT);
			if (s)
				json_columns(ctx, d, jt_get(d, obj, "cols"), s);
			int oc = jt_get(d, obj, "onConflictClause");
			if (jt_eq(d, jt_get(d, oc, "action"), "ONCONFLICT_UPDATE") &&
			    (s = on_dml(ctx, d, jt_get(d, obj, "relation"), CGM_EV_UPDATE)))
				json_columns(ctx, d, jt_get(d, oc, "targetList"), s);
		} else if (jt_eq(d, k, "UpdateStmt")) {
			cgm_site *s = on_dml(ctx, d, jt_get(d, obj, "relation"), CGM_EV_UPDATE);
			if (s)
				json_columns(ctx, d, jt_get(d, obj, "targetList"), s);
		} else if (jt_eq(d, k, "DeleteStmt")) {
			on_dml(ctx, d, jt_get(d, obj, "relation"), CGM_EV_DELETE);
		} else if (jt_eq(d, k, "MergeStmt")) {
			on_dml(ctx, d, jt_get(d, obj, "relation"), merge_events(d, obj));
		} else if (jt_eq(d, k, "TruncateStmt")) {
			int rels = jt_get(d, obj, "relations");
			int n = rels >= 0 ? d->tokens[rels].size : 0;
			int r = rels + 1;
			int behavior = jt_get(d, obj, "behavior");
			unsigned events = CGM_EV_TRUNCATE |
					  (behavior >= 0 && jt_eq(d, behavior, "DROP_CASCADE") ? CGM_EV_CASCADE : 0);
			for (int i = 0; i < n; i++, r = jt_skip(d, r))
				on_dml(ctx, d, r, events);
		} else if (jt_eq(d, k, "RefreshMatViewStmt")) {
			on_dml(ctx, d, jt_get(d, obj, "relation"), CGM_EV_REFRESH);
		} else if (jt_eq(d, k, "CopyStmt")) {
			if (jt_true(d, jt_get(d, obj, "is_from")))
				on_dml(ctx, d, jt_get(d, obj, "relation"), CGM_EV_INSERT);
		}
	}
	ctx->ndefaults = 0; /* the ranges were this parse's tokens */
}

/* ---- sites from the raw tree ----------------------------------------- */

static void on_raw_call(void *arg, const cgm_raw_call *call)
{
	extract_ctx *ctx = arg;
	/* `v.f` of no FROM item: a SQL function's parameter's row may call f,
	 * a PL/pgSQL variable's field never does (rawtree.h). */
	if (call->unscoped && strcmp(ctx->fn->language ? ctx->fn->language : "", "sql") != 0)
		return;
	long location = locate(ctx, call->location);
	cgm_site *s = new_call_site(ctx, location, cgm_arena_strdup(ctx->arena, call->name),
				    call->call_stmt);
	s->schema = cgm_arena_strdup(ctx->arena, call->schema);
	s->variadic_call = call->variadic;
	s->nargs = call->nargs;
	if (s->nargs > 0) {
		s->argtypes = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)s->nargs);
		for (int i = 0; i < s->nargs; i++) {
			if (call->args[i].name)
				named_arg(ctx, s)[i] = cgm_arena_strdup(ctx->arena, call->args[i].name);
			s->argtypes[i] = raw_arg_type(ctx, &call->args[i]);
		}
		exprs_of(ctx, s)->argexprs = call->argexprs;
		exprs_of(ctx, s)->attribute = call->attribute;
		for (int i = 0; ctx->in_runtime_parts && call->argexprs && i < s->nargs; i++)
			exprs_of(ctx, s)->runtime_typed |= reads_runtime_part(call->argexprs[i], 0);
		for (int i = 0; call->argexprs && i < s->nargs; i++)
			bind_vars(ctx, call->argexprs[i], 0);
	}
}

/* A read's columns copied (a list of none stays a list), or NULL: all. */
static const char **copy_reads(cgm_arena *a, const char *const *reads, int n)
{
	if (!reads)
		return NULL;
	const char **out = cgm_arena_alloc(a, sizeof(char *) * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
		out[i] = cgm_arena_strdup(a, reads[i]);
	return out;
}

static void on_raw_relation(void *arg, const cgm_raw_relation *rel)
{
	extract_ctx *ctx = arg;
	long at = locate(ctx, rel->location);
	cgm_site *s = new_site(ctx);
	s->kind = CGM_SITE_RELATION;
	s->name = cgm_arena_strdup(ctx->arena, rel->name);
	s->schema = cgm_arena_strdup(ctx->arena, rel->schema);
	cgm_site_rare *x = cgm_site_rare_of(ctx->arena, s);
	x->events = rel->events;
	x->nleading = rel->nleading;
	x->reads = copy_reads(ctx->arena, rel->reads, rel->nreads);
	x->nreads = x->reads ? rel->nreads : 0;
	s->line = line_of_location(ctx, at);
	if (rel->ncolumns > 0) {
		x->ncolumns = rel->ncolumns;
		x->columns = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)rel->ncolumns);
		for (int i = 0; i < rel->ncolumns; i++)
			x->columns[i] = cgm_arena_strdup(ctx->arena, rel->columns[i]);
	}
	/* The casts storing each value may run (coerce.h); they, not the
	 * relation, decide the checks of a column's domain (relfx.h). */
	int site = ctx->nsites - 1;
	for (int i = 0; rel->values && i < rel->ncolumns; i++) {
		if (!rel->values[i])
			continue;
		const cgm_site *r = &ctx->sites[site];
		const cgm_expr *target = cgm_coercion_column_expr(ctx->arena, r->schema, r->name,
								  r->rare->columns[i]);
		int line = r->line;
		bind_vars(ctx, rel->values[i], 0);
		if (ctx->coercions != CGM_COERCE_NONE) {
			new_coercion_site(ctx, rel->values[i], target, line);
			if (i < 64)
				ctx->exprs[site].valued_columns |= UINT64_C(1) << i;
		}
	}
}

static void on_raw_statement(void *arg)
{
	extract_ctx *ctx = arg;
	ctx->raw_mark = ctx->nsites;
}

/* ---- operators and casts ---------------------------------------------- */

/* Operator and cast sites carry the operand types as arguments; which
 * operator or cast runs (if any user-defined one does) is resolution's
 * (resolve_ops.c), which drops the sites that reach nothing. */

/* The element type of an array type, "unknown" for an untyped literal. */
static const char *element_type(extract_ctx *ctx, const char *t)
{
	size_t n = t ? strlen(t) : 0;
	if (t && strcmp(t, "unknown") == 0)
		return t;
	if (n > 2 && strcmp(t + n - 2, "[]") == 0)
		return cgm_arena_strndup(ctx->arena, t, n - 2);
	return NULL;
}

static void add_operator_site(extract_ctx *ctx, long location, const char *schema,
			      const char *name, bool prefix, const char *left, const char *right,
			      const cgm_expr *lexpr, const cgm_expr *rexpr)
{
	/* An operand the parser could not type is typed at resolution from
	 * its tree (calls' results, subexpressions). */
	if (left)
		lexpr = NULL;
	if (right)
		rexpr = NULL;
	/* Operands of unknowable type (no type and no tree to type them from)
	 * on a symbol pg_catalog overloads: never linked (resolve_ops.c), so
	 * not worth a site. */
	if (!schema && !right && !rexpr && (prefix || (!left && !lexpr)) &&
	    cgm_builtin_operator_overloaded(name, prefix))
		return;
	cgm_site *s = new_site(ctx);
	s->kind = CGM_SITE_OPERATOR;
	s->schema = schema;
	s->name = name;
	s->line = line_of_location(ctx, location);
	s->nargs = prefix ? 1 : 2;
	s->argtypes = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)s->nargs);
	if (prefix) {
		s->argtypes[0] = right;
	} else {
		s->argtypes[0] = left;
		s->argtypes[1] = right;
	}
	if ((!prefix && lexpr) || rexpr) {
		const cgm_expr **exprs = cgm_arena_alloc(ctx->arena, sizeof(cgm_expr *) * 2);
		exprs[0] = prefix ? rexpr : lexpr;
		exprs[1] = prefix ? NULL : rexpr;
		for (int i = 0; i < s->nargs; i++)
			bind_vars(ctx, exprs[i], 0);
		exprs_of(ctx, s)->argexprs = exprs;
	}
}

/* The operators one operator expression runs (rawtree.h, cgm_raw_op_kind);
 * `location` is of the parsed text, names are copied. */
static void operator_sites(extract_ctx *ctx, cgm_raw_op_kind kind, const char *schema,
			   const char *name, long location, bool has_left, const char *left,
			   const char *right, const char *right2, const cgm_raw_operator *trees)
{
	const cgm_expr *lexpr = trees && trees->left ? trees->left->expr : NULL;
	const cgm_expr *rexpr = trees && trees->right ? trees->right->expr : NULL;
	const cgm_expr *r2expr = trees && trees->right2 ? trees->right2->expr : NULL;
	long at = locate(ctx, location);
	schema = cgm_arena_strdup(ctx->arena, schema);
	switch (kind) {
	case CGM_RAW_OP:
		add_operator_site(ctx, at, schema, cgm_arena_strdup(ctx->arena, name), !has_left, left,
				  right, lexpr, rexpr);
		break;
	case CGM_RAW_OP_ANY_ALL:
		add_operator_site(ctx, at, schema, cgm_arena_strdup(ctx->arena, name), false, left,
				  element_type(ctx, right), lexpr, NULL);
		break;
	case CGM_RAW_OP_IN:
		add_operator_site(ctx, at, schema, cgm_arena_strdup(ctx->arena, name), false, left, right,
				  lexpr, rexpr);
		break;
	case CGM_RAW_OP_BETWEEN:
		add_operator_site(ctx, at, NULL, ">=", false, left, right, lexpr, rexpr);
		add_operator_site(ctx, at, NULL, "<=", false, left, right2, lexpr, r2expr);
		break;
	case CGM_RAW_OP_NOT_BETWEEN:
		add_operator_site(ctx, at, NULL, "<", false, left, right, lexpr, rexpr);
		add_operator_site(ctx, at, NULL, ">", false, left, right2, lexpr, r2expr);
		break;
	}
}

/* A cast to `target` of a value of type `source`.  An untyped literal
 * ('1'::t) is read by the type's input function and a value already of
 * the type is not cast: neither runs a cast, neither is a site. */
static void cast_site(extract_ctx *ctx, long location, const char *target, const char *source,
		      const cgm_expr *value)
{
	/* A literal cast ('x'::t) is t's input function at parse time, except
	 * for the checks of a domain, which run with the statement: kept for
	 * a type that is not PostgreSQL's own (resolution knows the domains). */
	if (!target || (source && (strcmp(source, target) == 0 ||
				   (strcmp(source, "unknown") == 0 && cgm_type_is_builtin(target)))))
		return;
	long at = locate(ctx, location);
	cgm_site *s = new_site(ctx);
	s->kind = CGM_SITE_CAST;
	s->name = target;
	s->line = line_of_location(ctx, at);
	s->nargs = 1;
	s->argtypes = cgm_arena_alloc(ctx->arena, sizeof(char *));
	s->argtypes[0] = source;
	if (!source && value) { /* typed at resolution from its tree */
		const cgm_expr **exprs = cgm_arena_alloc(ctx->arena, sizeof(cgm_expr *));
		exprs[0] = value;
		bind_vars(ctx, value, 0);
		exprs_of(ctx, s)->argexprs = exprs;
	}
}

static void on_raw_op(void *arg, const cgm_raw_operator *op)
{
	extract_ctx *ctx = arg;
	operator_sites(ctx, op->kind, op->schema, op->name, op->location, op->left != NULL,
		       op->left ? raw_arg_type(ctx, op->left) : NULL, raw_arg_type(ctx, op->right),
		       op->right2 ? raw_arg_type(ctx, op->right2) : NULL, op);
}

static void on_raw_cast(void *arg, const cgm_raw_arg *target, const cgm_raw_arg *value, int location)
{
	extract_ctx *ctx = arg;
	cast_site(ctx, location, raw_arg_type(ctx, target), raw_arg_type(ctx, value), value->expr);
}

/* A RowExpr at node, or (with `cast`) a TypeCast of one. */
static bool json_row_constructor(const jt_doc *d, int node, bool cast)
{
	if (node < 0)
		return false;
	int tc = cast ? jt_get(d, node, "TypeCast") : -1;
	if (tc >= 0)
		node = jt_get(d, tc, "arg");
	return node >= 0 && jt_get(d, node, "RowExpr") >= 0;
}

/* The same from libpg_query's JSON: the A_Expr and TypeCast objects at obj. */
static void on_json_aexpr(extract_ctx *ctx, const jt_doc *d, int obj)
{
	static const struct {
		const char *kind;
		cgm_raw_op_kind op;
	} kinds[] = {
		{ "AEXPR_OP", CGM_RAW_OP },	       { "AEXPR_DISTINCT", CGM_RAW_OP },
		{ "AEXPR_NOT_DISTINCT", CGM_RAW_OP }, { "AEXPR_NULLIF", CGM_RAW_OP },
		{ "AEXPR_LIKE", CGM_RAW_OP },	       { "AEXPR_ILIKE", CGM_RAW_OP },
		{ "AEXPR_SIMILAR", CGM_RAW_OP },      { "AEXPR_OP_ANY", CGM_RAW_OP_ANY_ALL },
		{ "AEXPR_OP_ALL", CGM_RAW_OP_ANY_ALL }, { "AEXPR_IN", CGM_RAW_OP_IN },
		{ "AEXPR_BETWEEN", CGM_RAW_OP_BETWEEN }, { "AEXPR_BETWEEN_SYM", CGM_RAW_OP_BETWEEN },
		{ "AEXPR_NOT_BETWEEN", CGM_RAW_OP_NOT_BETWEEN },
		{ "AEXPR_NOT_BETWEEN_SYM", CGM_RAW_OP_NOT_BETWEEN },
	};
	int kind_tok = jt_get(d, obj, "kind");
	int k = -1;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && k < 0; i++)
		if (jt_eq(d, kind_tok, kinds[i].kind))
			k = (int)i;
	int names = jt_get(d, obj, "name");
	int n = names >= 0 ? d->tokens[names].size : 0;
	if (k < 0 || n == 0)
		return;
	int lexpr = jt_get(d, obj, "lexpr"), rexpr = jt_get(d, obj, "rexpr"), rexpr2 = -1;
	/* ROW(...) op ROW(...): field by field (rawtree.c's report_operator). */
	bool distinct = jt_eq(d, kind_tok, "AEXPR_DISTINCT") || jt_eq(d, kind_tok, "AEXPR_NOT_DISTINCT");
	if ((distinct || jt_eq(d, kind_tok, "AEXPR_OP")) && json_row_constructor(d, lexpr, distinct) &&
	    json_row_constructor(d, rexpr, distinct))
		return;
	char *name = string_node(ctx, d, jt_elem(d, names, n - 1));
	char *schema = n >= 2 ? string_node(ctx, d, jt_elem(d, names, n - 2)) : NULL;
	if (!name)
		return;
	cgm_raw_op_kind op = kinds[k].op;
	if (op == CGM_RAW_OP_IN || op == CGM_RAW_OP_BETWEEN || op == CGM_RAW_OP_NOT_BETWEEN) {
		int items = jt_get(d, jt_get(d, rexpr, "List"), "items");
		int count = items >= 0 ? d->tokens[items].size : 0;
		if (op != CGM_RAW_OP_IN && count != 2)
			return;
		rexpr = count > 0 ? jt_elem(d, items, 0) : -1;
		rexpr2 = count > 1 ? jt_elem(d, items, 1) : -1;
	}
	long location = jt_long(d, jt_get(d, obj, "location"), 0) + ctx->loc_shift;
	operator_sites(ctx, op, schema, name, location, lexpr >= 0,
		       lexpr >= 0 ? arg_type(ctx, d, lexpr) : NULL,
		       rexpr >= 0 ? arg_type(ctx, d, rexpr) : NULL,
		       rexpr2 >= 0 ? arg_type(ctx, d, rexpr2) : NULL, NULL);
}

/* `CASE x WHEN v ...` compares x = v (rawtree.c's report_case_operators).
 * In `CASE WHEN c ...` a WHEN false arm is dropped, and a WHEN true one is
 * the result: the later arms and the ELSE never run (`folded`). */
static void on_json_case(extract_ctx *ctx, const jt_doc *d, int obj, folded_ranges *folded)
{
	int arg = jt_get(d, obj, "arg");
	int whens = jt_get(d, obj, "args");
	int n = whens >= 0 ? d->tokens[whens].size : 0;
	if (arg < 0) {
		bool rest = false;
		for (int i = 0; i < n; i++) {
			int item = jt_elem(d, whens, i);
			int cw = jt_get(d, item, "CaseWhen");
			int v = rest ? 0 : cw >= 0 ? json_const_bool(d, jt_get(d, cw, "expr"), 0) : -1;
			if (v == 0)
				fold_range(folded, d, item);
			rest = rest || v == 1;
		}
		if (rest)
			fold_range(folded, d, jt_get(d, obj, "defresult"));
		return;
	}
	for (int i = 0; i < n; i++) {
		int when = jt_get(d, jt_elem(d, whens, i), "CaseWhen");
		int expr = when >= 0 ? jt_get(d, when, "expr") : -1;
		if (expr < 0)
			continue;
		long location = jt_long(d, jt_get(d, when, "location"), 0) + ctx->loc_shift;
		operator_sites(ctx, CGM_RAW_OP, NULL, "=", location, true, arg_type(ctx, d, arg),
			       arg_type(ctx, d, expr), NULL, NULL);
	}
}

static void on_json_typecast(extract_ctx *ctx, const jt_doc *d, int obj)
{
	int type_name = jt_get(d, obj, "typeName");
	long location = jt_long(d, jt_get(d, obj, "location"), -1);
	if (location < 0)
		location = jt_long(d, jt_get(d, type_name, "location"), 0);
	int value = jt_get(d, obj, "arg");
	/* ROW(...)::t builds the row type: a record, which no cast takes. */
	const char *source = value < 0 ? NULL
			     : jt_get(d, value, "RowExpr") >= 0 ? "record"
								: arg_type(ctx, d, value);
	cast_site(ctx, location + ctx->loc_shift, typename_canonical(ctx, d, type_name), source, NULL);
}

/* ---- the PL/pgSQL tree from libpg_query's structs ---------------------- */

/* Off: every body takes the path a shared libpg_query forces (the JSON of
 * the PL/pgSQL tree, every expression parsed here), which tests hold to
 * the same sites. */
static bool use_parser_trees = true;

void cgm_extract_use_parser_trees(bool on)
{
	use_parser_trees = on;
}

static tree_step *new_step(extract_ctx *ctx, int what)
{
	if (ctx->nsteps == ctx->cap_steps) {
		ctx->cap_steps = ctx->cap_steps ? ctx->cap_steps * 2 : 64;
		ctx->steps = cgm_xrealloc(ctx->steps, sizeof(tree_step) * (size_t)ctx->cap_steps);
	}
	tree_step *t = &ctx->steps[ctx->nsteps++];
	memset(t, 0, sizeof *t);
	t->what = what;
	return t;
}

/* The last step recorded (a block's or an IF's) opens a scope that
 * on_tree_scope_end closes. */
static void open_scope(extract_ctx *ctx)
{
	ctx->steps[ctx->nsteps - 1].scope_end = -1;
	if (ctx->nopen_scopes == ctx->cap_open_scopes) {
		ctx->cap_open_scopes = ctx->cap_open_scopes ? ctx->cap_open_scopes * 2 : 8;
		ctx->open_scopes = cgm_xrealloc(ctx->open_scopes, sizeof(int) * (size_t)ctx->cap_open_scopes);
	}
	ctx->open_scopes[ctx->nopen_scopes++] = ctx->nsteps - 1;
}

static void on_tree_begin(void *arg)
{
	((extract_ctx *)arg)->walked = true;
}

static void on_tree_var(void *arg, const char *name, const char *type, int lineno,
			const char *default_text, const char *cursor_text)
{
	extract_ctx *ctx = arg;
	tree_step *t = new_step(ctx, STEP_VAR);
	t->text = cgm_arena_strdup(ctx->arena, name);
	t->type = cgm_arena_strdup(ctx->arena, type);
	t->lineno = lineno;
	t->default_text = cgm_arena_strdup(ctx->arena, default_text);
	t->cursor_text = cgm_arena_strdup(ctx->arena, cursor_text);
}

static void on_tree_statement(void *arg, const char *kind, int lineno)
{
	extract_ctx *ctx = arg;
	tree_step *t = new_step(ctx, STEP_STATEMENT);
	t->kind = kind;
	t->lineno = lineno;
	if (strcmp(kind, "if") == 0)
		open_scope(ctx);
}

static void on_tree_end(void *arg)
{
	new_step(arg, STEP_END);
}

/* A block with an EXCEPTION clause: the block's step (the last one
 * recorded) says whether it guards its body against a missing callee. */
static void on_tree_guard(void *arg, bool catches_undefined_function)
{
	extract_ctx *ctx = arg;
	if (ctx->nsteps == 0)
		return;
	ctx->steps[ctx->nsteps - 1].guards = catches_undefined_function;
	open_scope(ctx);
}

/* A block's handlers begin, or an IF's THEN statements are over: the
 * innermost open scope ends here (blocks and IFs nest as the tree does). */
static void on_tree_scope_end(void *arg)
{
	extract_ctx *ctx = arg;
	if (ctx->nopen_scopes > 0)
		ctx->steps[ctx->open_scopes[--ctx->nopen_scopes]].scope_end = ctx->nsteps;
}

static void on_tree_expression(void *arg, const char *text, const char *field)
{
	extract_ctx *ctx = arg;
	tree_step *t = new_step(ctx, STEP_EXPRESSION);
	t->text = cgm_arena_strdup(ctx->arena, text);
	t->field = field;
}

static void on_tree_sets(void *arg, const char *name, bool whole)
{
	extract_ctx *ctx = arg;
	tree_step *t = new_step(ctx, STEP_SETS);
	t->text = cgm_arena_strdup(ctx->arena, name);
	t->whole = whole;
}

static void on_tree_into(void *arg, const char *name)
{
	extract_ctx *ctx = arg;
	tree_step *t = new_step(ctx, STEP_INTO);
	t->text = cgm_arena_strdup(ctx->arena, name);
}

/* ---- sites the PL/pgSQL parser's own parses found --------------------- */

static void on_capture_text(void *arg, const char *text)
{
	extract_ctx *ctx = arg;
	if (ctx->ncaptured == ctx->cap_captured) {
		ctx->cap_captured = ctx->cap_captured ? ctx->cap_captured * 2 : 32;
		ctx->captured = cgm_xrealloc(ctx->captured, sizeof(captured_text) * (size_t)ctx->cap_captured);
	}
	captured_text *t = &ctx->captured[ctx->ncaptured++];
	t->text = cgm_arena_strdup(ctx->arena, text);
	t->first = ctx->nevents;
	t->unknown = false;
	t->constant = NULL;
	t->appended = false;
	t->row = NULL;
}

static void on_capture_constant(void *arg, const char *sql, int location)
{
	extract_ctx *ctx = arg;
	if (ctx->ncaptured > 0) {
		captured_text *t = &ctx->captured[ctx->ncaptured - 1];
		t->constant = cgm_arena_strdup(ctx->arena, sql);
		t->constant_location = location;
	}
}

static void on_capture_appended(void *arg, const char *sql, int location)
{
	on_capture_constant(arg, sql, location);
	extract_ctx *ctx = arg;
	if (ctx->ncaptured > 0)
		ctx->captured[ctx->ncaptured - 1].appended = true;
}

static void on_capture_row(void *arg, const cgm_expr *row)
{
	extract_ctx *ctx = arg;
	if (ctx->ncaptured > 0 && !ctx->captured[ctx->ncaptured - 1].row)
		ctx->captured[ctx->ncaptured - 1].row = row;
}

static captured_event *new_event(extract_ctx *ctx)
{
	if (ctx->nevents == ctx->cap_events) {
		ctx->cap_events = ctx->cap_events ? ctx->cap_events * 2 : 64;
		ctx->events = cgm_xrealloc(ctx->events, sizeof(captured_event) * (size_t)ctx->cap_events);
	}
	captured_event *e = &ctx->events[ctx->nevents++];
	memset(e, 0, sizeof *e);
	return e;
}

/* An argument shape whose strings outlive the tree. */
static void copy_arg(cgm_arena *a, cgm_raw_arg *dst, const cgm_raw_arg *src)
{
	*dst = *src;
	dst->name = cgm_arena_strdup(a, src->name);
	dst->type_schema = cgm_arena_strdup(a, src->type_schema);
	dst->type_name = cgm_arena_strdup(a, src->type_name);
	dst->column = cgm_arena_strdup(a, src->column);
	if (src->kind == CGM_RAW_ARG_CONCAT) {
		cgm_raw_arg *sides = cgm_arena_alloc(a, sizeof(cgm_raw_arg) * 2);
		copy_arg(a, &sides[0], src->left);
		copy_arg(a, &sides[1], src->right);
		dst->left = &sides[0];
		dst->right = &sides[1];
	}
}

static void on_capture_call(void *arg, const cgm_raw_call *call)
{
	extract_ctx *ctx = arg;
	captured_event *e = new_event(ctx);
	e->location = call->location;
	e->schema = cgm_arena_strdup(ctx->arena, call->schema);
	e->name = cgm_arena_strdup(ctx->arena, call->name);
	e->variadic = call->variadic;
	e->call_stmt = call->call_stmt;
	e->attribute = call->attribute;
	e->unscoped = call->unscoped;
	e->nargs = call->nargs;
	e->argexprs = call->argexprs;
	if (call->nargs > 0) {
		e->args = cgm_arena_alloc(ctx->arena, sizeof(cgm_raw_arg) * (size_t)call->nargs);
		for (int i = 0; i < call->nargs; i++)
			copy_arg(ctx->arena, &e->args[i], &call->args[i]);
	}
}

static const cgm_raw_arg *copied_arg(cgm_arena *a, const cgm_raw_arg *src)
{
	if (!src)
		return NULL;
	cgm_raw_arg *dst = cgm_arena_alloc(a, sizeof(cgm_raw_arg));
	copy_arg(a, dst, src);
	return dst;
}

static cgm_arena *scratch(extract_ctx *ctx)
{
	if (!ctx->scratch)
		ctx->scratch = cgm_arena_new();
	return ctx->scratch;
}

static void on_capture_op(void *arg, const cgm_raw_operator *op)
{
	extract_ctx *ctx = arg;
	cgm_arena *a = scratch(ctx);
	captured_opcast *oc = cgm_arena_alloc(a, sizeof(captured_opcast));
	memset(oc, 0, sizeof *oc);
	oc->op = *op;
	oc->op.schema = cgm_arena_strdup(a, op->schema);
	oc->op.name = cgm_arena_strdup(a, op->name);
	oc->op.left = copied_arg(a, op->left);
	oc->op.right = copied_arg(a, op->right);
	oc->op.right2 = copied_arg(a, op->right2);
	new_event(ctx)->opcast = oc;
}

static void on_capture_cast(void *arg, const cgm_raw_arg *target, const cgm_raw_arg *value,
			    int location)
{
	extract_ctx *ctx = arg;
	cgm_arena *a = scratch(ctx);
	captured_opcast *oc = cgm_arena_alloc(a, sizeof(captured_opcast));
	memset(oc, 0, sizeof *oc);
	oc->cast = true;
	oc->target = copied_arg(a, target);
	oc->value = copied_arg(a, value);
	oc->location = location;
	new_event(ctx)->opcast = oc;
}

static void on_capture_relation(void *arg, const cgm_raw_relation *rel)
{
	extract_ctx *ctx = arg;
	captured_event *e = new_event(ctx);
	e->relation = true;
	e->location = rel->location;
	e->schema = cgm_arena_strdup(ctx->arena, rel->schema);
	e->name = cgm_arena_strdup(ctx->arena, rel->name);
	e->events = rel->events;
	e->ncolumns = rel->ncolumns;
	e->nleading = rel->nleading;
	e->values = rel->values; /* in ctx->arena already */
	e->reads = copy_reads(ctx->arena, rel->reads, rel->nreads);
	e->nreads = e->reads ? rel->nreads : 0;
	if (rel->ncolumns > 0) {
		e->columns = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)rel->ncolumns);
		for (int i = 0; i < rel->ncolumns; i++)
			e->columns[i] = cgm_arena_strdup(ctx->arena, rel->columns[i]);
	}
}

static void on_capture_statement(void *arg)
{
	extract_ctx *ctx = arg;
	ctx->events_mark = ctx->nevents;
}

static void on_capture_unknown(void *arg, int start, int len)
{
	extract_ctx *ctx = arg;
	(void)start;
	(void)len;
	ctx->nevents = ctx->events_mark;
	if (ctx->ncaptured > 0)
		ctx->captured[ctx->ncaptured - 1].unknown = true;
}

/* The checked text equal to `text`, or -1.  Checks and the walk both go
 * in source order, mostly: the search starts after the last one found. */
static int find_captured(extract_ctx *ctx, const char *text)
{
	int n = ctx->ncaptured;
	for (int k = 0; k < n; k++) {
		int i = (ctx->captured_cursor + k) % n;
		if (strcmp(ctx->captured[i].text, text) == 0) {
			ctx->captured_cursor = i + 1;
			return i;
		}
	}
	return -1;
}

/* Record the sites of checked text i, standing where ctx->orig/base say. */
static void replay_captured(extract_ctx *ctx, int i)
{
	int end = i + 1 < ctx->ncaptured ? ctx->captured[i + 1].first : ctx->nevents;
	for (int k = ctx->captured[i].first; k < end; k++) {
		const captured_event *e = &ctx->events[k];
		if (e->opcast) {
			if (e->opcast->cast)
				on_raw_cast(ctx, e->opcast->target, e->opcast->value, e->opcast->location);
			else
				on_raw_op(ctx, &e->opcast->op);
			continue;
		}
		if (e->relation) {
			cgm_raw_relation rel = { .schema = e->schema, .name = e->name,
						 .location = e->location, .events = e->events,
						 .ncolumns = e->ncolumns, .columns = e->columns,
						 .nleading = e->nleading,
						 .values = e->values,
						 .nreads = e->nreads, .reads = e->reads };
			on_raw_relation(ctx, &rel);
			continue;
		}
		cgm_raw_call call = { .schema = e->schema, .name = e->name, .location = e->location,
				      .variadic = e->variadic, .call_stmt = e->call_stmt,
				      .nargs = e->nargs, .args = e->args, .argexprs = e->argexprs,
				      .attribute = e->attribute, .unscoped = e->unscoped };
		on_raw_call(ctx, &call);
	}
}

/* A statement the raw walker does not know: libpg_query's JSON of that
 * statement alone, its locations shifted back to the whole text. */
static void on_raw_unknown(void *arg, int start, int len)
{
	extract_ctx *ctx = arg;
	ctx->nsites = ctx->raw_mark;
	size_t avail = strlen(ctx->raw_text + start);
	size_t n = len > 0 && (size_t)len < avail ? (size_t)len : avail;
	char *text = malloc(n + 1);
	memcpy(text, ctx->raw_text + start, n);
	text[n] = '\0';
	/* libpg_query prints the tree by recursing without a limit. */
	cgm_sql_problem problem;
	if (!cgm_sql_check(text, CGM_SQL_CHECK_DEPTH, &problem)) {
		add_error(ctx, line_of_location(ctx, locate(ctx, start + problem.offset)), problem.message);
		free(text);
		return;
	}
	PgQueryParseResult r = pg_query_parse(text);
	if (!r.error && jt_parse(&ctx->sqldoc, r.parse_tree, strlen(r.parse_tree))) {
		ctx->loc_shift = start;
		scan_sql(ctx, &ctx->sqldoc);
		ctx->loc_shift = 0;
	}
	pg_query_free_parse_result(r);
	free(text);
}

/* Parse `sql` (raw tree first) and record its sites; false with the
 * parser's message in *err (heap) and position in *errpos when it does
 * not parse. */
static bool raw_parse_and_walk(extract_ctx *ctx, const char *sql, char **err, int *errpos)
{
	const cgm_raw_visitor visitor = { .ctx = ctx, .call = on_raw_call, .relation = on_raw_relation,
					  .statement = on_raw_statement, .unknown = on_raw_unknown,
					  .arena = ctx->arena,
					  .no_coercion_values = ctx->coercions == CGM_COERCE_NONE,
					  .op = on_raw_op, .cast = on_raw_cast };
	ctx->parsed = sql;
	ctx->raw_text = sql;
	int before = ctx->nsites;
	if (cgm_raw_scan(sql, &visitor, err, errpos) == 0)
		return true;
	ctx->nsites = before; /* a statement too deep stops the walk midway */
	return false;
}

static char *constant_sql(const jt_doc *d, int val, long *location, bool marked);

/* The constant SQL of "SELECT <expr>" parsed into d, or NULL; `marked`:
 * with its run-time parts as RUNTIME_MARK (constant_sql). */
static char *selected_constant(const jt_doc *d, long *location, bool marked)
{
	int stmt = jt_get(d, jt_elem(d, jt_get(d, 0, "stmts"), 0), "stmt");
	int target = jt_elem(d, jt_get(d, jt_get(d, stmt, "SelectStmt"), "targetList"), 0);
	int val = jt_get(d, jt_get(d, target, "ResTarget"), "val");
	return val >= 0 ? constant_sql(d, val, location, marked) : NULL;
}

/* The SQL the PL/pgSQL expression `expr` yields (selected_constant), or
 * NULL. */
static char *expression_sql(const char *expr, bool marked)
{
	cgm_strbuf sql = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&sql, "SELECT ");
	cgm_strbuf_puts(&sql, expr);
	const char *text = cgm_strbuf_cstr(&sql);
	char *constant = NULL;
	cgm_sql_problem problem;
	if (cgm_sql_check(text, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem)) {
		PgQueryParseResult r = pg_query_parse(text);
		jt_doc d = { 0 };
		long location = 0;
		int stmts = -1;
		if (!r.error && jt_parse(&d, r.parse_tree, strlen(r.parse_tree)))
			stmts = jt_get(&d, 0, "stmts");
		if (stmts >= 0 && d.tokens[stmts].size == 1)
			constant = selected_constant(&d, &location, marked);
		jt_doc_free(&d);
		pg_query_free_parse_result(r);
	}
	cgm_strbuf_free(&sql);
	return constant;
}

char *cgm_extract_constant_sql(const char *expr)
{
	return expression_sql(expr, false);
}

/* Parse `sql` and record its sites; returns false (and leaves the message
 * in *err, caller frees with free()) when libpg_query rejects it.  With
 * `constant`, `sql` is "SELECT <expr>" of an EXECUTE and *constant gets the
 * SQL the expression always yields (heap), or NULL when it is dynamic. */
static bool parse_and_walk(extract_ctx *ctx, const char *sql, char **err, int *errpos,
			   char **constant, long *constant_location)
{
	if (!constant)
		return raw_parse_and_walk(ctx, sql, err, errpos);
	cgm_sql_problem problem;
	if (!cgm_sql_check(sql, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem)) {
		if (err)
			*err = strdup(problem.message);
		if (errpos)
			*errpos = problem.offset + 1;
		return false;
	}
	PgQueryParseResult r = pg_query_parse(sql);
	if (r.error) {
		if (err)
			*err = strdup(r.error->message);
		if (errpos)
			*errpos = r.error->cursorpos;
		pg_query_free_parse_result(r);
		return false;
	}
	jt_doc *d = &ctx->sqldoc;
	bool ok = jt_parse(d, r.parse_tree, strlen(r.parse_tree));
	if (ok) {
		ctx->parsed = sql;
		scan_sql(ctx, d);
		if (constant)
			*constant = selected_constant(d, constant_location, false);
	} else if (err) {
		*err = strdup("cannot read libpg_query output");
	}
	pg_query_free_parse_result(r);
	return ok;
}

/* ---- PL/pgSQL expressions --------------------------------------------- */

static bool starts_with_word(const char *s, const char *word)
{
	/* Not past '(': "(SELECT ...) AND x" is an expression, and
	 * "SELECT (SELECT ...) UNION ..." parses as one too. */
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(word);
	return strncasecmp(s, word, n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

/* A statement PL/pgSQL runs as SQL.  DO is one too: PL/pgSQL's parser
 * stores it as a CALL statement (pl_gram.y); its block runs as an entry
 * point of its own, not as calls of the function holding it (cgmap_trace
 * observes them so), so the DoStmt holds no site. */
static bool is_statement_text(const char *s)
{
	static const char *const words[] = { "select", "with", "insert", "update", "delete",
					     "merge", "values", "table", "call", "do", "truncate",
					     "copy", "import", NULL };
	for (int i = 0; words[i]; i++)
		if (starts_with_word(s, words[i]))
			return true;
	return false;
}

/* Offset and length of the assignment operator of "target := expr" or
 * "target = expr" (the first top-level one after the target), or -1. */
static long assignment_operator(const char *s, int *len)
{
	int depth = 0;
	for (long i = 0; s[i]; i++) {
		char c = s[i];
		if (c == '\'' || c == '"') {
			for (i++; s[i] && s[i] != c; i++)
				;
			if (!s[i])
				return -1;
			continue;
		}
		if (c == '(' || c == '[')
			depth++;
		else if (c == ')' || c == ']')
			depth--;
		else if (depth == 0 && c == ':' && s[i + 1] == '=') {
			*len = 2;
			return i;
		} else if (depth == 0 && c == '=' && (i == 0 || !strchr("<>!=~*+-/%&|^#@:", s[i - 1])) &&
			   s[i + 1] != '=' && s[i + 1] != '>') {
			*len = 1;
			return i;
		}
	}
	return -1;
}

/* Calls inside the constant SQL of an EXECUTE: `sql_text` stands at
 * `literal_line`. */
static bool walk_literal_sql(extract_ctx *ctx, const char *sql_text, int literal_line)
{
	/* Not part of the body, whose text was checked. */
	cgm_sql_problem problem;
	if (!cgm_sql_check(sql_text, CGM_SQL_CHECK_LEXER, &problem))
		return false;
	extract_ctx saved = *ctx;
	ctx->literal_counted.text = NULL;
	ctx->literal_line = literal_line;
	ctx->via_literal = true;
	ctx->in_perform = false;
	int before = ctx->nsites;
	bool ok = parse_and_walk(ctx, sql_text, NULL, NULL, NULL, NULL);
	if (!ok)
		ctx->nsites = before;
	ctx->parsed = saved.parsed;
	ctx->literal_counted.text = NULL;
	ctx->literal_line = saved.literal_line;
	ctx->via_literal = saved.via_literal;
	ctx->in_perform = saved.in_perform;
	return ok;
}

/* One argument of format() at val: a NULL, a constant's text (*owned, heap,
 * the caller frees), or a value known only at run time. */
static cgm_format_arg format_arg(const jt_doc *d, int val, char **owned)
{
	cgm_format_arg a = { CGM_FORMAT_ARG_RUNTIME, NULL };
	int cast = jt_get(d, val, "TypeCast");
	if (cast >= 0) /* 'app'::text: the constant's text */
		return format_arg(d, jt_get(d, cast, "arg"), owned);
	int c = jt_get(d, val, "A_Const");
	if (c >= 0 && jt_true(d, jt_get(d, c, "isnull"))) {
		a.kind = CGM_FORMAT_ARG_NULL;
		return a;
	}
	int num = c >= 0 ? jt_get(d, c, "ival") : -1;
	if (num >= 0) {
		char digits[CGM_DECIMAL_MAX + 1];
		digits[CGM_DECIMAL_MAX] = '\0';
		*owned = strdup(cgm_decimal(digits + CGM_DECIMAL_MAX, jt_long(d, jt_get(d, num, "ival"), 0)));
	} else if (c >= 0 && (num = jt_get(d, c, "fval")) >= 0) {
		*owned = jt_strdup_heap(d, jt_get(d, num, "fval"));
	} else if (c >= 0 && (num = jt_get(d, c, "boolval")) >= 0) {
		*owned = strdup(jt_true(d, jt_get(d, num, "boolval")) ? "t" : "f");
	} else {
		long ignored = 0;
		*owned = constant_sql(d, val, &ignored, false);
	}
	if (*owned) {
		a.kind = CGM_FORMAT_ARG_TEXT;
		a.text = *owned;
	}
	return a;
}

/* A text function of constant texts (FuncCall v named at `name`), as
 * PostgreSQL computes it (cgm_sql_text_function): heap, or NULL. */
static char *text_function(const jt_doc *d, int v, int name)
{
	int args = jt_get(d, v, "args");
	int nargs = args >= 0 ? d->tokens[args].size : 0;
	if ((nargs != 1 && nargs != 3) || jt_true(d, jt_get(d, v, "func_variadic")) ||
	    string_node_is(d, name, "format"))
		return NULL;
	char *text[3] = { NULL, NULL, NULL };
	bool known = true;
	for (int k = 0; k < nargs && known; k++) {
		int arg = jt_elem(d, args, k);
		int cast = jt_get(d, arg, "TypeCast"); /* quote_ident('x'::text) */
		long ignored = 0;
		text[k] = constant_sql(d, cast >= 0 ? jt_get(d, cast, "arg") : arg, &ignored, false);
		known = text[k] != NULL;
	}
	char *fname = known ? jt_strdup_heap(d, jt_get(d, jt_get(d, name, "String"), "sval")) : NULL;
	cgm_strbuf out = CGM_STRBUF_INIT;
	known = fname && cgm_sql_text_function(&out, fname, (const char *const *)text, nargs);
	free(fname);
	for (int k = 0; k < 3; k++)
		free(text[k]);
	if (!known) {
		cgm_strbuf_free(&out);
		return NULL;
	}
	return out.data ? out.data : strdup("");
}

/* The constant SQL of an EXECUTE expression at val: a string literal, a
 * concatenation of literals, or format() with a constant template over
 * constant arguments (sqlformat.h: a run-time %L value is as good as NULL
 * here, a run-time identifier or text is not knowable).  Returns a
 * heap string or NULL when the SQL depends on run-time values.  With
 * `marked`, each part known only at run time (an operand of `||` that is
 * no constant, format()'s %I or %s of a run-time value) is RUNTIME_MARK
 * instead: NULL only when the template is not constant or format() fails. */
static char *constant_sql(const jt_doc *d, int val, long *location, bool marked)
{
	int v;
	if ((v = jt_get(d, val, "A_Const")) >= 0) {
		char *s = jt_strdup_heap(d, jt_get(d, jt_get(d, v, "sval"), "sval"));
		if (s)
			*location = jt_long(d, jt_get(d, v, "location"), 0);
		return s || !marked ? s : strdup(RUNTIME_MARK_TEXT);
	}
	if (marked && (v = jt_get(d, val, "TypeCast")) >= 0) /* 'SELECT '::text */
		return constant_sql(d, jt_get(d, v, "arg"), location, marked);
	if ((v = jt_get(d, val, "A_Expr")) >= 0) {
		if (!jt_eq(d, jt_get(d, v, "kind"), "AEXPR_OP") ||
		    !string_node_is(d, jt_elem(d, jt_get(d, v, "name"), 0), "||"))
			return marked ? strdup(RUNTIME_MARK_TEXT) : NULL;
		long l1 = 0, l2 = 0;
		char *a = constant_sql(d, jt_get(d, v, "lexpr"), &l1, marked);
		char *b = a ? constant_sql(d, jt_get(d, v, "rexpr"), &l2, marked) : NULL;
		if (!a || !b) {
			free(a);
			free(b);
			return NULL;
		}
		char *joined = malloc(strlen(a) + strlen(b) + 1);
		strcpy(joined, a);
		strcat(joined, b);
		free(a);
		free(b);
		*location = l1;
		return joined;
	}
	if ((v = jt_get(d, val, "FuncCall")) >= 0) {
		int names = jt_get(d, v, "funcname");
		int n = names >= 0 ? d->tokens[names].size : 0;
		if (n >= 1 && n <= 2 && (n == 1 || string_node_is(d, jt_elem(d, names, 0), "pg_catalog"))) {
			char *text = text_function(d, v, jt_elem(d, names, n - 1));
			if (text)
				return text;
		}
		if (n < 1 || n > 2 || !string_node_is(d, jt_elem(d, names, n - 1), "format") ||
		    (n == 2 && !string_node_is(d, jt_elem(d, names, 0), "pg_catalog")))
			return marked ? strdup(RUNTIME_MARK_TEXT) : NULL;
		int args = jt_get(d, v, "args");
		if (args < 0 || d->tokens[args].size < 1 || jt_true(d, jt_get(d, v, "func_variadic")))
			return marked ? strdup(RUNTIME_MARK_TEXT) : NULL;
		long l = 0;
		char *tmpl = constant_sql(d, jt_elem(d, args, 0), &l, false);
		if (!tmpl)
			return NULL;
		/* The other arguments: each constant one's text, run-time ones
		 * unknown (an identifier or text of them: no constant SQL). */
		int nargs = d->tokens[args].size - 1;
		cgm_format_arg *fargs = calloc((size_t)nargs + 1, sizeof *fargs);
		char **owned = calloc((size_t)nargs + 1, sizeof *owned);
		for (int k = 0; k < nargs; k++)
			fargs[k] = format_arg(d, jt_elem(d, args, k + 1), &owned[k]);
		static const cgm_format_unknown unknown = { 0, "NULL" };
		static const cgm_format_unknown unknown_marked = { RUNTIME_MARK, "NULL" };
		cgm_strbuf out = CGM_STRBUF_INIT;
		cgm_format_result fr = cgm_sql_format(&out, tmpl, fargs, nargs,
						      marked ? &unknown_marked : &unknown);
		for (int k = 0; k < nargs; k++)
			free(owned[k]);
		free(owned);
		free(fargs);
		free(tmpl);
		if (fr != CGM_FORMAT_KNOWN && fr != CGM_FORMAT_MARKED) {
			cgm_strbuf_free(&out);
			return NULL;
		}
		*location = l;
		if (!out.data)
			return strdup("");
		return out.data;
	}
	return marked ? strdup(RUNTIME_MARK_TEXT) : NULL;
}

static void record_dynamic(extract_ctx *ctx, const char *text)
{
	cgm_site *s = new_site(ctx);
	s->kind = CGM_SITE_DYNAMIC;
	s->line = ctx->stmt_line;
	s->name = "EXECUTE";
	cgm_site_rare_of(ctx->arena, s)->text = cgm_arena_strdup(ctx->arena, text);
	s->via_literal = false;
}

/* Whether a site found in the SQL of an EXECUTE with run-time parts is
 * certain: a call or a relation whose names are all constant, or the
 * command a DDL statement is.  Its tag comes from the statement's syntax,
 * which the constant parts spell (a part that spelled a keyword would
 * have left no statement that parses), so `format('SECURITY LABEL FOR %I
 * ON SCHEMA s IS NULL', p)` fires the event triggers of SECURITY LABEL
 * whoever p is.  Operators and casts may take a run-time part as an
 * operand of any type, and a statement's other sites depend on what the
 * parts spell.  (A call with a run-time part among its arguments was
 * marked runtime_typed as it was made: which overload that part's type
 * picks is known at run time only, resolve.c.) */
static bool certain_with_runtime_parts(const extract_ctx *ctx, int i)
{
	const cgm_site *s = &ctx->sites[i];
	if (s->kind == CGM_SITE_DDL)
		return true;
	if (names_runtime_part(s->schema) || names_runtime_part(s->name))
		return false;
	if (s->kind == CGM_SITE_EXEC_LITERAL)
		return !ctx->exprs[i].attribute;
	if (s->kind != CGM_SITE_RELATION)
		return false;
	const cgm_site_rare *x = cgm_site_get_rare(s);
	for (int c = 0; c < x->ncolumns; c++)
		if (names_runtime_part(x->columns[c]))
			return false;
	return true;
}

/* The calls an EXECUTE's SQL makes whatever its run-time parts are:
 * `format('SELECT %I.create_parent(p_type := CASE WHEN app.version() = 5
 * ...)', schema)` calls app.version() when it runs, though which
 * create_parent it calls is known only then (the site stays dynamic).
 * The parts known only at run time become a name that no call or
 * relation kept may hold; a text they turn into no statement (a keyword,
 * a clause) gives nothing but the DDL command its first words may make
 * (cgm_ddl_command_tag_of_words).  Sites stand at the EXECUTE's line. */
static void walk_runtime_parts(extract_ctx *ctx, const char *text)
{
	if (!strchr(text, '\'') && !strchr(text, '$'))
		return; /* no literal: nothing of the SQL is known */
	char *marked = expression_sql(text, true);
	if (!marked)
		return;
	cgm_strbuf sql = CGM_STRBUF_INIT;
	bool known = false;
	for (const char *p = marked; *p; p++) {
		if (*p == RUNTIME_MARK) {
			cgm_strbuf_puts(&sql, RUNTIME_NAME);
		} else {
			cgm_strbuf_putc(&sql, *p);
			known |= !isspace((unsigned char)*p);
		}
	}
	free(marked);
	int before = ctx->nsites;
	ctx->in_runtime_parts = true;
	bool walked = known && walk_literal_sql(ctx, cgm_strbuf_cstr(&sql), ctx->stmt_line);
	ctx->in_runtime_parts = false;
	unsigned facts;
	const char *tag = !walked && known ? cgm_ddl_command_tag_of_words(cgm_strbuf_cstr(&sql), &facts)
					   : NULL;
	/* `format('ALTER TABLE %s %s', t, cmds)`: no statement parses, but
	 * its first words say which command it is, and so which event
	 * triggers surely fire. */
	if (tag)
		new_ddl_site(ctx, tag, ctx->stmt_line, facts);
	if (walked) {
		int kept = before;
		for (int i = before; i < ctx->nsites; i++) {
			if (!certain_with_runtime_parts(ctx, i))
				continue;
			ctx->sites[kept] = ctx->sites[i];
			ctx->exprs[kept] = ctx->exprs[i];
			ctx->sites[kept].line = ctx->stmt_line;
			cgm_site *s = &ctx->sites[kept];
			/* `SELECT %I FROM v`: which of v's columns it reads is
			 * known at run time, so any may be (reads unknown). */
			for (int c = 0; s->kind == CGM_SITE_RELATION && s->rare && c < s->rare->nreads; c++)
				if (names_runtime_part(s->rare->reads[c])) {
					cgm_site_rare *x = cgm_site_rare_of(ctx->arena, s);
					x->reads = NULL;
					x->nreads = 0;
					break;
				}
			kept++;
		}
		ctx->nsites = kept;
	}
	cgm_strbuf_free(&sql);
}

static const char *assigned_expression(extract_ctx *ctx, const char *text);

/* An EXECUTE whose SQL is known only at run time: what it calls anyway,
 * then the dynamic site.  An EXECUTE of a variable that one assignment
 * surely gives (`q := format('ALTER TABLE %I ...', t); EXECUTE q;`) is
 * read as that assignment's expression, which the site keeps as its text:
 * its constant parts tell what the statement is. */
static void record_dynamic_execute(extract_ctx *ctx, const char *text)
{
	const char *built = assigned_expression(ctx, text);
	if (built)
		text = built;
	walk_runtime_parts(ctx, text);
	record_dynamic(ctx, text);
}

/* FETCH or MOVE of a cursor the function does not OPEN (a refcursor
 * parameter, an `ALIAS FOR $n` of one, a variable a call filled): the
 * query it runs was opened elsewhere, so what it calls is as unknown here
 * as an EXECUTE's (cgmap_trace counts its calls and runs at the FETCH's
 * line).  Found in the text: a catalog-less parse rewrites cursor
 * statements away. */
static void foreign_fetches(extract_ctx *ctx)
{
	const cgm_cursor_read *reads = ctx->cursor_stmts;
	int n = ctx->ncursor_stmts;
	for (int i = 0; i < n; i++) {
		if (reads[i].open || !reads[i].cursor[0])
			continue;
		bool opened = false;
		for (int k = 0; k < n && !opened; k++)
			opened = reads[k].open && strcmp(reads[k].cursor, reads[i].cursor) == 0;
		if (opened)
			continue;
		cgm_site *s = new_site(ctx);
		s->kind = CGM_SITE_DYNAMIC;
		s->line = reads[i].line;
		s->stmt = "fetch";
		s->name = "FETCH";
		cgm_site_rare_of(ctx->arena, s)->text = cgm_arena_strdup(ctx->arena, reads[i].cursor);
	}
}

/* The kind of a statement of the parsed body at `lineno`: an ASSERT the
 * cursor rewrite made of an OPEN's arguments or a FETCH's or MOVE's count
 * is that OPEN, FETCH or MOVE again.  The tree is walked in the body's
 * order, so the n-th ASSERT walked on a line is the n-th written there. */
static const char *statement_kind(extract_ctx *ctx, const char *kind, int lineno)
{
	if (ctx->ncursor_stmts == 0 || strcmp(kind, "assert") != 0)
		return kind;
	if (lineno != ctx->assert_line) {
		ctx->assert_line = lineno;
		ctx->asserts_seen = 0;
	}
	int nth = ctx->asserts_seen++;
	for (int i = 0; i < ctx->ncursor_stmts; i++)
		if (ctx->cursor_stmts[i].line == lineno && ctx->cursor_stmts[i].assert_nth == nth)
			return ctx->cursor_stmts[i].stmt;
	return kind;
}

static void parse_one(extract_ctx *ctx, char *parsed, const char *text, bool dynamic);

/* Where the text of an expression stands in the body: ctx->orig and
 * ctx->base.  PERFORM's text is "SELECT " + what follows PERFORM there; a
 * simple CASE's WHEN values have PL/pgSQL's prefix (plpgsql_locate.h). */
static void place_expression(extract_ctx *ctx, const char *text)
{
	ctx->orig = text;
	const char *probe = text;
	char *values = NULL;
	long probe_shift = 0;
	size_t case_prefix = cgm_plpgsql_case_prefix(text);
	if (ctx->in_perform && strncmp(text, "SELECT ", 7) == 0) {
		probe = text + 7;
		probe_shift = 7;
	} else if (case_prefix) {
		/* A simple CASE's WHEN: only its values stand in the body. */
		size_t n = strlen(text) - case_prefix - 1;
		values = cgm_xrealloc(NULL, n + 1);
		memcpy(values, text + case_prefix, n);
		values[n] = '\0';
		probe = values;
		probe_shift = (long)case_prefix;
	}
	long at = find_in_body(ctx, probe);
	ctx->base = at >= 0 ? at - probe_shift : -1;
	free(values);
}

/* `EXECUTE v` of a variable that only ever holds constant SQL: the calls
 * of each value it may hold (execvars.h), at the EXECUTE's line, where
 * PostgreSQL makes them.  Of values built of appended pieces, the longest
 * first, and one only when it holds a piece no value walked held: a
 * value that does not parse is a way the code never goes (PostgreSQL
 * would fail there), and every piece counts once.  False when `text` is
 * no such variable or a piece is in no value that parses. */
/* No step of the body's walk. */
#define NO_STEP (-2)
static int reaching_set(extract_ctx *ctx, const char *text, int at);
static int outer_loop_end(extract_ctx *ctx, int at);

static int popcount64(uint64_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/* The constant SQL values variable `text` may hold at step `at`: from
 * the set that surely reaches it, else from any set before it or in a
 * loop around it (cgm_exec_vars_lookup's count, *values, *all). */
static int exec_values_at(extract_ctx *ctx, const char *text, int at, cgm_exec_value **values, uint64_t *all)
{
	int from = reaching_set(ctx, text, at);
	return from != NO_STEP ? cgm_exec_vars_lookup(ctx->exec_vars, text, from, at, at, values, all)
			       : cgm_exec_vars_lookup(ctx->exec_vars, text, CGM_EXEC_VARS_ENTRY, at,
						      outer_loop_end(ctx, at), values, all);
}

static bool execute_variable(extract_ctx *ctx, const char *text)
{
	int at = ctx->current_step;
	if (at < 0)
		return false; /* the JSON path: no step tells what sets a variable */
	cgm_exec_value *values;
	uint64_t all;
	int n = exec_values_at(ctx, text, at, &values, &all);
	if (n <= 0)
		return false;
	/* Stable, the most parts first: n is at most CGM_EXEC_VALUES_MAX. */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && popcount64(values[k].parts) > popcount64(values[k - 1].parts); k--) {
			cgm_exec_value swap = values[k];
			values[k] = values[k - 1];
			values[k - 1] = swap;
		}
	/* Every EXECUTE of a variable walks its SQL again: a bound on them all,
	 * beyond the body's own length, keeps one big value EXECUTEd many
	 * times from taking memory without end (its sites, each time). */
	size_t body_len = strlen(ctx->body ? ctx->body : "");
	size_t budget = CGM_EXEC_WALKED_BYTES + body_len;
	size_t site_budget = CGM_EXEC_WALKED_SITES + body_len / 16;
	uint64_t walked = 0;
	for (int i = 0; i < n; i++) {
		if (!(values[i].parts & ~walked))
			continue;
		size_t len = strlen(values[i].sql);
		if (ctx->exec_walked + len > budget || ctx->exec_walked_sites > site_budget)
			return false;
		ctx->exec_walked += len;
		int before = ctx->nsites;
		if (!walk_literal_sql(ctx, values[i].sql, ctx->stmt_line))
			continue;
		walked |= values[i].parts;
		ctx->exec_walked_sites += (size_t)(ctx->nsites - before);
		for (int s = before; s < ctx->nsites; s++)
			ctx->sites[s].line = ctx->stmt_line;
	}
	return walked == all;
}

/* Checked by the PL/pgSQL parser already: its sites, counted in the text
 * itself, and for EXECUTE the SQL it always yields, if any.  False when
 * the text must be parsed here. */
static bool replay_expression(extract_ctx *ctx, const char *text, bool dynamic)
{
	int checked = find_captured(ctx, text);
	ctx->last_checked = -1;
	if (checked < 0 || ctx->captured[checked].unknown)
		return false;
	ctx->last_checked = checked;
	const captured_text *t = &ctx->captured[checked];
	int end = checked + 1 < ctx->ncaptured ? ctx->captured[checked + 1].first : ctx->nevents;
	if (!dynamic && end == t->first)
		return true; /* no site: not even its place is needed */
	place_expression(ctx, text);
	ctx->delta = 0;
	ctx->parsed = text;
	replay_captured(ctx, checked);
	if (dynamic && !(t->constant && !t->appended && walk_literal_sql(ctx, t->constant,
							   line_of_location(ctx, t->constant_location))) &&
	    !execute_variable(ctx, text))
		record_dynamic_execute(ctx, text);
	return true;
}

/* The row of the SQL an EXECUTE's expression `text` always yields (a
 * literal, literals joined, a constant format()), as the PL/pgSQL parser
 * captured it, or NULL: the record it fills has that row's columns, as
 * PostgreSQL gives them when it runs (`EXECUTE 'SELECT 1 AS v' INTO r`
 * makes r.v an integer). */
static const cgm_expr *constant_sql_row(extract_ctx *ctx, const char *text, int at)
{
	/* Looking does not move the walk's place among the checked texts:
	 * the statement's own expression finds its text next. */
	int cursor = ctx->captured_cursor;
	int k = find_captured(ctx, text);
	ctx->captured_cursor = cursor;
	const char *sql = NULL;
	if (k >= 0 && !ctx->captured[k].unknown && ctx->captured[k].constant && !ctx->captured[k].appended) {
		sql = ctx->captured[k].constant;
	} else if (at >= 0 && ctx->exec_vars) {
		/* A variable holding one constant SQL there, whole
		 * (`q := 'SELECT ...'; FOR r IN EXECUTE q`). */
		cgm_exec_value *values;
		uint64_t all;
		if (exec_values_at(ctx, text, at, &values, &all) == 1 && values[0].parts == all)
			sql = values[0].sql;
	}
	cgm_sql_problem problem;
	if (!sql || !cgm_sql_check(sql, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem))
		return NULL;
	return cgm_raw_select_row(ctx->arena, sql);
}

/* Whether a value assigned to a `type` may run a user cast worth a site:
 * unknown types may; pg_catalog's only when the catalog has a user cast
 * into one (or its casts are unknown yet): every assignment of every body
 * would carry a site. */
static bool coercible_target(const extract_ctx *ctx, const char *type)
{
	return type && (ctx->coercions == CGM_COERCE_ALL || !cgm_type_is_builtin(type));
}

/* A variable declared of a pg_catalog type (not %TYPE, %ROWTYPE, record)
 * that no user cast can store into. */
static bool builtin_variable(extract_ctx *ctx, const char *name)
{
	const char *type = var_lookup(ctx, name);
	return type && ctx->coercions != CGM_COERCE_ALL && cgm_type_is_builtin(type);
}

/* The cast an assignment or a RETURN of the statement being walked may run
 * (coerce.h): the value the PL/pgSQL parser's check read (the row of its
 * checked text) against the variable or the declared result. */
static void coercion_of_statement(extract_ctx *ctx, const char *text)
{
	bool assign = strcmp(ctx->stmt_kind, "assign") == 0;
	if ((!assign && strcmp(ctx->stmt_kind, "return") != 0) || ctx->last_checked < 0)
		return;
	const cgm_expr *row = ctx->captured[ctx->last_checked].row;
	if (!row || row->kind != CGM_EXPR_ROW || row->nargs != 1 || !row->args[0])
		return;
	const cgm_expr *target = NULL;
	if (assign) {
		const char *name = cgm_coercion_assign_target(ctx->arena, text);
		if (name && !field_rewritten(ctx, name) && !builtin_variable(ctx, name))
			target = var_expr(ctx, name);
	} else {
		const char *type = cgm_coercion_return_type(ctx->fn);
		target = coercible_target(ctx, type) ? cgm_coercion_type_expr(ctx->arena, type) : NULL;
	}
	if (!target)
		return;
	bind_vars(ctx, row->args[0], 0);
	if (ctx->coercions != CGM_COERCE_NONE)
		new_coercion_site(ctx, row->args[0], target, ctx->stmt_line);
}

/* A variable of a type outside pg_catalog is assigned its default, or a
 * NULL, when its block starts: PL/pgSQL lets a domain's checks see it
 * then (and a user cast store the default).  `checked` is the checked
 * text its default replayed, or -1. */
static void coercion_of_declaration(extract_ctx *ctx, const char *name, int checked)
{
	/* A pg_catalog type's variable: no site, whatever the casts (every
	 * declaration of every body would carry one for a rare cast of a
	 * default). */
	const char *type = name ? var_lookup(ctx, name) : NULL;
	if (ctx->coercions == CGM_COERCE_NONE || !type || cgm_type_is_builtin(type))
		return;
	const cgm_expr *value = NULL;
	const cgm_expr *row = checked >= 0 ? ctx->captured[checked].row : NULL;
	if (row && row->kind == CGM_EXPR_ROW && row->nargs == 1 && row->args[0]) {
		value = row->args[0];
		bind_vars(ctx, row->args[0], 0);
	}
	new_coercion_site(ctx, value, var_expr(ctx, name), ctx->stmt_line);
}

static void on_expression(extract_ctx *ctx, char *text, bool dynamic)
{
	if (!text || !*text) {
		free(text);
		return;
	}
	if (replay_expression(ctx, text, dynamic)) {
		coercion_of_statement(ctx, text);
		free(text);
		return;
	}
	/* What PL/pgSQL runs as SQL (any statement, CREATE included) parses as
	 * it is; everything else is an expression. */
	bool statement = !dynamic && (strcmp(ctx->stmt_kind, "execsql") == 0 || is_statement_text(text));
	/* Pure expressions without a parenthesis, an operator character or a
	 * cast hold no site: skip parsing. */
	if (!statement && !dynamic && !strpbrk(text, "(+-*/<>=~!@#%^&|`?:")) {
		free(text);
		return;
	}

	char *parsed = NULL;
	long delta = 0;
	if (statement) {
		parsed = strdup(text);
	} else {
		int oplen = 0;
		long assign = strcmp(ctx->stmt_kind, "assign") == 0 ? assignment_operator(text, &oplen) : -1;
		size_t len = strlen(text);
		parsed = malloc(len + 8);
		memcpy(parsed, "SELECT ", 7);
		memcpy(parsed + 7, text, len + 1);
		/* "SELECT target, expr": both halves parse whatever the expression
		 * is (a comparison too), and offsets stay where they were. */
		if (assign >= 0) {
			parsed[7 + assign] = ',';
			if (oplen == 2)
				parsed[7 + assign + 1] = ' ';
		}
		delta = -7;
	}
	/* What libpg_query's PL/pgSQL parser kept of a comment after the
	 * expression, which PostgreSQL does not (plpgsql_locate.h). */
	cgm_plpgsql_blank_end_comment(parsed - delta);

	place_expression(ctx, text);
	ctx->delta = delta;


	if (!dynamic && ctx->batching) {
		if (ctx->npending == ctx->cap_pending) {
			ctx->cap_pending = ctx->cap_pending ? ctx->cap_pending * 2 : 16;
			ctx->pending = realloc(ctx->pending, sizeof(pending_expr) * (size_t)ctx->cap_pending);
		}
		pending_expr *e = &ctx->pending[ctx->npending++];
		e->parsed = parsed;
		e->orig = text;
		e->delta = delta;
		e->base = ctx->base;
		e->stmt_kind = ctx->stmt_kind;
		e->stmt_line = ctx->stmt_line;
		e->in_perform = ctx->in_perform;
		e->guards = ctx->guards;
		e->requires_extension = ctx->requires_extension;
		e->offset = 0;
		e->owned = text;
		return;
	}
	parse_one(ctx, parsed, text, dynamic);
	free(text);
}

/* Parse one expression and record its sites, or its error. Frees parsed. */
static void parse_one(extract_ctx *ctx, char *parsed, const char *text, bool dynamic)
{
	int before = ctx->nsites;
	char *err = NULL;
	int errpos = 0;
	char *sql = NULL;
	long loc = 0;
	if (!parse_and_walk(ctx, parsed, &err, &errpos, dynamic ? &sql : NULL, &loc)) {
		ctx->nsites = before;
		int line = line_of_location(ctx, errpos > 0 ? errpos - 1 : 0);
		add_error(ctx, line, cgm_arena_printf(ctx->arena, "cannot parse expression: %s", err));
		free(err);
		free(parsed);
		return;
	}

	if (dynamic) {
		if (sql) {
			int literal_line = line_of_location(ctx, loc);
			if (!walk_literal_sql(ctx, sql, literal_line))
				record_dynamic(ctx, text);
			free(sql);
		} else if (!execute_variable(ctx, text)) {
			record_dynamic_execute(ctx, text);
		}
	}
	free(parsed);
}

/* Parse every waiting expression as one text; when that text does not
 * parse, each expression alone, so the error names its own line. */
static void flush_batch(extract_ctx *ctx)
{
	if (ctx->npending == 0)
		return;
	cgm_strbuf text = CGM_STRBUF_INIT;
	for (int i = 0; i < ctx->npending; i++) {
		ctx->pending[i].offset = (long)text.len;
		cgm_strbuf_puts(&text, ctx->pending[i].parsed);
		/* On its own line: an expression may end in a -- comment. */
		cgm_strbuf_puts(&text, "\n;\n");
	}
	ctx->batch = ctx->pending;
	bool parsed = raw_parse_and_walk(ctx, cgm_strbuf_cstr(&text), NULL, NULL);
	ctx->batch = NULL;
	if (parsed) {
		for (int i = 0; i < ctx->npending; i++) {
			free(ctx->pending[i].parsed);
			free(ctx->pending[i].owned);
		}
	} else {
		for (int i = 0; i < ctx->npending; i++) {
			const pending_expr *e = &ctx->pending[i];
			ctx->orig = e->orig;
			ctx->delta = e->delta;
			ctx->base = e->base;
			ctx->stmt_kind = e->stmt_kind;
			ctx->stmt_line = e->stmt_line;
			ctx->in_perform = e->in_perform;
			ctx->guards = e->guards;
			ctx->requires_extension = e->requires_extension;
			parse_one(ctx, e->parsed, e->orig, false);
			free(e->owned);
		}
	}
	cgm_strbuf_free(&text);
	ctx->npending = 0;
	ctx->guards = 0; /* flushed after the walk: no block or IF is open */
	ctx->requires_extension = NULL;
}

/* ---- the PL/pgSQL tree ------------------------------------------------ */

static void walk_plpgsql(extract_ctx *ctx, const jt_doc *d, int node, const char *field);

static bool is_dynamic_field(const extract_ctx *ctx, const char *field)
{
	if (!field)
		return false;
	if (strcmp(field, "dynquery") == 0)
		return true;
	return strcmp(field, "query") == 0 &&
	       (strcmp(ctx->stmt_kind, "dynexecute") == 0 || strcmp(ctx->stmt_kind, "dynfors") == 0);
}

/* A statement kind that outlives the JSON text it was read from. */
static const char *stable_kind(extract_ctx *ctx, const char *kind, size_t len)
{
	static const char *const known[] = {
		"assign", "if", "elsif", "case", "loop", "while", "fori", "fors", "forc",
		"foreach_a", "exit", "return", "return_next", "return_query", "raise",
		"assert", "execsql", "dynexecute", "dynfors", "getdiag", "open", "fetch",
		"close", "perform", "call", "commit", "rollback", "block", "declare", "sql", NULL
	};
	for (int i = 0; known[i]; i++)
		if (strlen(known[i]) == len && memcmp(known[i], kind, len) == 0)
			return known[i];
	return cgm_arena_strndup(ctx->arena, kind, len);
}

/* Whether the EXCEPTION clause of the block at `stmt` (JSON) names
 * undefined_function, as rawtree.c's catches_undefined_function reads the
 * tree: by name or SQLSTATE '42883'. */
static bool json_block_catches(const jt_doc *d, int stmt)
{
	int list = jt_get(d, jt_get(d, jt_get(d, stmt, "exceptions"), "PLpgSQL_exception_block"),
			  "exc_list");
	if (list < 0 || d->tokens[list].type != JT_ARRAY)
		return false;
	int e = list + 1;
	for (int i = 0; i < d->tokens[list].size; i++, e = jt_skip(d, e)) {
		int conds = jt_get(d, jt_get(d, e, "PLpgSQL_exception"), "conditions");
		if (conds < 0 || d->tokens[conds].type != JT_ARRAY)
			continue;
		int c = conds + 1;
		for (int j = 0; j < d->tokens[conds].size; j++, c = jt_skip(d, c)) {
			int name = jt_get(d, jt_get(d, c, "PLpgSQL_condition"), "condname");
			if (jt_eq(d, name, "undefined_function") || jt_eq(d, name, "42883"))
				return true;
		}
	}
	return false;
}

static void on_statement(extract_ctx *ctx, const char *kind, const jt_doc *d, int stmt)
{
	const char *saved_kind = ctx->stmt_kind;
	int saved_line = ctx->stmt_line;
	bool saved_perform = ctx->in_perform;
	ctx->stmt_line = (int)jt_long(d, jt_get(d, stmt, "lineno"), saved_line);
	ctx->stmt_kind = statement_kind(ctx, kind, ctx->stmt_line);
	ctx->in_perform = strcmp(kind, "perform") == 0;
	/* EXECUTE ... USING: its values, for the $n of its constant SQL */
	const cgm_expr **saved_using = ctx->using_values;
	int saved_nusing = ctx->nusing_values;
	const char *texts[CGM_USING_MAX];
	int n = 0;
	int params = jt_get(d, stmt, "params");
	if (params >= 0 && d->tokens[params].type == JT_ARRAY && strcmp(kind, "raise") != 0) {
		int e = params + 1;
		for (int i = 0; i < d->tokens[params].size && n < CGM_USING_MAX; i++, e = jt_skip(d, e))
			texts[n++] = jt_strdup(d, jt_get(d, jt_get(d, e, "PLpgSQL_expr"), "query"), ctx->arena);
	}
	using_values(ctx, texts, n);
	int saved_guards = ctx->guards, saved_outside = ctx->guards_outside;
	if (strcmp(kind, "block") == 0) {
		ctx->guards_outside = ctx->guards;
		if (json_block_catches(d, stmt))
			ctx->guards++;
	}
	walk_plpgsql(ctx, d, stmt, NULL);
	ctx->guards = saved_guards;
	ctx->guards_outside = saved_outside;
	ctx->using_values = saved_using;
	ctx->nusing_values = saved_nusing;
	ctx->stmt_kind = saved_kind;
	ctx->stmt_line = saved_line;
	ctx->in_perform = saved_perform;
}

static void walk_plpgsql_node(extract_ctx *ctx, const jt_doc *d, int node, const char *field);

/* One level down the JSON of the PL/pgSQL tree: no deeper than
 * CGM_MAX_NESTING (the PL/pgSQL parser's stack stops far before). */
static void walk_plpgsql(extract_ctx *ctx, const jt_doc *d, int node, const char *field)
{
	if (ctx->json_depth >= CGM_MAX_NESTING) {
		if (!ctx->json_too_deep)
			add_error(ctx, ctx->stmt_line, "statements nested deeper than " EXTRACT_NUMBER(CGM_MAX_NESTING) " levels");
		ctx->json_too_deep = true;
		return;
	}
	ctx->json_depth++;
	walk_plpgsql_node(ctx, d, node, field);
	ctx->json_depth--;
}

/* `field`: the key the value at node stands under, which tells whether an
 * expression there is dynamic SQL. */
static void walk_plpgsql_node(extract_ctx *ctx, const jt_doc *d, int node, const char *field)
{
	if (node < 0 || node >= d->count)
		return;
	const jt_token *t = &d->tokens[node];
	if (t->type == JT_ARRAY) {
		int e = node + 1;
		for (int i = 0; i < t->size; i++, e = jt_skip(d, e))
			walk_plpgsql(ctx, d, e, field);
		return;
	}
	if (t->type != JT_OBJECT)
		return;
	int k = node + 1;
	for (int i = 0; i < t->size; i++, k = jt_skip(d, k + 1)) {
		const char *key = d->text + d->tokens[k].start;
		size_t klen = (size_t)(d->tokens[k].end - d->tokens[k].start);
		int v = k + 1;
		if (klen > 13 && strncmp(key, "PLpgSQL_stmt_", 13) == 0) {
			on_statement(ctx, stable_kind(ctx, key + 13, klen - 13), d, v);
		} else if (jt_eq(d, k, "PLpgSQL_if_elsif")) {
			on_statement(ctx, "elsif", d, v);
		} else if (jt_eq(d, k, "PLpgSQL_case_when")) {
			on_statement(ctx, "case", d, v);
		} else if (jt_eq(d, k, "PLpgSQL_expr")) {
			on_expression(ctx, jt_strdup_heap(d, jt_get(d, v, "query")),
				      is_dynamic_field(ctx, field));
		} else if (d->tokens[v].type == JT_OBJECT || d->tokens[v].type == JT_ARRAY) {
			char name[32];
			size_t n = klen < sizeof name - 1 ? klen : sizeof name - 1;
			memcpy(name, key, n);
			name[n] = '\0';
			/* A block's handlers are not guarded by its own clause. */
			int guards = ctx->guards;
			if (strcmp(name, "exceptions") == 0)
				ctx->guards = ctx->guards_outside;
			walk_plpgsql(ctx, d, v, name);
			ctx->guards = guards;
		}
	}
}

/* Declared variables (for argument types) and DECLARE defaults and cursor
 * queries (for sites). */
static void walk_datums(extract_ctx *ctx, const jt_doc *d, int datums)
{
	int n = datums >= 0 ? d->tokens[datums].size : 0;
	int e = datums + 1;
	for (int i = 0; i < n; i++, e = jt_skip(d, e)) {
		int var = jt_get(d, e, "PLpgSQL_var");
		if (var < 0)
			continue;
		int name = jt_get(d, var, "refname");
		int typname = jt_get(d, jt_get(d, jt_get(d, var, "datatype"), "PLpgSQL_type"), "typname");
		if (name >= 0 && typname >= 0 && !jt_eq(d, typname, "UNKNOWN")) {
			add_var(ctx, jt_strdup(d, name, ctx->arena), NULL);
			ctx->vars[ctx->nvars - 1].declared = jt_strdup(d, typname, ctx->arena);
		}
		if (jt_get(d, var, "lineno") < 0)
			continue;
		const char *saved = ctx->stmt_kind;
		int saved_line = ctx->stmt_line;
		ctx->stmt_kind = "declare";
		ctx->stmt_line = (int)jt_long(d, jt_get(d, var, "lineno"), 1);
		int cursor = jt_get(d, jt_get(d, var, "cursor_explicit_expr"), "PLpgSQL_expr");
		int dflt = jt_get(d, jt_get(d, var, "default_val"), "PLpgSQL_expr");
		if (dflt >= 0 && cursor < 0)
			on_expression(ctx, jt_strdup_heap(d, jt_get(d, dflt, "query")), false);
		if (cursor >= 0)
			on_expression(ctx, jt_strdup_heap(d, jt_get(d, cursor, "query")), false);
		ctx->stmt_kind = saved;
		ctx->stmt_line = saved_line;
	}
}

/* SELECT expr INTO v of a variable with a type of its own (a record takes
 * the row as it is): the cast the assignment may run (coerce.h). */
static void into_coercion(extract_ctx *ctx, const char *name, const cgm_expr *row)
{
	if (builtin_variable(ctx, name))
		return;
	const cgm_expr *var = var_expr(ctx, name);
	if (!var || var->kind != CGM_EXPR_VAR || !var->name || strcmp(var->name, "record") == 0 ||
	    row->kind != CGM_EXPR_ROW || row->nargs < 1 || !row->args[0] ||
	    row->args[0]->kind == CGM_EXPR_STAR)
		return;
	bind_vars(ctx, row->args[0], 0);
	if (ctx->coercions != CGM_COERCE_NONE)
		new_coercion_site(ctx, row->args[0], var, ctx->stmt_line);
}

/* The USING values of the statement whose dynamic query is step i: its
 * "params" expressions that follow, up to the statement's end. */
static void using_values_after(extract_ctx *ctx, int i)
{
	const char *texts[CGM_USING_MAX];
	int n = 0;
	for (int j = i + 1, level = 0; j < ctx->nsteps && level >= 0 && n < CGM_USING_MAX; j++) {
		const tree_step *q = &ctx->steps[j];
		level += q->what == STEP_STATEMENT ? 1 : q->what == STEP_END ? -1 : 0;
		if (level == 0 && q->what == STEP_EXPRESSION && strcmp(q->field, "params") == 0)
			texts[n++] = q->text;
	}
	using_values(ctx, texts, n);
}

/* The constant SQL a checked text always yields, or NULL. */
static const char *constant_of(extract_ctx *ctx, const char *text, bool *appended)
{
	int k = text ? find_captured(ctx, text) : -1;
	bool known = k >= 0 && !ctx->captured[k].unknown;
	if (appended)
		*appended = known && ctx->captured[k].appended;
	else if (known && ctx->captured[k].appended)
		return NULL;
	return known ? ctx->captured[k].constant : NULL;
}

/* What every variable of the body is given, before any EXECUTE of one is
 * read: the table is over the whole body (execvars.h). */
static void collect_exec_vars(extract_ctx *ctx)
{
	ctx->exec_vars = cgm_exec_vars_new(ctx->arena);
	int saved_cursor = ctx->captured_cursor;
	for (int i = 0; i < ctx->nsteps; i++) {
		const tree_step *t = &ctx->steps[i];
		if (t->what == STEP_VAR && t->text) {
			/* A parameter or PL/pgSQL's own (line 0), a bound cursor:
			 * never a constant of the body's. */
			if (t->lineno == 0 || t->cursor_text)
				cgm_exec_vars_set(ctx->exec_vars, t->text, CGM_EXEC_VARS_ENTRY, NULL);
			else if (t->default_text)
				cgm_exec_vars_set(ctx->exec_vars, t->text, CGM_EXEC_VARS_ENTRY,
						  constant_of(ctx, t->default_text, NULL));
		} else if (t->what == STEP_SETS) {
			const tree_step *value = i + 1 < ctx->nsteps ? &ctx->steps[i + 1] : NULL;
			bool assigned = t->whole && value && value->what == STEP_EXPRESSION;
			bool appended = false;
			const char *constant = assigned ? constant_of(ctx, value->text, &appended) : NULL;
			if (appended)
				cgm_exec_vars_append(ctx->exec_vars, t->text, i, constant);
			else
				cgm_exec_vars_set(ctx->exec_vars, t->text, i, constant);
		}
	}
	ctx->captured_cursor = saved_cursor;
}

static bool is_loop_kind(const char *kind)
{
	static const char *const loops[] = { "loop", "while", "fori", "fors", "forc",
					     "foreach_a", "dynfors", NULL };
	for (int i = 0; kind && loops[i]; i++)
		if (strcmp(kind, loops[i]) == 0)
			return true;
	return false;
}

/* ctx->step_parent and ctx->step_loop_end, once per body. */
static void index_steps(extract_ctx *ctx)
{
	if (ctx->step_parent)
		return;
	int n = ctx->nsteps;
	int *end_of = cgm_xcalloc((size_t)n + 1, sizeof(int));
	int *open = cgm_xcalloc((size_t)n + 1, sizeof(int));
	int depth = 0;
	for (int i = 0; i < n; i++)
		if (ctx->steps[i].what == STEP_STATEMENT)
			open[depth++] = i;
		else if (ctx->steps[i].what == STEP_END && depth > 0)
			end_of[open[--depth]] = i;
	ctx->step_parent = cgm_xcalloc((size_t)n + 1, sizeof(int));
	ctx->step_loop_end = cgm_xcalloc((size_t)n + 1, sizeof(int));
	depth = 0;
	int outer = -1, outer_depth = 0;
	for (int i = 0; i < n; i++) {
		const tree_step *t = &ctx->steps[i];
		ctx->step_parent[i] = depth > 0 ? open[depth - 1] : -1;
		if (t->what == STEP_STATEMENT) {
			open[depth++] = i;
			if (outer < 0 && is_loop_kind(t->kind)) {
				outer = i;
				outer_depth = depth;
			}
		} else if (t->what == STEP_END && depth > 0) {
			if (outer >= 0 && depth == outer_depth)
				outer = -1;
			depth--;
		}
		ctx->step_loop_end[i] = outer >= 0 && end_of[outer] > 0 ? end_of[outer] : -1;
	}
	free(end_of);
	free(open);
}

/* The step ending the outermost loop statement around step `at`, or `at`
 * when no loop holds it. */
static int outer_loop_end(extract_ctx *ctx, int at)
{
	index_steps(ctx);
	int end = at < ctx->nsteps ? ctx->step_loop_end[at] : -1;
	return end > at ? end : at;
}

/* The step of the constant assignment an `EXECUTE v` at step `at` surely
 * starts from: the assignment of the whole of v last set before it
 * (execvars.h; pieces appended after it may follow), when that assignment
 * is a statement of the same list as the EXECUTE or as a statement holding
 * it (an IF, a CASE, a block) and no loop holds the EXECUTE below that
 * list: every way to the EXECUTE passes that assignment last.  NO_STEP
 * otherwise (then the values that may reach it count,
 * cgm_exec_vars_lookup). */
static int reaching_from(extract_ctx *ctx, int set_at, int at);

static int reaching_set(extract_ctx *ctx, const char *text, int at)
{
	int set_at;
	const char *constant = cgm_exec_vars_last_before(ctx->exec_vars, text, at, &set_at);
	return constant ? reaching_from(ctx, set_at, at) : NO_STEP;
}

/* The expression of the assignment of the whole of the variable an
 * `EXECUTE v` at the current step names that surely reaches it, no piece
 * appended after it (reaching_from), as PL/pgSQL keeps it without its
 * `v :=`; NULL otherwise. */
static const char *assigned_expression(extract_ctx *ctx, const char *text)
{
	int at = ctx->current_step;
	if (at < 0 || !ctx->exec_vars || cgm_exec_vars_appended_last(ctx->exec_vars, text, at))
		return NULL;
	int set_at;
	cgm_exec_vars_last_before(ctx->exec_vars, text, at, &set_at);
	if (set_at < 1 || set_at + 1 >= ctx->nsteps || !ctx->steps[set_at].whole ||
	    ctx->steps[set_at + 1].what != STEP_EXPRESSION || !ctx->steps[set_at + 1].text ||
	    reaching_from(ctx, set_at, at) == NO_STEP)
		return NULL;
	/* "q := format(...)": the value after the target's operator. */
	const char *v = ctx->steps[set_at + 1].text;
	int oplen;
	long op = assignment_operator(v, &oplen);
	if (op < 0)
		return NULL;
	for (v += op + oplen; isspace((unsigned char)*v); v++)
		;
	return *v ? v : NULL;
}

/* Whether the assignment at step `set_at` surely reaches step `at`
 * (reaching_set): set_at, or NO_STEP. */
static int reaching_from(extract_ctx *ctx, int set_at, int at)
{
	/* An assignment reports its variable right after its statement opens. */
	if (set_at < 1 || ctx->steps[set_at - 1].what != STEP_STATEMENT)
		return NO_STEP;
	index_steps(ctx);
	int list = ctx->step_parent[set_at - 1];
	int own = ctx->step_parent[at];
	/* Not inside the EXECUTE's own statement: a dynamic FOR lists its
	 * loop's statements before its query, which runs first. */
	if (own < 0 || set_at > own)
		return NO_STEP;
	for (int s = own;; s = ctx->step_parent[s]) {
		if (s < 0)
			return NO_STEP; /* the assignment's list holds no statement around it */
		if (s != own && is_loop_kind(ctx->steps[s].kind))
			return NO_STEP;
		if (ctx->step_parent[s] == list)
			return set_at;
	}
}

/* Variables only an extension probe sets (extguard.h): declared without
 * a default (or DEFAULT NULL) and assigned only by `SELECT ... INTO v` of
 * a query that gives a row only when that extension is installed. */
typedef struct probe_var {
	const char *name;
	const char *extension; /* NULL: set otherwise (not a probe) */
	bool set;
} probe_var;
typedef struct probe_set {
	probe_var *vars;
	int nvars;
} probe_set;

static const char *probe_extension(void *arg, const char *name)
{
	const probe_set *p = arg;
	for (int i = 0; i < p->nvars; i++)
		if (strcmp(p->vars[i].name, name) == 0)
			return p->vars[i].set ? p->vars[i].extension : NULL;
	return NULL;
}

/* Each IF step's `requires`: the extension its condition finds installed
 * before its THEN statements run (pg_partman's `IF v_jobmon_schema IS NOT
 * NULL THEN`), so that a call there whose callee is missing is expected
 * where the extension is not (resolve.c). */
static void mark_extension_ifs(extract_ctx *ctx)
{
	bool any = false;
	for (int i = 0; i < ctx->nsteps && !any; i++)
		any = ctx->steps[i].what == STEP_STATEMENT && ctx->steps[i].scope_end > i &&
		      strcmp(ctx->steps[i].kind, "if") == 0;
	if (!any)
		return;
	probe_set p = { 0 };
	for (int i = 0; i < ctx->nsteps; i++) {
		const tree_step *t = &ctx->steps[i];
		if (t->what != STEP_VAR || t->lineno == 0 || !t->text)
			continue;
		bool null_default = !t->default_text || strcasecmp(t->default_text, "NULL") == 0;
		p.vars = cgm_xrealloc(p.vars, sizeof(probe_var) * (size_t)(p.nvars + 1));
		p.vars[p.nvars++] = (probe_var){ t->text, NULL, !null_default };
	}
	for (int i = 0; i < ctx->nsteps; i++) {
		const tree_step *t = &ctx->steps[i];
		if (t->what != STEP_SETS || !t->text)
			continue;
		probe_var *v = NULL;
		for (int k = 0; k < p.nvars && !v; k++)
			if (strcmp(p.vars[k].name, t->text) == 0)
				v = &p.vars[k];
		if (!v)
			continue;
		/* The statement setting it, and its query. */
		int j = i - 1;
		while (j >= 0 && (ctx->steps[j].what == STEP_SETS || ctx->steps[j].what == STEP_INTO))
			j--;
		const char *wanted = NULL;
		if (!t->whole && j >= 0 && ctx->steps[j].what == STEP_STATEMENT &&
		    strcmp(ctx->steps[j].kind, "execsql") == 0) {
			for (int q = i + 1; q < ctx->nsteps && ctx->steps[q].what != STEP_STATEMENT &&
					    ctx->steps[q].what != STEP_END;
			     q++)
				if (ctx->steps[q].what == STEP_EXPRESSION &&
				    strcmp(ctx->steps[q].field, "sqlstmt") == 0) {
					wanted = cgm_extguard_query(ctx->arena, ctx->steps[q].text);
					break;
				}
		}
		if (!wanted || (v->set && (!v->extension || strcmp(v->extension, wanted) != 0)))
			v->extension = NULL; /* anything else, or another extension */
		else
			v->extension = wanted;
		v->set = true;
	}
	/* Without a probe variable only an EXISTS names an extension: a
	 * condition without pg_extension in its text is not even parsed. */
	bool probes = false;
	for (int k = 0; k < p.nvars && !probes; k++)
		probes = p.vars[k].set && p.vars[k].extension;
	for (int i = 0; i < ctx->nsteps; i++) {
		tree_step *t = &ctx->steps[i];
		if (t->what != STEP_STATEMENT || strcmp(t->kind, "if") != 0 || t->scope_end <= i)
			continue;
		for (int q = i + 1; q < t->scope_end && ctx->steps[q].what != STEP_STATEMENT; q++)
			if (ctx->steps[q].what == STEP_EXPRESSION && strcmp(ctx->steps[q].field, "cond") == 0) {
				t->requires = cgm_extguard_condition(ctx->arena, ctx->steps[q].text,
								     probes ? probe_extension : NULL, &p);
				break;
			}
	}
	free(p.vars);
}

/* What walk_datums and walk_plpgsql do over the JSON, over the steps. */
static void replay_tree(extract_ctx *ctx)
{
	/* The statement context each open statement replaced, restored at its
	 * end: as deep as the body nests, as the recursive JSON walk is. */
	typedef struct saved_context {
		const char *kind;
		int line;
		bool in_perform;
	} saved_context;
	saved_context *stack = NULL;
	int depth = 0, cap = 0;
	/* The open scopes that say something of their sites (a block's body
	 * guarded against a missing callee, an IF's THEN statements needing an
	 * extension), innermost last, each until its scope_end. */
	const tree_step **scopes = NULL;
	int nscopes = 0;
	collect_exec_vars(ctx);
	mark_extension_ifs(ctx);
	for (int i = 0; i < ctx->nsteps; i++) {
		const tree_step *t = &ctx->steps[i];
		if (nscopes > 0 && scopes[nscopes - 1]->scope_end <= i) {
			while (nscopes > 0 && scopes[nscopes - 1]->scope_end <= i)
				nscopes--;
			ctx->guards = 0;
			ctx->requires_extension = NULL;
			for (int k = 0; k < nscopes; k++) {
				ctx->guards += scopes[k]->guards;
				if (scopes[k]->requires)
					ctx->requires_extension = scopes[k]->requires;
			}
		}
		switch (t->what) {
		case STEP_VAR:
			if (t->text && t->type && strcmp(t->type, "UNKNOWN") != 0) {
				add_var(ctx, t->text, NULL);
				ctx->vars[ctx->nvars - 1].declared = t->type;
			}
			if (t->lineno == 0)
				break;
			ctx->stmt_kind = "declare";
			ctx->stmt_line = t->lineno;
			ctx->last_checked = -1;
			if (t->cursor_text)
				on_expression(ctx, strdup(t->cursor_text), false);
			else if (t->default_text)
				on_expression(ctx, strdup(t->default_text), false);
			if (!t->cursor_text && t->text && t->type && strcmp(t->type, "UNKNOWN") != 0)
				coercion_of_declaration(ctx, t->text, t->default_text ? ctx->last_checked : -1);
			ctx->stmt_kind = "block";
			ctx->stmt_line = 1;
			break;
		case STEP_STATEMENT:
			if (depth == cap) {
				cap = cap ? cap * 2 : 32;
				stack = cgm_xrealloc(stack, sizeof(saved_context) * (size_t)cap);
			}
			stack[depth++] = (saved_context){ ctx->stmt_kind, ctx->stmt_line, ctx->in_perform };
			if (t->lineno)
				ctx->stmt_line = t->lineno;
			ctx->stmt_kind = statement_kind(ctx, t->kind, ctx->stmt_line);
			ctx->in_perform = strcmp(t->kind, "perform") == 0;
			if ((t->guards || t->requires) && t->scope_end > i) {
				scopes = cgm_xrealloc(scopes, sizeof(*scopes) * (size_t)(nscopes + 1));
				scopes[nscopes++] = t;
				ctx->guards += t->guards;
				if (t->requires)
					ctx->requires_extension = t->requires;
			}
			break;
		case STEP_END:
			if (depth > 0) {
				depth--;
				ctx->stmt_kind = stack[depth].kind;
				ctx->stmt_line = stack[depth].line;
				ctx->in_perform = stack[depth].in_perform;
			}
			break;
		case STEP_EXPRESSION: {
			bool dynamic = is_dynamic_field(ctx, t->field);
			if (dynamic)
				using_values_after(ctx, i);
			ctx->current_step = i;
			on_expression(ctx, strdup(t->text), dynamic);
			ctx->current_step = -1;
			ctx->nusing_values = 0;
			break;
		}
		case STEP_SETS: /* read by collect_exec_vars */
			break;
		case STEP_INTO:
			/* Its query is the statement's own expression (after the loop
			 * body for FOR): its row, as the parser's check read it. */
			for (int j = i + 1, level = 0; j < ctx->nsteps && level >= 0; j++) {
				const tree_step *q = &ctx->steps[j];
				level += q->what == STEP_STATEMENT ? 1 : q->what == STEP_END ? -1 : 0;
				if (level == 0 && q->what == STEP_EXPRESSION &&
				    (strcmp(q->field, "query") == 0 || strcmp(q->field, "sqlstmt") == 0)) {
					if (is_dynamic_field(ctx, q->field)) {
						/* EXECUTE of constant SQL INTO a record, or
						 * FOR r IN EXECUTE it: that SQL's row. */
						const cgm_expr *row = constant_sql_row(ctx, q->text, j);
						if (row)
							assign_row(ctx, t->text, row);
						break;
					}
					for (int k = 0; k < ctx->ncaptured; k++)
						if (ctx->captured[k].row && strcmp(ctx->captured[k].text, q->text) == 0) {
							assign_row(ctx, t->text, ctx->captured[k].row);
							into_coercion(ctx, t->text, ctx->captured[k].row);
							break;
						}
					break;
				}
			}
			break;
		}
	}
	free(stack);
	free(scopes);
	ctx->guards = 0;
	ctx->requires_extension = NULL;
	cgm_exec_vars_release(ctx->exec_vars);
	free(ctx->step_parent);
	free(ctx->step_loop_end);
	ctx->step_parent = ctx->step_loop_end = NULL;
}


/* Does the body parse? */
static bool plpgsql_parses(const cgm_function *fn, const char *arguments, const char *body)
{
	PgQueryPlpgsqlParseResult r = cgm_plpgsql_parse_body(fn, arguments, body);
	bool ok = !r.error;
	pg_query_free_plpgsql_parse_result(r);
	return ok;
}

/* Line of a PL/pgSQL parse error.  libpg_query reports no position for
 * them, so find the line whose statement, replaced by NULL, lets the body
 * parse; 0 (unknown) when no single line does. */
static int plpgsql_error_line(const cgm_function *fn, const char *arguments, const char *body)
{
	size_t len = strlen(body);
	char *probe = malloc(len + 8);
	int line = 1, found = 0;
	for (size_t start = 0; start < len && line <= 2000; line++) {
		const char *nl = strchr(body + start, '\n');
		size_t end = nl ? (size_t)(nl - body) : len;
		bool blank = true;
		for (size_t i = start; i < end; i++)
			if (body[i] != ' ' && body[i] != '\t' && body[i] != '\r')
				blank = false;
		if (!blank) {
			memcpy(probe, body, start);
			memcpy(probe + start, "NULL;", 5);
			memcpy(probe + start + 5, body + end, len - end + 1);
			if (plpgsql_parses(fn, arguments, probe)) {
				found = line;
				break;
			}
		}
		start = end + 1;
	}
	free(probe);
	return found;
}

/* Whether a body holds "open", "fetch" or "move" in any case: one pass,
 * where three strcasestr() scans of every body cost 2% of a first map. */
static bool mentions_cursor_verb(const char *s)
{
	for (; *s; s++) {
		switch (*s | 0x20) {
		case 'o':
			if (strncasecmp(s, "open", 4) == 0)
				return true;
			break;
		case 'f':
			if (strncasecmp(s, "fetch", 5) == 0)
				return true;
			break;
		case 'm':
			if (strncasecmp(s, "move", 4) == 0)
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* "\"$2\" is not a known variable": libpg_query's PL/pgSQL parser knows no
 * variable $n for an unnamed parameter. */
static bool numbered_unknown(const char *message)
{
	if (message[0] != '"' || message[1] != '$' || !isdigit((unsigned char)message[2]))
		return false;
	const char *p = message + 2;
	while (isdigit((unsigned char)*p))
		p++;
	return strncmp(p, "\" is not a known variable", 25) == 0;
}

static void extract_plpgsql(extract_ctx *ctx)
{
	cgm_function *fn = ctx->fn;
	char *body = strdup(fn->source);
	char *last_error = NULL;
	char *tree = NULL; /* the PL/pgSQL tree as JSON text */
	cgm_sql_blank_continuations(body);
	cgm_sql_problem problem;
	if (!cgm_sql_check(body, CGM_SQL_CHECK_LEXER, &problem)) {
		ctx->body = body;
		index_lines(ctx);
		add_error(ctx, line_of_offset(ctx, problem.offset), problem.message);
		ctx->body = fn->source;
		free(body);
		return;
	}
	cgm_plparam *params;
	const char *named;
	ctx->nplparams = cgm_plpgsql_params(ctx->arena, fn, &params, &named);
	ctx->plargs = fn->arguments;
	bool header_checked = false;
	/* The types ALIAS FOR $n takes (plpgsql_rewrite.h): numbered as
	 * PL/pgSQL numbers them. */
	const char *const *numbered = fn->argtypes;
	int nnumbered = fn->nargs;
	if (ctx->nplparams > 0) {
		const char **types = cgm_arena_alloc(ctx->arena, sizeof(char *) * (size_t)ctx->nplparams);
		for (int i = 0; i < ctx->nplparams; i++)
			types[i] = params[i].type;
		numbered = types;
		nnumbered = ctx->nplparams;
	}

	const cgm_raw_capture capture = {
		.text = on_capture_text,
		.constant = on_capture_constant,
		.appended = on_capture_appended,
		.expr_rows = ctx->coercions != CGM_COERCE_NONE &&
			     coercible_target(ctx, cgm_coercion_return_type(ctx->fn)),
		.visitor = { .ctx = ctx, .call = on_capture_call, .relation = on_capture_relation,
			     .statement = on_capture_statement, .unknown = on_capture_unknown,
			     .arena = ctx->arena,
			     .no_coercion_values = ctx->coercions == CGM_COERCE_NONE,
			     .row = on_capture_row,
			     .op = on_capture_op, .cast = on_capture_cast },
	};
	const cgm_raw_plpgsql_visitor tree_visitor = {
		.ctx = ctx, .begin = on_tree_begin, .var = on_tree_var,
		.statement = on_tree_statement, .end = on_tree_end, .expression = on_tree_expression,
		.into = on_tree_into, .sets = on_tree_sets,
		.guard = on_tree_guard, .handlers = on_tree_scope_end, .then_end = on_tree_scope_end,
	};
	for (int attempt = 0; attempt <= MAX_REWRITES; attempt++) {
		ctx->ncaptured = ctx->nevents = ctx->captured_cursor = 0;
		ctx->walked = false;
		ctx->nsteps = 0;
		ctx->nopen_scopes = 0;
		if (use_parser_trees) {
			cgm_raw_capture_set(&capture);
			cgm_raw_plpgsql_set(&tree_visitor);
		}
		PgQueryPlpgsqlParseResult r = cgm_plpgsql_parse_body(fn, ctx->plargs, body);
		cgm_raw_plpgsql_set(NULL);
		cgm_raw_capture_set(NULL);
		if (!r.error) {
			tree = r.plpgsql_funcs;
			r.plpgsql_funcs = NULL; /* kept: freed below with free() */
			pg_query_free_plpgsql_parse_result(r);
			break;
		}
		free(last_error);
		last_error = strdup(r.error->message);
		pg_query_free_plpgsql_parse_result(r);
		/* An unnamed parameter assigned as `$n`: named in the header, it
		 * is the variable $n, as in PostgreSQL.  Only then: named from the
		 * start, `ALIAS FOR $n` would parse without the rewrite that types
		 * the alias. */
		if (named && ctx->plargs != named && numbered_unknown(last_error)) {
			ctx->plargs = named;
			continue;
		}
		/* A header that does not parse on its own, for a default a source
		 * gave badly: PL/pgSQL reads the body without the defaults. */
		if (!header_checked) {
			header_checked = true;
			if (!plpgsql_parses(fn, ctx->plargs, "BEGIN END")) {
				const char *bare = cgm_plpgsql_args_without_defaults(ctx->arena, ctx->plargs);
				if (bare && plpgsql_parses(fn, bare, "BEGIN END")) {
					ctx->plargs = bare;
					continue;
				}
			}
		}
		char *rewritten = attempt < MAX_REWRITES ? cgm_plpgsql_rewrite(body, last_error, numbered, nnumbered) : NULL;
		if (!rewritten)
			break;
		if (strstr(last_error, "is not a known variable"))
			note_field_rewrite(ctx, last_error);
		free(body);
		body = rewritten;
	}

	ctx->body = body;
	index_lines(ctx);
	if (!tree) {
		add_error(ctx, last_error ? plpgsql_error_line(fn, ctx->plargs, body) : 0,
			  last_error ? last_error : "cannot read libpg_query output");
		free(last_error);
		free(body);
		return;
	}
	free(last_error);

	/* Parameters first, then declarations. */
	for (int i = 0; i < fn->nargs; i++)
		if (fn->argnames && fn->argnames[i])
			add_var(ctx, fn->argnames[i], fn->argtypes ? fn->argtypes[i] : NULL);
	for (int i = 0; i < ctx->nplparams; i++) {
		add_var(ctx, cgm_arena_printf(ctx->arena, "$%d", i + 1), params[i].type);
		if (!params[i].input)
			add_var(ctx, params[i].name, params[i].type);
	}
	jt_doc d = { .skip_index = true };
	if (fn->source && mentions_cursor_verb(fn->source))
		ctx->ncursor_stmts = cgm_plpgsql_cursor_reads(&ctx->cursor_stmts, fn->source);
	ctx->assert_line = 0;
	if (ctx->walked) {
		ctx->stmt_kind = "block";
		ctx->stmt_line = 1;
		ctx->batching = true;
		replay_tree(ctx);
		ctx->batching = false;
		flush_batch(ctx);
	} else if (!jt_parse(&d, tree, strlen(tree))) {
		add_error(ctx, 0, "cannot read libpg_query output");
	} else {
		int func = jt_get(&d, jt_elem(&d, 0, 0), "PLpgSQL_function");
		ctx->stmt_kind = "block";
		ctx->stmt_line = 1;
		ctx->batching = true;
		walk_datums(ctx, &d, jt_get(&d, func, "datums"));
		walk_plpgsql(ctx, &d, jt_get(&d, func, "action"), NULL);
		ctx->batching = false;
		flush_batch(ctx);
	}
	if (ctx->ncursor_stmts)
		foreign_fetches(ctx);
	free(ctx->cursor_stmts);
	ctx->cursor_stmts = NULL;
	ctx->ncursor_stmts = 0;
	jt_doc_free(&d);
	free(tree);
	ctx->body = fn->source;
	free(body);
}

static void extract_sql(extract_ctx *ctx)
{
	cgm_function *fn = ctx->fn;
	ctx->body = fn->source;
	index_lines(ctx);
	ctx->stmt_kind = "sql";
	ctx->stmt_line = 1;
	ctx->base = 0;
	ctx->orig = fn->source;
	char *text;
	if (fn->atomic_body) {
		/* A BEGIN ATOMIC body parses only inside its CREATE statement;
		 * the prefix sits on the body's first line, so lines stay. */
		const char *prefix = fn->kind == CGM_KIND_PROCEDURE
					     ? "CREATE PROCEDURE cgmap_f() "
					     : "CREATE FUNCTION cgmap_f() RETURNS void LANGUAGE sql ";
		size_t plen = strlen(prefix);
		text = malloc(plen + strlen(fn->source) + 1);
		strcpy(text, prefix);
		strcat(text, fn->source);
		ctx->delta = -(long)plen;
	} else {
		text = strdup(fn->source);
		ctx->delta = 0;
	}
	cgm_sql_blank_continuations(text);
	cgm_sql_problem problem;
	if (!cgm_sql_check(text, CGM_SQL_CHECK_LEXER, &problem)) {
		long off = problem.offset + ctx->delta;
		add_error(ctx, line_of_offset(ctx, off < 0 ? 0 : off), problem.message);
		free(text);
		return;
	}
	char *err = NULL;
	int errpos = 0;
	ctx->atomic_wrapper = fn->atomic_body;
	bool parsed = parse_and_walk(ctx, text, &err, &errpos, NULL, NULL);
	ctx->atomic_wrapper = false;
	if (!parsed) {
		long off = errpos > 0 ? errpos - 1 + ctx->delta : 0;
		add_error(ctx, line_of_offset(ctx, off < 0 ? 0 : off), err);
		free(err);
	}
	free(text);
}

typedef struct ordered_site {
	cgm_site site;
	cgm_site_exprs exprs;
	int order; /* discovery order: keeps the sort stable */
} ordered_site;

static int compare_sites(const void *a, const void *b)
{
	const ordered_site *x = a, *y = b;
	if (x->site.line != y->site.line)
		return x->site.line - y->site.line;
	return x->order - y->order;
}

void cgm_extract_function(cgm_arena *arena, cgm_function *fn)
{
	cgm_extract_function_with(arena, fn, CGM_COERCE_ALL);
}

void cgm_extract_function_with(cgm_arena *arena, cgm_function *fn, cgm_coercions coercions)
{
	extract_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.coercions = coercions;
	ctx.sqldoc.skip_index = true;
	ctx.arena = arena;
	ctx.fn = fn;
	ctx.stmt_kind = "block";
	ctx.base = -1;
	ctx.current_step = -1;
	fn->nsites = 0;
	fn->site_exprs = NULL;
	fn->nerrors = 0;
	if (!fn->source || !fn->language) {
		fn->analysed = false;
		return;
	}
	if (strcmp(fn->language, "plpgsql") == 0)
		extract_plpgsql(&ctx);
	else if (strcmp(fn->language, "sql") == 0)
		extract_sql(&ctx);
	else {
		fn->analysed = false;
		return;
	}
	fn->analysed = true;

	if (ctx.nsites) {
		/* Source order: by line, then as found. */
		ordered_site *order = malloc(sizeof(ordered_site) * (size_t)ctx.nsites);
		bool any_exprs = false;
		for (int i = 0; i < ctx.nsites; i++) {
			order[i].site = ctx.sites[i];
			order[i].exprs = ctx.exprs[i];
			order[i].order = i;
			any_exprs |= ctx.exprs[i].argexprs || ctx.exprs[i].coerce_to ||
				     ctx.exprs[i].ddl_facts || ctx.exprs[i].valued_columns;
		}
		qsort(order, (size_t)ctx.nsites, sizeof(ordered_site), compare_sites);
		fn->sites = cgm_arena_alloc(arena, sizeof(cgm_site) * (size_t)ctx.nsites);
		if (any_exprs)
			fn->site_exprs =
				cgm_arena_alloc(arena, sizeof(cgm_site_exprs) * (size_t)ctx.nsites);
		for (int i = 0; i < ctx.nsites; i++) {
			fn->sites[i] = order[i].site;
			if (any_exprs)
				fn->site_exprs[i] = order[i].exprs;
		}
		free(order);
	}
	fn->nsites = ctx.nsites;
	if (ctx.nerrors) {
		fn->errors = cgm_arena_alloc(arena, sizeof(cgm_parse_error) * (size_t)ctx.nerrors);
		memcpy(fn->errors, ctx.errors, sizeof(cgm_parse_error) * (size_t)ctx.nerrors);
	}
	fn->nerrors = ctx.nerrors;
	jt_doc_free(&ctx.sqldoc);
	free(ctx.captured);
	free(ctx.events);
	free(ctx.steps);
	free(ctx.open_scopes);
	free(ctx.pending);
	free(ctx.sites);
	free(ctx.exprs);
	free(ctx.errors);
	free(ctx.vars);
	free(ctx.line_starts);
	for (int i = 0; i < ctx.nrewritten; i++)
		free(ctx.rewritten[i]);
	if (ctx.scratch)
		cgm_arena_free(ctx.scratch);
}
