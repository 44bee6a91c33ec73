/*
 * rawtree.c - call sites read straight from libpg_query's raw parse tree
 * (see rawtree.h for what comes in and goes out).
 *
 * The tree lives in a memory context of its own (pg_query_enter_memory_context)
 * that is deleted before cgm_raw_scan returns; the visitor sees its strings
 * only while a callback runs.
 *
 * This is the one file that includes PostgreSQL's server headers, for the
 * node structs of the parser libpg_query 15 embeds (PostgreSQL 15: same
 * node tags and layouts in every 15.x release).  libpg_query keeps its
 * globals thread-local, so nothing here may touch one through those
 * headers (CurrentMemoryContext, PG_exception_stack, elog): allocation goes
 * through palloc, a function of the library, and there is no ereport.
 *
 * Each node is one this walker knows field by field; a statement with any
 * other node (a utility command, mostly) is handed whole to the visitor's
 * `unknown`, which drops what the statement reported so far: never
 * half-read, as a missed field would lose calls silently.  Fields are walked in struct order, the order
 * libpg_query's own outputs use, so sites come in the same order as there.
 */
#include <pg_query.h>

#include "postgres.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "lib/stringinfo.h"
#include "parser/parser.h"
#include "pg_query/pg_query_internal.h"
#include "plpgsql.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/limits.h"
#include "cgmap/exprtype.h"
#include "cgmap/model.h"
#include "cgmap/sqlformat.h"
#include "cgmap/strbuf.h"
#include "cgmap/ops.h"
#include "cgmap/types.h"
#include "rawtree.h"
#include "sqllex.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "rawtree.c needs the PostgreSQL 15 server headers, the parser libpg_query 15 embeds"
#endif

typedef struct cte_frame cte_frame;

/* CTE names in scope, innermost last: a FROM item of that name (not
 * schema-qualified) is the CTE, not a relation. */
#define MAX_CTES 64

typedef struct walker {
	const cgm_raw_visitor *v;
	/* Typing (v->arena set): the FROM scope of the query being walked and
	 * the CTEs visible there. */
	const cgm_scope *scope;
	const cte_frame *ctes;
	const char *cte_names[MAX_CTES];
	int ncte_names;
	/* Levels of the tree above the node being walked: deeper than
	 * CGM_MAX_NESTING, the walk stops (too_deep) instead of running out of
	 * stack on input such as 1+1+...+1. */
	int depth;
	bool too_deep;
	/* Absolute depth past which an argument's shape is summarised as
	 * "other": a shape is copied per site, so a chain of operators each
	 * copying its operand's whole chain would cost the square of it. */
	int shape_stop;
	int expr_depth;       /* levels of build_expr above the node being built */
	/* Set while finding which CTEs of a WITH clause a statement reads
	 * (ctes_run): the walk reports nothing and marks them here. */
	struct cte_reads *reads;
	/* Set while collecting a statement's column references (stmt_refs):
	 * the walk reports nothing and keeps them here. */
	struct col_refs *cols;
	/* The column references of the statement whose FROM items are being
	 * reported (NULL: unknown, every column read). */
	const struct col_refs *stmt_cols;
} walker;

static bool walk(walker *w, const Node *node);

static bool walk_list(walker *w, const List *list)
{
	const ListCell *lc;
	foreach (lc, list)
		if (!walk(w, lfirst(lc)))
			return false;
	return true;
}

/* The `sval` of a String node, or NULL. */
static const char *string_value(const Node *node)
{
	return node && IsA(node, String) ? strVal(node) : NULL;
}

/* ---- arguments -------------------------------------------------------- */

/* How deep an argument's shape is kept: a call's arguments deep enough for
 * long || concatenations; an operator's or cast's operands only their own
 * node and a little below (typing them needs no more). */
#define CALL_SHAPE_DEPTH 64
#define OPERAND_SHAPE_DEPTH 4

/* The shape of an argument `depth` levels down the tree; past
 * CGM_MAX_NESTING the walker is told (too_deep) and the rest is "other". */
static cgm_raw_arg *arg_shape(walker *w, const Node *node, const char *name, int depth)
{
	cgm_raw_arg *a = palloc0(sizeof(cgm_raw_arg));
	a->kind = CGM_RAW_ARG_OTHER;
	a->name = name;
	if (!node || depth > w->shape_stop)
		return a;
	if (depth > CGM_MAX_NESTING) {
		w->too_deep = true;
		return a;
	}
	switch (nodeTag(node)) {
	case T_A_Const: {
		const A_Const *c = (const A_Const *)node;
		if (c->isnull) {
			a->kind = CGM_RAW_ARG_UNKNOWN;
			break;
		}
		switch (nodeTag(&c->val)) {
		case T_String:
			a->kind = CGM_RAW_ARG_UNKNOWN;
			break;
		case T_Integer:
			a->kind = CGM_RAW_ARG_INTEGER;
			break;
		case T_Float: {
			/* Integers too large for int4 come as Float without a dot. */
			const char *text = c->val.fval.fval;
			a->kind = CGM_RAW_ARG_NUMERIC;
			if (text && !strpbrk(text, ".eE"))
				a->kind = strlen(text) > 18 ? CGM_RAW_ARG_NUMERIC : CGM_RAW_ARG_BIGINT;
			break;
		}
		case T_Boolean:
			a->kind = CGM_RAW_ARG_BOOLEAN;
			break;
		case T_BitString:
			a->kind = CGM_RAW_ARG_BIT;
			break;
		default:
			break;
		}
		break;
	}
	case T_TypeCast: {
		const TypeName *t = ((const TypeCast *)node)->typeName;
		a->kind = CGM_RAW_ARG_CAST;
		int n = t ? list_length(t->names) : 0;
		if (n > 0 && !t->pct_type) {
			a->type_name = string_value(llast(t->names));
			a->type_schema = n >= 2 ? string_value(list_nth(t->names, n - 2)) : NULL;
			a->type_dims = list_length(t->arrayBounds);
		}
		break;
	}
	case T_ColumnRef: {
		const ColumnRef *r = (const ColumnRef *)node;
		if (list_length(r->fields) == 1 && string_value(linitial(r->fields))) {
			a->kind = CGM_RAW_ARG_COLUMN;
			a->column = string_value(linitial(r->fields));
		}
		break;
	}
	case T_NamedArgExpr: {
		const NamedArgExpr *na = (const NamedArgExpr *)node;
		cgm_raw_arg *inner = arg_shape(w, (const Node *)na->arg, na->name, depth + 1);
		return inner;
	}
	case T_ParamRef:
		a->kind = CGM_RAW_ARG_PARAM;
		a->param = ((const ParamRef *)node)->number;
		break;
	case T_A_Expr: {
		const A_Expr *e = (const A_Expr *)node;
		const char *op = list_length(e->name) > 0 ? string_value(linitial(e->name)) : NULL;
		if (e->kind == AEXPR_OP && op && strcmp(op, "||") == 0) {
			a->kind = CGM_RAW_ARG_CONCAT;
			a->left = arg_shape(w, e->lexpr, NULL, depth + 1);
			a->right = arg_shape(w, e->rexpr, NULL, depth + 1);
		}
		break;
	}
	default:
		break;
	}
	return a;
}


/* ---- expressions for typing ------------------------------------------- */

/* With an arena in the visitor, each call's arguments are recorded as
 * expression trees (cgmap/exprtype.h) in that arena, names with the FROM
 * scope of their query, for resolution to type them with the catalog.
 * Everything is copied out of the parse tree, which dies after the walk. */

struct cte_frame {
	const cte_frame *parent;
	int n;
	const char **names;
	cgm_scope_item *items;
};

static cgm_expr *new_expr(walker *w, cgm_expr_kind kind)
{
	cgm_expr *e = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr));
	e->kind = kind;
	return e;
}

static const char *keep(walker *w, const char *s)
{
	return cgm_arena_strdup(w->v->arena, s);
}

static const cgm_expr *build_expr(walker *w, const Node *node);
static const cgm_scope *build_scope(walker *w, const SelectStmt *s, const cgm_scope *parent);
static void query_columns(walker *w, const Node *query, cgm_scope_item *item);

/* A value of a fixed type: literals are most arguments, and a constant node
 * is never written after it is built, so each type has one shared node. */
static const cgm_expr *typed(walker *w, const char *type)
{
	static const cgm_expr shared[] = {
		{ .kind = CGM_EXPR_CONST, .type = "unknown" },
		{ .kind = CGM_EXPR_CONST, .type = "integer" },
		{ .kind = CGM_EXPR_CONST, .type = "bigint" },
		{ .kind = CGM_EXPR_CONST, .type = "numeric" },
		{ .kind = CGM_EXPR_CONST, .type = "boolean" },
		{ .kind = CGM_EXPR_CONST, .type = "bit" },
	};
	for (size_t i = 0; type && i < sizeof shared / sizeof shared[0]; i++)
		if (strcmp(shared[i].type, type) == 0)
			return &shared[i];
	cgm_expr *e = new_expr(w, CGM_EXPR_CONST);
	e->type = type;
	return e;
}

static const cgm_expr **build_list(walker *w, const List *list, int *n)
{
	*n = list_length(list);
	if (*n == 0)
		return NULL;
	const cgm_expr **out = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *) * (size_t)*n);
	int i = 0;
	const ListCell *lc;
	foreach (lc, list)
		out[i++] = build_expr(w, lfirst(lc));
	return out;
}

/* A call's arguments; names of `name => value` into *names when asked. */
static const cgm_expr *const *build_args(walker *w, const List *args, const char ***names)
{
	int n = list_length(args);
	const cgm_expr **out = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *) * (size_t)n);
	const char **argnames = names ? cgm_arena_alloc(w->v->arena, sizeof(char *) * (size_t)n) : NULL;
	int i = 0;
	const ListCell *lc;
	foreach (lc, args) {
		const Node *a = lfirst(lc);
		if (a && IsA(a, NamedArgExpr)) {
			if (argnames)
				argnames[i] = keep(w, ((const NamedArgExpr *)a)->name);
			a = (const Node *)((const NamedArgExpr *)a)->arg;
		}
		out[i++] = build_expr(w, a);
	}
	if (names)
		*names = argnames;
	return out;
}

static const char *const_type(const A_Const *c)
{
	if (c->isnull)
		return "unknown";
	switch (nodeTag(&c->val)) {
	case T_Integer:
		return "integer";
	case T_Float: {
		const char *text = c->val.fval.fval;
		if (text && !strpbrk(text, ".eE"))
			return strlen(text) > 18 ? "numeric" : "bigint";
		return "numeric";
	}
	case T_Boolean:
		return "boolean";
	case T_BitString:
		return "bit";
	default:
		return "unknown";
	}
}

static const char *sql_value_type(SQLValueFunctionOp op)
{
	switch (op) {
	case SVFOP_CURRENT_DATE:
		return "date";
	case SVFOP_CURRENT_TIME:
	case SVFOP_CURRENT_TIME_N:
		return "time with time zone";
	case SVFOP_CURRENT_TIMESTAMP:
	case SVFOP_CURRENT_TIMESTAMP_N:
		return "timestamp with time zone";
	case SVFOP_LOCALTIME:
	case SVFOP_LOCALTIME_N:
		return "time without time zone";
	case SVFOP_LOCALTIMESTAMP:
	case SVFOP_LOCALTIMESTAMP_N:
		return "timestamp without time zone";
	default:
		return "name"; /* CURRENT_USER, SESSION_USER, CURRENT_SCHEMA, ... */
	}
}

static const cgm_expr *build_call(walker *w, const FuncCall *fc)
{
	int n = list_length(fc->funcname);
	const char *name = n > 0 ? string_value(llast(fc->funcname)) : NULL;
	if (!name)
		return new_expr(w, CGM_EXPR_OTHER);
	cgm_expr *e = new_expr(w, CGM_EXPR_CALL);
	e->name = keep(w, name);
	e->schema = n >= 2 ? keep(w, string_value(list_nth(fc->funcname, n - 2))) : NULL;
	e->flag = fc->func_variadic;
	if (!fc->agg_star) {
		e->nargs = list_length(fc->args);
		if (e->nargs)
			e->args = (const cgm_expr **)build_args(w, fc->args, (const char ***)&e->names);
	}
	return e;
}

static const cgm_expr *build_indirection(walker *w, const A_Indirection *ind)
{
	const cgm_expr *base = build_expr(w, ind->arg);
	const ListCell *lc;
	foreach (lc, ind->indirection) {
		const Node *step = lfirst(lc);
		cgm_expr *e;
		if (IsA(step, A_Indices)) {
			e = new_expr(w, CGM_EXPR_SUBSCRIPT);
			e->flag = ((const A_Indices *)step)->is_slice;
		} else if (IsA(step, String)) {
			e = new_expr(w, CGM_EXPR_FIELD);
			e->name = keep(w, strVal(step));
		} else {
			return new_expr(w, CGM_EXPR_OTHER);
		}
		e->nargs = 1;
		e->args = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *));
		e->args[0] = base;
		base = e;
	}
	return base;
}

static const cgm_expr *build_sublink(walker *w, const SubLink *sl)
{
	if (sl->subLinkType != EXPR_SUBLINK && sl->subLinkType != ARRAY_SUBLINK)
		return typed(w, sl->subLinkType == MULTIEXPR_SUBLINK || sl->subLinkType == CTE_SUBLINK
					? NULL
					: "boolean");
	cgm_expr *e = new_expr(w, CGM_EXPR_SUBLINK);
	e->flag = sl->subLinkType == ARRAY_SUBLINK;
	cgm_scope_item cols = { 0 };
	query_columns(w, sl->subselect, &cols);
	if (cols.ncolumns >= 1 && cols.colexprs) {
		e->nargs = 1;
		e->args = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *));
		e->args[0] = cols.colexprs[0];
	}
	return e;
}

/* How deep an argument's expression tree is kept for typing: below that a
 * node is "other" (no type).  Each call keeps its own arguments' trees, so
 * calls nested n deep would otherwise keep n trees of up to n levels. */
#define EXPR_TREE_DEPTH 32

static const cgm_expr *build_expr_node(walker *w, const Node *node);

static const cgm_expr *build_expr(walker *w, const Node *node)
{
	if (!node)
		return NULL;
	if (w->expr_depth >= EXPR_TREE_DEPTH)
		return new_expr(w, CGM_EXPR_OTHER);
	w->expr_depth++;
	const cgm_expr *e = build_expr_node(w, node);
	w->expr_depth--;
	return e;
}

static const cgm_expr *build_expr_node(walker *w, const Node *node)
{
	switch (nodeTag(node)) {
	case T_A_Const:
		return typed(w, const_type((const A_Const *)node));
	case T_TypeCast: {
		const TypeCast *tc = (const TypeCast *)node;
		const TypeName *t = tc->typeName;
		int n = t ? list_length(t->names) : 0;
		const char *name = n > 0 ? string_value(llast(t->names)) : NULL;
		if (!name || t->pct_type)
			return new_expr(w, CGM_EXPR_OTHER);
		cgm_expr *e = new_expr(w, CGM_EXPR_CAST);
		e->type = cgm_type_canonical(w->v->arena, n >= 2 ? string_value(list_nth(t->names, n - 2)) : NULL,
					     name, list_length(t->arrayBounds), NULL);
		return e;
	}
	case T_ColumnRef: {
		const ColumnRef *r = (const ColumnRef *)node;
		int n = list_length(r->fields);
		bool star = n > 0 && IsA(llast(r->fields), A_Star);
		cgm_expr *e = new_expr(w, star ? CGM_EXPR_STAR : CGM_EXPR_NAME);
		e->nnames = star ? n - 1 : n;
		e->scope = w->scope;
		if (e->nnames > 0) {
			e->names = cgm_arena_alloc(w->v->arena, sizeof(char *) * (size_t)e->nnames);
			for (int i = 0; i < e->nnames; i++) {
				const char *part = string_value(list_nth(r->fields, i));
				if (!part)
					return new_expr(w, CGM_EXPR_OTHER);
				e->names[i] = keep(w, part);
			}
		}
		return e;
	}
	case T_ParamRef: {
		cgm_expr *e = new_expr(w, CGM_EXPR_PARAM);
		e->param = ((const ParamRef *)node)->number;
		return e;
	}
	case T_FuncCall:
		return build_call(w, (const FuncCall *)node);
	case T_NamedArgExpr:
		return build_expr(w, (const Node *)((const NamedArgExpr *)node)->arg);
	case T_A_Expr: {
		const A_Expr *a = (const A_Expr *)node;
		if (a->kind == AEXPR_NULLIF) {
			cgm_expr *e = new_expr(w, CGM_EXPR_NULLIF);
			e->nargs = 1;
			e->args = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *));
			e->args[0] = build_expr(w, a->lexpr);
			return e;
		}
		if (a->kind != AEXPR_OP)
			return typed(w, "boolean"); /* ANY/ALL, IN, LIKE, BETWEEN, DISTINCT */
		int n = list_length(a->name);
		const char *op = n > 0 ? string_value(llast(a->name)) : NULL;
		if (!op)
			return new_expr(w, CGM_EXPR_OTHER);
		cgm_expr *e = new_expr(w, CGM_EXPR_OP);
		e->name = keep(w, op);
		e->schema = n >= 2 ? keep(w, string_value(list_nth(a->name, n - 2))) : NULL;
		e->nargs = 2;
		e->args = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *) * 2);
		e->args[0] = build_expr(w, a->lexpr);
		e->args[1] = build_expr(w, a->rexpr);
		return e;
	}
	case T_BoolExpr:
	case T_NullTest:
	case T_BooleanTest:
		return typed(w, "boolean");
	case T_SQLValueFunction:
		return typed(w, sql_value_type(((const SQLValueFunction *)node)->op));
	case T_GroupingFunc:
		return typed(w, "integer");
	case T_CollateClause:
		return build_expr(w, ((const CollateClause *)node)->arg);
	case T_SubLink:
		return build_sublink(w, (const SubLink *)node);
	case T_A_Indirection:
		return build_indirection(w, (const A_Indirection *)node);
	case T_CaseExpr: {
		const CaseExpr *c = (const CaseExpr *)node;
		cgm_expr *e = new_expr(w, CGM_EXPR_CASE);
		int n = list_length(c->args) + (c->defresult ? 1 : 0);
		e->args = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *) * (size_t)(n ? n : 1));
		const ListCell *lc;
		foreach (lc, c->args) {
			const Node *when = lfirst(lc);
			e->args[e->nargs++] = IsA(when, CaseWhen) ? build_expr(w, (const Node *)((const CaseWhen *)when)->result)
								  : NULL;
		}
		if (c->defresult)
			e->args[e->nargs++] = build_expr(w, (const Node *)c->defresult);
		return e;
	}
	case T_CoalesceExpr: {
		cgm_expr *e = new_expr(w, CGM_EXPR_COALESCE);
		e->args = build_list(w, ((const CoalesceExpr *)node)->args, &e->nargs);
		return e;
	}
	case T_MinMaxExpr: {
		cgm_expr *e = new_expr(w, CGM_EXPR_MINMAX);
		e->args = build_list(w, ((const MinMaxExpr *)node)->args, &e->nargs);
		return e;
	}
	case T_RowExpr: {
		cgm_expr *e = new_expr(w, CGM_EXPR_ROW);
		e->args = build_list(w, ((const RowExpr *)node)->args, &e->nargs);
		return e;
	}
	case T_A_ArrayExpr: {
		cgm_expr *e = new_expr(w, CGM_EXPR_ARRAY);
		e->args = build_list(w, ((const A_ArrayExpr *)node)->elements, &e->nargs);
		return e;
	}
	default:
		return new_expr(w, CGM_EXPR_OTHER);
	}
}

/* The name PostgreSQL gives a target without AS (FigureColname). */
static const char *column_name(const Node *node)
{
	if (!node)
		return "?column?";
	switch (nodeTag(node)) {
	case T_ColumnRef: {
		const ColumnRef *r = (const ColumnRef *)node;
		const char *last = list_length(r->fields) > 0 ? string_value(llast(r->fields)) : NULL;
		return last ? last : "?column?";
	}
	case T_FuncCall: {
		const FuncCall *fc = (const FuncCall *)node;
		const char *last = list_length(fc->funcname) > 0 ? string_value(llast(fc->funcname)) : NULL;
		return last ? last : "?column?";
	}
	case T_A_Indirection: {
		const A_Indirection *i = (const A_Indirection *)node;
		const char *last = list_length(i->indirection) > 0 ? string_value(llast(i->indirection)) : NULL;
		return last ? last : column_name(i->arg);
	}
	case T_TypeCast: {
		const TypeCast *tc = (const TypeCast *)node;
		const char *inner = column_name(tc->arg);
		if (strcmp(inner, "?column?") != 0)
			return inner;
		const TypeName *t = tc->typeName;
		const char *last = t && list_length(t->names) > 0 ? string_value(llast(t->names)) : NULL;
		return last ? last : "?column?";
	}
	case T_CaseExpr:
		return "case";
	case T_A_ArrayExpr:
		return "array";
	case T_CoalesceExpr:
		return "coalesce";
	case T_RowExpr:
		return "row";
	case T_MinMaxExpr:
		return ((const MinMaxExpr *)node)->op == IS_GREATEST ? "greatest" : "least";
	case T_A_Expr:
		return ((const A_Expr *)node)->kind == AEXPR_NULLIF ? "nullif" : "?column?";
	case T_SubLink: {
		const SubLink *sl = (const SubLink *)node;
		if (sl->subLinkType == EXISTS_SUBLINK)
			return "exists";
		if (sl->subLinkType == ARRAY_SUBLINK)
			return "array";
		const SelectStmt *s = (const SelectStmt *)sl->subselect;
		if (sl->subLinkType == EXPR_SUBLINK && s && IsA(s, SelectStmt) && list_length(s->targetList) >= 1) {
			const ResTarget *t = linitial(s->targetList);
			if (IsA(t, ResTarget))
				return t->name ? t->name : column_name(t->val);
		}
		return "?column?";
	}
	default:
		return "?column?";
	}
}

/* The columns of a target list (a SELECT's, a RETURNING list) into item,
 * each typed in w->scope. */
static void target_columns(walker *w, const List *targets, cgm_scope_item *item)
{
	int n = list_length(targets);
	item->ncolumns = n;
	item->colnames = cgm_arena_alloc(w->v->arena, sizeof(char *) * (size_t)(n + 1));
	item->colexprs = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *) * (size_t)(n + 1));
	int i = 0;
	const ListCell *lc;
	foreach (lc, targets) {
		const ResTarget *t = lfirst(lc);
		if (IsA(t, ResTarget)) {
			item->colexprs[i] = build_expr(w, t->val);
			if (item->colexprs[i] && item->colexprs[i]->kind == CGM_EXPR_STAR)
				item->colnames[i] = NULL;
			else
				item->colnames[i] = keep(w, t->name ? t->name : column_name(t->val));
		}
		i++;
	}
}

static void returning_columns(walker *w, const Node *query, cgm_scope_item *item);

/* The columns a query yields (its first SELECT of a set operation, the
 * first row of VALUES, a data-modifying statement's RETURNING list), each
 * typed in the query's own scope. */
static void query_columns(walker *w, const Node *query, cgm_scope_item *item)
{
	if (query && (IsA(query, InsertStmt) || IsA(query, UpdateStmt) || IsA(query, DeleteStmt))) {
		returning_columns(w, query, item);
		return;
	}
	const SelectStmt *s = (const SelectStmt *)query;
	if (!s || !IsA(s, SelectStmt))
		return;
	const cte_frame *saved_ctes = w->ctes;
	const cgm_scope *saved = w->scope;
	while (s->op != SETOP_NONE && s->larg) {
		/* WITH on the set operation: visible to its arms. */
		s = s->larg;
	}
	w->scope = build_scope(w, s, saved);
	if (s->valuesLists) {
		const List *row = linitial(s->valuesLists);
		item->ncolumns = list_length(row);
		item->colnames = cgm_arena_alloc(w->v->arena, sizeof(char *) * (size_t)(item->ncolumns + 1));
		item->colexprs = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *) * (size_t)(item->ncolumns + 1));
		for (int i = 0; i < item->ncolumns; i++) {
			item->colnames[i] = cgm_arena_printf(w->v->arena, "column%d", i + 1);
			item->colexprs[i] = build_expr(w, list_nth(row, i));
		}
	} else {
		target_columns(w, s->targetList, item);
	}
	w->scope = saved;
	w->ctes = saved_ctes;
}

/* An alias's column list renames the first columns. */
static void apply_alias(walker *w, cgm_scope_item *it, const Alias *alias)
{
	if (!alias)
		return;
	it->alias = keep(w, alias->aliasname);
	int n = list_length(alias->colnames);
	if (n == 0)
		return;
	if (it->colexprs) {
		for (int i = 0; i < n && i < it->ncolumns; i++)
			it->colnames[i] = keep(w, string_value(list_nth(alias->colnames, i)));
		return;
	}
	it->ncolumns = n;
	it->colnames = cgm_arena_alloc(w->v->arena, sizeof(char *) * (size_t)n);
	for (int i = 0; i < n; i++)
		it->colnames[i] = keep(w, string_value(list_nth(alias->colnames, i)));
}

static const cgm_scope_item *find_cte(const walker *w, const char *name)
{
	for (const cte_frame *f = w->ctes; f; f = f->parent)
		for (int i = 0; i < f->n; i++)
			if (strcmp(f->names[i], name) == 0)
				return &f->items[i];
	return NULL;
}

typedef struct item_list {
	cgm_scope_item *items;
	int n, cap;
} item_list;

static cgm_scope_item *add_item(walker *w, item_list *l)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 4;
		l->items = cgm_arena_grow(w->v->arena, l->items, (size_t)l->n, (size_t)cap, sizeof(cgm_scope_item));
		l->cap = cap;
	}
	return &l->items[l->n++];
}

/* An item that may hold any column: what it yields is not known. */
static void opaque_item(walker *w, item_list *l, const Alias *alias)
{
	cgm_scope_item *it = add_item(w, l);
	it->ncolumns = -1;
	if (alias)
		it->alias = keep(w, alias->aliasname);
}

static void from_item(walker *w, item_list *l, const Node *node)
{
	if (!node)
		return;
	switch (nodeTag(node)) {
	case T_RangeVar: {
		const RangeVar *rv = (const RangeVar *)node;
		const cgm_scope_item *cte = rv->schemaname ? NULL : find_cte(w, rv->relname);
		cgm_scope_item *it = add_item(w, l);
		if (cte) {
			*it = *cte;
			if (cte->colnames) {
				it->colnames = cgm_arena_alloc(w->v->arena, sizeof(char *) * (size_t)(cte->ncolumns + 1));
				memcpy(it->colnames, cte->colnames, sizeof(char *) * (size_t)cte->ncolumns);
			}
		} else {
			it->schema = keep(w, rv->schemaname);
			it->name = keep(w, rv->relname);
		}
		it->alias = cte ? cte->alias : it->name;
		apply_alias(w, it, rv->alias);
		return;
	}
	case T_RangeSubselect: {
		const RangeSubselect *rs = (const RangeSubselect *)node;
		cgm_scope_item *it = add_item(w, l);
		cgm_scope_item cols = { 0 };
		query_columns(w, rs->subquery, &cols);
		*it = cols;
		if (!it->colexprs)
			it->ncolumns = -1;
		apply_alias(w, it, rs->alias);
		return;
	}
	case T_RangeFunction: {
		const RangeFunction *rf = (const RangeFunction *)node;
		const List *first = list_length(rf->functions) == 1 ? linitial(rf->functions) : NULL;
		const Node *call = first && IsA(first, List) && list_length(first) >= 1 ? linitial(first) : NULL;
		const char *fname = call && IsA(call, FuncCall) && list_length(((const FuncCall *)call)->funcname) > 0
					    ? string_value(llast(((const FuncCall *)call)->funcname))
					    : NULL;
		/* unnest(a, b) in FROM is ROWS FROM (unnest(a), unnest(b)): columns of its own. */
		bool multi_unnest = fname && strcmp(fname, "unnest") == 0 &&
				    list_length(((const FuncCall *)call)->args) > 1;
		if (!call || !IsA(call, FuncCall) || rf->ordinality || rf->is_rowsfrom ||
		    (list_length(first) >= 2 && lsecond(first)) || multi_unnest) {
			opaque_item(w, l, rf->alias);
			return;
		}
		cgm_scope_item *it = add_item(w, l);
		it->func = build_call(w, (const FuncCall *)call);
		it->alias = it->func->name;
		it->ncolumns = 1;
		it->colnames = cgm_arena_alloc(w->v->arena, sizeof(char *));
		it->colnames[0] = it->func->name;
		if (rf->alias) {
			it->alias = keep(w, rf->alias->aliasname);
			it->colnames[0] = it->alias;
			if (list_length(rf->alias->colnames) > 0) {
				it->ncolumns = 0;
				apply_alias(w, it, rf->alias);
				it->renamed = true;
			}
		}
		if (rf->coldeflist)
			it->ncolumns = -1; /* a record's column definition list: not typed here */
		return;
	}
	case T_JoinExpr: {
		/* Joins nest left-deep: past the walker's own bound the rest is
		 * one item of unknown columns, which may hold any name. */
		const JoinExpr *j = (const JoinExpr *)node;
		if (w->expr_depth >= CGM_MAX_NESTING) {
			opaque_item(w, l, NULL);
			return;
		}
		w->expr_depth++;
		from_item(w, l, j->larg);
		from_item(w, l, j->rarg);
		w->expr_depth--;
		return;
	}
	default:
		opaque_item(w, l, NULL);
		return;
	}
}

/* The CTEs of a WITH clause, visible from here on. */
static void push_ctes(walker *w, const WithClause *with)
{
	if (!with)
		return;
	cte_frame *f = cgm_arena_alloc(w->v->arena, sizeof(cte_frame));
	f->parent = w->ctes;
	int n = list_length(with->ctes);
	f->names = cgm_arena_alloc(w->v->arena, sizeof(char *) * (size_t)(n ? n : 1));
	f->items = cgm_arena_alloc(w->v->arena, sizeof(cgm_scope_item) * (size_t)(n ? n : 1));
	const ListCell *lc;
	foreach (lc, with->ctes) {
		const CommonTableExpr *c = lfirst(lc);
		if (!IsA(c, CommonTableExpr))
			continue;
		cgm_scope_item *it = &f->items[f->n];
		query_columns(w, c->ctequery, it);
		if (!it->colexprs)
			it->ncolumns = -1;
		it->alias = keep(w, c->ctename);
		int k = 0;
		const ListCell *nc;
		foreach (nc, c->aliascolnames)
			if (it->colnames && k < it->ncolumns)
				it->colnames[k++] = keep(w, string_value(lfirst(nc)));
		f->names[f->n++] = it->alias;
		/* Later CTEs see the earlier ones. */
		w->ctes = f;
	}
	w->ctes = f;
}

static const cgm_scope *make_scope(walker *w, item_list *l, const cgm_scope *parent)
{
	if (l->n == 0)
		return parent;
	cgm_scope *scope = cgm_arena_alloc(w->v->arena, sizeof(cgm_scope));
	scope->parent = parent;
	scope->nitems = l->n;
	scope->items = l->items;
	return scope;
}

/* The scope of one SELECT: its FROM items over the enclosing query's.
 * Pushes its WITH clause's CTEs (the caller restores w->ctes). */
static const cgm_scope *build_scope(walker *w, const SelectStmt *s, const cgm_scope *parent)
{
	push_ctes(w, s->withClause);
	item_list l = { 0 };
	const ListCell *lc;
	foreach (lc, s->fromClause)
		from_item(w, &l, lfirst(lc));
	return make_scope(w, &l, parent);
}

/* The scope of an UPDATE, DELETE or MERGE: its target and its FROM, USING
 * or source. */
static const cgm_scope *dml_scope(walker *w, const RangeVar *target, const List *from,
				  const WithClause *with)
{
	push_ctes(w, with);
	item_list l = { 0 };
	from_item(w, &l, (const Node *)target);
	const ListCell *lc;
	foreach (lc, from)
		from_item(w, &l, lfirst(lc));
	return make_scope(w, &l, w->scope);
}

/* The scope of an INSERT, for its CTEs: the enclosing one, with
 * the WITH clause's CTEs visible to the query and to each other (the
 * caller restores w->ctes).  So in `WITH c AS (...) INSERT ... SELECT
 * f(c.x) FROM c`, c.x has the type of the CTE's column. */
static const cgm_scope *with_scope(walker *w, const WithClause *with)
{
	push_ctes(w, with);
	return w->scope;
}

/* The columns of a data-modifying CTE, `WITH c AS (DELETE ... RETURNING
 * x)`: its RETURNING list, typed as PostgreSQL types it, over the target
 * (by its alias) and an UPDATE's FROM or a DELETE's USING, never an
 * INSERT's query.  Without RETURNING it has no columns. */
static void returning_columns(walker *w, const Node *query, cgm_scope_item *item)
{
	const RangeVar *target;
	const List *from = NIL, *returning;
	const WithClause *with;
	if (IsA(query, InsertStmt)) {
		const InsertStmt *s = (const InsertStmt *)query;
		target = s->relation, returning = s->returningList, with = s->withClause;
	} else if (IsA(query, UpdateStmt)) {
		const UpdateStmt *s = (const UpdateStmt *)query;
		target = s->relation, from = s->fromClause, returning = s->returningList, with = s->withClause;
	} else {
		const DeleteStmt *s = (const DeleteStmt *)query;
		target = s->relation, from = s->usingClause, returning = s->returningList, with = s->withClause;
	}
	const cte_frame *saved_ctes = w->ctes;
	const cgm_scope *saved = w->scope;
	w->scope = dml_scope(w, target, from, with);
	target_columns(w, returning, item);
	w->scope = saved;
	w->ctes = saved_ctes;
}

static void report_call(walker *w, const FuncCall *fc, bool call_stmt)
{
	int n = list_length(fc->funcname);
	const char *name = n > 0 ? string_value(llast(fc->funcname)) : NULL;
	if (!name)
		return;
	cgm_raw_call call = { 0 };
	call.name = name;
	call.schema = n >= 2 ? string_value(list_nth(fc->funcname, n - 2)) : NULL;
	call.location = fc->location;
	call.variadic = fc->func_variadic;
	call.call_stmt = call_stmt;
	call.nargs = list_length(fc->args);
	if (call.nargs > 0) {
		cgm_raw_arg *args = palloc0(sizeof(cgm_raw_arg) * (size_t)call.nargs);
		int i = 0;
		const ListCell *lc;
		w->shape_stop = w->depth + 1 + CALL_SHAPE_DEPTH;
		foreach (lc, fc->args)
			args[i++] = *arg_shape(w, lfirst(lc), NULL, w->depth + 1);
		call.args = args;
		if (w->v->arena)
			call.argexprs = build_args(w, fc->args, NULL);
	}
	w->v->call(w->v->ctx, &call);
}

/* ---- attribute notation --------------------------------------------- */

/* What `alias` names in the FROM scope being walked, the innermost match
 * first as PostgreSQL looks it up: a relation (a table or a view), whose
 * `alias.name` may be a call of name(alias), which resolution checks
 * against the relation's columns; another item (a subquery, a CTE, a
 * function), whose row cgmap does not check; or nothing: a SQL function's
 * parameter, or a PL/pgSQL variable. */
typedef enum { NAMES_NOTHING, NAMES_RELATION, NAMES_OTHER } alias_names;

static alias_names alias_named(const walker *w, const char *alias)
{
	for (const cgm_scope *s = w->scope; s; s = s->parent)
		for (int i = 0; i < s->nitems; i++) {
			const cgm_scope_item *it = &s->items[i];
			if (it->alias && strcmp(it->alias, alias) == 0)
				return it->name && !it->colexprs && !it->func ? NAMES_RELATION : NAMES_OTHER;
		}
	return NAMES_NOTHING;
}

/* `row.name` or `(row).name`, reported as a call of name(row) for
 * resolution to keep or drop (rawtree.h). */
static void report_attribute(walker *w, const cgm_expr *row, const char *name, int location,
			     bool unscoped)
{
	cgm_raw_arg *arg = palloc0(sizeof(cgm_raw_arg));
	arg->kind = CGM_RAW_ARG_OTHER;
	const cgm_expr **exprs = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *));
	exprs[0] = row;
	cgm_raw_call call = { .name = name, .location = location, .nargs = 1, .args = arg,
			      .argexprs = exprs, .attribute = true, .unscoped = unscoped };
	w->v->call(w->v->ctx, &call);
}

static void report_column_attribute(walker *w, const ColumnRef *r)
{
	if (!w->v->arena || list_length(r->fields) != 2)
		return;
	const char *alias = string_value(linitial(r->fields));
	const char *name = string_value(lsecond(r->fields));
	alias_names named = alias && name ? alias_named(w, alias) : NAMES_OTHER;
	if (named == NAMES_OTHER)
		return;
	cgm_expr *row = new_expr(w, CGM_EXPR_NAME);
	row->nnames = 1;
	row->names = cgm_arena_alloc(w->v->arena, sizeof(char *));
	row->names[0] = keep(w, alias);
	row->scope = w->scope;
	report_attribute(w, row, name, r->location, named == NAMES_NOTHING);
}

/* `(x).name` of a one-part name x (a FROM item's row or a variable), of
 * a parameter `$n` or of a call. */
static void report_field_attribute(walker *w, const A_Indirection *ind)
{
	if (!w->v->arena || list_length(ind->indirection) != 1 || !IsA(linitial(ind->indirection), String))
		return;
	const Node *arg = ind->arg;
	int location;
	if (IsA(arg, ColumnRef) && list_length(((const ColumnRef *)arg)->fields) == 1 &&
	    string_value(linitial(((const ColumnRef *)arg)->fields)))
		location = ((const ColumnRef *)arg)->location;
	else if (IsA(arg, ParamRef))
		location = ((const ParamRef *)arg)->location;
	else if (IsA(arg, FuncCall))
		location = ((const FuncCall *)arg)->location;
	else
		return;
	report_attribute(w, build_expr(w, arg), strVal(linitial(ind->indirection)), location, false);
}

/* ---- operators and casts -------------------------------------------- */

static void report_operands(walker *w, const cgm_raw_operator *op, const Node *lexpr,
			    const Node *right, const Node *right2);

/* A ROW(...) constructor, or (with `cast`) one cast to a composite type. */
static bool row_constructor(const Node *n, bool cast)
{
	if (n && cast && IsA(n, TypeCast))
		n = ((const TypeCast *)n)->arg;
	return n && IsA(n, RowExpr);
}

/* An A_Expr that runs operators (not AND/OR, IS OF, ...), to the visitor. */
static void report_operator(walker *w, const A_Expr *e)
{
	if (!w->v->op)
		return;
	int n = list_length(e->name);
	cgm_raw_operator op = { 0 };
	op.name = n > 0 ? string_value(llast(e->name)) : NULL;
	op.schema = n >= 2 ? string_value(list_nth(e->name, n - 2)) : NULL;
	op.location = e->location;
	if (!op.name)
		return;
	const Node *right = e->rexpr, *right2 = NULL;
	/* ROW(...) op ROW(...) compares field by field with each field's own
	 * operator (make_row_comparison_op, make_row_distinct_op): never the
	 * rows' type's.  IS [NOT] DISTINCT FROM looks once the operands are
	 * transformed, when ROW(...)::t is a row constructor still. */
	bool distinct = e->kind == AEXPR_DISTINCT || e->kind == AEXPR_NOT_DISTINCT;
	if ((e->kind == AEXPR_OP || distinct) && row_constructor(e->lexpr, distinct) &&
	    row_constructor(e->rexpr, distinct))
		return;
	switch (e->kind) {
	case AEXPR_OP:
	case AEXPR_DISTINCT:
	case AEXPR_NOT_DISTINCT:
	case AEXPR_NULLIF:
	case AEXPR_LIKE:
	case AEXPR_ILIKE:
	case AEXPR_SIMILAR:
		op.kind = CGM_RAW_OP;
		break;
	case AEXPR_OP_ANY:
	case AEXPR_OP_ALL:
		op.kind = CGM_RAW_OP_ANY_ALL;
		break;
	case AEXPR_IN:
		op.kind = CGM_RAW_OP_IN;
		right = right && IsA(right, List) && list_length((const List *)right) > 0
				? linitial((const List *)right)
				: NULL;
		break;
	case AEXPR_BETWEEN:
	case AEXPR_BETWEEN_SYM:
	case AEXPR_NOT_BETWEEN:
	case AEXPR_NOT_BETWEEN_SYM:
		op.kind = e->kind == AEXPR_BETWEEN || e->kind == AEXPR_BETWEEN_SYM ? CGM_RAW_OP_BETWEEN
										  : CGM_RAW_OP_NOT_BETWEEN;
		if (!right || !IsA(right, List) || list_length((const List *)right) != 2)
			return;
		right2 = lsecond((const List *)right);
		right = linitial((const List *)right);
		break;
	default:
		return;
	}
	report_operands(w, &op, e->lexpr, right, right2);
}

/* `CASE x WHEN v THEN ...`: PostgreSQL compares x = v with the `=` the
 * two types select (transformCaseExpr), a user's operator as much as a
 * builtin one. */
static void report_case_operators(walker *w, const CaseExpr *c)
{
	if (!w->v->op || !c->arg)
		return;
	const ListCell *lc;
	foreach (lc, c->args) {
		const Node *when = lfirst(lc);
		if (!when || !IsA(when, CaseWhen) || !((const CaseWhen *)when)->expr)
			continue;
		cgm_raw_operator op = { .name = "=", .kind = CGM_RAW_OP,
					.location = ((const CaseWhen *)when)->location };
		report_operands(w, &op, (const Node *)c->arg, (const Node *)((const CaseWhen *)when)->expr, NULL);
	}
}

/* The operands of an operator, shaped (and given trees when the parser
 * cannot type them), then the operator to the visitor. */
static void report_operands(walker *w, const cgm_raw_operator *opp, const Node *lexpr,
			    const Node *right, const Node *right2)
{
	cgm_raw_operator op = *opp;
	w->shape_stop = w->depth + 1 + OPERAND_SHAPE_DEPTH;
	cgm_raw_arg *left = lexpr ? arg_shape(w, lexpr, NULL, w->depth + 1) : NULL;
	cgm_raw_arg *right_arg = arg_shape(w, right, NULL, w->depth + 1);
	cgm_raw_arg *right2_arg = right2 ? arg_shape(w, right2, NULL, w->depth + 1) : NULL;
	/* An operand the parser cannot type (a call, a subexpression) gets its
	 * tree, so resolution can type it from the catalog: `p - mk(2)` and
	 * `hstore(OLD) - hstore(NEW)` run a user's operator that only the
	 * calls' result types tell. */
	if (w->v->arena) {
		if (left && left->kind == CGM_RAW_ARG_OTHER)
			left->expr = build_expr(w, lexpr);
		if (right_arg->kind == CGM_RAW_ARG_OTHER)
			right_arg->expr = build_expr(w, right);
		if (right2_arg && right2_arg->kind == CGM_RAW_ARG_OTHER)
			right2_arg->expr = build_expr(w, right2);
	}
	op.left = left;
	op.right = right_arg;
	op.right2 = right2_arg;
	w->v->op(w->v->ctx, &op);
}

static void report_cast(walker *w, const TypeCast *tc)
{
	if (!w->v->cast)
		return;
	int location = tc->location >= 0 ? tc->location : tc->typeName ? tc->typeName->location : -1;
	w->shape_stop = w->depth + 1 + OPERAND_SHAPE_DEPTH;
	cgm_raw_arg *value = arg_shape(w, tc->arg, NULL, w->depth + 1);
	if (tc->arg && IsA(tc->arg, RowExpr)) {
		/* ROW(...)::t builds the row type: a record, which no cast takes. */
		value->kind = CGM_RAW_ARG_CAST;
		value->type_name = "record";
	}
	if (w->v->arena && value->kind == CGM_RAW_ARG_OTHER && tc->arg)
		value->expr = build_expr(w, tc->arg);
	w->v->cast(w->v->ctx, arg_shape(w, (const Node *)tc, NULL, w->depth + 1), value, location);
}

/* ---- relations read and written -------------------------------------- */

/* The names of a list of ResTarget (an INSERT's columns, an UPDATE's SET),
 * or NULL when one has none; *n their count. */
static const char **target_names(const List *targets, int *n)
{
	*n = list_length(targets);
	if (*n == 0)
		return NULL;
	const char **names = palloc0(sizeof(char *) * (size_t)*n);
	int i = 0;
	const ListCell *lc;
	foreach (lc, targets) {
		const Node *t = lfirst(lc);
		if (!t || !IsA(t, ResTarget) || !((const ResTarget *)t)->name) {
			*n = 0;
			return NULL;
		}
		names[i++] = ((const ResTarget *)t)->name;
	}
	return names;
}

/* `ONLY t` on a statement that would reach t's children: they stay out. */
static unsigned with_only(const RangeVar *rel, unsigned events)
{
	if (!rel->inh && (events & (CGM_EV_UPDATE | CGM_EV_DELETE | CGM_EV_TRUNCATE)))
		events |= CGM_EV_ONLY;
	return events;
}

/* How many columns an INSERT without a column list gives, from its
 * VALUES rows or its SELECT's list (0 when a star or a set operation
 * leaves it unknown): the table's first ones, in order. */
static int leading_columns(const Node *query)
{
	const SelectStmt *s = (const SelectStmt *)query;
	if (!s || !IsA(s, SelectStmt) || s->op != SETOP_NONE)
		return 0;
	if (s->valuesLists)
		return list_length(linitial(s->valuesLists));
	const ListCell *lc;
	foreach (lc, s->targetList) {
		const ResTarget *t = lfirst(lc);
		if (!t || !IsA(t, ResTarget) || !t->val ||
		    (IsA(t->val, ColumnRef) &&
		     IsA(llast(((const ColumnRef *)t->val)->fields), A_Star)))
			return 0;
	}
	return list_length(s->targetList);
}

static void report_relation_values(walker *w, const RangeVar *rel, unsigned events,
				   const List *cols, const cgm_expr *const *values, int nleading)
{
	if (!rel || !rel->relname || !events)
		return;
	events = with_only(rel, events);
	cgm_raw_relation r = { .schema = rel->schemaname, .name = rel->relname,
			       .location = rel->location, .events = events, .nleading = nleading };
	r.columns = target_names(cols, &r.ncolumns);
	r.values = r.ncolumns > 0 ? values : NULL;
	w->v->relation(w->v->ctx, &r);
}

static void report_relation(walker *w, const RangeVar *rel, unsigned events, const List *cols)
{
	if (!rel || !rel->relname || !events)
		return;
	events = with_only(rel, events);
	cgm_raw_relation r = { .schema = rel->schemaname, .name = rel->relname,
			       .location = rel->location, .events = events };
	r.columns = target_names(cols, &r.ncolumns);
	w->v->relation(w->v->ctx, &r);
}

/* The values an INSERT (`query`: its VALUES or SELECT) or an UPDATE
 * (`targets`: its SET list, built in the statement's scope) gives the
 * columns it names, for the casts storing them may run (coerce.h). */
static const cgm_expr *const *column_values(walker *w, const List *cols, const Node *query,
					    const List *targets)
{
	int n = list_length(cols);
	if (!w->v->arena || w->v->no_coercion_values || n == 0)
		return NULL;
	const cgm_expr **out = cgm_arena_alloc(w->v->arena, sizeof(cgm_expr *) * (size_t)n);
	memset(out, 0, sizeof(cgm_expr *) * (size_t)n);
	bool any = false;
	if (targets) {
		int i = 0;
		const ListCell *lc;
		foreach (lc, targets) {
			const ResTarget *t = lfirst(lc);
			if (i < n && t && IsA(t, ResTarget) && t->val && t->indirection == NIL &&
			    !IsA(t->val, MultiAssignRef)) {
				out[i] = build_expr(w, t->val);
				any = true;
			}
			i++;
		}
		return any ? out : NULL;
	}
	const SelectStmt *s = (const SelectStmt *)query;
	if (!s || !IsA(s, SelectStmt) || s->op != SETOP_NONE ||
	    (s->valuesLists && list_length(s->valuesLists) != 1))
		return NULL;
	cgm_scope_item cols_of = { 0 };
	query_columns(w, query, &cols_of);
	for (int i = 0; i < n && i < cols_of.ncolumns; i++) {
		const ResTarget *t = list_nth(cols, i);
		if (t && IsA(t, ResTarget) && t->indirection == NIL && cols_of.colexprs &&
		    cols_of.colexprs[i] && cols_of.colexprs[i]->kind != CGM_EXPR_STAR) {
			out[i] = cols_of.colexprs[i];
			any = true;
		}
	}
	return any ? out : NULL;
}

static void report_dml(walker *w, const RangeVar *rel, unsigned events)
{
	report_relation(w, rel, events, NIL);
}

static bool is_cte(const walker *w, const RangeVar *rel)
{
	if (rel->schemaname || rel->catalogname)
		return false;
	for (int i = w->ncte_names - 1; i >= 0; i--)
		if (strcmp(w->cte_names[i], rel->relname) == 0)
			return true;
	return false;
}

/* ---- the columns a statement reads ------------------------------------ */

static void quiet_call(void *ctx, const cgm_raw_call *call) { (void)ctx; (void)call; }
static void quiet_relation(void *ctx, const cgm_raw_relation *rel) { (void)ctx; (void)rel; }

/* Most column references of one statement kept: past it, every column of
 * its FROM items is taken as read. */
#define MAX_COLUMN_REFS 1024

/* The column references of one statement (its subqueries' too), for the
 * columns of each FROM item it may read; `all` when that cannot be told. */
typedef struct col_refs {
	const ColumnRef *refs[MAX_COLUMN_REFS];
	int n;
	const List *using_names[64]; /* JOIN ... USING (...) lists */
	int nusing;
	bool all;
} col_refs;

static void note_column_ref(col_refs *c, const ColumnRef *r)
{
	if (c->n < MAX_COLUMN_REFS)
		c->refs[c->n++] = r;
	else
		c->all = true;
}

/* NATURAL joins and USING lists of a FROM list: a NATURAL join reads the
 * columns its sides share, which the parser does not know. */
static void note_joins(col_refs *c, const Node *item, int depth)
{
	if (!item || depth > CGM_MAX_NESTING) {
		c->all |= item != NULL;
		return;
	}
	if (IsA(item, List)) {
		const ListCell *lc;
		foreach (lc, (const List *)item)
			note_joins(c, lfirst(lc), depth + 1);
	} else if (IsA(item, JoinExpr)) {
		const JoinExpr *j = (const JoinExpr *)item;
		if (j->isNatural)
			c->all = true;
		if (j->usingClause) {
			if (c->nusing < 64)
				c->using_names[c->nusing++] = j->usingClause;
			else
				c->all = true;
		}
		note_joins(c, j->larg, depth + 1);
		note_joins(c, j->rarg, depth + 1);
	}
}

static bool walk_statement(walker *w, const Node *node);

/* The column references of statement `node` whose FROM items are `from`,
 * collected by a walk that reports nothing (as ctes_run does); false when
 * they cannot be told (a node the walker does not know, too deep). */
static bool stmt_refs(walker *w, const Node *node, const Node *from, col_refs *out)
{
	static const cgm_raw_visitor quiet = { .call = quiet_call, .relation = quiet_relation };
	walker sub = { .v = &quiet, .cols = out, .depth = w->depth };
	note_joins(out, from, 0);
	return walk_statement(&sub, node) && !sub.too_deep && !out->all;
}

static bool name_in(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* The columns of FROM item `rel` the statement whose references `c` holds
 * may read (palloc'd), or NULL when all or unknown: every reference
 * qualified by the item's alias (its name when it has none), and every
 * unqualified one, whichever item it belongs to; `*`, `alias.*` and a bare
 * `alias` (a whole row, or a column of that name) read all. */
static const char *const *item_reads(const col_refs *c, const RangeVar *rel, int *n)
{
	*n = 0;
	if (!c || c->all)
		return NULL;
	const char *alias = rel->alias && rel->alias->aliasname ? rel->alias->aliasname : rel->relname;
	int cap = c->n + 1;
	for (int u = 0; u < c->nusing; u++)
		cap += list_length(c->using_names[u]);
	const char **out = palloc(sizeof(char *) * (size_t)cap);
	for (int u = 0; u < c->nusing; u++) {
		const ListCell *lc;
		foreach (lc, c->using_names[u]) {
			const char *name = string_value(lfirst(lc));
			if (name && !name_in(out, *n, name))
				out[(*n)++] = name;
		}
	}
	for (int i = 0; i < c->n; i++) {
		const List *f = c->refs[i]->fields;
		int nf = list_length(f);
		const Node *last = nf > 0 ? llast(f) : NULL;
		const char *first = nf > 0 ? string_value(linitial(f)) : NULL;
		if (!last || IsA(last, A_Star)) {
			/* `*` reads every item; `q.*` the item q names (a schema-
			 * qualified `s.t.*` included). */
			const char *q = nf >= 2 ? string_value(list_nth(f, nf - 2)) : NULL;
			if (nf == 1 || !q || strcmp(q, alias) == 0)
				return NULL;
			continue;
		}
		if (nf == 1) {
			if (!first)
				continue;
			if (strcmp(first, alias) == 0)
				return NULL; /* the whole row (or a column of its name) */
			if (!name_in(out, *n, first))
				out[(*n)++] = first;
			continue;
		}
		/* `q.c`, `s.q.c`: the item's column c when q is its alias; `c.f`
		 * may also be column c's field f: c counts too.  Every name but
		 * the alias is kept (a name that is no column reads nothing). */
		bool mine = false;
		for (int k = 0; k + 1 < nf; k++) {
			const char *part = string_value(list_nth(f, k));
			if (part && strcmp(part, alias) == 0)
				mine = true;
		}
		const char *col = mine ? string_value(last) : first;
		if (mine) {
			for (int k = 0; k < nf; k++) {
				const char *part = string_value(list_nth(f, k));
				if (part && strcmp(part, alias) == 0) {
					col = k + 1 < nf ? string_value(list_nth(f, k + 1)) : NULL;
					break;
				}
			}
		}
		if (col && !name_in(out, *n, col))
			out[(*n)++] = col;
	}
	return out;
}

static void report_read(walker *w, const RangeVar *rel)
{
	if (!rel || !rel->relname)
		return;
	cgm_raw_relation r = { .schema = rel->schemaname, .name = rel->relname,
			       .location = rel->location, .events = CGM_EV_SELECT };
	if (!w->cols && !w->reads)
		r.reads = item_reads(w->stmt_cols, rel, &r.nreads);
	w->v->relation(w->v->ctx, &r);
}

/* The relations a FROM list (or USING, or MERGE's source) reads; the
 * subqueries in it are statements of their own, walked as such.  Joins nest
 * left-deep: past CGM_MAX_NESTING levels the walker is told (too_deep). */
static void report_reads_at(walker *w, const Node *item, int depth)
{
	if (!item)
		return;
	if (depth > CGM_MAX_NESTING) {
		w->too_deep = true;
		return;
	}
	switch (nodeTag(item)) {
	case T_List: {
		const ListCell *lc;
		foreach (lc, (const List *)item)
			report_reads_at(w, lfirst(lc), depth + 1);
		break;
	}
	case T_RangeVar:
		if (!is_cte(w, (const RangeVar *)item))
			report_read(w, (const RangeVar *)item);
		break;
	case T_JoinExpr:
		report_reads_at(w, ((const JoinExpr *)item)->larg, depth + 1);
		report_reads_at(w, ((const JoinExpr *)item)->rarg, depth + 1);
		break;
	case T_RangeTableSample:
		report_reads_at(w, ((const RangeTableSample *)item)->relation, depth + 1);
		break;
	default:
		break;
	}
}

static void report_reads(walker *w, const Node *item)
{
	report_reads_at(w, item, w->depth + 1);
}

/* A statement with its CTEs in scope and the relations it reads reported,
 * then walked as walk_statement does. */
static bool walk_statement(walker *w, const Node *node);

static bool walk_statement_scoped(walker *w, const Node *node)
{
	const WithClause *with = NULL;
	const Node *reads = NULL;
	switch (nodeTag(node)) {
	case T_SelectStmt:
		with = ((const SelectStmt *)node)->withClause;
		reads = (const Node *)((const SelectStmt *)node)->fromClause;
		break;
	case T_InsertStmt:
		with = ((const InsertStmt *)node)->withClause;
		break;
	case T_UpdateStmt:
		with = ((const UpdateStmt *)node)->withClause;
		reads = (const Node *)((const UpdateStmt *)node)->fromClause;
		break;
	case T_DeleteStmt:
		with = ((const DeleteStmt *)node)->withClause;
		reads = (const Node *)((const DeleteStmt *)node)->usingClause;
		break;
	case T_MergeStmt:
		with = ((const MergeStmt *)node)->withClause;
		reads = ((const MergeStmt *)node)->sourceRelation;
		break;
	default:
		return walk_statement(w, node);
	}
	int saved = w->ncte_names;
	const ListCell *lc;
	if (with)
		foreach (lc, with->ctes) {
			const Node *c = lfirst(lc);
			if (c && IsA(c, CommonTableExpr) && ((const CommonTableExpr *)c)->ctename &&
			    w->ncte_names < MAX_CTES)
				w->cte_names[w->ncte_names++] = ((const CommonTableExpr *)c)->ctename;
		}
	/* The columns the statement reads of each FROM item: its column
	 * references, found by a walk of their own (not while one runs). */
	const col_refs *saved_cols = w->stmt_cols;
	col_refs *refs = NULL;
	if (reads && !w->cols && !w->reads) {
		refs = palloc0(sizeof(col_refs));
		if (!stmt_refs(w, node, reads, refs)) {
			pfree(refs);
			refs = NULL;
		}
	}
	w->stmt_cols = refs;
	report_reads(w, reads);
	w->stmt_cols = saved_cols;
	if (refs)
		pfree(refs);
	bool ok = walk_statement(w, node);
	w->ncte_names = saved;
	return ok;
}

static unsigned merge_events(const MergeStmt *m)
{
	unsigned ev = 0;
	const ListCell *lc;
	foreach (lc, m->mergeWhenClauses) {
		const Node *c = lfirst(lc);
		if (!c || !IsA(c, MergeWhenClause))
			continue;
		switch (((const MergeWhenClause *)c)->commandType) {
		case CMD_INSERT:
			ev |= CGM_EV_INSERT;
			break;
		case CMD_UPDATE:
			ev |= CGM_EV_UPDATE;
			break;
		case CMD_DELETE:
			ev |= CGM_EV_DELETE;
			break;
		default:
			break;
		}
	}
	return ev;
}

/* ---- the walk --------------------------------------------------------- */

int cgm_raw_bool_literal(const char *v)
{
	if (!v)
		return -1;
	if (strcasecmp(v, "t") == 0 || strcasecmp(v, "true") == 0)
		return 1;
	if (strcasecmp(v, "f") == 0 || strcasecmp(v, "false") == 0)
		return 0;
	return -1;
}

/* A boolean expression PostgreSQL's planner folds to a constant
 * (eval_const_expressions): 1 true, 0 false, -1 not a constant.  `false
 * AND x` and `true OR x` are constants whatever x is: x never runs. */
static int const_bool(const Node *n, int depth)
{
	if (!n || depth > 64)
		return -1;
	if (IsA(n, A_Const)) {
		const A_Const *c = (const A_Const *)n;
		return !c->isnull && IsA(&c->val, Boolean) ? c->val.boolval.boolval : -1;
	}
	if (IsA(n, TypeCast)) {
		const TypeCast *tc = (const TypeCast *)n;
		const char *type = tc->typeName && list_length(tc->typeName->names) > 0
					   ? string_value(llast(tc->typeName->names))
					   : NULL;
		if (!type || (strcmp(type, "bool") != 0 && strcmp(type, "boolean") != 0) ||
		    tc->typeName->arrayBounds || !tc->arg || !IsA(tc->arg, A_Const))
			return -1;
		const A_Const *c = (const A_Const *)tc->arg;
		if (c->isnull)
			return -1;
		if (IsA(&c->val, Boolean))
			return c->val.boolval.boolval;
		if (!IsA(&c->val, String))
			return -1;
		return cgm_raw_bool_literal(c->val.sval.sval);
	}
	if (!IsA(n, BoolExpr))
		return -1;
	const BoolExpr *b = (const BoolExpr *)n;
	if (b->boolop == NOT_EXPR) {
		int v = list_length(b->args) == 1 ? const_bool(linitial(b->args), depth + 1) : -1;
		return v < 0 ? -1 : !v;
	}
	/* AND: false when one is, true when all are; OR the other way. */
	int decisive = b->boolop == AND_EXPR ? 0 : 1, known = 0;
	const ListCell *lc;
	foreach (lc, b->args) {
		int v = const_bool(lfirst(lc), depth + 1);
		if (v == decisive)
			return decisive;
		known += v >= 0;
	}
	return known == list_length(b->args) ? !decisive : -1;
}

#define WALK(x) \
	do { \
		if (!walk(w, (const Node *)(x))) \
			return false; \
	} while (0)

/* With typing on, a statement's fields are walked in the scope it makes;
 * WALK returning early leaves a half-walked statement that is dropped
 * whole, so the scope needs no restoring then. */
#define SCOPED(make) \
	const cgm_scope *saved_scope = w->scope; \
	const cte_frame *saved_ctes = w->ctes; \
	if (w->v->arena) \
		w->scope = (make)
#define UNSCOPED() \
	do { \
		w->scope = saved_scope; \
		w->ctes = saved_ctes; \
	} while (0)

/* ---- CTEs PostgreSQL never runs --------------------------------------- */

/* The CTEs of one WITH clause that a walk finds read. */
typedef struct cte_reads {
	const WithClause *with;
	bool read[MAX_CTES];
} cte_reads;

static void note_cte_read(walker *w, const RangeVar *rv)
{
	if (rv->schemaname || !rv->relname)
		return;
	int i = 0;
	const ListCell *lc;
	foreach (lc, w->reads->with->ctes) {
		const CommonTableExpr *c = lfirst(lc);
		if (i < MAX_CTES && c && IsA(c, CommonTableExpr) && c->ctename && strcmp(c->ctename, rv->relname) == 0)
			w->reads->read[i] = true;
		i++;
	}
}


static bool walk_ctes(walker *w, const WithClause *with, const Node *stmt);

/* Which CTEs of `with`, attached to `stmt`, PostgreSQL runs (run[i]): a
 * data-modifying one always, a SELECT one only when the statement or a
 * CTE that runs reads it.  The planner drops a SELECT CTE nobody reads
 * (SS_process_ctes), and one read only by such a CTE is never scanned,
 * so what it calls never runs.  A name read counts wherever it stands,
 * even where an inner CTE of that name hides it or in an inner CTE
 * nothing reads (PostgreSQL may run less than that, never more).  false when that cannot be told (more CTEs
 * than MAX_CTES, a tree too deep or holding a node the walker does not
 * know): then every CTE is taken to run. */
static bool ctes_run(walker *w, const WithClause *with, const Node *stmt, bool *run)
{
	int n = list_length(with->ctes);
	if (n > MAX_CTES)
		return false;
	static const cgm_raw_visitor quiet = { .call = quiet_call, .relation = quiet_relation };
	cte_reads reads = { .with = with };
	walker sub = { .v = &quiet, .reads = &reads, .depth = w->depth };
	if (!walk(&sub, stmt)) /* skips `with` itself (walk_ctes) */
		return false;
	bool walked[MAX_CTES] = { false };
	const CommonTableExpr *ctes[MAX_CTES];
	int i = 0;
	const ListCell *lc;
	foreach (lc, with->ctes) {
		const CommonTableExpr *c = lfirst(lc);
		if (!c || !IsA(c, CommonTableExpr))
			return false;
		ctes[i] = c;
		const Node *q = c->ctequery;
		run[i] = reads.read[i] || (q && !IsA(q, SelectStmt));
		i++;
	}
	for (bool more = true; more;) {
		more = false;
		for (i = 0; i < n; i++) {
			if (!run[i] || walked[i])
				continue;
			walked[i] = true;
			memset(reads.read, 0, sizeof reads.read);
			if (!walk(&sub, ctes[i]->ctequery))
				return false;
			for (int j = 0; j < n; j++)
				if (reads.read[j] && !run[j])
					run[j] = more = true;
		}
	}
	return true;
}

/* The CTEs of `with` (attached to `stmt`) that PostgreSQL runs, walked;
 * the others report nothing. */
static bool walk_ctes(walker *w, const WithClause *with, const Node *stmt)
{
	if (!with)
		return true;
	if (w->reads && w->reads->with == with)
		return true; /* finding what the statement itself reads */
	/* Finding what a statement reads, an inner WITH's CTEs are all taken
	 * to run: telling which would walk each level again per level above. */
	if (w->reads)
		return walk(w, (const Node *)with);
	bool run[MAX_CTES];
	if (!ctes_run(w, with, stmt, run))
		return walk(w, (const Node *)with);
	int i = 0;
	const ListCell *lc;
	foreach (lc, with->ctes) {
		if (run[i++] && !walk(w, lfirst(lc)))
			return false;
	}
	return true;
}

/* The queries of a WITH clause see the CTEs but not the FROM items of the
 * statement they are attached to: PostgreSQL plans them one level up, in
 * `outer` (the enclosing query's scope).  So in
 * `WITH c AS (SELECT f(x) FROM g(x)) SELECT x FROM c`, x in the CTE is a
 * parameter or an outer column, never c's output column x. */
static bool walk_with_clause(walker *w, const WithClause *with, const Node *stmt, const cgm_scope *outer)
{
	const cgm_scope *inner = w->scope;
	w->scope = outer;
	bool ok = walk_ctes(w, with, stmt);
	w->scope = inner;
	return ok;
}

/* The items of a FROM list before the n-th of `full` (the SELECT's scope,
 * whose items from_item added in the order walked here), over `outer`. */
static const cgm_scope *left_items(walker *w, const cgm_scope *full, const cgm_scope *outer, int n)
{
	if (n == 0)
		return outer;
	cgm_scope *scope = cgm_arena_alloc(w->v->arena, sizeof(cgm_scope));
	scope->parent = outer;
	scope->nitems = n;
	scope->items = full->items;
	return scope;
}

/* A FROM item walked where PostgreSQL looks its names up: a function in
 * FROM (always LATERAL) and a LATERAL subquery see the items to their left
 * and the enclosing queries, never themselves or the items after them, a
 * subquery without LATERAL only the enclosing queries.  So in
 * `SELECT * FROM rd(q, vt)` with rd returning a column vt, vt is the
 * parameter.  A join's USING and ON see its sides (the whole scope, as
 * before).  `*pos` counts the items of `full` walked, as from_item made
 * them (one opaque item past the nesting bound). */
static bool walk_from_item(walker *w, const Node *node, const cgm_scope *full, const cgm_scope *outer, int *pos)
{
	if (!node)
		return true;
	const cgm_scope *saved = w->scope;
	switch (nodeTag(node)) {
	case T_JoinExpr: {
		const JoinExpr *j = (const JoinExpr *)node;
		if (w->expr_depth >= CGM_MAX_NESTING)
			break;
		if (w->depth >= CGM_MAX_NESTING) { /* as walk() would */
			w->too_deep = true;
			return false;
		}
		w->depth++;
		w->expr_depth++;
		bool ok = walk_from_item(w, j->larg, full, outer, pos) && walk_from_item(w, j->rarg, full, outer, pos) &&
			  walk(w, (const Node *)j->usingClause) && walk(w, (const Node *)j->quals);
		w->expr_depth--;
		w->depth--;
		return ok && !w->too_deep;
	}
	case T_RangeFunction:
		w->scope = left_items(w, full, outer, *pos);
		break;
	case T_RangeSubselect:
		w->scope = ((const RangeSubselect *)node)->lateral ? left_items(w, full, outer, *pos) : outer;
		break;
	default:
		break;
	}
	(*pos)++;
	bool ok = walk(w, node);
	w->scope = saved;
	return ok;
}

static bool walk_from_clause(walker *w, const List *from, const cgm_scope *outer)
{
	const cgm_scope *full = w->scope;
	if (full == outer)
		return walk(w, (const Node *)from); /* no FROM items */
	int pos = 0;
	const ListCell *lc;
	foreach (lc, from)
		if (!walk_from_item(w, lfirst(lc), full, outer, &pos))
			return false;
	return true;
}

/* A SELECT walked in its own scope (the same fields, in the same order). */
static bool walk_select_scoped(walker *w, const SelectStmt *s)
{
	const cgm_scope *saved_scope = w->scope;
	const cte_frame *saved_ctes = w->ctes;
	if (s->op == SETOP_NONE)
		w->scope = build_scope(w, s, saved_scope);
	else
		push_ctes(w, s->withClause);
	bool ok = walk(w, (const Node *)s->distinctClause) && walk(w, (const Node *)s->intoClause) &&
		  walk(w, (const Node *)s->targetList) &&
		  (s->op == SETOP_NONE ? walk_from_clause(w, s->fromClause, saved_scope)
				       : walk(w, (const Node *)s->fromClause)) &&
		  walk(w, (const Node *)s->whereClause) && walk(w, (const Node *)s->groupClause) &&
		  walk(w, (const Node *)s->havingClause) && walk(w, (const Node *)s->windowClause) &&
		  walk(w, (const Node *)s->valuesLists) && walk(w, (const Node *)s->sortClause) &&
		  walk(w, (const Node *)s->limitOffset) && walk(w, (const Node *)s->limitCount) &&
		  walk(w, (const Node *)s->lockingClause) && walk_with_clause(w, s->withClause, (const Node *)s, saved_scope) &&
		  walk(w, (const Node *)s->larg) && walk(w, (const Node *)s->rarg);
	w->scope = saved_scope;
	w->ctes = saved_ctes;
	return ok;
}

static bool walk_statement(walker *w, const Node *node)
{
	switch (nodeTag(node)) {
	case T_SelectStmt: {
		const SelectStmt *s = (const SelectStmt *)node;
		if (w->v->arena)
			return walk_select_scoped(w, s);
		WALK(s->distinctClause);
		WALK(s->intoClause);
		WALK(s->targetList);
		WALK(s->fromClause);
		WALK(s->whereClause);
		WALK(s->groupClause);
		WALK(s->havingClause);
		WALK(s->windowClause);
		WALK(s->valuesLists);
		WALK(s->sortClause);
		WALK(s->limitOffset);
		WALK(s->limitCount);
		WALK(s->lockingClause);
		if (!walk_ctes(w, s->withClause, node))
			return false;
		WALK(s->larg);
		WALK(s->rarg);
		return true;
	}
	case T_InsertStmt: {
		const InsertStmt *s = (const InsertStmt *)node;
		SCOPED(with_scope(w, s->withClause));
		report_relation_values(w, s->relation, CGM_EV_INSERT, s->cols,
				       column_values(w, s->cols, s->selectStmt, NIL),
				       s->cols ? 0 : leading_columns(s->selectStmt));
		if (s->onConflictClause && s->onConflictClause->action == ONCONFLICT_UPDATE)
			report_relation(w, s->relation, CGM_EV_UPDATE, s->onConflictClause->targetList);
		WALK(s->relation);
		WALK(s->cols);
		WALK(s->selectStmt);
		WALK(s->onConflictClause);
		WALK(s->returningList);
		if (!walk_ctes(w, s->withClause, node))
			return false;
		UNSCOPED();
		return true;
	}
	case T_UpdateStmt: {
		const UpdateStmt *s = (const UpdateStmt *)node;
		SCOPED(dml_scope(w, s->relation, s->fromClause, s->withClause));
		report_relation_values(w, s->relation, CGM_EV_UPDATE, s->targetList,
				       column_values(w, s->targetList, NULL, s->targetList), 0);
		WALK(s->relation);
		WALK(s->targetList);
		WALK(s->whereClause);
		WALK(s->fromClause);
		WALK(s->returningList);
		if (!walk_with_clause(w, s->withClause, (const Node *)s, saved_scope))
			return false;
		UNSCOPED();
		return true;
	}
	case T_DeleteStmt: {
		const DeleteStmt *s = (const DeleteStmt *)node;
		report_dml(w, s->relation, CGM_EV_DELETE);
		SCOPED(dml_scope(w, s->relation, s->usingClause, s->withClause));
		WALK(s->relation);
		WALK(s->usingClause);
		WALK(s->whereClause);
		WALK(s->returningList);
		if (!walk_with_clause(w, s->withClause, (const Node *)s, saved_scope))
			return false;
		UNSCOPED();
		return true;
	}
	case T_MergeStmt: {
		const MergeStmt *s = (const MergeStmt *)node;
		SCOPED(dml_scope(w, s->relation, list_make1(s->sourceRelation), s->withClause));
		report_dml(w, s->relation, merge_events(s));
		WALK(s->relation);
		/* The source sees the enclosing query, not the target. */
		const cgm_scope *merge_scope = w->scope;
		w->scope = saved_scope;
		WALK(s->sourceRelation);
		w->scope = merge_scope;
		WALK(s->joinCondition);
		WALK(s->mergeWhenClauses);
		if (!walk_ctes(w, s->withClause, node))
			return false;
		UNSCOPED();
		return true;
	}
	case T_CallStmt: {
		const CallStmt *s = (const CallStmt *)node;
		const FuncCall *fc = s->funccall;
		if (!fc)
			return true;
		report_call(w, fc, true);
		WALK(fc->args);
		WALK(fc->agg_order);
		WALK(fc->agg_filter);
		WALK(fc->over);
		return true;
	}
	case T_TruncateStmt: {
		const TruncateStmt *s = (const TruncateStmt *)node;
		unsigned events = CGM_EV_TRUNCATE | (s->behavior == DROP_CASCADE ? CGM_EV_CASCADE : 0);
		const ListCell *lc;
		foreach (lc, s->relations)
			if (lfirst(lc) && IsA(lfirst(lc), RangeVar))
				report_dml(w, lfirst(lc), events);
		WALK(s->relations);
		return true;
	}
	case T_CopyStmt: {
		const CopyStmt *s = (const CopyStmt *)node;
		if (s->is_from)
			report_relation(w, s->relation, CGM_EV_INSERT, NIL);
		WALK(s->relation);
		WALK(s->query);
		WALK(s->attlist);
		WALK(s->options);
		WALK(s->whereClause);
		return true;
	}
	case T_ReturnStmt:
		WALK(((const ReturnStmt *)node)->returnval);
		return true;
	case T_PLAssignStmt: {
		/* `target[i] := expr` as PL/pgSQL's own check parses it. */
		const PLAssignStmt *s = (const PLAssignStmt *)node;
		WALK(s->indirection);
		WALK(s->val);
		return true;
	}
	default:
		return false;
	}
}

static bool walk_node(walker *w, const Node *node)
{
	switch (nodeTag(node)) {
	case T_List:
		return walk_list(w, (const List *)node);
	case T_IntList:
	case T_OidList:
	case T_String:
	case T_Integer:
	case T_Float:
	case T_Boolean:
	case T_BitString:
	case T_A_Const:
	case T_A_Star:
	case T_ParamRef:
	case T_SQLValueFunction:
	case T_SetToDefault:
	case T_CurrentOfExpr:
	case T_Alias:
	case T_CTESearchClause:
		return true;

	case T_RangeVar:
		if (w->reads)
			note_cte_read(w, (const RangeVar *)node);
		return true;
	case T_ColumnRef:
		if (w->cols)
			note_column_ref(w->cols, (const ColumnRef *)node);
		report_column_attribute(w, (const ColumnRef *)node);
		return true;
	case T_FuncCall: {
		const FuncCall *fc = (const FuncCall *)node;
		report_call(w, fc, false);
		WALK(fc->funcname);
		WALK(fc->args);
		WALK(fc->agg_order);
		WALK(fc->agg_filter);
		WALK(fc->over);
		return true;
	}
	case T_A_Expr: {
		const A_Expr *e = (const A_Expr *)node;
		report_operator(w, e);
		WALK(e->lexpr);
		WALK(e->rexpr);
		return true;
	}
	case T_BoolExpr:
		/* Folded to a constant by the planner: none of it runs. */
		if (((const BoolExpr *)node)->boolop != NOT_EXPR && const_bool(node, 0) >= 0)
			return true;
		WALK(((const BoolExpr *)node)->args);
		return true;
	case T_NullTest:
		WALK(((const NullTest *)node)->arg);
		return true;
	case T_BooleanTest:
		WALK(((const BooleanTest *)node)->arg);
		return true;
	case T_SubLink: {
		const SubLink *s = (const SubLink *)node;
		WALK(s->testexpr);
		WALK(s->subselect);
		return true;
	}
	case T_CaseExpr: {
		const CaseExpr *c = (const CaseExpr *)node;
		report_case_operators(w, c);
		WALK(c->arg);
		if (c->arg) {
			WALK(c->args);
			WALK(c->defresult);
			return true;
		}
		/* The planner drops a WHEN false arm, and a WHEN true arm is
		 * the result: the arms after it and the ELSE never run. */
		const ListCell *lc;
		foreach (lc, c->args) {
			const Node *when = lfirst(lc);
			int v = when && IsA(when, CaseWhen) ? const_bool((const Node *)((const CaseWhen *)when)->expr, 0) : -1;
			if (v == 0)
				continue;
			WALK(when);
			if (v == 1)
				return true;
		}
		WALK(c->defresult);
		return true;
	}
	case T_CaseWhen: {
		const CaseWhen *c = (const CaseWhen *)node;
		WALK(c->expr);
		WALK(c->result);
		return true;
	}
	case T_CoalesceExpr:
		WALK(((const CoalesceExpr *)node)->args);
		return true;
	case T_MinMaxExpr:
		WALK(((const MinMaxExpr *)node)->args);
		return true;
	case T_RowExpr:
		WALK(((const RowExpr *)node)->args);
		return true;
	case T_A_ArrayExpr:
		WALK(((const A_ArrayExpr *)node)->elements);
		return true;
	case T_TypeCast: {
		const TypeCast *t = (const TypeCast *)node;
		report_cast(w, t);
		WALK(t->arg);
		WALK(t->typeName);
		return true;
	}
	case T_TypeName: {
		const TypeName *t = (const TypeName *)node;
		WALK(t->typmods);
		return true;
	}
	case T_CollateClause:
		WALK(((const CollateClause *)node)->arg);
		return true;
	case T_A_Indirection: {
		const A_Indirection *i = (const A_Indirection *)node;
		report_field_attribute(w, i);
		WALK(i->arg);
		WALK(i->indirection);
		return true;
	}
	case T_A_Indices: {
		const A_Indices *i = (const A_Indices *)node;
		WALK(i->lidx);
		WALK(i->uidx);
		return true;
	}
	case T_XmlExpr: {
		const XmlExpr *x = (const XmlExpr *)node;
		WALK(x->named_args);
		WALK(x->args);
		return true;
	}
	case T_XmlSerialize: {
		const XmlSerialize *x = (const XmlSerialize *)node;
		WALK(x->expr);
		WALK(x->typeName);
		return true;
	}
	case T_GroupingFunc:
		WALK(((const GroupingFunc *)node)->args);
		return true;
	case T_GroupingSet:
		WALK(((const GroupingSet *)node)->content);
		return true;
	case T_MultiAssignRef:
		WALK(((const MultiAssignRef *)node)->source);
		return true;
	case T_NamedArgExpr:
		WALK(((const NamedArgExpr *)node)->arg);
		return true;
	case T_ResTarget: {
		const ResTarget *r = (const ResTarget *)node;
		WALK(r->indirection);
		WALK(r->val);
		return true;
	}
	case T_SortBy:
		WALK(((const SortBy *)node)->node);
		return true;
	case T_WindowDef: {
		const WindowDef *d = (const WindowDef *)node;
		WALK(d->partitionClause);
		WALK(d->orderClause);
		WALK(d->startOffset);
		WALK(d->endOffset);
		return true;
	}
	case T_RangeSubselect:
		WALK(((const RangeSubselect *)node)->subquery);
		return true;
	case T_RangeFunction: {
		const RangeFunction *r = (const RangeFunction *)node;
		WALK(r->functions);
		WALK(r->coldeflist);
		return true;
	}
	case T_RangeTableFunc: {
		const RangeTableFunc *r = (const RangeTableFunc *)node;
		WALK(r->docexpr);
		WALK(r->rowexpr);
		WALK(r->namespaces);
		WALK(r->columns);
		return true;
	}
	case T_RangeTableFuncCol: {
		const RangeTableFuncCol *c = (const RangeTableFuncCol *)node;
		WALK(c->typeName);
		WALK(c->colexpr);
		WALK(c->coldefexpr);
		return true;
	}
	case T_RangeTableSample: {
		const RangeTableSample *r = (const RangeTableSample *)node;
		WALK(r->relation);
		WALK(r->method);
		WALK(r->args);
		WALK(r->repeatable);
		return true;
	}
	case T_JoinExpr: {
		const JoinExpr *j = (const JoinExpr *)node;
		WALK(j->larg);
		WALK(j->rarg);
		WALK(j->usingClause);
		WALK(j->quals);
		return true;
	}
	case T_WithClause:
		WALK(((const WithClause *)node)->ctes);
		return true;
	case T_CommonTableExpr: {
		const CommonTableExpr *c = (const CommonTableExpr *)node;
		WALK(c->aliascolnames);
		WALK(c->ctequery);
		WALK(c->search_clause);
		WALK(c->cycle_clause);
		return true;
	}
	case T_CTECycleClause: {
		const CTECycleClause *c = (const CTECycleClause *)node;
		WALK(c->cycle_col_list);
		WALK(c->cycle_mark_value);
		WALK(c->cycle_mark_default);
		return true;
	}
	case T_IntoClause: {
		const IntoClause *i = (const IntoClause *)node;
		WALK(i->rel);
		WALK(i->colNames);
		WALK(i->options);
		WALK(i->viewQuery);
		return true;
	}
	case T_LockingClause:
		WALK(((const LockingClause *)node)->lockedRels);
		return true;
	case T_OnConflictClause: {
		const OnConflictClause *o = (const OnConflictClause *)node;
		WALK(o->infer);
		WALK(o->targetList);
		WALK(o->whereClause);
		return true;
	}
	case T_InferClause: {
		const InferClause *i = (const InferClause *)node;
		WALK(i->indexElems);
		WALK(i->whereClause);
		return true;
	}
	case T_IndexElem: {
		const IndexElem *e = (const IndexElem *)node;
		WALK(e->expr);
		WALK(e->collation);
		WALK(e->opclass);
		WALK(e->opclassopts);
		return true;
	}
	case T_MergeWhenClause: {
		const MergeWhenClause *m = (const MergeWhenClause *)node;
		WALK(m->condition);
		WALK(m->targetList);
		WALK(m->values);
		return true;
	}
	case T_ColumnDef: {
		const ColumnDef *c = (const ColumnDef *)node;
		if (c->constraints != NIL || c->cooked_default)
			return false;
		WALK(c->typeName);
		WALK(c->raw_default);
		WALK(c->collClause);
		WALK(c->fdwoptions);
		return true;
	}
	case T_FunctionParameter: {
		const FunctionParameter *p = (const FunctionParameter *)node;
		WALK(p->argType);
		WALK(p->defexpr);
		return true;
	}
	case T_DefElem:
		WALK(((const DefElem *)node)->arg);
		return true;
	default:
		return walk_statement_scoped(w, node);
	}
}

/* One level down: refused past CGM_MAX_NESTING (a flag, then false all the
 * way up, as for an unknown node). */
static bool walk(walker *w, const Node *node)
{
	if (!node)
		return true;
	if (w->depth >= CGM_MAX_NESTING) {
		w->too_deep = true;
		return false;
	}
	w->depth++;
	bool ok = walk_node(w, node);
	w->depth--;
	return ok && !w->too_deep;
}

/* ---- statements ------------------------------------------------------- */

/* A top-level SELECT's row, for a record variable it is assigned to, or the
 * value of a PL/pgSQL assignment to a whole variable (`v := expr`, a row of
 * one column), for the cast the assignment may run (coerce.h). */
static void report_row(walker *w, const Node *stmt)
{
	if (IsA(stmt, PLAssignStmt)) {
		const PLAssignStmt *a = (const PLAssignStmt *)stmt;
		if (a->indirection != NIL || a->nnames != 1 || !a->val)
			return;
		stmt = (const Node *)a->val;
	}
	if (!IsA(stmt, SelectStmt))
		return;
	cgm_scope_item cols = { 0 };
	query_columns(w, stmt, &cols);
	if (!cols.colexprs)
		return;
	cgm_expr *row = new_expr(w, CGM_EXPR_ROW);
	row->nargs = cols.ncolumns;
	row->args = cols.colexprs;
	row->names = cols.colnames;
	w->v->row(w->v->ctx, row);
}

/* Report every statement of `tree`.  A statement nesting deeper than
 * CGM_MAX_NESTING: with `stop_deep`, the walk stops there and returns it
 * (*deep_at gets its location); without, it is handed back as unknown,
 * for the caller to read another way (which refuses it). */
static const RawStmt *walk_tree(const List *tree, const cgm_raw_visitor *v, bool stop_deep,
				 bool rows)
{
	const ListCell *lc;
	foreach (lc, tree) {
		const RawStmt *raw = lfirst(lc);
		if (!raw || !IsA(raw, RawStmt) || !raw->stmt)
			continue;
		walker w = { .v = v };
		v->statement(v->ctx);
		if (rows && v->arena && v->row)
			report_row(&w, raw->stmt);
		if (walk(&w, raw->stmt))
			continue;
		if (w.too_deep && stop_deep)
			return raw;
		v->unknown(v->ctx, raw->stmt_location, raw->stmt_len);
	}
	return NULL;
}

/* The first token of the statement at `location`: statements after the
 * first start right after the semicolon before them. */
static int statement_start(const char *sql, int location)
{
	size_t i = location > 0 ? (size_t)location : 0;
	for (;;) {
		size_t next = cgm_sql_skip_comment(sql, i);
		if (next != i)
			i = next;
		else if (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r' || sql[i] == '\f')
			i++;
		else
			return (int)i;
	}
}

int cgm_raw_scan(const char *sql, const cgm_raw_visitor *v, char **error, int *cursorpos)
{
	MemoryContext context = pg_query_enter_memory_context();
	PgQueryInternalParsetreeAndError parsed = pg_query_raw_parse(sql);
	free(parsed.stderr_buffer);
	int rc = 0;
	if (parsed.error) {
		if (error)
			*error = strdup(parsed.error->message);
		if (cursorpos)
			*cursorpos = parsed.error->cursorpos;
		pg_query_free_error(parsed.error);
		rc = -1;
	} else {
		const RawStmt *deep = walk_tree(parsed.tree, v, true, false);
		if (deep) {
			if (error)
				*error = cgm_raw_too_deep_message();
			if (cursorpos)
				*cursorpos = statement_start(sql, deep->stmt_location) + 1;
			rc = -1;
		}
	}
	pg_query_exit_memory_context(context);
	return rc;
}

const cgm_expr *cgm_raw_value_expr(cgm_arena *arena, const char *text)
{
	/* On its own line: the value may end in a -- comment. */
	cgm_strbuf sql = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&sql, "SELECT ");
	cgm_strbuf_puts(&sql, text);
	cgm_strbuf_puts(&sql, "\n");
	MemoryContext context = pg_query_enter_memory_context();
	PgQueryInternalParsetreeAndError parsed = pg_query_raw_parse(cgm_strbuf_cstr(&sql));
	free(parsed.stderr_buffer);
	const cgm_expr *value = NULL;
	const RawStmt *raw = !parsed.error && list_length(parsed.tree) == 1 ? linitial(parsed.tree) : NULL;
	const SelectStmt *select = raw && IsA(raw, RawStmt) ? (const SelectStmt *)raw->stmt : NULL;
	if (select && IsA(select, SelectStmt) && select->op == SETOP_NONE && !select->fromClause &&
	    !select->valuesLists && list_length(select->targetList) == 1 &&
	    IsA(linitial(select->targetList), ResTarget)) {
		const cgm_raw_visitor v = { .arena = arena };
		walker w = { .v = &v };
		value = build_expr(&w, ((const ResTarget *)linitial(select->targetList))->val);
	}
	if (parsed.error)
		pg_query_free_error(parsed.error);
	pg_query_exit_memory_context(context);
	cgm_strbuf_free(&sql);
	return value;
}

const cgm_expr *cgm_raw_select_row(cgm_arena *arena, const char *sql)
{
	MemoryContext context = pg_query_enter_memory_context();
	PgQueryInternalParsetreeAndError parsed = pg_query_raw_parse(sql);
	free(parsed.stderr_buffer);
	cgm_expr *row = NULL;
	const RawStmt *raw = !parsed.error && list_length(parsed.tree) == 1 ? linitial(parsed.tree) : NULL;
	if (raw && IsA(raw, RawStmt) && raw->stmt && IsA(raw->stmt, SelectStmt)) {
		const cgm_raw_visitor v = { .arena = arena };
		walker w = { .v = &v };
		cgm_scope_item cols = { 0 };
		query_columns(&w, raw->stmt, &cols);
		if (cols.colexprs) {
			row = new_expr(&w, CGM_EXPR_ROW);
			row->nargs = cols.ncolumns;
			row->args = cols.colexprs;
			row->names = cols.colnames;
		}
	}
	if (parsed.error)
		pg_query_free_error(parsed.error);
	pg_query_exit_memory_context(context);
	return row;
}

int cgm_raw_rule_actions(const char *sql, const cgm_raw_visitor *v)
{
	MemoryContext context = pg_query_enter_memory_context();
	PgQueryInternalParsetreeAndError parsed = pg_query_raw_parse(sql);
	free(parsed.stderr_buffer);
	int rc = -1;
	if (parsed.error) {
		pg_query_free_error(parsed.error);
	} else if (list_length(parsed.tree) == 1) {
		const RawStmt *raw = linitial(parsed.tree);
		if (raw && IsA(raw, RawStmt) && raw->stmt && IsA(raw->stmt, RuleStmt)) {
			const RuleStmt *rule = (const RuleStmt *)raw->stmt;
			const ListCell *lc;
			rc = 0;
			foreach (lc, rule->actions) {
				walker w = { .v = v };
				v->statement(v->ctx);
				if (!lfirst(lc) || !walk(&w, lfirst(lc)))
					v->unknown(v->ctx, 0, 0);
			}
		}
	}
	pg_query_exit_memory_context(context);
	return rc;
}

#define RAW_STRING(x) #x
#define RAW_NUMBER(x) RAW_STRING(x)

char *cgm_raw_too_deep_message(void)
{
	return strdup("expression nested deeper than " RAW_NUMBER(CGM_MAX_NESTING) " levels");
}

/* ---- the PL/pgSQL parser's own parses --------------------------------- */

/* libpg_query's PL/pgSQL parser parses every expression of a body with
 * raw_parser to check its syntax, then drops the tree.  The link wraps that
 * function (-Wl,--wrap=raw_parser, CMakeLists.txt): while a capture is set
 * on this thread, each tree is walked before it is dropped, so extraction
 * need not parse the same text again.  Linked against a shared libpg_query
 * the library's internal calls are not wrapped: nothing is captured and
 * extraction parses every expression itself, as it does for any text the
 * PL/pgSQL parser did not check. */
List *__real_raw_parser(const char *str, RawParseMode mode);
List *__wrap_raw_parser(const char *str, RawParseMode mode);

static _Thread_local const cgm_raw_capture *capture;

void cgm_raw_capture_set(const cgm_raw_capture *c)
{
	capture = c;
}

static bool append_constant(StringInfo out, const Node *node, int *location, int depth);

/* One argument of format(): a NULL, a constant's text (palloc'd, freed
 * with the parse), or a value known only at run time. */
static cgm_format_arg format_arg(const Node *node, int depth)
{
	cgm_format_arg a = { CGM_FORMAT_ARG_RUNTIME, NULL };
	while (node && IsA(node, TypeCast) && depth <= CGM_MAX_NESTING) /* 'app'::text */
		node = ((const TypeCast *)node)->arg, depth++;
	if (node && IsA(node, A_Const)) {
		const A_Const *c = (const A_Const *)node;
		char digits[CGM_DECIMAL_MAX + 1];
		digits[CGM_DECIMAL_MAX] = '\0';
		if (c->isnull)
			a.kind = CGM_FORMAT_ARG_NULL;
		else if (IsA(&c->val, Integer))
			a.text = pstrdup(cgm_decimal(digits + CGM_DECIMAL_MAX, c->val.ival.ival));
		else if (IsA(&c->val, Float))
			a.text = c->val.fval.fval;
		else if (IsA(&c->val, Boolean))
			a.text = c->val.boolval.boolval ? "t" : "f";
		else if (IsA(&c->val, String))
			a.text = c->val.sval.sval;
		if (a.text)
			a.kind = CGM_FORMAT_ARG_TEXT;
		return a;
	}
	StringInfoData text;
	initStringInfo(&text);
	int location = -1;
	if (append_constant(&text, node, &location, depth)) {
		a.kind = CGM_FORMAT_ARG_TEXT;
		a.text = text.data;
	}
	return a;
}

/* Append the text `s` is sure to yield, or fail: a string literal, a
 * concatenation of such, a text function of one or replace() of three
 * (sqlformat.h), or
 * format() with a literal template over constant arguments (a run-time
 * %L value is as good as NULL here; a run-time identifier or text is not
 * knowable). */
static bool append_constant(StringInfo out, const Node *node, int *location, int depth)
{
	if (!node || depth > CGM_MAX_NESTING)
		return false;
	if (IsA(node, A_Const)) {
		const A_Const *c = (const A_Const *)node;
		if (c->isnull || !IsA(&c->val, String))
			return false;
		appendStringInfoString(out, c->val.sval.sval);
		if (*location < 0)
			*location = c->location;
		return true;
	}
	if (IsA(node, A_Expr)) {
		const A_Expr *e = (const A_Expr *)node;
		const char *op = list_length(e->name) == 1 ? string_value(linitial(e->name)) : NULL;
		return e->kind == AEXPR_OP && op && strcmp(op, "||") == 0 &&
		       append_constant(out, e->lexpr, location, depth + 1) &&
		       append_constant(out, e->rexpr, location, depth + 1);
	}
	if (IsA(node, FuncCall)) {
		const FuncCall *fc = (const FuncCall *)node;
		int n = list_length(fc->funcname);
		const char *name = n >= 1 && n <= 2 ? string_value(llast(fc->funcname)) : NULL;
		const char *schema = n == 2 ? string_value(linitial(fc->funcname)) : NULL;
		if (!name || (n == 2 && (!schema || strcmp(schema, "pg_catalog") != 0)) || list_length(fc->args) < 1)
			return false;
		if (strcmp(name, "format") != 0) {
			/* quote_ident(lower('App')), replace(t, 'a', 'b'): a text
			 * function of constants */
			int nargs = list_length(fc->args);
			if ((nargs != 1 && nargs != 3) || fc->func_variadic)
				return false;
			StringInfoData part[3];
			const char *parts[3];
			for (int k = 0; k < nargs; k++) {
				const Node *arg = list_nth(fc->args, k);
				if (arg && IsA(arg, TypeCast))
					arg = ((const TypeCast *)arg)->arg;
				initStringInfo(&part[k]);
				if (!append_constant(&part[k], arg, location, depth + 1))
					return false;
				parts[k] = part[k].data;
			}
			cgm_strbuf text = CGM_STRBUF_INIT;
			bool known = cgm_sql_text_function(&text, name, parts, nargs);
			if (known && text.len)
				appendBinaryStringInfo(out, text.data, (int)text.len);
			cgm_strbuf_free(&text);
			return known;
		}
		if (fc->func_variadic)
			return false;
		StringInfoData tmpl;
		initStringInfo(&tmpl);
		if (!append_constant(&tmpl, linitial(fc->args), location, depth + 1))
			return false;
		int nargs = list_length(fc->args) - 1;
		cgm_format_arg *args = palloc0(sizeof *args * (size_t)(nargs + 1));
		for (int k = 0; k < nargs; k++)
			args[k] = format_arg(list_nth(fc->args, k + 1), depth + 1);
		static const cgm_format_unknown unknown = { 0, "NULL" };
		cgm_strbuf text = CGM_STRBUF_INIT;
		cgm_format_result r = cgm_sql_format(&text, tmpl.data, args, nargs, &unknown);
		bool known = r == CGM_FORMAT_KNOWN || r == CGM_FORMAT_MARKED;
		if (known && text.len)
			appendBinaryStringInfo(out, text.data, (int)text.len);
		cgm_strbuf_free(&text);
		return known;
	}
	return false;
}

/* `name || <constant> || ...`: the constant text appended to the variable
 * `name` (an assignment's own), put in `out`; false for anything else. */
static bool append_to_self(StringInfo out, const Node *node, const char *name, int *location, int depth)
{
	if (!node || depth > CGM_MAX_NESTING)
		return false;
	if (IsA(node, ColumnRef)) {
		const ColumnRef *ref = (const ColumnRef *)node;
		const char *field = list_length(ref->fields) == 1 ? string_value(linitial(ref->fields)) : NULL;
		return field && strcmp(field, name) == 0;
	}
	if (!IsA(node, A_Expr))
		return false;
	const A_Expr *e = (const A_Expr *)node;
	const char *op = list_length(e->name) == 1 ? string_value(linitial(e->name)) : NULL;
	return e->kind == AEXPR_OP && op && strcmp(op, "||") == 0 &&
	       append_to_self(out, e->lexpr, name, location, depth + 1) &&
	       append_constant(out, e->rexpr, location, depth + 1);
}

List *__wrap_raw_parser(const char *str, RawParseMode mode)
{
	List *tree = __real_raw_parser(str, mode);
	const cgm_raw_capture *c = capture;
	/* Not the CREATE FUNCTION around the body (pg_query_parse_plpgsql's
	 * first parse): its text is the whole body, and it holds no site. */
	const RawStmt *first = list_length(tree) == 1 ? linitial(tree) : NULL;
	bool create = first && IsA(first, RawStmt) && first->stmt && IsA(first->stmt, CreateFunctionStmt);
	if (c && mode != RAW_PARSE_TYPE_NAME && !create) {
		capture = NULL; /* the visitor parses nothing, but be sure */
		c->text(c->visitor.ctx, str);
		walk_tree(tree, &c->visitor, false,
			  mode == RAW_PARSE_DEFAULT ||
				  (!c->visitor.no_coercion_values &&
				   (mode == RAW_PARSE_PLPGSQL_ASSIGN1 ||
				    (mode == RAW_PARSE_PLPGSQL_EXPR && c->expr_rows))));
		/* An expression's constant SQL, for when it is EXECUTEd, or the
		 * one an assignment of a whole variable stores, for when the
		 * variable is. */
		bool assign = mode == RAW_PARSE_PLPGSQL_ASSIGN1 || mode == RAW_PARSE_PLPGSQL_ASSIGN2 ||
			      mode == RAW_PARSE_PLPGSQL_ASSIGN3;
		const RawStmt *raw = (mode == RAW_PARSE_PLPGSQL_EXPR || assign) && list_length(tree) == 1
					     ? linitial(tree)
					     : NULL;
		const SelectStmt *select = raw && IsA(raw, RawStmt) ? (const SelectStmt *)raw->stmt : NULL;
		const char *assigned = NULL;
		if (assign) {
			const PLAssignStmt *a = select && IsA(select, PLAssignStmt) ? (const PLAssignStmt *)select : NULL;
			select = a && a->indirection == NIL && a->nnames == 1 ? a->val : NULL;
			assigned = select ? a->name : NULL;
		}
		if (select && IsA(select, SelectStmt) && list_length(select->targetList) >= 1 &&
		    IsA(linitial(select->targetList), ResTarget)) {
			StringInfoData sql;
			initStringInfo(&sql);
			int location = -1;
			const ResTarget *target = linitial(select->targetList);
			if (append_constant(&sql, target->val, &location, 0)) {
				c->constant(c->visitor.ctx, sql.data, location);
			} else if (assigned && c->appended && list_length(select->targetList) == 1) {
				resetStringInfo(&sql);
				location = -1;
				if (append_to_self(&sql, target->val, assigned, &location, 0) && location >= 0)
					c->appended(c->visitor.ctx, sql.data, location);
			}
		}
		capture = c;
	}
	return tree;
}

/* ---- one name read whole ---------------------------------------------- */

/* The only target of a SELECT that has nothing else, or NULL. */
static const Node *lone_target(const List *tree)
{
	if (list_length(tree) != 1)
		return NULL;
	const RawStmt *raw = linitial(tree);
	const SelectStmt *s = raw && IsA(raw, RawStmt) ? (const SelectStmt *)raw->stmt : NULL;
	if (!s || !IsA(s, SelectStmt) || list_length(s->targetList) != 1 || s->distinctClause ||
	    s->intoClause || s->fromClause || s->whereClause || s->groupClause || s->groupDistinct ||
	    s->havingClause || s->windowClause || s->valuesLists || s->sortClause || s->limitOffset ||
	    s->limitCount || s->lockingClause || s->withClause || s->op != SETOP_NONE || s->larg ||
	    s->rarg)
		return NULL;
	const ResTarget *t = linitial(s->targetList);
	return t && IsA(t, ResTarget) && !t->name && !t->indirection ? t->val : NULL;
}

/* Up to 4 String parts of a name list into parts; their count, or -1. */
static int name_parts(const List *names, const char **parts)
{
	int n = list_length(names);
	if (n < 1 || n > 4)
		return -1;
	for (int i = 0; i < n; i++)
		if (!(parts[i] = string_value(list_nth(names, i))))
			return -1;
	return n;
}

static bool read_lone(const char *query, bool want_cast, cgm_raw_type_found found, void *ctx)
{
	MemoryContext context = pg_query_enter_memory_context();
	PgQueryInternalParsetreeAndError parsed = pg_query_raw_parse(query);
	free(parsed.stderr_buffer);
	bool ok = false;
	if (parsed.error) {
		pg_query_free_error(parsed.error);
	} else {
		const Node *val = lone_target(parsed.tree);
		const char *parts[4];
		int n;
		if (want_cast && val && IsA(val, TypeCast)) {
			const TypeName *t = ((const TypeCast *)val)->typeName;
			const Node *arg = ((const TypeCast *)val)->arg;
			bool null_arg = arg && IsA(arg, A_Const) && ((const A_Const *)arg)->isnull;
			if (null_arg && t && (n = name_parts(t->names, parts)) > 0) {
				found(ctx, parts, n, list_length(t->arrayBounds), t->pct_type);
				ok = true;
			}
		} else if (!want_cast && val && IsA(val, ColumnRef)) {
			n = name_parts(((const ColumnRef *)val)->fields, parts);
			if (n >= 2 && n <= 3) {
				found(ctx, parts, n, 0, false);
				ok = true;
			}
		}
	}
	pg_query_exit_memory_context(context);
	return ok;
}

bool cgm_raw_cast_type(const char *query, cgm_raw_type_found found, void *ctx)
{
	return read_lone(query, true, found, ctx);
}

bool cgm_raw_column_ref(const char *query, cgm_raw_type_found found, void *ctx)
{
	return read_lone(query, false, found, ctx);
}

/* ---- the PL/pgSQL statement tree -------------------------------------- */

/* pg_query_parse_plpgsql prints each compiled function as JSON
 * (plpgsqlToJSON), which extraction then tokenised again: a seventh of a
 * map.  The link wraps that function too (--wrap=plpgsqlToJSON): with a
 * visitor set, the function's structs are walked here, in the order that
 * JSON lists them (every field holding an expression, statements in their
 * lists), and an empty object is printed instead. */
char *__real_plpgsqlToJSON(PLpgSQL_function *func);
char *__wrap_plpgsqlToJSON(PLpgSQL_function *func);

static _Thread_local const cgm_raw_plpgsql_visitor *plpgsql_visitor;
/* The datums of the function being visited: what a statement's target
 * numbers refer to. */
static _Thread_local const PLpgSQL_function *visited_function;

void cgm_raw_plpgsql_set(const cgm_raw_plpgsql_visitor *visitor)
{
	plpgsql_visitor = visitor;
}

static bool known_stmts(const List *stmts, int depth);

static bool known_variable(const PLpgSQL_variable *v)
{
	return !v || v->dtype == PLPGSQL_DTYPE_VAR || v->dtype == PLPGSQL_DTYPE_ROW ||
	       v->dtype == PLPGSQL_DTYPE_REC;
}

/* Is every statement one whose fields this walker lists, and nested no
 * deeper than CGM_MAX_NESTING (the PL/pgSQL parser's own stack stops far
 * before: this bounds visit_stmt below)? */
static bool known_stmt(const PLpgSQL_stmt *st, int depth)
{
	if (depth > CGM_MAX_NESTING)
		return false;
	depth++;
	switch (st->cmd_type) {
	case PLPGSQL_STMT_BLOCK: {
		const PLpgSQL_stmt_block *b = (const PLpgSQL_stmt_block *)st;
		if (!known_stmts(b->body, depth))
			return false;
		if (b->exceptions) {
			const ListCell *lc;
			foreach (lc, b->exceptions->exc_list)
				if (!known_stmts(((const PLpgSQL_exception *)lfirst(lc))->action, depth))
					return false;
		}
		return true;
	}
	case PLPGSQL_STMT_IF: {
		const PLpgSQL_stmt_if *s = (const PLpgSQL_stmt_if *)st;
		const ListCell *lc;
		foreach (lc, s->elsif_list)
			if (!known_stmts(((const PLpgSQL_if_elsif *)lfirst(lc))->stmts, depth))
				return false;
		return known_stmts(s->then_body, depth) && known_stmts(s->else_body, depth);
	}
	case PLPGSQL_STMT_CASE: {
		const PLpgSQL_stmt_case *s = (const PLpgSQL_stmt_case *)st;
		const ListCell *lc;
		foreach (lc, s->case_when_list)
			if (!known_stmts(((const PLpgSQL_case_when *)lfirst(lc))->stmts, depth))
				return false;
		return known_stmts(s->else_stmts, depth);
	}
	case PLPGSQL_STMT_LOOP:
		return known_stmts(((const PLpgSQL_stmt_loop *)st)->body, depth);
	case PLPGSQL_STMT_WHILE:
		return known_stmts(((const PLpgSQL_stmt_while *)st)->body, depth);
	case PLPGSQL_STMT_FORI:
		return known_stmts(((const PLpgSQL_stmt_fori *)st)->body, depth);
	case PLPGSQL_STMT_FORS:
		return known_variable(((const PLpgSQL_stmt_fors *)st)->var) &&
		       known_stmts(((const PLpgSQL_stmt_fors *)st)->body, depth);
	case PLPGSQL_STMT_FORC:
		return known_variable(((const PLpgSQL_stmt_forc *)st)->var) &&
		       known_stmts(((const PLpgSQL_stmt_forc *)st)->body, depth);
	case PLPGSQL_STMT_DYNFORS:
		return known_variable(((const PLpgSQL_stmt_dynfors *)st)->var) &&
		       known_stmts(((const PLpgSQL_stmt_dynfors *)st)->body, depth);
	case PLPGSQL_STMT_FOREACH_A:
		return known_stmts(((const PLpgSQL_stmt_foreach_a *)st)->body, depth);
	case PLPGSQL_STMT_EXECSQL:
		return known_variable(((const PLpgSQL_stmt_execsql *)st)->target);
	case PLPGSQL_STMT_DYNEXECUTE:
		return known_variable(((const PLpgSQL_stmt_dynexecute *)st)->target);
	case PLPGSQL_STMT_FETCH:
		return known_variable(((const PLpgSQL_stmt_fetch *)st)->target);
	case PLPGSQL_STMT_CALL:
		return known_variable(((const PLpgSQL_stmt_call *)st)->target);
	case PLPGSQL_STMT_ASSIGN:
	case PLPGSQL_STMT_EXIT:
	case PLPGSQL_STMT_RETURN:
	case PLPGSQL_STMT_RETURN_NEXT:
	case PLPGSQL_STMT_RETURN_QUERY:
	case PLPGSQL_STMT_RAISE:
	case PLPGSQL_STMT_ASSERT:
	case PLPGSQL_STMT_GETDIAG:
	case PLPGSQL_STMT_OPEN:
	case PLPGSQL_STMT_CLOSE:
	case PLPGSQL_STMT_PERFORM:
	case PLPGSQL_STMT_COMMIT:
	case PLPGSQL_STMT_ROLLBACK:
		return true;
	default:
		return false;
	}
}

static bool known_stmts(const List *stmts, int depth)
{
	const ListCell *lc;
	foreach (lc, stmts)
		if (!lfirst(lc) || !known_stmt(lfirst(lc), depth))
			return false;
	return true;
}

static void visit_expr(const cgm_raw_plpgsql_visitor *v, const PLpgSQL_expr *e, const char *field)
{
	if (e && e->query)
		v->expression(v->ctx, e->query, field);
}

static void visit_exprs(const cgm_raw_plpgsql_visitor *v, const List *exprs, const char *field)
{
	const ListCell *lc;
	foreach (lc, exprs)
		visit_expr(v, lfirst(lc), field);
}

/* A variable printed inside a statement (a loop variable, an INTO
 * target): the JSON lists a scalar's default and cursor query there too. */
static void visit_variable(const cgm_raw_plpgsql_visitor *v, const PLpgSQL_variable *var)
{
	if (var && var->dtype == PLPGSQL_DTYPE_VAR) {
		visit_expr(v, ((const PLpgSQL_var *)var)->default_val, "default_val");
		visit_expr(v, ((const PLpgSQL_var *)var)->cursor_explicit_expr, "cursor_explicit_expr");
	}
}

static void visit_stmts(const cgm_raw_plpgsql_visitor *v, const List *stmts);

/* Datum dno is set by the statement being visited (`whole`: assigned as a
 * whole by an assignment); a row's fields each are, a record field's
 * record is, never whole. */
static void visit_sets(const cgm_raw_plpgsql_visitor *v, int dno, bool whole, int depth)
{
	const PLpgSQL_function *f = visited_function;
	if (!v->sets || !f || dno < 0 || dno >= f->ndatums || depth > 8)
		return;
	const PLpgSQL_datum *d = f->datums[dno];
	switch (d->dtype) {
	case PLPGSQL_DTYPE_VAR:
	case PLPGSQL_DTYPE_REC:
		if (((const PLpgSQL_variable *)d)->refname)
			v->sets(v->ctx, ((const PLpgSQL_variable *)d)->refname,
				whole && d->dtype == PLPGSQL_DTYPE_VAR);
		break;
	case PLPGSQL_DTYPE_ROW: {
		const PLpgSQL_row *row = (const PLpgSQL_row *)d;
		for (int i = 0; i < row->nfields; i++)
			if (row->varnos[i] >= 0)
				visit_sets(v, row->varnos[i], false, depth + 1);
		break;
	}
	case PLPGSQL_DTYPE_RECFIELD:
		visit_sets(v, ((const PLpgSQL_recfield *)d)->recparentno, false, depth + 1);
		break;
	default:
		break;
	}
}

static void visit_sets_variable(const cgm_raw_plpgsql_visitor *v, const PLpgSQL_variable *var)
{
	if (var)
		visit_sets(v, var->dno, false, 0);
}

/* The one variable a query's row goes to (a record, or a row of one
 * field), for typing its fields. */
static void visit_into(const cgm_raw_plpgsql_visitor *v, const PLpgSQL_variable *target)
{
	if (!v->into || !target)
		return;
	if (target->dtype == PLPGSQL_DTYPE_ROW) {
		const PLpgSQL_row *row = (const PLpgSQL_row *)target;
		if (row->nfields == 1 && row->fieldnames && row->fieldnames[0])
			v->into(v->ctx, row->fieldnames[0]);
	} else if (target->refname) {
		v->into(v->ctx, target->refname);
	}
}

/* Whether one of the clause's WHEN conditions is undefined_function, the
 * error a call of a function that does not exist raises: by name, as the
 * parser keeps it, or SQLSTATE '42883'.  OTHERS does not count: it
 * catches that error too, but says nothing of expecting it. */
static bool catches_undefined_function(const PLpgSQL_exception_block *block)
{
	const ListCell *lc;
	foreach (lc, block->exc_list) {
		const PLpgSQL_exception *e = lfirst(lc);
		for (const PLpgSQL_condition *c = e->conditions; c; c = c->next)
			if (c->sqlerrstate == ERRCODE_UNDEFINED_FUNCTION ||
			    (c->condname && (strcmp(c->condname, "undefined_function") == 0 ||
					     strcmp(c->condname, "42883") == 0)))
				return true;
	}
	return false;
}

static void visit_stmt(const cgm_raw_plpgsql_visitor *v, const PLpgSQL_stmt *st)
{
	static const char *const kinds[] = {
		[PLPGSQL_STMT_BLOCK] = "block", [PLPGSQL_STMT_ASSIGN] = "assign",
		[PLPGSQL_STMT_IF] = "if", [PLPGSQL_STMT_CASE] = "case",
		[PLPGSQL_STMT_LOOP] = "loop", [PLPGSQL_STMT_WHILE] = "while",
		[PLPGSQL_STMT_FORI] = "fori", [PLPGSQL_STMT_FORS] = "fors",
		[PLPGSQL_STMT_FORC] = "forc", [PLPGSQL_STMT_FOREACH_A] = "foreach_a",
		[PLPGSQL_STMT_EXIT] = "exit", [PLPGSQL_STMT_RETURN] = "return",
		[PLPGSQL_STMT_RETURN_NEXT] = "return_next", [PLPGSQL_STMT_RETURN_QUERY] = "return_query",
		[PLPGSQL_STMT_RAISE] = "raise", [PLPGSQL_STMT_ASSERT] = "assert",
		[PLPGSQL_STMT_EXECSQL] = "execsql", [PLPGSQL_STMT_DYNEXECUTE] = "dynexecute",
		[PLPGSQL_STMT_DYNFORS] = "dynfors", [PLPGSQL_STMT_GETDIAG] = "getdiag",
		[PLPGSQL_STMT_OPEN] = "open", [PLPGSQL_STMT_FETCH] = "fetch",
		[PLPGSQL_STMT_CLOSE] = "close", [PLPGSQL_STMT_PERFORM] = "perform",
		[PLPGSQL_STMT_CALL] = "call", [PLPGSQL_STMT_COMMIT] = "commit",
		[PLPGSQL_STMT_ROLLBACK] = "rollback",
	};
	v->statement(v->ctx, kinds[st->cmd_type], st->lineno);
	switch (st->cmd_type) {
	case PLPGSQL_STMT_BLOCK: {
		const PLpgSQL_stmt_block *b = (const PLpgSQL_stmt_block *)st;
		if (b->exceptions && v->guard)
			v->guard(v->ctx, catches_undefined_function(b->exceptions));
		visit_stmts(v, b->body);
		if (b->exceptions) {
			const ListCell *lc;
			if (v->handlers)
				v->handlers(v->ctx);
			foreach (lc, b->exceptions->exc_list)
				visit_stmts(v, ((const PLpgSQL_exception *)lfirst(lc))->action);
		}
		break;
	}
	case PLPGSQL_STMT_ASSIGN:
		visit_sets(v, ((const PLpgSQL_stmt_assign *)st)->varno, true, 0);
		visit_expr(v, ((const PLpgSQL_stmt_assign *)st)->expr, "expr");
		break;
	case PLPGSQL_STMT_IF: {
		const PLpgSQL_stmt_if *s = (const PLpgSQL_stmt_if *)st;
		visit_expr(v, s->cond, "cond");
		visit_stmts(v, s->then_body);
		if (v->then_end)
			v->then_end(v->ctx);
		const ListCell *lc;
		foreach (lc, s->elsif_list) {
			const PLpgSQL_if_elsif *e = lfirst(lc);
			v->statement(v->ctx, "elsif", e->lineno);
			visit_expr(v, e->cond, "cond");
			visit_stmts(v, e->stmts);
			v->end(v->ctx);
		}
		visit_stmts(v, s->else_body);
		break;
	}
	case PLPGSQL_STMT_CASE: {
		const PLpgSQL_stmt_case *s = (const PLpgSQL_stmt_case *)st;
		visit_expr(v, s->t_expr, "t_expr");
		const ListCell *lc;
		foreach (lc, s->case_when_list) {
			const PLpgSQL_case_when *w = lfirst(lc);
			v->statement(v->ctx, "case", w->lineno);
			visit_expr(v, w->expr, "expr");
			visit_stmts(v, w->stmts);
			v->end(v->ctx);
		}
		visit_stmts(v, s->else_stmts);
		break;
	}
	case PLPGSQL_STMT_LOOP:
		visit_stmts(v, ((const PLpgSQL_stmt_loop *)st)->body);
		break;
	case PLPGSQL_STMT_WHILE:
		visit_expr(v, ((const PLpgSQL_stmt_while *)st)->cond, "cond");
		visit_stmts(v, ((const PLpgSQL_stmt_while *)st)->body);
		break;
	case PLPGSQL_STMT_FORI: {
		const PLpgSQL_stmt_fori *s = (const PLpgSQL_stmt_fori *)st;
		visit_sets_variable(v, (const PLpgSQL_variable *)s->var);
		visit_variable(v, (const PLpgSQL_variable *)s->var);
		visit_expr(v, s->lower, "lower");
		visit_expr(v, s->upper, "upper");
		visit_expr(v, s->step, "step");
		visit_stmts(v, s->body);
		break;
	}
	case PLPGSQL_STMT_FORS: {
		const PLpgSQL_stmt_fors *s = (const PLpgSQL_stmt_fors *)st;
		visit_sets_variable(v, s->var);
		visit_into(v, s->var);
		visit_variable(v, s->var);
		visit_stmts(v, s->body);
		visit_expr(v, s->query, "query");
		break;
	}
	case PLPGSQL_STMT_FORC: {
		const PLpgSQL_stmt_forc *s = (const PLpgSQL_stmt_forc *)st;
		visit_sets_variable(v, s->var);
		visit_variable(v, s->var);
		visit_stmts(v, s->body);
		visit_expr(v, s->argquery, "argquery");
		break;
	}
	case PLPGSQL_STMT_FOREACH_A:
		visit_sets(v, ((const PLpgSQL_stmt_foreach_a *)st)->varno, false, 0);
		visit_expr(v, ((const PLpgSQL_stmt_foreach_a *)st)->expr, "expr");
		visit_stmts(v, ((const PLpgSQL_stmt_foreach_a *)st)->body);
		break;
	case PLPGSQL_STMT_EXIT:
		visit_expr(v, ((const PLpgSQL_stmt_exit *)st)->cond, "cond");
		break;
	case PLPGSQL_STMT_RETURN:
		visit_expr(v, ((const PLpgSQL_stmt_return *)st)->expr, "expr");
		break;
	case PLPGSQL_STMT_RETURN_NEXT:
		visit_expr(v, ((const PLpgSQL_stmt_return_next *)st)->expr, "expr");
		break;
	case PLPGSQL_STMT_RETURN_QUERY: {
		const PLpgSQL_stmt_return_query *s = (const PLpgSQL_stmt_return_query *)st;
		visit_expr(v, s->query, "query");
		visit_expr(v, s->dynquery, "dynquery");
		visit_exprs(v, s->params, "params");
		break;
	}
	case PLPGSQL_STMT_RAISE: {
		const PLpgSQL_stmt_raise *s = (const PLpgSQL_stmt_raise *)st;
		visit_exprs(v, s->params, "params");
		const ListCell *lc;
		foreach (lc, s->options)
			visit_expr(v, ((const PLpgSQL_raise_option *)lfirst(lc))->expr, "expr");
		break;
	}
	case PLPGSQL_STMT_ASSERT:
		visit_expr(v, ((const PLpgSQL_stmt_assert *)st)->cond, "cond");
		visit_expr(v, ((const PLpgSQL_stmt_assert *)st)->message, "message");
		break;
	case PLPGSQL_STMT_EXECSQL:
		if (((const PLpgSQL_stmt_execsql *)st)->into)
			visit_sets_variable(v, ((const PLpgSQL_stmt_execsql *)st)->target);
		if (((const PLpgSQL_stmt_execsql *)st)->into)
			visit_into(v, ((const PLpgSQL_stmt_execsql *)st)->target);
		visit_expr(v, ((const PLpgSQL_stmt_execsql *)st)->sqlstmt, "sqlstmt");
		visit_variable(v, ((const PLpgSQL_stmt_execsql *)st)->target);
		break;
	case PLPGSQL_STMT_DYNEXECUTE: {
		const PLpgSQL_stmt_dynexecute *s = (const PLpgSQL_stmt_dynexecute *)st;
		if (s->into)
			visit_sets_variable(v, s->target);
		if (s->into)
			visit_into(v, s->target);
		visit_expr(v, s->query, "query");
		visit_variable(v, s->target);
		visit_exprs(v, s->params, "params");
		break;
	}
	case PLPGSQL_STMT_DYNFORS: {
		const PLpgSQL_stmt_dynfors *s = (const PLpgSQL_stmt_dynfors *)st;
		visit_sets_variable(v, s->var);
		visit_into(v, s->var);
		visit_variable(v, s->var);
		visit_stmts(v, s->body);
		visit_expr(v, s->query, "query");
		visit_exprs(v, s->params, "params");
		break;
	}
	case PLPGSQL_STMT_OPEN: {
		const PLpgSQL_stmt_open *s = (const PLpgSQL_stmt_open *)st;
		visit_sets(v, s->curvar, false, 0);
		visit_expr(v, s->argquery, "argquery");
		visit_expr(v, s->query, "query");
		visit_expr(v, s->dynquery, "dynquery");
		visit_exprs(v, s->params, "params");
		break;
	}
	case PLPGSQL_STMT_FETCH:
		visit_sets_variable(v, ((const PLpgSQL_stmt_fetch *)st)->target);
		visit_variable(v, ((const PLpgSQL_stmt_fetch *)st)->target);
		visit_expr(v, ((const PLpgSQL_stmt_fetch *)st)->expr, "expr");
		break;
	case PLPGSQL_STMT_PERFORM:
		visit_expr(v, ((const PLpgSQL_stmt_perform *)st)->expr, "expr");
		break;
	case PLPGSQL_STMT_CALL:
		visit_sets_variable(v, ((const PLpgSQL_stmt_call *)st)->target);
		visit_expr(v, ((const PLpgSQL_stmt_call *)st)->expr, "expr");
		visit_variable(v, ((const PLpgSQL_stmt_call *)st)->target);
		break;
	case PLPGSQL_STMT_GETDIAG: {
		const ListCell *lc;
		foreach (lc, ((const PLpgSQL_stmt_getdiag *)st)->diag_items)
			visit_sets(v, ((const PLpgSQL_diag_item *)lfirst(lc))->target, false, 0);
		break;
	}
	default: /* CLOSE, COMMIT, ROLLBACK: no expression, nothing set */
		break;
	}
	v->end(v->ctx);
}

static void visit_stmts(const cgm_raw_plpgsql_visitor *v, const List *stmts)
{
	const ListCell *lc;
	foreach (lc, stmts)
		visit_stmt(v, lfirst(lc));
}

char *__wrap_plpgsqlToJSON(PLpgSQL_function *func)
{
	const cgm_raw_plpgsql_visitor *v = plpgsql_visitor;
	bool known = v && func && func->action;
	for (int i = 0; known && i < func->ndatums; i++) {
		int t = func->datums[i]->dtype;
		known = t == PLPGSQL_DTYPE_VAR || t == PLPGSQL_DTYPE_ROW || t == PLPGSQL_DTYPE_REC ||
			t == PLPGSQL_DTYPE_RECFIELD;
	}
	if (!known || !known_stmt((const PLpgSQL_stmt *)func->action, 0))
		return __real_plpgsqlToJSON(func);
	v->begin(v->ctx);
	visited_function = func;
	for (int i = 0; i < func->ndatums; i++) {
		if (func->datums[i]->dtype != PLPGSQL_DTYPE_VAR)
			continue;
		const PLpgSQL_var *var = (const PLpgSQL_var *)func->datums[i];
		v->var(v->ctx, var->refname, var->datatype ? var->datatype->typname : NULL, var->lineno,
		       var->default_val ? var->default_val->query : NULL,
		       var->cursor_explicit_expr ? var->cursor_explicit_expr->query : NULL);
	}
	visit_stmt(v, (const PLpgSQL_stmt *)func->action);
	visited_function = NULL;
	return pstrdup("{}");
}
