/*
 * docatalog.c - the rows of a DO block's query of pg_extension, as the SQL
 * files tell (docatalog.h).
 *
 * In: a parsed query (jsondom nodes, the caller's).  Out: a row count.
 * Allocates nothing.
 */
#include "docatalog.h"

#include <stdbool.h>
#include <string.h>

/* `node` without the casts around it that change no name's text
 * (::text, ::name, ::varchar). */
static const jd_node *uncast(const jd_node *node)
{
	for (int depth = 0; depth < 8; depth++) {
		const jd_node *cast = jd_get(node, "TypeCast");
		if (!cast)
			return node;
		const jd_node *type = jd_get(cast, "typeName");
		if (jd_get(type, "TypeName"))
			type = jd_get(type, "TypeName");
		const jd_node *names = jd_get(type, "names");
		size_t n = jd_size(names);
		const char *t = n ? jd_string_node(jd_at(names, n - 1)) : NULL;
		if (!t || jd_get(type, "arrayBounds") ||
		    (strcmp(t, "text") != 0 && strcmp(t, "name") != 0 && strcmp(t, "varchar") != 0))
			return NULL;
		node = jd_get(cast, "arg");
	}
	return NULL;
}

/* Is `node` the column extname of pg_extension, unqualified or qualified
 * by the name the query gives the table? */
static bool is_extname(const jd_node *node, const char *table)
{
	const jd_node *fields = jd_get(jd_get(uncast(node), "ColumnRef"), "fields");
	size_t n = jd_size(fields);
	const char *column = n ? jd_string_node(jd_at(fields, n - 1)) : NULL;
	if (!column || strcmp(column, "extname") != 0 || n > 2)
		return false;
	const char *qualifier = n == 2 ? jd_string_node(jd_at(fields, 0)) : NULL;
	return n == 1 || (qualifier && strcmp(qualifier, table) == 0);
}

/* The text of a string constant, or NULL. */
static const char *string_constant(const jd_node *node)
{
	const jd_node *c = jd_get(uncast(node), "A_Const");
	return c ? jd_string(jd_get(jd_get(c, "sval"), "sval")) : NULL;
}

int cgm_do_catalog_rows(const jd_node *select, const cgm_do_catalog *catalog, const char **name)
{
	*name = NULL;
	if (!select || !catalog || !catalog->has_extension)
		return -1;
	const jd_node *from = jd_get(select, "fromClause");
	const char *op = jd_string(jd_get(select, "op"));
	if (jd_size(from) != 1 || (op && strcmp(op, "SETOP_NONE") != 0) || jd_get(select, "groupClause") ||
	    jd_get(select, "havingClause") || jd_get(select, "limitCount") || jd_get(select, "limitOffset") ||
	    jd_get(select, "withClause") || jd_get(select, "distinctClause") || jd_get(select, "windowClause"))
		return -1;
	const jd_node *range = jd_get(jd_at(from, 0), "RangeVar");
	const char *schema = jd_string(jd_get(range, "schemaname"));
	const char *relation = jd_string(jd_get(range, "relname"));
	if (!relation || strcmp(relation, "pg_extension") != 0 || (schema && strcmp(schema, "pg_catalog") != 0) ||
	    jd_get(range, "catalogname"))
		return -1;
	const char *alias = jd_string(jd_get(jd_get(range, "alias"), "aliasname"));
	const char *table = alias ? alias : relation;

	const jd_node *where = jd_get(jd_get(select, "whereClause"), "A_Expr");
	const char *kind = jd_string(jd_get(where, "kind"));
	const jd_node *opname = jd_get(where, "name");
	const char *operator = jd_size(opname) == 1 ? jd_string_node(jd_at(opname, 0)) : NULL;
	if (!kind || strcmp(kind, "AEXPR_OP") != 0 || !operator || strcmp(operator, "=") != 0)
		return -1;
	const jd_node *l = jd_get(where, "lexpr"), *r = jd_get(where, "rexpr");
	const char *wanted = is_extname(l, table) ? string_constant(r) : is_extname(r, table) ? string_constant(l) : NULL;
	if (!wanted)
		return -1;
	*name = wanted;
	return catalog->has_extension(catalog->ctx, wanted) == 1;
}
