/*
 * rawtree.h - call sites read straight from libpg_query's raw parse tree.
 *
 * In:  SQL text (one or several statements).
 * Out: through a visitor, while the tree is alive: every function call (name,
 *      location, argument shapes), every operator expression and cast,
 *      every relation read or written (name, events, columns), and the
 *      byte range of each statement whose tree
 *      holds a node this walker does not know, for the caller to read
 *      another way (dropping what was reported for it before).
 *      Every string handed to the visitor dies when the callback returns:
 *      copy what is kept.  rawtree.c frees the whole parse tree before
 *      cgm_raw_scan returns.
 *
 * Why: libpg_query's public API serialises every tree to JSON, and writing
 * then tokenising that JSON cost more than parsing the SQL.  The raw tree
 * comes from the same parser (pg_query_raw_parse, pg_query_internal.h), so
 * the sites are the same, at a third of the cost.  Only this module sees
 * PostgreSQL's node structs; everything here is plain C.
 */
#ifndef CGMAP_RAWTREE_H
#define CGMAP_RAWTREE_H

#include <stdbool.h>

/* What the parser alone knows of an argument's type. */
typedef enum cgm_raw_arg_kind {
	CGM_RAW_ARG_OTHER,   /* an expression: type unknown before analysis */
	CGM_RAW_ARG_UNKNOWN, /* a string literal or NULL: type "unknown" */
	CGM_RAW_ARG_INTEGER,
	CGM_RAW_ARG_BIGINT,
	CGM_RAW_ARG_NUMERIC,
	CGM_RAW_ARG_BOOLEAN,
	CGM_RAW_ARG_BIT,
	CGM_RAW_ARG_CAST,    /* expr::type, CAST(expr AS type), type 'literal' */
	CGM_RAW_ARG_COLUMN,  /* a one-part name: a variable, parameter or column */
	CGM_RAW_ARG_PARAM,   /* $n */
	CGM_RAW_ARG_CONCAT   /* left || right */
} cgm_raw_arg_kind;

struct cgm_expr;

typedef struct cgm_raw_arg {
	cgm_raw_arg_kind kind;
	const char *name;        /* name => value: the name, else NULL */
	const char *type_schema; /* CAST: the type as written (NULL name for %TYPE) */
	const char *type_name;
	int type_dims;
	const char *column;      /* COLUMN */
	int param;               /* PARAM */
	const struct cgm_raw_arg *left, *right; /* CONCAT */
	/* OTHER operands of operators and values of casts, with
	 * cgm_raw_visitor.arena set: the whole expression as a tree for
	 * typing (cgmap/exprtype.h), in that arena; else NULL. */
	const struct cgm_expr *expr;
} cgm_raw_arg;

struct cgm_expr;
struct cgm_arena;

typedef struct cgm_raw_call {
	const char *schema; /* as written, NULL when unqualified */
	const char *name;
	int location;       /* byte offset of the name in the parsed text */
	bool variadic;      /* VARIADIC before the last argument */
	bool call_stmt;     /* the procedure of a CALL statement */
	int nargs;
	const cgm_raw_arg *args;
	/* With cgm_raw_visitor.arena set: each argument as an expression tree
	 * for typing (cgmap/exprtype.h), built in that arena (it outlives the
	 * callback), names standing in the scope of their FROM clause. */
	const struct cgm_expr *const *argexprs;
	/* Attribute notation, `alias.name` or `(value).name` (PostgreSQL 15,
	 * "Function Call" in the manual): a call of name(row), argexprs[0] the
	 * row (with cgm_raw_visitor.arena set only), when the row's type has
	 * no column `name`, which resolution decides: else it is a column. */
	bool attribute;
	/* With attribute: `alias.name` where no FROM item is named alias.  In
	 * a SQL function's body alias may be a parameter of a row type
	 * (PostgreSQL's sql_fn_post_column_ref reads it so); in PL/pgSQL it is
	 * a variable's field, which is never a call. */
	bool unscoped;
} cgm_raw_call;

/* A relation a statement reads or writes. */
typedef struct cgm_raw_relation {
	const char *schema;   /* as written, NULL when unqualified */
	const char *name;
	int location;         /* byte offset of the name in the parsed text */
	unsigned events;      /* CGM_EV_*: SELECT for a read (FROM, JOIN, USING, MERGE's
	                       * source, TABLESAMPLE), else what the statement does */
	int ncolumns;         /* the columns an INSERT lists or an UPDATE sets; */
	const char *const *columns; /* 0/NULL: all or unknown */
	int nleading;         /* an INSERT without a column list: how many of the table's
	                       * first columns its VALUES rows or SELECT give, the others
	                       * taking their defaults; 0 unknown or not such an INSERT */
	/* With the visitor's arena: the value each of those columns gets
	 * (ncolumns entries, NULL where unknown; NULL when none is): an
	 * INSERT's one VALUES row or its SELECT's columns, an UPDATE's SET. */
	const struct cgm_expr *const *values;
	/* A read (SELECT): the columns of the relation the statement may read
	 * (nreads names, possibly none: `SELECT count(*) FROM v`), every
	 * column reference of the statement, its subqueries' too, qualified by
	 * the item's alias or not qualified at all; NULL when it reads every
	 * column or which cannot be told (`*`, `v.*`, a whole-row `v`, NATURAL
	 * JOIN, a tree the walker does not know).  Reading a view evaluates
	 * only the output columns read (viewcols.h). */
	int nreads;
	const char *const *reads;
} cgm_raw_relation;

/* An operator expression, as the parser wrote it: which operators it runs
 * is the reader's (extract.c): `left op right`, prefix `op right`,
 * `left op ANY/ALL (array)`, `left IN (right, ...)` (op "=" or "<>"),
 * `left [NOT] BETWEEN right AND right2` (op "BETWEEN", ...), and the forms
 * PostgreSQL reads as one named operator (LIKE "~~", IS DISTINCT FROM "=",
 * NULLIF "=", ...). */
typedef enum cgm_raw_op_kind {
	CGM_RAW_OP,          /* the operator `name` on left (NULL: prefix) and right */
	CGM_RAW_OP_ANY_ALL,  /* right is an array: the operator takes its element */
	CGM_RAW_OP_IN,       /* right is the first element of the list */
	CGM_RAW_OP_BETWEEN,  /* left >= right AND left <= right2 */
	CGM_RAW_OP_NOT_BETWEEN /* left < right OR left > right2 */
} cgm_raw_op_kind;

typedef struct cgm_raw_operator {
	cgm_raw_op_kind kind;
	const char *schema;  /* OPERATOR(schema.op), else NULL */
	const char *name;
	int location;
	const cgm_raw_arg *left; /* NULL for a prefix operator */
	const cgm_raw_arg *right, *right2;
} cgm_raw_operator;

typedef struct cgm_raw_visitor {
	void *ctx;
	void (*call)(void *ctx, const cgm_raw_call *call);
	/* A relation read (never a CTE's name) or written: INSERT, UPDATE,
	 * DELETE, MERGE, TRUNCATE or COPY FROM.  INSERT ... ON CONFLICT DO
	 * UPDATE reports the INSERT (its column list) then the UPDATE (the
	 * columns it sets). */
	void (*relation)(void *ctx, const cgm_raw_relation *rel);
	/* A statement begins: what is reported from here on is its own. */
	void (*statement)(void *ctx);
	/* The statement at [start, start + len) of the text (len 0: to the end)
	 * holds a node the walker does not know: forget what it reported since
	 * `statement`, and read it another way. */
	void (*unknown)(void *ctx, int start, int len);
	/* Non-NULL: build argument expressions and FROM scopes in this arena. */
	struct cgm_arena *arena;
	/* With arena set: no expressions of the values an INSERT or UPDATE
	 * stores (cgm_raw_relation.values), and no rows of PL/pgSQL
	 * assignments and RETURN expressions (cgm_raw_capture), when no cast
	 * can run on them (coerce.h). */
	bool no_coercion_values;
	/* With arena set, optional: a top-level SELECT's result row (ROW with
	 * the columns' names), before its sites are reported; lives in the arena.
	 * Captured texts (cgm_raw_capture) report it for PL/pgSQL expressions
	 * and for the value of an assignment to a whole variable too. */
	void (*row)(void *ctx, const struct cgm_expr *row);
	/* Optional (NULL: not reported): an operator expression, and a cast
	 * `value::type` / CAST(value AS type) / `type 'literal'` with `target`
	 * the cast's own shape (CGM_RAW_ARG_CAST: the type as written). */
	void (*op)(void *ctx, const cgm_raw_operator *op);
	void (*cast)(void *ctx, const cgm_raw_arg *target, const cgm_raw_arg *value, int location);
} cgm_raw_visitor;

/* Parse `sql` and report its sites to v.  Returns 0, or -1 when the text
 * does not parse: then *error gets the parser's message (heap, caller
 * frees) and *cursorpos its 1-based position (0 when unknown), and
 * nothing was reported.  -1 also when a statement nests deeper than
 * CGM_MAX_NESTING (cgmap/limits.h): the walk stops there, *error says so
 * (cgm_raw_too_deep_message) and *cursorpos is where that statement
 * starts; what earlier statements reported must be dropped too. */
int cgm_raw_scan(const char *sql, const cgm_raw_visitor *v, char **error, int *cursorpos);

/* The expression of a PL/pgSQL value (an EXECUTE's USING item), as the
 * PL/pgSQL parser reads it (SELECT value), built in `arena` for typing, or
 * NULL when it does not parse as one value. */
const struct cgm_expr *cgm_raw_value_expr(struct cgm_arena *arena, const char *text);

/* The row of a SELECT's text (an EXECUTE's constant SQL, for the record
 * its INTO or FOR fills), its columns named and their expressions built
 * in `arena` for typing, or NULL when `sql` is not one SELECT.  The caller
 * checks the text's nesting first (cgm_sql_check). */
const struct cgm_expr *cgm_raw_select_row(struct cgm_arena *arena, const char *sql);

/* The actions of the one CREATE RULE statement `sql` holds, each reported
 * to v as a statement of its own (calls, relations read and written; a
 * statement holding a node the walker does not know goes to `unknown`).
 * Returns 0, or -1 when `sql` does not parse or is no CREATE RULE. */
int cgm_raw_rule_actions(const char *sql, const cgm_raw_visitor *v);

/* "expression nested deeper than N levels" (heap, caller frees). */
char *cgm_raw_too_deep_message(void);

/* The trees libpg_query's PL/pgSQL parser builds to check each expression
 * of a body, while pg_query_parse_plpgsql runs on this thread: `text` is
 * called with each checked text (an expression, an assignment or a
 * statement, as PLpgSQL_expr.query holds it), then `visitor` reports its
 * sites, locations counting in that text.  Set it (non-NULL) around one
 * pg_query_parse_plpgsql call and clear it after; the pointer must stay
 * valid meanwhile.  Nothing is captured when libpg_query is a shared
 * library (its internal calls cannot be wrapped).  A statement nesting
 * deeper than CGM_MAX_NESTING is handed to `unknown`. */
typedef struct cgm_raw_capture {
	void (*text)(void *ctx, const char *text);
	/* After the sites of an expression that always yields the same SQL
	 * text (a literal, || of literals, format() with a literal template
	 * and only %L): that SQL and the location of its first literal. */
	void (*constant)(void *ctx, const char *sql, int location);
	/* After the sites of an assignment of a whole variable to itself
	 * followed by constant text (`q := q || ' AND b'`, appended SQL being
	 * how code adds optional clauses): that text and the location of its
	 * first literal.  May be NULL. */
	void (*appended)(void *ctx, const char *sql, int location);
	/* Report the row (visitor.row) of plain expressions too, not only of
	 * statements and assignments: RETURN's value may be cast. */
	bool expr_rows;
	cgm_raw_visitor visitor;
} cgm_raw_capture;
void cgm_raw_capture_set(const cgm_raw_capture *capture);

/* The statement tree of a PL/pgSQL body, walked from libpg_query's own
 * structs instead of the JSON it would print: while set on this thread, a
 * successful pg_query_parse_plpgsql reports to it, in the order that JSON
 * lists them, every variable (`var`: its name, declared type text or NULL,
 * line, 0 for parameters and implicit ones, and the text of its default and
 * of its cursor query or NULL), then for the action each statement
 * (`statement`, kind as the JSON key names it after "PLpgSQL_stmt_", plus
 * "elsif" and "case" for those branches; `end` after its contents) and each
 * embedded expression (`expression`, with the field it stands in).  `begin`
 * is called first; when it is not, the tree held something this walker does
 * not know and the JSON is printed as before.  Strings die when the
 * callback returns. */
typedef struct cgm_raw_plpgsql_visitor {
	void *ctx;
	void (*begin)(void *ctx);
	void (*var)(void *ctx, const char *name, const char *type, int lineno,
		    const char *default_text, const char *cursor_text);
	void (*statement)(void *ctx, const char *kind, int lineno);
	void (*end)(void *ctx);
	void (*expression)(void *ctx, const char *text, const char *field);
	/* Optional: a statement assigns its query's row to the variable `name`
	 * (SELECT ... INTO rec, FOR rec IN query; EXECUTE ... INTO rec and
	 * FOR rec IN EXECUTE, whose query is the SQL their expression
	 * yields): called before the statement's expression. */
	void (*into)(void *ctx, const char *name);
	/* Optional: the statement sets the variable `name` (each field's of
	 * a row).  `whole`: an assignment `name := value` of the variable,
	 * the value the statement's expression (called before it); false for
	 * every other way: a field or element assigned, INTO, a loop's
	 * variable, GET DIAGNOSTICS, a CALL's INOUT argument, OPEN's cursor. */
	void (*sets)(void *ctx, const char *name, bool whole);
	/* Optional: a block with an EXCEPTION clause, just begun (its
	 * `statement`): `guard` before its body, with whether a condition of
	 * the clause is undefined_function (by name or SQLSTATE '42883'),
	 * then `handlers` before the clause's actions, which it does not
	 * guard. */
	void (*guard)(void *ctx, bool catches_undefined_function);
	void (*handlers)(void *ctx);
	/* Optional: an IF's THEN statements are over (its ELSIF branches and
	 * ELSE statements follow). */
	void (*then_end)(void *ctx);
} cgm_raw_plpgsql_visitor;
void cgm_raw_plpgsql_set(const cgm_raw_plpgsql_visitor *visitor);

/* The type of `SELECT NULL::<type>` when that is all `query` holds (no
 * other clause, no second target or statement): its name parts as written
 * (n of them, at most 4), array dimensions and %TYPE flag, handed to
 * `found` while the tree lives.  Returns false when the text is anything
 * else or does not parse. */
typedef void (*cgm_raw_type_found)(void *ctx, const char *const *names, int n, int dims,
				   bool pct_type);
bool cgm_raw_cast_type(const char *query, cgm_raw_type_found found, void *ctx);

/* The parts of `SELECT a.b[.c]` (a column reference of 2 or 3 names and
 * nothing else), handed to `found` (dims 0, no %TYPE); false otherwise. */
bool cgm_raw_column_ref(const char *query, cgm_raw_type_found found, void *ctx);

/* The boolean a string literal cast to boolean is when the planner folds
 * it ('t', 'true', 'f', 'false', any case): 1, 0, or -1 for another. */
int cgm_raw_bool_literal(const char *text);

#endif
