/*
 * extguard.c - the extension a query's rows or a condition's truth need
 * (extguard.h).
 *
 * In:  texts, parsed here by libpg_query into jsondom nodes in a scratch
 *      arena freed before returning.  Out: a name copied into the
 *      caller's arena.
 */
#include "extguard.h"

#include <pg_query.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "docatalog.h"
#include "jsondom.h"

/* The name the query gives pg_extension when one of its FROM items (or of
 * their inner joins) reads it; the inner joins' conditions go to `quals`. */
static const char *extension_item(const jd_node *item, const jd_node **quals, size_t *nquals,
				  size_t cap)
{
	const jd_node *join = jd_get(item, "JoinExpr");
	if (join) {
		const char *type = jd_string(jd_get(join, "jointype"));
		if (!type || strcmp(type, "JOIN_INNER") != 0)
			return NULL;
		if (jd_get(join, "quals") && *nquals < cap)
			quals[(*nquals)++] = jd_get(join, "quals");
		const char *found = extension_item(jd_get(join, "larg"), quals, nquals, cap);
		return found ? found : extension_item(jd_get(join, "rarg"), quals, nquals, cap);
	}
	const jd_node *range = jd_get(item, "RangeVar");
	const char *schema = jd_string(jd_get(range, "schemaname"));
	const char *name = jd_string(jd_get(range, "relname"));
	if (!name || strcmp(name, "pg_extension") != 0 || (schema && strcmp(schema, "pg_catalog") != 0) ||
	    jd_get(range, "catalogname"))
		return NULL;
	const char *alias = jd_string(jd_get(jd_get(range, "alias"), "aliasname"));
	return alias ? alias : name;
}

/* The first answer `visit` gives for `cond` or, when `cond` is an AND,
 * for one of its conditions (nested ANDs too, 16 deep at most). */
static const char *first_in_conjuncts(const jd_node *cond,
				      const char *(*visit)(const jd_node *cond, const void *arg),
				      const void *arg, int depth)
{
	if (!cond || depth > 16)
		return NULL;
	const char *found = visit(cond, arg);
	if (found)
		return found;
	const jd_node *and = jd_get(cond, "BoolExpr");
	const char *op = jd_string(jd_get(and, "boolop"));
	if (!op || strcmp(op, "AND_EXPR") != 0)
		return NULL;
	const jd_node *args = jd_get(and, "args");
	for (size_t i = 0; i < jd_size(args) && !found; i++)
		found = first_in_conjuncts(jd_at(args, i), visit, arg, depth + 1);
	return found;
}

/* [alias.]extname = 'name', `table` the alias. */
static const char *extname_key(const jd_node *cond, const void *table)
{
	return cgm_do_catalog_key(cond, table, "extname");
}

/* [alias.]extname = 'name' in `cond` or among its ANDed conditions. */
static const char *wanted_in(const jd_node *cond, const char *table)
{
	return first_in_conjuncts(cond, extname_key, table, 0);
}

/* A target that is NULL only when there is no row: a column or constant. */
static bool plain_target(const jd_node *target)
{
	const jd_node *val = jd_get(jd_get(target, "ResTarget"), "val");
	for (int depth = 0; val && jd_get(val, "TypeCast") && depth < 8; depth++)
		val = jd_get(jd_get(val, "TypeCast"), "arg");
	return jd_get(val, "ColumnRef") || jd_get(val, "A_Const");
}

static const char *select_needs(const jd_node *select, bool any_targets)
{
	const char *op = jd_string(jd_get(select, "op"));
	if (!select || (op && strcmp(op, "SETOP_NONE") != 0) || jd_get(select, "groupClause") ||
	    jd_get(select, "havingClause") || jd_get(select, "withClause"))
		return NULL;
	const jd_node *targets = jd_get(select, "targetList");
	for (size_t i = 0; !any_targets && i < jd_size(targets); i++)
		if (!plain_target(jd_at(targets, i)))
			return NULL;
	const jd_node *from = jd_get(select, "fromClause");
	const jd_node *quals[8];
	size_t nquals = 0;
	const char *table = NULL;
	for (size_t i = 0; i < jd_size(from) && !table; i++)
		table = extension_item(jd_at(from, i), quals, &nquals, 8);
	if (!table)
		return NULL;
	const char *wanted = wanted_in(jd_get(select, "whereClause"), table);
	for (size_t i = 0; !wanted && i < nquals; i++)
		wanted = wanted_in(quals[i], table);
	return wanted;
}

static const jd_node *first_select(cgm_arena *scratch, const char *text, PgQueryParseResult *parsed)
{
	*parsed = pg_query_parse(text);
	if (parsed->error || !parsed->parse_tree)
		return NULL;
	const jd_node *tree = jd_parse(scratch, parsed->parse_tree, strlen(parsed->parse_tree));
	const jd_node *stmts = jd_get(tree, "stmts");
	if (jd_size(stmts) != 1)
		return NULL;
	return jd_get(jd_get(jd_at(stmts, 0), "stmt"), "SelectStmt");
}

const char *cgm_extguard_query(cgm_arena *arena, const char *query)
{
	/* Only a text that names pg_extension can be one: no parse otherwise. */
	if (!query || !strstr(query, "pg_extension"))
		return NULL;
	cgm_arena *scratch = cgm_arena_new();
	PgQueryParseResult parsed;
	const char *wanted = select_needs(first_select(scratch, query, &parsed), false);
	const char *kept = wanted ? cgm_arena_strdup(arena, wanted) : NULL;
	pg_query_free_parse_result(parsed);
	cgm_arena_free(scratch);
	return kept;
}

typedef struct probe_call {
	cgm_extguard_probe probe;
	void *ctx;
} probe_call;

/* An extension a condition of an IF needs: `v IS NOT NULL` of a variable
 * the probe knows, or EXISTS of a query of pg_extension. */
static const char *needs_of(const jd_node *cond, const void *arg)
{
	const probe_call *call = arg;
	const jd_node *test = jd_get(cond, "NullTest");
	if (test) {
		const char *type = jd_string(jd_get(test, "nulltesttype"));
		const jd_node *fields = jd_get(jd_get(jd_get(test, "arg"), "ColumnRef"), "fields");
		const char *name = jd_size(fields) == 1 ? jd_string_node(jd_at(fields, 0)) : NULL;
		return type && strcmp(type, "IS_NOT_NULL") == 0 && name && call->probe
			       ? call->probe(call->ctx, name)
			       : NULL;
	}
	const jd_node *link = jd_get(cond, "SubLink");
	const char *type = jd_string(jd_get(link, "subLinkType"));
	if (!type || strcmp(type, "EXISTS_SUBLINK") != 0)
		return NULL;
	return select_needs(jd_get(jd_get(link, "subselect"), "SelectStmt"), true);
}

const char *cgm_extguard_condition(cgm_arena *arena, const char *condition,
				   cgm_extguard_probe probe, void *ctx)
{
	if (!condition)
		return NULL;
	bool maybe = strstr(condition, "pg_extension") != NULL;
	if (!maybe && probe) {
		/* IS NOT NULL (any case) of some variable */
		for (const char *p = condition; *p && !maybe; p++)
			maybe = strncasecmp(p, "not", 3) == 0;
	}
	if (!maybe)
		return NULL;
	cgm_arena *scratch = cgm_arena_new();
	size_t len = strlen(condition);
	char *text = cgm_arena_alloc(scratch, len + 8);
	memcpy(text, "SELECT ", 7);
	memcpy(text + 7, condition, len + 1);
	PgQueryParseResult parsed;
	const jd_node *select = first_select(scratch, text, &parsed);
	const jd_node *targets = jd_get(select, "targetList");
	const char *wanted = NULL;
	if (jd_size(targets) == 1 && !jd_get(select, "fromClause"))
		wanted = first_in_conjuncts(jd_get(jd_get(jd_at(targets, 0), "ResTarget"), "val"), needs_of,
					    &(probe_call){ probe, ctx }, 0);
	const char *kept = wanted ? cgm_arena_strdup(arena, wanted) : NULL;
	pg_query_free_parse_result(parsed);
	cgm_arena_free(scratch);
	return kept;
}
