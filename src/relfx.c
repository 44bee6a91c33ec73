/*
 * relfx.c - relation effects (see cgmap/relfx.h): what PostgreSQL runs on
 * behalf of a statement on a relation, closed over nested views, partitions
 * and cascading foreign keys, and the event triggers DDL fires.
 *
 * In:  a linked model: relations, effects, triggers, event triggers (read
 *      only, never changed here).
 * Out: a heap index (cgm_relfx_free), then per site its targets, mechanisms
 *      and objects, allocated in the arena the caller gives.
 *
 * The effects of one relation are the source's records (model->effects)
 * plus its enabled triggers; a statement on it runs those whose events it
 * has (a default only when an INSERT leaves its column out, anything with
 * columns on UPDATE only when the UPDATE sets one of them or unknown ones).
 * Reading a view runs what its query runs for the output columns read and
 * its clauses (viewcols.h: a column it does not read is not evaluated, but
 * one calling a volatile or set-returning function) and what the relations
 * under it run on a read of the columns those read; a partitioned table's
 * statement runs its partitions' triggers and the keys they are partitioned by in turn (a row routed on
 * down, a row updated there checked), and a statement naming a partition the row triggers of the
 * tables above it (PostgreSQL clones row triggers onto partitions); an
 * UPDATE, DELETE or TRUNCATE of a table runs the triggers of the tables
 * inheriting from it (the same partition reach, without INSERT); a foreign key with ON DELETE/UPDATE CASCADE, SET NULL or SET
 * DEFAULT runs a DELETE or UPDATE on the referencing table (ONLY on it, unless
 * it is partitioned: not on the tables inheriting from it), and TRUNCATE ...
 * CASCADE truncates it whatever its key's actions, whose effects
 * then run as `via cascade` naming the key; SET DEFAULT runs the defaults
 * of the referencing columns too, `via default` naming the default and the
 * key ("default app.t.c by cascade app.t.t_c_fkey").  A rule's action
 * on another relation runs that relation's effects for its statement, `via
 * rule` naming the rule, transitively (a rule's action may fire another
 * rule), with the view owner's rights (the policies of a table it does not own, or of a FORCE one).  A write to a view
 * PostgreSQL updates by itself (one FROM item, viewupd.h), with no INSTEAD
 * OF trigger or rule for it, is its automatic update of that relation
 * (auto_update).  A
 * statement's own ONLY (UPDATE, DELETE, TRUNCATE ONLY t) reaches none of
 * the tables under t; under the table a statement names, partitions and
 * inheriting tables fire their row triggers only (TRUNCATE's excepted),
 * and an UPDATE that may set a key column of a partitioned table may move
 * rows between its partitions, firing their row DELETE and INSERT triggers.
 * A statement that builds a table's indexes again (REWRITE: an ALTER TABLE
 * that rewrites it, REINDEX, CLUSTER) or samples them (ANALYZE) runs their
 * expressions; VALIDATE CONSTRAINT the checks it names; ATTACH PARTITION
 * the table's partition keys.  A relation
 * already on the path with the same events is not entered again, and the
 * depth is bounded: a cycle of foreign keys ends.
 */
#include "cgmap/relfx.h"
#include "cgmap/hash.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/types.h"
#include "cgmap/viewcols.h"

#define MAX_DEPTH 32

/* One relation by (schema, name): its effects and triggers. */
typedef struct fx_rel {
	const char *schema, *name;
	int *effects;  /* indexes into model->effects */
	int neffects, cap_effects;
	int *triggers; /* indexes into model->triggers */
	int ntriggers, cap_triggers;
	int *parents;  /* the partitioned tables it is a partition of (rels) */
	int nparents, cap_parents;
	char relkind;  /* pg_class.relkind, 0 when the model has no such relation */
	int nkey_columns;          /* a partitioned table's key columns, -1 unknown */
	const char *const *key_columns;
	int ncolumns;              /* its columns in order, NULL when unknown */
	const cgm_column *columns;
	unsigned replaced;         /* the writes an unconditional DO INSTEAD rule
	                            * replaces (CGM_EV_INSERT, UPDATE, DELETE) */
	const cgm_relation *view;  /* a view's relation: what its automatic update
	                            * writes (base_name NULL: it has none) */
	const char **forced;       /* a view's output columns evaluated whatever a read
	                            * reads: those calling a volatile or set-returning
	                            * user function */
	int nforced, cap_forced;
	const char **row_functions; /* a view's: the names of the functions a read
	                            * may call on its whole row in attribute
	                            * notation (`v.fn` for fn(v)) */
	int nrow_functions, cap_row_functions;
} fx_rel;

struct cgm_relfx {
	const cgm_model *model;
	fx_rel *rels;
	int nrels, cap_rels;
	int *slots; /* open addressing on (schema, name): index into rels or -1 */
	size_t mask;
};

static uint64_t hash_pair(const char *schema, const char *name)
{
	uint64_t h = cgm_fnv1a(schema ? schema : "");
	return cgm_fnv1a_more(cgm_fnv1a_byte(h, 0x1f), name);
}

static int find_rel(const cgm_relfx *fx, const char *schema, const char *name)
{
	if (!schema || !name)
		return -1;
	for (size_t i = hash_pair(schema, name) & fx->mask;; i = (i + 1) & fx->mask) {
		int r = fx->slots[i];
		if (r < 0)
			return -1;
		if (strcmp(fx->rels[r].name, name) == 0 && strcmp(fx->rels[r].schema, schema) == 0)
			return r;
	}
}

static void grow_slots(cgm_relfx *fx)
{
	size_t size = 64;
	while (size < (size_t)fx->nrels * 2 + 2)
		size *= 2;
	free(fx->slots);
	fx->slots = cgm_xcalloc(size, sizeof(int));
	fx->mask = size - 1;
	for (size_t i = 0; i < size; i++)
		fx->slots[i] = -1;
	for (int r = 0; r < fx->nrels; r++) {
		size_t i = hash_pair(fx->rels[r].schema, fx->rels[r].name) & fx->mask;
		while (fx->slots[i] >= 0)
			i = (i + 1) & fx->mask;
		fx->slots[i] = r;
	}
}

static int add_rel(cgm_relfx *fx, const char *schema, const char *name)
{
	if (!schema || !name)
		return -1;
	int r = find_rel(fx, schema, name);
	if (r >= 0)
		return r;
	if (fx->nrels == fx->cap_rels) {
		fx->cap_rels = fx->cap_rels ? fx->cap_rels * 2 : 64;
		fx->rels = cgm_xrealloc(fx->rels, sizeof(fx_rel) * (size_t)fx->cap_rels);
	}
	r = fx->nrels++;
	memset(&fx->rels[r], 0, sizeof(fx_rel));
	fx->rels[r].schema = schema;
	fx->rels[r].name = name;
	if ((size_t)fx->nrels * 2 > fx->mask) {
		grow_slots(fx);
	} else {
		size_t i = hash_pair(schema, name) & fx->mask;
		while (fx->slots[i] >= 0)
			i = (i + 1) & fx->mask;
		fx->slots[i] = r;
	}
	return r;
}

static void push_int(int **arr, int *n, int *cap, int v)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		*arr = cgm_xrealloc(*arr, sizeof(int) * (size_t)*cap);
	}
	(*arr)[(*n)++] = v;
}

typedef struct view_type {
	const char *type; /* the view's row type, canonical */
	int rel;
} view_type;

static int compare_view_types(const void *a, const void *b)
{
	return strcmp(((const view_type *)a)->type, ((const view_type *)b)->type);
}

/* The functions a read of a view may call on its whole row: one argument
 * (the others defaulted) of the view's row type.  `v.fn` names such a
 * function as a column would be named (ParseFuncOrColumn), and PostgreSQL
 * then builds the whole row, evaluating every column of the view. */
static void note_row_functions(cgm_relfx *fx, const cgm_model *model)
{
	cgm_arena *arena = cgm_arena_new();
	view_type *views = cgm_xcalloc((size_t)fx->nrels + 1, sizeof(view_type));
	int nviews = 0;
	for (int r = 0; r < fx->nrels; r++)
		if ((fx->rels[r].relkind == 'v' || fx->rels[r].relkind == 'm') && fx->rels[r].schema &&
		    fx->rels[r].name)
			views[nviews++] = (view_type){
				cgm_quote_qualified(arena, fx->rels[r].schema, fx->rels[r].name), r
			};
	qsort(views, (size_t)nviews, sizeof(view_type), compare_view_types);
	for (int i = 0; i < model->nfunctions && nviews > 0; i++) {
		const cgm_function *f = &model->functions[i];
		if (f->nargs < 1 || f->nargs - f->ndefaults > 1 || !f->argtypes || !f->argtypes[0] ||
		    !f->name)
			continue;
		view_type key = { f->argtypes[0], -1 };
		const view_type *hit = bsearch(&key, views, (size_t)nviews, sizeof(view_type),
					       compare_view_types);
		if (!hit)
			continue;
		fx_rel *v = &fx->rels[hit->rel];
		if (v->nrow_functions == v->cap_row_functions) {
			v->cap_row_functions = v->cap_row_functions ? v->cap_row_functions * 2 : 4;
			v->row_functions = cgm_xrealloc(v->row_functions,
							sizeof(char *) * (size_t)v->cap_row_functions);
		}
		v->row_functions[v->nrow_functions++] = f->name;
	}
	free(views);
	cgm_arena_free(arena);
}

/* Does a read of view `r` naming `cols` name one of its row functions
 * (note_row_functions) that is none of its columns? */
static bool reads_whole_row(const fx_rel *r, const char *const *cols, int ncols)
{
	for (int i = 0; i < ncols; i++) {
		bool function = false;
		for (int k = 0; k < r->nrow_functions && !function; k++)
			function = strcmp(r->row_functions[k], cols[i]) == 0;
		for (int c = 0; function && c < r->ncolumns; c++)
			if (r->columns[c].name && strcmp(r->columns[c].name, cols[i]) == 0)
				function = false; /* a column of that name comes first */
		if (function)
			return true;
	}
	return false;
}

cgm_relfx *cgm_relfx_build(const cgm_model *model)
{
	cgm_relfx *fx = cgm_xcalloc(1, sizeof(cgm_relfx));
	fx->model = model;
	grow_slots(fx);
	for (int i = 0; i < model->nrelations; i++) {
		int r = add_rel(fx, model->relations[i].schema, model->relations[i].name);
		if (r >= 0) {
			fx->rels[r].relkind = model->relations[i].relkind;
			fx->rels[r].nkey_columns = model->relations[i].nkey_columns;
			fx->rels[r].key_columns = model->relations[i].key_columns;
			fx->rels[r].ncolumns = model->relations[i].ncolumns;
			fx->rels[r].columns = model->relations[i].columns;
			fx->rels[r].view = &model->relations[i];
		}
	}
	for (int i = 0; i < model->neffects; i++) {
		const cgm_effect *e = &model->effects[i];
		int r = add_rel(fx, e->schema, e->relation);
		if (r >= 0)
			push_int(&fx->rels[r].effects, &fx->rels[r].neffects, &fx->rels[r].cap_effects, i);
		if (r >= 0 && e->reach == CGM_REACH_RULE && e->instead)
			fx->rels[r].replaced |= e->events & (CGM_EV_INSERT | CGM_EV_UPDATE | CGM_EV_DELETE);
		/* Only a partition (its parent's INSERT reaches it) runs the row
		 * triggers of the tables above it: a table inheriting from
		 * another (reached without INSERT) runs its own alone. */
		int child = e->reach == CGM_REACH_PARTITION && (e->events & CGM_EV_INSERT) && r >= 0
				    ? add_rel(fx, e->target_schema, e->target_relation)
				    : -1;
		if (child >= 0 && child != r)
			push_int(&fx->rels[child].parents, &fx->rels[child].nparents,
				 &fx->rels[child].cap_parents, r);
	}
	/* A view's column calling a volatile or set-returning function is
	 * evaluated on every read (remove_unused_subquery_outputs keeps it;
	 * such a column keeps a view from being pulled up), and all it calls
	 * with it.  The sources mark pg_catalog's themselves. */
	for (int i = 0; i < model->neffects; i++) {
		const cgm_effect *e = &model->effects[i];
		const cgm_function *f = e->function >= 0 && e->function < model->nfunctions
						? &model->functions[e->function]
						: NULL;
		if (e->reach != CGM_REACH_FUNCTION || e->via != CGM_VIA_VIEW || e->ncolumns <= 0 ||
		    !f ||
		    !(f->volatility == 'v' ||
		      (f->result && (strncmp(f->result, "SETOF ", 6) == 0 ||
				     strncmp(f->result, "TABLE(", 6) == 0))))
			continue;
		int r = find_rel(fx, e->schema, e->relation);
		for (int c = 0; r >= 0 && c < e->ncolumns; c++) {
			fx_rel *v = &fx->rels[r];
			bool seen = false;
			for (int k = 0; k < v->nforced && !seen; k++)
				seen = strcmp(v->forced[k], e->columns[c]) == 0;
			if (seen)
				continue;
			if (v->nforced == v->cap_forced) {
				v->cap_forced = v->cap_forced ? v->cap_forced * 2 : 4;
				v->forced = cgm_xrealloc(v->forced, sizeof(char *) * (size_t)v->cap_forced);
			}
			v->forced[v->nforced++] = e->columns[c];
		}
	}
	note_row_functions(fx, model);
	for (int i = 0; i < model->ntriggers; i++) {
		const cgm_trigger *t = &model->triggers[i];
		int r = add_rel(fx, t->table_schema, t->table_name);
		if (r >= 0)
			push_int(&fx->rels[r].triggers, &fx->rels[r].ntriggers, &fx->rels[r].cap_triggers, i);
	}
	return fx;
}

void cgm_relfx_free(cgm_relfx *fx)
{
	if (!fx)
		return;
	for (int r = 0; r < fx->nrels; r++) {
		free(fx->rels[r].effects);
		free(fx->rels[r].triggers);
		free(fx->rels[r].parents);
		free(fx->rels[r].forced);
		free(fx->rels[r].row_functions);
	}
	free(fx->rels);
	free(fx->slots);
	free(fx);
}

/* ---- the closure of one statement ------------------------------------- */

typedef struct fx_target {
	int function;
	cgm_via via;
	const char *object;
} fx_target;

typedef struct fx_walk {
	const cgm_relfx *fx;
	cgm_arena *arena;   /* the objects made on the way */
	fx_target *targets;
	int ntargets, cap;
	/* The relations entered, with their events: a cycle guard. */
	int path_rel[MAX_DEPTH];
	unsigned path_events[MAX_DEPTH];
	int depth;
	/* The view (or the relation of a rule) whose owner's rights the
	 * relations entered under it (FX_IN_VIEW) are read and written with;
	 * NULL when the model does not have it. */
	const cgm_relation *acting;
	/* The site's own relation and its columns whose values' cast sites
	 * run the domain checks they need (cgm_site_exprs.valued_columns). */
	int site_rel;
	const char *const *site_cols;
	int site_ncols;
	uint64_t valued_columns;
} fx_walk;

static bool same_object(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void add_target(fx_walk *w, int function, cgm_via via, const char *object)
{
	if (function < 0)
		return;
	for (int i = 0; i < w->ntargets; i++)
		if (w->targets[i].function == function && w->targets[i].via == via &&
		    same_object(w->targets[i].object, object))
			return;
	if (w->ntargets == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 8;
		w->targets = cgm_xrealloc(w->targets, sizeof(fx_target) * (size_t)w->cap);
	}
	w->targets[w->ntargets++] = (fx_target){ function, via, object };
}

static bool listed(const char *const *cols, int ncols, const char *name)
{
	for (int i = 0; i < ncols; i++)
		if (cols[i] && strcmp(cols[i], name) == 0)
			return true;
	return false;
}

/* Do the statement's columns (ncols 0: all or unknown) meet `columns`? */
static bool columns_meet(const char *const *cols, int ncols, const char *const *columns,
			 int ncolumns)
{
	if (ncols == 0 || ncolumns == 0)
		return true;
	for (int i = 0; i < ncolumns; i++)
		if (listed(cols, ncols, columns[i]))
			return true;
	return false;
}

/* May an UPDATE setting `cols` (0: unknown) change a key column of
 * partitioned table `r`? */
static bool sets_key(const fx_rel *r, const char *const *cols, int ncols)
{
	if (ncols == 0 || r->nkey_columns < 0 || r->relkind != 'p')
		return true;
	for (int i = 0; i < r->nkey_columns; i++)
		if (r->key_columns[i] && listed(cols, ncols, r->key_columns[i]))
			return true;
	return false;
}

/* Is check `object` ("check app.t.name", the name quoted as needed) one of
 * the constraints `names` (as written, folded)? */
static bool names_constraint(const char *object, const char *const *names, int n)
{
	const char *dot = object ? strrchr(object, '.') : NULL;
	if (!dot)
		return false;
	const char *tail = dot + 1;
	size_t len = strlen(tail);
	for (int i = 0; i < n; i++) {
		if (!names[i])
			continue;
		size_t nl = strlen(names[i]);
		if (strcmp(tail, names[i]) == 0 ||
		    (len == nl + 2 && tail[0] == '"' && strncmp(tail + 1, names[i], nl) == 0))
			return true;
	}
	return false;
}

/* Does a statement with `events` on `cols` run something that applies to
 * `their` events, restricted on UPDATE to `columns`? */
static bool applies(unsigned events, const char *const *cols, int ncols, unsigned their,
		    const char *const *columns, int ncolumns)
{
	unsigned both = events & their;
	if (!both)
		return false;
	if (both & ~(unsigned)CGM_EV_UPDATE)
		return true;
	return columns_meet(cols, ncols, columns, ncolumns);
}

/* A label imposed from outside (a cascade): every target found below
 * carries it instead of its own. */
typedef struct fx_label {
	bool set;
	cgm_via via;
	const char *object;
} fx_label;

/* ON DELETE/UPDATE SET DEFAULT: the referencing columns' defaults run,
 * `via default` naming the default and the key (or under an outer
 * cascade's label). */
static void cascade_defaults(fx_walk *w, const cgm_effect *key, fx_label label)
{
	const cgm_relfx *fx = w->fx;
	int rel = find_rel(fx, key->target_schema, key->target_relation);
	if (rel < 0)
		return;
	const fx_rel *r = &fx->rels[rel];
	for (int i = 0; i < r->neffects; i++) {
		const cgm_effect *d = &fx->model->effects[r->effects[i]];
		if (d->reach != CGM_REACH_FUNCTION || d->via != CGM_VIA_DEFAULT || d->ncolumns == 0 ||
		    !d->columns[0] ||
		    !(key->ntarget_columns == 0 ||
		      listed(key->target_columns, key->ntarget_columns, d->columns[0])))
			continue;
		if (label.set)
			add_target(w, d->function, label.via, label.object);
		else
			add_target(w, d->function, CGM_VIA_DEFAULT,
				   cgm_arena_printf(w->arena, "%s by %s", d->object ? d->object : "default",
						    key->object ? key->object : "cascade"));
	}
}

/* The enabled row triggers of every table above partition `rel` that the
 * statement's events and columns fire, breadth first, each table once. */
static void ancestor_row_triggers(fx_walk *w, int rel, unsigned events, const char *const *cols,
				  int ncols, fx_label label)
{
	const cgm_relfx *fx = w->fx;
	const cgm_model *m = fx->model;
	if (fx->rels[rel].nparents == 0)
		return;
	int queue[MAX_DEPTH];
	int nqueue = 0;
	queue[nqueue++] = rel;
	for (int q = 0; q < nqueue; q++) {
		const fx_rel *r = &fx->rels[queue[q]];
		for (int p = 0; p < r->nparents; p++) {
			int parent = r->parents[p];
			bool seen = false;
			for (int k = 0; k < nqueue && !seen; k++)
				seen = queue[k] == parent;
			if (seen || nqueue == MAX_DEPTH)
				continue;
			queue[nqueue++] = parent;
			const fx_rel *pr = &fx->rels[parent];
			for (int i = 0; i < pr->ntriggers; i++) {
				const cgm_trigger *t = &m->triggers[pr->triggers[i]];
				if (!t->row || !t->enabled ||
				    !applies(events, cols, ncols, t->events, t->columns, t->ncolumns))
					continue;
				if (label.set)
					add_target(w, t->function, label.via, label.object);
				else
					add_target(w, t->function, CGM_VIA_TRIGGER, NULL);
			}
		}
	}
}

/* How collect enters a relation. */
enum {
	FX_ONLY_TRIGGERS = 1 << 0, /* came down from a partitioned parent: its
	                            * triggers, keys and partitions only */
	FX_IN_VIEW = 1 << 1,       /* under a view (or rule): the view owner's
	                            * rights apply (fx_walk.acting), so the policies
	                            * of the tables it owns do not */
	FX_ONLY = 1 << 2,          /* the statement names it ONLY: a referential
	                            * action on a table that is not partitioned
	                            * (ri_triggers.c's "DELETE FROM ONLY"), which
	                            * leaves the tables inheriting from it alone */
	FX_BELOW = 1 << 3,         /* a partition or inheriting table of the one the
	                            * statement names: its row triggers fire, its
	                            * statement triggers do not (but TRUNCATE's,
	                            * which truncates each table itself) */
	FX_MOVED = 1 << 4,         /* a partition an UPDATE of a partitioned table above
	                            * it may move rows into or out of, setting a key
	                            * column: a DELETE there and an INSERT in another,
	                            * whose row triggers fire (execPartition.c) */
	FX_READS_KNOWN = 1 << 5    /* a read (SELECT) of exactly `cols` (maybe none):
	                            * a view evaluates only those of its output
	                            * columns (viewcols.h); without it, every one */
};

static void collect(fx_walk *w, int rel, unsigned events, const char *const *cols, int ncols,
		    fx_label label, unsigned how);

/* Most columns a write through a view names: its own and its defaults. */
#define MAX_VIEW_COLUMNS 256

/* The base column view column `name` of `view` is, or NULL when it is
 * no updatable column (an INSERT or UPDATE naming it is refused). */
static const char *base_column(const cgm_relation *view, const char *name)
{
	for (int i = 0; name && i < view->nupdatable; i++)
		if (view->updatable_columns[i] && strcmp(view->updatable_columns[i], name) == 0)
			return view->base_columns[i];
	return NULL;
}

/* A write to view `rel` that neither an INSTEAD OF trigger (a view's row
 * triggers are all INSTEAD OF) nor an unconditional DO INSTEAD rule (taken
 * out by collect) takes over is PostgreSQL's automatic update of the one
 * relation the view selects from (rewriteHandler.c), when the source found
 * the view automatically updatable (cgm_relation.base_name, viewupd.h: one
 * FROM item, whatever its subqueries read, no grouping, ...): that
 * relation's triggers, defaults, checks and indexes run, with the view
 * owner's rights; a DO ALSO rule's action runs besides.  The statement's
 * columns and those an INSERT leaves out that get the view's own defaults
 * first are the base relation's columns they show (only updatable ones
 * may be written): the base table's defaults run for the rest. */
static void auto_update(fx_walk *w, int rel, unsigned writes, const char *const *cols, int ncols,
			fx_label label)
{
	const cgm_relfx *fx = w->fx;
	const cgm_model *m = fx->model;
	const fx_rel *r = &fx->rels[rel];
	const cgm_relation *view = r->view;
	for (int i = 0; i < r->ntriggers; i++) {
		const cgm_trigger *t = &m->triggers[r->triggers[i]];
		if (t->enabled && t->row)
			writes &= ~t->events;
	}
	writes &= CGM_EV_INSERT | CGM_EV_UPDATE | CGM_EV_DELETE;
	int base = view && view->base_name ? find_rel(fx, view->base_schema, view->base_name) : -1;
	if (!writes || base < 0)
		return;
	const char *named[MAX_VIEW_COLUMNS];
	int nnamed = 0;
	for (int i = 0; i < ncols && nnamed < MAX_VIEW_COLUMNS; i++) {
		const char *b = base_column(view, cols[i]);
		if (b)
			named[nnamed++] = b;
	}
	for (int i = 0; i < r->neffects && ncols > 0; i++) {
		const cgm_effect *e = &m->effects[r->effects[i]];
		const char *b = e->reach == CGM_REACH_FUNCTION && e->via == CGM_VIA_DEFAULT &&
					e->ncolumns > 0
				? base_column(view, e->columns[0])
				: NULL;
		if (b && nnamed < MAX_VIEW_COLUMNS)
			named[nnamed++] = b;
	}
	/* Columns named, none of them updatable: PostgreSQL refuses the
	 * statement, which runs nothing. */
	if (ncols > 0 && nnamed == 0)
		return;
	const cgm_relation *acting = w->acting;
	w->acting = view;
	collect(w, base, writes, ncols > 0 ? named : NULL, ncols > 0 ? nnamed : 0, label,
		FX_IN_VIEW);
	w->acting = acting;
}

/* Do the policies of relation `rel` stay out of a statement run with the
 * rights of the owner of `acting` (a view's or a rule's: FX_IN_VIEW)?
 * PostgreSQL applies a table's policies to a view owner who does not own
 * the table, or to its owner too when it is FORCE ROW LEVEL SECURITY
 * (rlsbypass.h for a SECURITY DEFINER function's own statements), and
 * never to a superuser or a BYPASSRLS role; a view WITH (security_invoker)
 * reads with the invoking role's rights, whose policies are kept as on a
 * statement naming the table (a SECURITY DEFINER function's on its
 * owner's own tables go in rlsbypass.c only when it names the table
 * itself).  A NULL owner is the SQL
 * files' session role, taken as the superuser that restores them; a
 * relation the model does not have is taken as owned by the view's owner. */
static bool view_owner_bypasses(const cgm_model *m, const cgm_relation *acting, const fx_rel *rel)
{
	const cgm_relation *table = rel->view;
	if (acting && acting->security_invoker)
		return false; /* the invoking role reads: as a statement on the table (rlsbypass.h) */
	if (!acting || !table || !acting->owner)
		return true; /* the files' session role: taken as the superuser restoring them */
	for (int i = 0; i < m->nrls_bypass_roles; i++)
		if (strcmp(m->rls_bypass_roles[i], acting->owner) == 0)
			return true; /* a superuser or BYPASSRLS: no policy ever */
	if (table->force_rls)
		return false;
	return acting->owner == table->owner ||
	       (acting->owner && table->owner && strcmp(acting->owner, table->owner) == 0);
}

/* Is the column of domain check `e` one the statement gives a value whose
 * own cast site decides the check?  PostgreSQL checks a domain where a
 * value becomes of it (CoerceToDomain), not where it is stored: a value
 * of the domain already (a parameter of the column's type) is stored
 * unchecked.  The site's relation and the tables under it that the same
 * rows reach (inheritance children: their columns are the parent's). */
static bool value_cast_checks(const fx_walk *w, const cgm_effect *e)
{
	if (!w->valued_columns || e->ncolumns != 1 || !e->columns[0])
		return false;
	for (int i = 0; i < w->site_ncols && i < 64; i++)
		if ((w->valued_columns >> i & 1) && w->site_cols[i] &&
		    strcmp(w->site_cols[i], e->columns[0]) == 0)
			return true;
	return false;
}

/* The effects of relation `rel` for a statement with `events` on `cols`,
 * entered as `how` says (FX_*). */
static void collect(fx_walk *w, int rel, unsigned events, const char *const *cols, int ncols,
		    fx_label label, unsigned how)
{
	bool only_triggers = how & FX_ONLY_TRIGGERS, in_view = how & FX_IN_VIEW;
	unsigned keep_view = how & FX_IN_VIEW;
	const cgm_relfx *fx = w->fx;
	const cgm_model *m = fx->model;
	if (rel < 0 || w->depth >= MAX_DEPTH)
		return;
	for (int d = 0; d < w->depth; d++)
		if (w->path_rel[d] == rel && (w->path_events[d] & events) == events)
			return;
	w->path_rel[w->depth] = rel;
	w->path_events[w->depth] = events;
	w->depth++;
	const fx_rel *r = &fx->rels[rel];
	/* The columns a read reads, when known and no function is called on
	 * the view's whole row. */
	bool reads_known = (how & FX_READS_KNOWN) && !reads_whole_row(r, cols, ncols);
	/* An unconditional DO INSTEAD rule replaces the statement that names
	 * the relation (rewriteHandler.c): only the rules run for its event
	 * (with the defaults an INSERT fills in first), not the relation's
	 * triggers, checks, indexes, partitions or a view's automatic update.
	 * Rows routed down to a partition are no statement naming it: its
	 * rules do not apply. */
	unsigned all_events = events;
	if (!only_triggers)
		events &= ~r->replaced;
	if (!(events & ~(unsigned)(CGM_EV_ONLY | CGM_EV_CASCADE)))
		events = 0;
	for (int i = 0; i < r->ntriggers && events; i++) {
		const cgm_trigger *t = &m->triggers[r->triggers[i]];
		bool moved = (how & FX_MOVED) && t->row && (t->events & (CGM_EV_INSERT | CGM_EV_DELETE));
		if (!t->enabled ||
		    !(moved || applies(events, cols, ncols, t->events, t->columns, t->ncolumns)))
			continue;
		if ((how & FX_BELOW) && !t->row && !(events & t->events & CGM_EV_TRUNCATE))
			continue;
		if (label.set)
			add_target(w, t->function, label.via, label.object);
		else
			add_target(w, t->function, CGM_VIA_TRIGGER, NULL);
	}
	/* A statement naming a partition runs the row triggers of the tables
	 * it is a partition of (PostgreSQL's clones of them); one that came
	 * down from the parent ran them there already. */
	if (!only_triggers && events)
		ancestor_row_triggers(w, rel, events, cols, ncols, label);
	if (r->relkind == 'v' && (events & (CGM_EV_INSERT | CGM_EV_UPDATE | CGM_EV_DELETE)))
		auto_update(w, rel, events, cols, ncols, label);
	for (int i = 0; i < r->neffects; i++) {
		const cgm_effect *e = &m->effects[r->effects[i]];
		if (e->reach == CGM_REACH_FUNCTION && e->via == CGM_VIA_DOMAIN &&
		    (rel == w->site_rel || (how & FX_BELOW)) && value_cast_checks(w, e))
			continue;
		if (e->reach == CGM_REACH_RULE || e->via == CGM_VIA_RULE) {
			/* A rule runs for the statement it replaces too. */
			if (only_triggers ||
			    !applies(all_events, cols, ncols, e->events, e->columns, e->ncolumns))
				continue;
			if (e->reach == CGM_REACH_FUNCTION) {
				if (label.set)
					add_target(w, e->function, label.via, label.object);
				else
					add_target(w, e->function, e->via, e->object);
				continue;
			}
			if (!e->target_relation)
				continue; /* DO INSTEAD NOTHING */
			/* The rule's relation's owner acts, as a view's does. */
			fx_label inner = label;
			if (!inner.set)
				inner = (fx_label){ true, CGM_VIA_RULE, e->object };
			const cgm_relation *acting = w->acting;
			w->acting = r->view;
			collect(w, find_rel(fx, e->target_schema, e->target_relation), e->target_events,
				e->target_columns, e->ntarget_columns, inner, FX_IN_VIEW);
			w->acting = acting;
			continue;
		}
		/* The defaults an INSERT leaves to the table are filled in
		 * before its rules fire: a DO INSTEAD rule's action reads
		 * them as NEW's columns. */
		bool is_default = e->reach == CGM_REACH_FUNCTION && e->via == CGM_VIA_DEFAULT;
		if (!events && !is_default)
			continue;
		if (only_triggers &&
		    !(e->reach == CGM_REACH_FUNCTION &&
		      (e->via == CGM_VIA_TRIGGER_WHEN || e->via == CGM_VIA_PARTITION_KEY)) &&
		    !(e->reach == CGM_REACH_CASCADE && e->events == CGM_EV_CASCADE) &&
		    e->reach != CGM_REACH_PARTITION)
			continue;
		if (in_view && e->reach == CGM_REACH_FUNCTION && e->via == CGM_VIA_POLICY &&
		    view_owner_bypasses(m, w->acting, r))
			continue;
		if ((events & (CGM_EV_REWRITE | CGM_EV_ANALYZE)) && e->reach == CGM_REACH_FUNCTION &&
		    e->via == CGM_VIA_INDEX) {
			/* The index is built again (it evaluates every row), or
			 * ANALYZE samples its expressions. */
		} else if ((events & CGM_EV_ATTACH) && e->reach == CGM_REACH_FUNCTION &&
			   e->via == CGM_VIA_PARTITION_KEY) {
			/* The table attached is checked row by row against the
			 * keys of this table and of those above it. */
		} else if ((events & CGM_EV_VALIDATE) && e->reach == CGM_REACH_FUNCTION &&
			   e->via == CGM_VIA_CHECK && names_constraint(e->object, cols, ncols)) {
			/* The constraint validated checks every row. */
		} else if (is_default) {
			/* A default runs when an INSERT leaves its column out. */
			if (!(all_events & e->events))
				continue;
			if (ncols > 0 && e->ncolumns > 0 && listed(cols, ncols, e->columns[0]))
				continue;
		} else if (!applies(events, cols, ncols, e->events, e->columns, e->ncolumns)) {
			continue;
		}
		/* A view's read evaluates the output columns read (and those
		 * it must): a function or relation of the others is not run
		 * or read. */
		const char *const *reads = reads_known ? cols : NULL;
		int nreads = reads_known ? ncols : 0;
		if ((events & CGM_EV_SELECT) && e->via == CGM_VIA_VIEW &&
		    (e->reach == CGM_REACH_FUNCTION || e->reach == CGM_REACH_VIEW) &&
		    !cgm_viewcols_runs(reads, nreads, (const char *const *)r->forced, r->nforced,
				       e->columns, e->ncolumns))
			continue;
		switch (e->reach) {
		case CGM_REACH_FUNCTION:
			if (label.set)
				add_target(w, e->function, label.via, label.object);
			else
				add_target(w, e->function, e->via, e->object);
			break;
		case CGM_REACH_VIEW: {
			/* The columns of the relation read for the view's
			 * columns read (all on REFRESH, which computes them
			 * all), when the source told them. */
			int inner = -1;
			const char **incols = NULL;
			if (e->reads) {
				incols = cgm_arena_alloc(w->arena, sizeof(char *) * (size_t)(e->nreads + 1));
				inner = cgm_viewcols_inner((const char *const *)e->reads,
							   (const char *const *)e->read_by, e->nreads,
							   reads, nreads,
							   (const char *const *)r->forced, r->nforced,
							   incols, e->nreads);
			}
			const cgm_relation *acting = w->acting;
			w->acting = r->view;
			collect(w, find_rel(fx, e->target_schema, e->target_relation), CGM_EV_SELECT,
				inner >= 0 ? incols : NULL, inner >= 0 ? inner : 0, label,
				FX_IN_VIEW | (inner >= 0 ? FX_READS_KNOWN : 0));
			w->acting = acting;
			break;
		}
		case CGM_REACH_PARTITION:
			/* The statement's own ONLY leaves out every table
			 * under this one; a referential action's, the tables
			 * inheriting from it (reached without INSERT, unlike a
			 * partition). */
			if ((events & CGM_EV_ONLY) ||
			    ((how & FX_ONLY) && !(e->events & CGM_EV_INSERT)))
				break;
			/* A table truncated with CASCADE truncates what references
			 * the tables under it too.  An UPDATE setting a key column
			 * of a partitioned table (not an inherited one: its
			 * children's rows stay put) may move rows between its
			 * partitions. */
			collect(w, find_rel(fx, e->target_schema, e->target_relation),
				(events & e->events) |
					(events & e->events & CGM_EV_TRUNCATE ? events & CGM_EV_CASCADE : 0) |
					(events & (CGM_EV_REWRITE | CGM_EV_ANALYZE | CGM_EV_VALIDATE)),
				cols, ncols, label,
				FX_ONLY_TRIGGERS | FX_BELOW | keep_view | (how & FX_MOVED) |
					((events & CGM_EV_UPDATE) && (e->events & CGM_EV_INSERT) &&
							 sets_key(r, cols, ncols)
						 ? FX_MOVED
						 : 0));
			break;
		case CGM_REACH_RULE: /* above */
			break;
		case CGM_REACH_CASCADE: {
			/* A key's action is an internal trigger enabled as
			 * origin: a replica session fires none. */
			if (m->replica_session)
				break;
			if (e->target_defaults)
				cascade_defaults(w, e, label);
			fx_label inner = label;
			if (!inner.set)
				inner = (fx_label){ true, CGM_VIA_CASCADE, e->object };
			collect(w, find_rel(fx, e->target_schema, e->target_relation), e->target_events,
				e->target_columns, e->ntarget_columns, inner, FX_ONLY | keep_view);
			break;
		}
		}
	}
	w->depth--;
}

static void set_targets(cgm_arena *arena, const cgm_model *m, cgm_site *s, const fx_walk *w)
{
	s->ntargets = w->ntargets;
	s->resolution = CGM_RES_NONE;
	if (w->ntargets == 0)
		return;
	s->targets = cgm_arena_alloc(arena, sizeof(int) * (size_t)w->ntargets);
	cgm_site_rare *x = cgm_site_rare_of(arena, s);
	x->target_via = cgm_arena_alloc(arena, sizeof(cgm_via) * (size_t)w->ntargets);
	x->target_object = cgm_arena_alloc(arena, sizeof(char *) * (size_t)w->ntargets);
	bool all_builtin = true;
	for (int i = 0; i < w->ntargets; i++) {
		s->targets[i] = w->targets[i].function;
		x->target_via[i] = w->targets[i].via;
		x->target_object[i] = w->targets[i].object;
		if (!m->functions[w->targets[i].function].builtin)
			all_builtin = false;
	}
	s->resolution = all_builtin ? CGM_RES_BUILTIN : CGM_RES_RESOLVED;
}

void cgm_relfx_resolve_site(const cgm_relfx *fx, cgm_arena *arena, const char *const *path,
			    int npath, cgm_site *s, unsigned ddl_facts, uint64_t valued_columns)
{
	const cgm_model *m = fx->model;
	fx_walk w = { .fx = fx, .arena = arena, .site_rel = -1 };
	cgm_site_clear_targets(s);
	s->resolution = CGM_RES_NONE;
	if (s->kind == CGM_SITE_DDL) {
		for (int i = 0; i < m->nevent_triggers; i++)
			if (s->name &&
			    cgm_event_trigger_fires_ddl(&m->event_triggers[i], s->name, ddl_facts))
				add_target(&w, m->event_triggers[i].function, CGM_VIA_EVENT_TRIGGER,
					   cgm_arena_printf(arena, "event trigger %s",
							    cgm_quote_ident(arena, m->event_triggers[i].name)));
		set_targets(arena, m, s, &w);
		free(w.targets);
		return;
	}
	if (!s->name)
		return;
	int rel = -1;
	if (s->schema) {
		rel = find_rel(fx, s->schema, s->name);
	} else {
		for (int p = 0; p < npath && rel < 0; p++)
			rel = find_rel(fx, path[p], s->name);
		if (rel >= 0)
			s->schema = fx->rels[rel].schema;
	}
	if (rel < 0)
		return;
	fx_label none = { false, CGM_VIA_CALL, NULL };
	const cgm_site_rare *x = cgm_site_get_rare(s);
	const char *const *cols = x->columns;
	int ncols = x->ncolumns;
	/* INSERT INTO t VALUES (a, b) gives t's first two columns: the
	 * others' defaults run, theirs do not. */
	const fx_rel *r = &fx->rels[rel];
	if (ncols == 0 && x->nleading > 0 && (x->events & CGM_EV_INSERT) && r->columns &&
	    x->nleading <= r->ncolumns) {
		const char **leading = cgm_arena_alloc(arena, sizeof(char *) * (size_t)x->nleading);
		for (int i = 0; i < x->nleading; i++)
			leading[i] = r->columns[i].name;
		cols = leading;
		ncols = x->nleading;
	}
	unsigned how = s->kind == CGM_SITE_TRIGGER ? FX_ONLY_TRIGGERS : 0;
	/* A read of known columns: a view evaluates those alone. */
	if (s->kind == CGM_SITE_RELATION && x->events == CGM_EV_SELECT && x->reads) {
		cols = x->reads;
		ncols = x->nreads;
		how |= FX_READS_KNOWN;
	}
	if (x->ncolumns > 0 && cols == x->columns && !(how & FX_READS_KNOWN)) {
		w.site_rel = rel;
		w.site_cols = cols;
		w.site_ncols = ncols;
		w.valued_columns = valued_columns;
	}
	collect(&w, rel, x->events, cols, ncols, none, how);
	if (s->kind == CGM_SITE_TRIGGER) {
		/* An old snapshot's trigger site: only its triggers, as before. */
		int kept = 0;
		for (int i = 0; i < w.ntargets; i++)
			if (w.targets[i].via == CGM_VIA_TRIGGER)
				w.targets[kept++] = w.targets[i];
		w.ntargets = kept;
	}
	set_targets(arena, m, s, &w);
	if (s->kind == CGM_SITE_TRIGGER && s->rare) {
		s->rare->target_via = NULL;
		s->rare->target_object = NULL;
	}
	free(w.targets);
}

/* ---- DDL -------------------------------------------------------------- */

/* "OBJECT_MATVIEW" -> "MATERIALIZED VIEW", as command tags name objects. */
static const char *object_words(const char *objtype)
{
	static const struct {
		const char *type, *words;
	} names[] = {
		{ "OBJECT_TABLE", "TABLE" },
		{ "OBJECT_COLUMN", "TABLE" },
		{ "OBJECT_TABCONSTRAINT", "TABLE" },
		{ "OBJECT_INDEX", "INDEX" },
		{ "OBJECT_SEQUENCE", "SEQUENCE" },
		{ "OBJECT_VIEW", "VIEW" },
		{ "OBJECT_MATVIEW", "MATERIALIZED VIEW" },
		{ "OBJECT_FOREIGN_TABLE", "FOREIGN TABLE" },
		{ "OBJECT_TYPE", "TYPE" },
		{ "OBJECT_ATTRIBUTE", "TYPE" },
		{ "OBJECT_DOMAIN", "DOMAIN" },
		{ "OBJECT_DOMCONSTRAINT", "DOMAIN" },
		{ "OBJECT_FUNCTION", "FUNCTION" },
		{ "OBJECT_PROCEDURE", "PROCEDURE" },
		{ "OBJECT_ROUTINE", "ROUTINE" },
		{ "OBJECT_AGGREGATE", "AGGREGATE" },
		{ "OBJECT_SCHEMA", "SCHEMA" },
		{ "OBJECT_TRIGGER", "TRIGGER" },
		{ "OBJECT_POLICY", "POLICY" },
		{ "OBJECT_RULE", "RULE" },
		{ "OBJECT_EXTENSION", "EXTENSION" },
		{ "OBJECT_OPERATOR", "OPERATOR" },
		{ "OBJECT_CAST", "CAST" },
		{ "OBJECT_COLLATION", "COLLATION" },
		{ "OBJECT_CONVERSION", "CONVERSION" },
		{ "OBJECT_STATISTIC_EXT", "STATISTICS" },
		{ "OBJECT_FOREIGN_SERVER", "SERVER" },
		{ "OBJECT_FDW", "FOREIGN DATA WRAPPER" },
		{ "OBJECT_LANGUAGE", "LANGUAGE" },
		{ "OBJECT_PUBLICATION", "PUBLICATION" },
		{ "OBJECT_SUBSCRIPTION", "SUBSCRIPTION" },
		{ "OBJECT_TSCONFIGURATION", "TEXT SEARCH CONFIGURATION" },
		{ "OBJECT_TSDICTIONARY", "TEXT SEARCH DICTIONARY" },
		{ "OBJECT_TSPARSER", "TEXT SEARCH PARSER" },
		{ "OBJECT_TSTEMPLATE", "TEXT SEARCH TEMPLATE" },
		{ "OBJECT_OPCLASS", "OPERATOR CLASS" },
		{ "OBJECT_OPFAMILY", "OPERATOR FAMILY" },
		{ "OBJECT_TRANSFORM", "TRANSFORM" },
		{ "OBJECT_ACCESS_METHOD", "ACCESS METHOD" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i].type, objtype) == 0)
			return names[i].words;
	return NULL;
}

const char *cgm_ddl_command_tag(const char *node, const char *objtype, bool flag)
{
	static const struct {
		const char *node, *tag;
	} fixed[] = {
		{ "CreateStmt", "CREATE TABLE" },
		{ "CreateForeignTableStmt", "CREATE FOREIGN TABLE" },
		{ "IndexStmt", "CREATE INDEX" },
		{ "ViewStmt", "CREATE VIEW" },
		{ "RefreshMatViewStmt", "REFRESH MATERIALIZED VIEW" },
		{ "CreateSchemaStmt", "CREATE SCHEMA" },
		{ "CreateSeqStmt", "CREATE SEQUENCE" },
		{ "AlterSeqStmt", "ALTER SEQUENCE" },
		{ "CreateTrigStmt", "CREATE TRIGGER" },
		{ "CreatePolicyStmt", "CREATE POLICY" },
		{ "AlterPolicyStmt", "ALTER POLICY" },
		{ "RuleStmt", "CREATE RULE" },
		{ "CreateDomainStmt", "CREATE DOMAIN" },
		{ "AlterDomainStmt", "ALTER DOMAIN" },
		{ "CompositeTypeStmt", "CREATE TYPE" },
		{ "CreateEnumStmt", "CREATE TYPE" },
		{ "CreateRangeStmt", "CREATE TYPE" },
		{ "AlterEnumStmt", "ALTER TYPE" },
		{ "CreateExtensionStmt", "CREATE EXTENSION" },
		{ "AlterExtensionStmt", "ALTER EXTENSION" },
		{ "AlterExtensionContentsStmt", "ALTER EXTENSION" },
		{ "CommentStmt", "COMMENT" },
		{ "SecLabelStmt", "SECURITY LABEL" },
		{ "AlterDefaultPrivilegesStmt", "ALTER DEFAULT PRIVILEGES" },
		{ "CreateCastStmt", "CREATE CAST" },
		{ "CreateOpClassStmt", "CREATE OPERATOR CLASS" },
		{ "CreateOpFamilyStmt", "CREATE OPERATOR FAMILY" },
		{ "AlterOpFamilyStmt", "ALTER OPERATOR FAMILY" },
		{ "CreateStatsStmt", "CREATE STATISTICS" },
		{ "AlterStatsStmt", "ALTER STATISTICS" },
		{ "ImportForeignSchemaStmt", "IMPORT FOREIGN SCHEMA" },
		{ "CreateConversionStmt", "CREATE CONVERSION" },
		{ "CreateTransformStmt", "CREATE TRANSFORM" },
		{ "CreatePLangStmt", "CREATE LANGUAGE" },
		{ "CreateFdwStmt", "CREATE FOREIGN DATA WRAPPER" },
		{ "CreateForeignServerStmt", "CREATE SERVER" },
		{ "CreateUserMappingStmt", "CREATE USER MAPPING" },
		{ "CreatePublicationStmt", "CREATE PUBLICATION" },
		{ "AlterPublicationStmt", "ALTER PUBLICATION" },
		{ "AlterOperatorStmt", "ALTER OPERATOR" },
		{ "AlterTypeStmt", "ALTER TYPE" },
		{ "AlterCollationStmt", "ALTER COLLATION" },
		{ "AlterTSDictionaryStmt", "ALTER TEXT SEARCH DICTIONARY" },
		{ "AlterTSConfigurationStmt", "ALTER TEXT SEARCH CONFIGURATION" },
		{ "DropOwnedStmt", "DROP OWNED" },
		{ "CreateAmStmt", "CREATE ACCESS METHOD" },
		{ "AlterFdwStmt", "ALTER FOREIGN DATA WRAPPER" },
		{ "AlterForeignServerStmt", "ALTER SERVER" },
		{ "AlterUserMappingStmt", "ALTER USER MAPPING" },
		{ "DropUserMappingStmt", "DROP USER MAPPING" },
		{ "CreateSubscriptionStmt", "CREATE SUBSCRIPTION" },
		{ "AlterSubscriptionStmt", "ALTER SUBSCRIPTION" },
		{ "DropSubscriptionStmt", "DROP SUBSCRIPTION" },
	};
	/* No event trigger fires for a shared object or an event trigger
	 * (EventTriggerSupportsObjectType): a COMMENT, a SECURITY LABEL, a
	 * GRANT or a RENAME of a role, a database or a tablespace is not
	 * event-triggered DDL at all. */
	static const char *const unsupported[] = {
		"OBJECT_DATABASE", "OBJECT_TABLESPACE", "OBJECT_ROLE", "OBJECT_PARAMETER_ACL",
		"OBJECT_EVENT_TRIGGER", NULL
	};
	if (!node)
		return NULL;
	for (int i = 0; objtype && unsupported[i]; i++)
		if (strcmp(objtype, unsupported[i]) == 0)
			return NULL;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (strcmp(fixed[i].node, node) == 0)
			return fixed[i].tag;
	const char *words = objtype ? object_words(objtype) : NULL;
	if (strcmp(node, "CreateFunctionStmt") == 0)
		return flag ? "CREATE PROCEDURE" : "CREATE FUNCTION";
	if (strcmp(node, "GrantStmt") == 0)
		return flag ? "GRANT" : "REVOKE";
	if (strcmp(node, "CreateTableAsStmt") == 0)
		return words && strcmp(words, "MATERIALIZED VIEW") == 0 ? "CREATE MATERIALIZED VIEW"
									: "CREATE TABLE AS";
	if (!words)
		return NULL;
	/* Tags built from the object: a small fixed set of texts. */
	int which = strcmp(node, "DropStmt") == 0 ? 0
		    : (strcmp(node, "AlterTableStmt") == 0 || strcmp(node, "RenameStmt") == 0 ||
		       strcmp(node, "AlterObjectSchemaStmt") == 0 ||
		       strcmp(node, "AlterOwnerStmt") == 0 || strcmp(node, "AlterFunctionStmt") == 0 ||
		       strcmp(node, "AlterObjectDependsStmt") == 0 ||
		       strcmp(node, "AlterTableMoveAllStmt") == 0)
			? 1
		    : strcmp(node, "DefineStmt") == 0 ? 2
						      : -1;
	if (which < 0)
		return NULL;
	static const char *const all[] = {
		"TABLE", "INDEX", "SEQUENCE", "VIEW", "MATERIALIZED VIEW", "FOREIGN TABLE", "TYPE",
		"DOMAIN", "FUNCTION", "PROCEDURE", "ROUTINE", "AGGREGATE", "SCHEMA", "TRIGGER",
		"POLICY", "RULE", "EXTENSION", "OPERATOR", "CAST", "COLLATION", "CONVERSION",
		"STATISTICS", "SERVER", "FOREIGN DATA WRAPPER", "LANGUAGE", "PUBLICATION",
		"SUBSCRIPTION", "TEXT SEARCH CONFIGURATION", "TEXT SEARCH DICTIONARY",
		"TEXT SEARCH PARSER", "TEXT SEARCH TEMPLATE", "OPERATOR CLASS", "OPERATOR FAMILY",
		"TRANSFORM", "ACCESS METHOD", NULL
	};
	/* One static text per (prefix, object): no allocation, thread-safe. */
	static const char *const tags[3][35] = {
#define TAGS(p) { p "TABLE", p "INDEX", p "SEQUENCE", p "VIEW", p "MATERIALIZED VIEW", \
		  p "FOREIGN TABLE", p "TYPE", p "DOMAIN", p "FUNCTION", p "PROCEDURE", \
		  p "ROUTINE", p "AGGREGATE", p "SCHEMA", p "TRIGGER", p "POLICY", p "RULE", \
		  p "EXTENSION", p "OPERATOR", p "CAST", p "COLLATION", p "CONVERSION", \
		  p "STATISTICS", p "SERVER", p "FOREIGN DATA WRAPPER", p "LANGUAGE", \
		  p "PUBLICATION", p "SUBSCRIPTION", p "TEXT SEARCH CONFIGURATION", \
		  p "TEXT SEARCH DICTIONARY", p "TEXT SEARCH PARSER", p "TEXT SEARCH TEMPLATE", \
		  p "OPERATOR CLASS", p "OPERATOR FAMILY", p "TRANSFORM", p "ACCESS METHOD" }
		TAGS("DROP "), TAGS("ALTER "), TAGS("CREATE ")
#undef TAGS
	};
	for (int i = 0; all[i]; i++)
		if (strcmp(all[i], words) == 0)
			return tags[which][i];
	return NULL;
}

/* Leading words that decide a command tag whatever follows, each with
 * the tag.  Where a modifier may stand between the verb and the object
 * (CREATE UNIQUE INDEX, CREATE OR REPLACE VIEW), each spelling is listed:
 * a run-time part there could spell another object. */
static const struct {
	const char *words, *tag;
} tag_words[] = {
	{ "ALTER TABLE", "ALTER TABLE" },
	{ "ALTER INDEX", "ALTER INDEX" },
	{ "ALTER SEQUENCE", "ALTER SEQUENCE" },
	{ "ALTER VIEW", "ALTER VIEW" },
	{ "ALTER MATERIALIZED VIEW", "ALTER MATERIALIZED VIEW" },
	{ "ALTER FOREIGN TABLE", "ALTER FOREIGN TABLE" },
	{ "ALTER TYPE", "ALTER TYPE" },
	{ "ALTER DOMAIN", "ALTER DOMAIN" },
	{ "ALTER FUNCTION", "ALTER FUNCTION" },
	{ "ALTER PROCEDURE", "ALTER PROCEDURE" },
	{ "ALTER SCHEMA", "ALTER SCHEMA" },
	{ "ALTER POLICY", "ALTER POLICY" },
	{ "DROP TABLE", "DROP TABLE" },
	{ "DROP VIEW", "DROP VIEW" },
	{ "DROP MATERIALIZED VIEW", "DROP MATERIALIZED VIEW" },
	{ "DROP FOREIGN TABLE", "DROP FOREIGN TABLE" },
	{ "DROP INDEX", "DROP INDEX" },
	{ "DROP SEQUENCE", "DROP SEQUENCE" },
	{ "DROP FUNCTION", "DROP FUNCTION" },
	{ "DROP PROCEDURE", "DROP PROCEDURE" },
	{ "DROP TRIGGER", "DROP TRIGGER" },
	{ "DROP TYPE", "DROP TYPE" },
	{ "DROP DOMAIN", "DROP DOMAIN" },
	{ "DROP SCHEMA", "DROP SCHEMA" },
	{ "DROP POLICY", "DROP POLICY" },
	{ "DROP RULE", "DROP RULE" },
	{ "CREATE INDEX", "CREATE INDEX" },
	{ "CREATE UNIQUE INDEX", "CREATE INDEX" },
	{ "CREATE VIEW", "CREATE VIEW" },
	{ "CREATE OR REPLACE VIEW", "CREATE VIEW" },
	{ "CREATE MATERIALIZED VIEW", "CREATE MATERIALIZED VIEW" },
	{ "CREATE FUNCTION", "CREATE FUNCTION" },
	{ "CREATE OR REPLACE FUNCTION", "CREATE FUNCTION" },
	{ "CREATE PROCEDURE", "CREATE PROCEDURE" },
	{ "CREATE OR REPLACE PROCEDURE", "CREATE PROCEDURE" },
	{ "CREATE TRIGGER", "CREATE TRIGGER" },
	{ "CREATE OR REPLACE TRIGGER", "CREATE TRIGGER" },
	{ "CREATE CONSTRAINT TRIGGER", "CREATE TRIGGER" },
	{ "CREATE SCHEMA", "CREATE SCHEMA" },
	{ "CREATE SEQUENCE", "CREATE SEQUENCE" },
	{ "CREATE POLICY", "CREATE POLICY" },
	{ "CREATE DOMAIN", "CREATE DOMAIN" },
};

const char *cgm_ddl_command_tag_of_words(const char *sql, unsigned *facts)
{
	*facts = 0;
	const char *p = sql;
	while (isspace((unsigned char)*p))
		p++;
	for (size_t i = 0; i < sizeof tag_words / sizeof tag_words[0]; i++) {
		const char *w = tag_words[i].words, *q = p;
		/* the words, any blanks between them, then a blank */
		while (*w) {
			if (*w == ' ') {
				if (!isspace((unsigned char)*q))
					break;
				while (isspace((unsigned char)*q))
					q++;
				w++;
			} else if (toupper((unsigned char)*q) == *w) {
				q++;
				w++;
			} else {
				break;
			}
		}
		if (*w || !isspace((unsigned char)*q))
			continue;
		if (strncmp(tag_words[i].tag, "ALTER ", 6) == 0)
			*facts = CGM_DDL_DROPS_NOTHING | CGM_DDL_REWRITES_NOTHING;
		return tag_words[i].tag;
	}
	return NULL;
}

/* Subcommands of ALTER TABLE that drop no object sql_drop reports, and those that may
 * rewrite the table (ATRewriteTables: a new column type, a persistence or
 * access method change).  An added column rewrites it only when its
 * default is volatile, it is an identity or a stored generated one, or its
 * type a domain with constraints: what the ADD COLUMN says, which the
 * caller reads (extract.c's added_column_rewrites, and resolution the
 * volatility of the functions its default calls) and not its subtype. */
static const char *const drops_nothing[] = {
	"AT_AddColumn", "AT_AddColumnToView", "AT_SetNotNull", "AT_DropNotNull",
	"AT_SetStatistics", "AT_SetOptions", "AT_ResetOptions", "AT_SetStorage",
	"AT_SetCompression", "AT_AddIndex", "AT_AddConstraint", "AT_ValidateConstraint",
	"AT_AlterConstraint", "AT_ChangeOwner", "AT_ClusterOn", "AT_DropCluster", "AT_SetLogged",
	"AT_SetUnLogged", "AT_SetTableSpace", "AT_SetRelOptions", "AT_ResetRelOptions",
	"AT_ReplaceRelOptions", "AT_EnableTrig", "AT_EnableAlwaysTrig", "AT_EnableReplicaTrig",
	"AT_DisableTrig", "AT_EnableTrigAll", "AT_DisableTrigAll", "AT_EnableTrigUser",
	"AT_DisableTrigUser", "AT_EnableRule", "AT_EnableAlwaysRule", "AT_EnableReplicaRule",
	"AT_DisableRule", "AT_AddInherit", "AT_DropInherit", "AT_AddOf", "AT_DropOf",
	"AT_ReplicaIdentity", "AT_EnableRowSecurity", "AT_DisableRowSecurity",
	"AT_ForceRowSecurity", "AT_NoForceRowSecurity", "AT_AttachPartition", "AT_AddIdentity",
	"AT_SetIdentity", "AT_SetAccessMethod",
	/* The indexes and constraints on a column of a new type are dropped
	 * and made again as internal deletions, which sql_drop does not see;
	 * so are a default a SET DEFAULT replaces (a subcommand
	 * AT_ColumnDefault with a new default, which the caller names so) and
	 * an identity's sequence. */
	"AT_AlterColumnType", "AT_ColumnDefault(set)", "AT_DropIdentity", NULL
};
/* Subcommands that may drop an object but never rewrite the table. */
static const char *const drop_in_place[] = {
	"AT_DropColumn", "AT_DropConstraint", "AT_ColumnDefault", "AT_DropExpression",
	"AT_DetachPartition", "AT_DetachPartitionFinalize", NULL
};
static const char *const may_rewrite[] = {
	"AT_AlterColumnType", "AT_SetLogged", "AT_SetUnLogged",
	"AT_SetAccessMethod", NULL
};

static bool in_list(const char *const *list, const char *name)
{
	for (int i = 0; list[i]; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

unsigned cgm_ddl_facts(const char *node, const char *const *subtypes, int nsubtypes)
{
	if (!node)
		return 0;
	if (strcmp(node, "RenameStmt") == 0 || strcmp(node, "AlterObjectSchemaStmt") == 0 ||
	    strcmp(node, "AlterOwnerStmt") == 0 || strcmp(node, "AlterTableMoveAllStmt") == 0)
		return CGM_DDL_DROPS_NOTHING | CGM_DDL_REWRITES_NOTHING;
	if (strcmp(node, "AlterTableStmt") != 0 || nsubtypes <= 0)
		return 0;
	unsigned facts = CGM_DDL_DROPS_NOTHING | CGM_DDL_REWRITES_NOTHING;
	for (int i = 0; i < nsubtypes; i++) {
		if (!subtypes[i])
			return 0;
		bool drops = !in_list(drops_nothing, subtypes[i]);
		if (drops)
			facts &= ~(unsigned)CGM_DDL_DROPS_NOTHING;
		if (in_list(may_rewrite, subtypes[i]) || (drops && !in_list(drop_in_place, subtypes[i])))
			facts &= ~(unsigned)CGM_DDL_REWRITES_NOTHING;
	}
	return facts;
}

bool cgm_builtin_is_volatile(const char *name)
{
	static const char *const volatile_builtins[] = {
		"random", "nextval", "setval", "clock_timestamp", "timeofday", "gen_random_uuid",
		"uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4", "txid_current",
		"pg_current_xact_id", "random_normal", NULL
	};
	for (int i = 0; name && volatile_builtins[i]; i++)
		if (strcmp(name, volatile_builtins[i]) == 0)
			return true;
	return false;
}

bool cgm_event_trigger_fires(const cgm_event_trigger *et, const char *tag)
{
	return cgm_event_trigger_fires_ddl(et, tag, 0);
}

bool cgm_event_trigger_fires_ddl(const cgm_event_trigger *et, const char *tag, unsigned ddl_facts)
{
	if (!et->enabled || !et->event || !tag)
		return false;
	if (strcmp(et->event, "sql_drop") == 0) {
		if (strncmp(tag, "DROP ", 5) != 0 && strncmp(tag, "ALTER ", 6) != 0)
			return false;
		if (ddl_facts & CGM_DDL_DROPS_NOTHING)
			return false;
	} else if (strcmp(et->event, "table_rewrite") == 0) {
		if (strcmp(tag, "ALTER TABLE") != 0 && strcmp(tag, "ALTER TYPE") != 0)
			return false;
		if (ddl_facts & CGM_DDL_REWRITES_NOTHING)
			return false;
	} else if (strcmp(et->event, "ddl_command_start") != 0 &&
		   strcmp(et->event, "ddl_command_end") != 0) {
		return false;
	}
	if (et->ntags == 0)
		return true;
	for (int i = 0; i < et->ntags; i++)
		if (et->tags[i] && strcmp(et->tags[i], tag) == 0)
			return true;
	return false;
}
