/*
 * viewcols.c - which of a view's functions a read of the view runs (see
 * cgmap/viewcols.h): the view's query cut into its output columns and the
 * clauses evaluated on every read, the columns of each relation it names
 * that each output column reads, and the decisions relfx.c takes on a read.
 *
 * Column references are read as the raw-tree walker reads a statement's
 * (rawtree.c's item_reads): one qualified by an item's alias, or not
 * qualified at all, may be a column of that item; `*`, `alias.*` and a bare
 * `alias` read every column.  A name that is no column reads nothing, so
 * taking one too many only keeps an edge PostgreSQL may not run.
 */
#include "cgmap/viewcols.h"

#include <stdlib.h>
#include <string.h>

#include "cgmap/limits.h"
#include "jsondom.h"

/* ---- cutting a view's query ------------------------------------------- */

static bool has(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return true;
	return false;
}

typedef struct builder {
	cgm_arena *arena;
	cgm_viewcols *out;
	int cap_parts, cap_rels;
	cgm_viewcols_forces_fn forces;
	void *ctx;
} builder;

static void add_part(builder *b, const jd_node *node, const char *column)
{
	if (!node)
		return;
	if (b->out->nparts == b->cap_parts) {
		int cap = b->cap_parts ? b->cap_parts * 2 : 16;
		cgm_viewcols_part *p = cgm_arena_alloc(b->arena, sizeof(*p) * (size_t)cap);
		if (b->out->nparts)
			memcpy(p, b->out->parts, sizeof(*p) * (size_t)b->out->nparts);
		b->out->parts = p;
		b->cap_parts = cap;
	}
	b->out->parts[b->out->nparts++] = (cgm_viewcols_part){ node, column };
}

static cgm_viewcols_rel *add_rel(builder *b, const jd_node *rv)
{
	if (b->out->nrels == b->cap_rels) {
		int cap = b->cap_rels ? b->cap_rels * 2 : 8;
		cgm_viewcols_rel *r = cgm_arena_alloc(b->arena, sizeof(*r) * (size_t)cap);
		if (b->out->nrels)
			memcpy(r, b->out->rels, sizeof(*r) * (size_t)b->out->nrels);
		b->out->rels = r;
		b->cap_rels = cap;
	}
	cgm_viewcols_rel *r = &b->out->rels[b->out->nrels++];
	memset(r, 0, sizeof *r);
	r->schema = jd_string(jd_get(rv, "schemaname"));
	r->name = jd_string(jd_get(rv, "relname"));
	return r;
}

static void add_pair(builder *b, cgm_viewcols_rel *r, const char *read, const char *by)
{
	for (int i = 0; i < r->nreads; i++)
		if ((r->reads[i] == read || (r->reads[i] && read && strcmp(r->reads[i], read) == 0)) &&
		    (r->read_by[i] == by || (r->read_by[i] && by && strcmp(r->read_by[i], by) == 0)))
			return;
	/* Grown one at a time: a view reads few columns of each relation. */
	const char **reads = cgm_arena_alloc(b->arena, sizeof(char *) * (size_t)(r->nreads + 1));
	const char **read_by = cgm_arena_alloc(b->arena, sizeof(char *) * (size_t)(r->nreads + 1));
	if (r->nreads) {
		memcpy(reads, r->reads, sizeof(char *) * (size_t)r->nreads);
		memcpy(read_by, r->read_by, sizeof(char *) * (size_t)r->nreads);
	}
	reads[r->nreads] = read;
	read_by[r->nreads] = by;
	r->reads = reads;
	r->read_by = read_by;
	r->nreads++;
}

/* Does the tree below `node` call a function that forces its column? */
static bool forced_call(const builder *b, const jd_node *node, int depth)
{
	if (!node || depth > CGM_MAX_NESTING)
		return false;
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			if (forced_call(b, jd_at(node, i), depth + 1))
				return true;
		return false;
	}
	if (!jd_is_object(node))
		return false;
	const jd_node *call = jd_get(node, "FuncCall");
	if (call && b->forces) {
		const jd_node *names = jd_get(call, "funcname");
		size_t n = jd_size(names);
		const char *name = n ? jd_string_node(jd_at(names, n - 1)) : NULL;
		const char *schema = n >= 2 ? jd_string_node(jd_at(names, n - 2)) : NULL;
		if (name && b->forces(b->ctx, schema, name, (int)jd_size(jd_get(call, "args"))))
			return true;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		if (forced_call(b, value, depth + 1))
			return true;
	(void)key;
	return false;
}

/* One output column of the view: a target's expression, or a column of
 * a FROM item a `*` or `alias.*` expands to. */
typedef struct out_col {
	const jd_node *val;     /* the expression, NULL for a star's */
	const char *as;         /* AS name, NULL when none */
	const jd_node *star_rv; /* the star's: the item and its column */
	const char *star_col;
} out_col;

/* The output column a GROUP BY, ORDER BY or DISTINCT ON item names by
 * position (`GROUP BY 1`) or by output name (`ORDER BY a`): index, or -1. */
static int named_output(const jd_node *item, const char *const *columns, int ncolumns,
			const out_col *outs)
{
	const jd_node *sort = jd_get(item, "SortBy");
	if (sort)
		item = jd_get(sort, "node");
	const jd_node *c = jd_get(item, "A_Const");
	if (c) {
		const jd_node *iv = jd_get(c, "ival");
		if (!iv)
			return -1;
		long long pos = jd_integer(jd_get(iv, "ival"));
		return pos >= 1 && pos <= ncolumns ? (int)pos - 1 : -1;
	}
	const jd_node *ref = jd_get(item, "ColumnRef");
	const jd_node *fields = ref ? jd_get(ref, "fields") : NULL;
	if (jd_size(fields) != 1)
		return -1;
	const char *name = jd_string_node(jd_at(fields, 0));
	for (int i = 0; name && i < ncolumns; i++) {
		/* The output name, as the target wrote it or the view renamed it. */
		const char *as = outs[i].as ? outs[i].as : outs[i].star_col;
		if ((as && strcmp(as, name) == 0) || strcmp(columns[i], name) == 0)
			return i;
	}
	return -1;
}

static void mark_named(const jd_node *list, const char *const *columns, int ncolumns,
		       const out_col *outs, bool *forced)
{
	for (size_t i = 0; i < jd_size(list); i++) {
		int k = named_output(jd_at(list, i), columns, ncolumns, outs);
		if (k >= 0)
			forced[k] = true;
	}
}

/* The FROM items that are relations, in joins too (not in subqueries),
 * with the USING lists and NATURAL joins met on the way. */
typedef struct from_items {
	const jd_node *rvs[64];
	int n;
	bool natural, too_many;
	const jd_node *usings[32];
	int nusing;
} from_items;

static void find_items(from_items *f, const jd_node *node, int depth)
{
	if (!node || depth > CGM_MAX_NESTING) {
		f->too_many |= node != NULL;
		return;
	}
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			find_items(f, jd_at(node, i), depth + 1);
		return;
	}
	const jd_node *rv = jd_get(node, "RangeVar");
	if (rv) {
		if (f->n < 64)
			f->rvs[f->n++] = rv;
		else
			f->too_many = true;
		return;
	}
	const jd_node *j = jd_get(node, "JoinExpr");
	if (j) {
		f->natural |= jd_is_true(jd_get(j, "isNatural"));
		if (jd_get(j, "usingClause")) {
			if (f->nusing < 32)
				f->usings[f->nusing++] = jd_get(j, "usingClause");
			else
				f->too_many = true;
		}
		find_items(f, jd_get(j, "larg"), depth + 1);
		find_items(f, jd_get(j, "rarg"), depth + 1);
		return;
	}
	const jd_node *ts = jd_get(node, "RangeTableSample");
	if (ts)
		find_items(f, jd_get(ts, "relation"), depth + 1);
}

/* The columns of FROM item `rv` the column references below `node` read,
 * as pairs read by `by`. */
static void item_reads(builder *b, cgm_viewcols_rel *r, const jd_node *rv, const jd_node *node,
		       const char *by, int depth)
{
	if (!node)
		return;
	if (depth > CGM_MAX_NESTING) {
		add_pair(b, r, NULL, by);
		return;
	}
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			item_reads(b, r, rv, jd_at(node, i), by, depth + 1);
		return;
	}
	if (!jd_is_object(node))
		return;
	const jd_node *ref = jd_get(node, "ColumnRef");
	if (ref) {
		const jd_node *alias = jd_get(jd_get(rv, "alias"), "aliasname");
		const char *me = alias ? jd_string(alias) : jd_string(jd_get(rv, "relname"));
		const jd_node *fields = jd_get(ref, "fields");
		size_t nf = jd_size(fields);
		const jd_node *last = nf ? jd_at(fields, nf - 1) : NULL;
		if (!last || !me)
			return;
		if (jd_get(last, "A_Star")) {
			const char *q = nf >= 2 ? jd_string_node(jd_at(fields, nf - 2)) : NULL;
			if (nf == 1 || !q || strcmp(q, me) == 0)
				add_pair(b, r, NULL, by);
			return;
		}
		const char *first = jd_string_node(jd_at(fields, 0));
		if (nf == 1) {
			if (first)
				add_pair(b, r, strcmp(first, me) == 0 ? NULL : first, by);
			return;
		}
		const char *col = first;
		for (size_t k = 0; k + 1 < nf; k++) {
			const char *part = jd_string_node(jd_at(fields, k));
			if (part && strcmp(part, me) == 0) {
				col = jd_string_node(jd_at(fields, k + 1));
				break;
			}
		}
		if (col)
			add_pair(b, r, col, by);
		return;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		item_reads(b, r, rv, value, by, depth + 1);
	(void)key;
}

/* Every RangeVar below `node` that is no top-level FROM item: read whole
 * when `by` is. */
static void nested_rels(builder *b, const jd_node *node, const from_items *f, const char *by,
			int depth)
{
	if (!node || depth > CGM_MAX_NESTING)
		return;
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			nested_rels(b, jd_at(node, i), f, by, depth + 1);
		return;
	}
	if (!jd_is_object(node))
		return;
	const jd_node *rv = jd_get(node, "RangeVar");
	if (rv) {
		for (int i = 0; i < f->n; i++)
			if (f->rvs[i] == rv)
				return;
		if (jd_get(rv, "relname")) {
			cgm_viewcols_rel *r = add_rel(b, rv);
			add_pair(b, r, NULL, by);
			if (by) {
				r->columns = cgm_arena_alloc(b->arena, sizeof(char *));
				r->columns[0] = by;
				r->ncolumns = 1;
			}
		}
		return;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		nested_rels(b, value, f, by, depth + 1);
	(void)key;
}

/* The name an item is referred to by: its alias, else its name. */
static const char *item_name(const jd_node *rv)
{
	const jd_node *alias = jd_get(jd_get(rv, "alias"), "aliasname");
	return alias ? jd_string(alias) : jd_string(jd_get(rv, "relname"));
}

/* The view's output columns from its targets, a star expanded through
 * `star` to the columns of the one FROM item it reads (`*` with a single
 * relation as FROM, `alias.*` of a relation item): false when they cannot
 * be told, or are not `ncolumns`. */
static bool output_columns(cgm_arena *arena, const jd_node *targets, const from_items *f,
			   cgm_viewcols_star_fn star, void *ctx, int ncolumns, out_col **out)
{
	out_col *outs = cgm_arena_alloc(arena, sizeof(out_col) * (size_t)ncolumns);
	memset(outs, 0, sizeof(out_col) * (size_t)ncolumns);
	int n = 0;
	for (size_t i = 0; i < jd_size(targets); i++) {
		const jd_node *rt = jd_get(jd_at(targets, i), "ResTarget");
		const jd_node *val = jd_get(rt, "val");
		const jd_node *ref = jd_get(val, "ColumnRef");
		const jd_node *fields = ref ? jd_get(ref, "fields") : NULL;
		size_t nf = jd_size(fields);
		if (!rt)
			return false;
		if (!(nf && jd_get(jd_at(fields, nf - 1), "A_Star"))) {
			if (n == ncolumns)
				return false;
			outs[n++] = (out_col){ .val = val, .as = jd_string(jd_get(rt, "name")) };
			continue;
		}
		/* A star: the one item it names. */
		const char *q = nf >= 2 ? jd_string_node(jd_at(fields, nf - 2)) : NULL;
		const jd_node *rv = NULL;
		if (!star || f->too_many || f->natural || f->nusing || (nf >= 2 && !q) || nf > 3)
			return false;
		if (!q) {
			if (f->n != 1)
				return false;
			rv = f->rvs[0];
		}
		for (int k = 0; q && k < f->n; k++)
			if (item_name(f->rvs[k]) && strcmp(item_name(f->rvs[k]), q) == 0)
				rv = f->rvs[k];
		const char *const *cols = NULL;
		int ncols = rv ? star(ctx, jd_string(jd_get(rv, "schemaname")),
				      jd_string(jd_get(rv, "relname")), &cols)
			       : -1;
		if (ncols < 0 || n + ncols > ncolumns)
			return false;
		for (int k = 0; k < ncols; k++)
			outs[n++] = (out_col){ .star_rv = rv, .star_col = cols[k] };
	}
	*out = outs;
	return n == ncolumns;
}

bool cgm_viewcols_of(cgm_arena *arena, const struct jd_node *select, const char *const *columns,
		     int ncolumns, cgm_viewcols_forces_fn forces, cgm_viewcols_star_fn star,
		     void *ctx, cgm_viewcols *out)
{
	memset(out, 0, sizeof *out);
	if (!jd_is_object(select) || ncolumns <= 0)
		return false;
	const char *op = jd_string(jd_get(select, "op"));
	const jd_node *targets = jd_get(select, "targetList");
	const jd_node *distinct = jd_get(select, "distinctClause");
	/* A plain DISTINCT compares every column: all are evaluated
	 * (libpg_query writes it as a list of one empty node). */
	bool plain_distinct = distinct && jd_size(distinct) >= 1 &&
			      (!jd_is_object(jd_at(distinct, 0)) || jd_at(distinct, 0)->n == 0);
	if ((op && strcmp(op, "SETOP_NONE") != 0) || plain_distinct || !targets ||
	    jd_get(select, "valuesLists") || jd_get(select, "intoClause"))
		return false;
	for (int i = 0; i < ncolumns; i++)
		if (!columns[i])
			return false;
	from_items f = { .n = 0 };
	find_items(&f, jd_get(select, "fromClause"), 0);
	out_col *outs;
	if (!output_columns(arena, targets, &f, star, ctx, ncolumns, &outs))
		return false;
	builder b = { .arena = arena, .out = out, .forces = forces, .ctx = ctx };
	/* Columns evaluated whatever is read: a volatile or set-returning
	 * call, or named by GROUP BY, ORDER BY or DISTINCT ON (a sort/group
	 * reference, kept). */
	size_t nforced = ncolumns > 0 ? (size_t)ncolumns : 1;
	bool *forced = cgm_arena_alloc(arena, sizeof(bool) * nforced);
	memset(forced, 0, sizeof(bool) * nforced);
	for (int i = 0; i < ncolumns; i++)
		forced[i] = forced_call(&b, outs[i].val, 0);
	mark_named(jd_get(select, "groupClause"), columns, ncolumns, outs, forced);
	mark_named(jd_get(select, "sortClause"), columns, ncolumns, outs, forced);
	if (!plain_distinct)
		mark_named(distinct, columns, ncolumns, outs, forced);
	/* The output columns, then everything else of the query: evaluated
	 * on every read. */
	for (int i = 0; i < ncolumns; i++)
		add_part(&b, outs[i].val, forced[i] ? NULL : columns[i]);
	const char *key;
	jd_node *value;
	jd_object_foreach(select, key, value)
		if (strcmp(key, "targetList") != 0 && strcmp(key, "op") != 0)
			add_part(&b, value, NULL);
	(void)key;
	/* The relations: a top-level FROM item through the column references
	 * of each part; one in a subquery or a function's arguments whole,
	 * when its part is evaluated. */
	for (int i = 0; i < f.n; i++) {
		if (!jd_get(f.rvs[i], "relname"))
			continue;
		cgm_viewcols_rel *r = add_rel(&b, f.rvs[i]);
		if (f.natural || f.too_many) {
			add_pair(&b, r, NULL, NULL);
			continue;
		}
		for (int u = 0; u < f.nusing; u++)
			for (size_t k = 0; k < jd_size(f.usings[u]); k++)
				if (jd_string_node(jd_at(f.usings[u], k)))
					add_pair(&b, r, jd_string_node(jd_at(f.usings[u], k)), NULL);
		for (int p = 0; p < out->nparts; p++)
			item_reads(&b, r, f.rvs[i], out->parts[p].node, out->parts[p].column, 0);
		/* What a star shows of it. */
		for (int c = 0; c < ncolumns; c++)
			if (outs[c].star_rv == f.rvs[i])
				add_pair(&b, r, outs[c].star_col, forced[c] ? NULL : columns[c]);
		/* Read even when no column is: its rows are. */
		if (r->nreads == 0) {
			r->reads = cgm_arena_alloc(arena, sizeof(char *));
			r->read_by = cgm_arena_alloc(arena, sizeof(char *));
		}
	}
	for (int p = 0; p < out->nparts; p++)
		nested_rels(&b, out->parts[p].node, &f, out->parts[p].column, 0);
	return true;
}

bool cgm_viewcols_calls_where(const struct jd_node *node, const char *schema, const char *name,
			      cgm_viewcols_call_fn accept, void *ctx)
{
	if (!node || !name)
		return false;
	if (jd_is_array(node)) {
		for (size_t i = 0; i < jd_size(node); i++)
			if (cgm_viewcols_calls_where(jd_at(node, i), schema, name, accept, ctx))
				return true;
		return false;
	}
	if (!jd_is_object(node))
		return false;
	const jd_node *call = jd_get(node, "FuncCall");
	if (call) {
		const jd_node *names = jd_get(call, "funcname");
		size_t n = jd_size(names);
		const char *fn = n ? jd_string_node(jd_at(names, n - 1)) : NULL;
		const char *sch = n >= 2 ? jd_string_node(jd_at(names, n - 2)) : NULL;
		if (fn && strcmp(fn, name) == 0 && (!schema || !sch || strcmp(sch, schema) == 0) &&
		    (!accept || accept(ctx, call)))
			return true;
	}
	const char *key;
	jd_node *value;
	jd_object_foreach(node, key, value)
		if (cgm_viewcols_calls_where(value, schema, name, accept, ctx))
			return true;
	(void)key;
	return false;
}

bool cgm_viewcols_calls(const struct jd_node *node, const char *schema, const char *name)
{
	return cgm_viewcols_calls_where(node, schema, name, NULL, NULL);
}

void cgm_viewcols_add_column(cgm_arena *arena, const char ***columns, int *ncolumns, bool first,
			     const char *column)
{
	if (!first && *ncolumns == 0)
		return; /* always already */
	if (!column) {
		*columns = NULL;
		*ncolumns = 0;
		return;
	}
	if (has(*columns, *ncolumns, column))
		return;
	const char **c = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(*ncolumns + 1));
	if (*ncolumns)
		memcpy(c, *columns, sizeof(char *) * (size_t)*ncolumns);
	c[(*ncolumns)++] = column;
	*columns = c;
}

static int compare_nullable(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* A (column, output column) pair of a view's read of a relation; `copy`
 * when it is the relation's, not yet the effect's (copied when kept). */
typedef struct read_pair {
	const char *read, *by;
	bool copy;
} read_pair;

static int compare_pairs(const void *a, const void *b)
{
	const read_pair *x = a, *y = b;
	int c = compare_nullable(x->by, y->by);
	return c ? c : compare_nullable(x->read, y->read);
}

void cgm_viewcols_add_rel(cgm_arena *arena, cgm_effect *e, bool fresh, const cgm_viewcols_rel *rel,
			  const cgm_column *columns, int ncolumns, cgm_viewcols_function_fn is_function,
			  void *ctx)
{
	if (rel->ncolumns == 0)
		cgm_viewcols_add_column(arena, &e->columns, &e->ncolumns, fresh, NULL);
	for (int c = 0; c < rel->ncolumns; c++)
		cgm_viewcols_add_column(arena, &e->columns, &e->ncolumns, fresh && c == 0,
					cgm_arena_strdup(arena, rel->columns[c]));
	if (!fresh && !e->reads)
		return; /* every column already */
	int n = e->nreads + rel->nreads;
	read_pair *pairs = cgm_xcalloc((size_t)(n ? n : 1), sizeof(read_pair));
	int m = 0;
	for (int i = 0; i < n; i++) {
		const char *read = i < e->nreads ? e->reads[i] : rel->reads[i - e->nreads];
		const char *who = i < e->nreads ? e->read_by[i] : rel->read_by[i - e->nreads];
		if (i >= e->nreads && read && ncolumns > 0) {
			/* A name that is no column of the relation reads nothing
			 * of it (another item's column, a variable), but for
			 * attribute notation, `t.f` calling f(t) with the whole
			 * row: every column. */
			bool column = false;
			for (int k = 0; k < ncolumns && !column; k++)
				column = columns[k].name && strcmp(columns[k].name, read) == 0;
			if (!column && !(is_function && is_function(ctx, read)))
				continue;
			if (!column)
				read = NULL;
		}
		pairs[m++] = (read_pair){ read, who, i >= e->nreads };
	}
	/* Each pair once, in order (read_by, then the column): both sources
	 * give the same list whatever order they meet them.  Sorted, not
	 * inserted one by one: a view naming one relation in hundreds of
	 * subqueries merges its pairs as often. */
	qsort(pairs, (size_t)m, sizeof(read_pair), compare_pairs);
	const char **reads = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(m ? m : 1));
	const char **by = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(m ? m : 1));
	int kept = 0;
	for (int i = 0; i < m; i++) {
		if (kept > 0 && compare_nullable(by[kept - 1], pairs[i].by) == 0 &&
		    compare_nullable(reads[kept - 1], pairs[i].read) == 0)
			continue;
		reads[kept] = pairs[i].copy ? cgm_arena_strdup(arena, pairs[i].read) : pairs[i].read;
		by[kept] = pairs[i].copy ? cgm_arena_strdup(arena, pairs[i].by) : pairs[i].by;
		kept++;
	}
	free(pairs);
	e->reads = reads;
	e->read_by = by;
	e->nreads = kept;
}

/* ---- decisions on a read ---------------------------------------------- */

static bool read_or_forced(const char *const *reads, int nreads, const char *const *forced,
			   int nforced, const char *column)
{
	return !reads || has(reads, nreads, column) || has(forced, nforced, column);
}

bool cgm_viewcols_runs(const char *const *reads, int nreads, const char *const *forced,
		       int nforced, const char *const *columns, int ncolumns)
{
	if (ncolumns <= 0 || !reads)
		return true;
	for (int i = 0; i < ncolumns; i++)
		if (read_or_forced(reads, nreads, forced, nforced, columns[i]))
			return true;
	return false;
}

int cgm_viewcols_inner(const char *const *pair_reads, const char *const *pair_by, int npairs,
		       const char *const *reads, int nreads, const char *const *forced,
		       int nforced, const char **out, int max)
{
	int n = 0;
	for (int i = 0; i < npairs; i++) {
		if (pair_by[i] && !read_or_forced(reads, nreads, forced, nforced, pair_by[i]))
			continue;
		if (!pair_reads[i])
			return -1;
		if (has(out, n, pair_reads[i]))
			continue;
		if (n == max)
			return -1;
		out[n++] = pair_reads[i];
	}
	return n;
}
