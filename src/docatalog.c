/*
 * docatalog.c - the rows of a DO block's query of pg_extension, as the SQL
 * files tell, and the row a query of one catalog relation looks up by
 * name (docatalog.h).
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

/* Is `node` the column `column` of the relation, unqualified or qualified
 * by the name the query gives the relation? */
static bool is_column(const jd_node *node, const char *table, const char *column)
{
	const jd_node *fields = jd_get(jd_get(uncast(node), "ColumnRef"), "fields");
	size_t n = jd_size(fields);
	const char *name = n ? jd_string_node(jd_at(fields, n - 1)) : NULL;
	if (!name || strcmp(name, column) != 0 || n > 2)
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

const char *cgm_do_catalog_key(const jd_node *cond, const char *table, const char *column)
{
	const jd_node *e = jd_get(cond, "A_Expr");
	const char *kind = jd_string(jd_get(e, "kind"));
	const jd_node *opname = jd_get(e, "name");
	const char *operator = jd_size(opname) == 1 ? jd_string_node(jd_at(opname, 0)) : NULL;
	if (!kind || strcmp(kind, "AEXPR_OP") != 0 || !operator || strcmp(operator, "=") != 0)
		return NULL;
	const jd_node *l = jd_get(e, "lexpr"), *r = jd_get(e, "rexpr");
	return is_column(l, table, column) ? string_constant(r) : is_column(r, table, column) ? string_constant(l) : NULL;
}

/* Is `cond` `installed_version IS NOT NULL`? */
static bool installed_test(const jd_node *cond, const char *table)
{
	const jd_node *test = jd_get(cond, "NullTest");
	const char *type = jd_string(jd_get(test, "nulltesttype"));
	return type && strcmp(type, "IS_NOT_NULL") == 0 && is_column(jd_get(test, "arg"), table, "installed_version");
}

const char *cgm_do_catalog_table(const jd_node *select, const char *relation)
{
	const jd_node *from = jd_get(select, "fromClause");
	const jd_node *range = jd_get(jd_at(from, 0), "RangeVar");
	const char *schema = jd_string(jd_get(range, "schemaname"));
	const char *name = jd_string(jd_get(range, "relname"));
	if (jd_size(from) != 1 || !name || strcmp(name, relation) != 0 || (schema && strcmp(schema, "pg_catalog") != 0) ||
	    jd_get(range, "catalogname"))
		return NULL;
	const char *alias = jd_string(jd_get(jd_get(range, "alias"), "aliasname"));
	return alias ? alias : name;
}

int cgm_do_catalog_rows(const jd_node *select, const cgm_do_catalog *catalog, const char **name,
			const char **column)
{
	*name = NULL;
	*column = NULL;
	if (!select || !catalog || !catalog->has_extension)
		return -1;
	const char *op = jd_string(jd_get(select, "op"));
	if ((op && strcmp(op, "SETOP_NONE") != 0) || jd_get(select, "groupClause") ||
	    jd_get(select, "havingClause") || jd_get(select, "limitCount") || jd_get(select, "limitOffset") ||
	    jd_get(select, "withClause") || jd_get(select, "distinctClause") || jd_get(select, "windowClause"))
		return -1;
	/* pg_extension's rows are the extensions made; pg_available_extensions'
	 * are those the server could make, which the files cannot tell, but
	 * with installed_version IS NOT NULL also those made. */
	const char *table = cgm_do_catalog_table(select, "pg_extension");
	bool available = !table;
	if (available)
		table = cgm_do_catalog_table(select, "pg_available_extensions");
	if (!table)
		return -1;
	const char *key = available ? "name" : "extname";

	const jd_node *where = jd_get(select, "whereClause");
	const jd_node *and = jd_get(where, "BoolExpr");
	const char *boolop = jd_string(jd_get(and, "boolop"));
	const jd_node *args = jd_get(and, "args");
	const char *wanted = NULL;
	if (!available) {
		wanted = cgm_do_catalog_key(where, table, key);
	} else if (boolop && strcmp(boolop, "AND_EXPR") == 0 && jd_size(args) == 2) {
		for (size_t i = 0; i < 2; i++)
			if (installed_test(jd_at(args, 1 - i), table))
				wanted = cgm_do_catalog_key(jd_at(args, i), table, key);
	}
	if (!wanted)
		return -1;
	*name = wanted;
	*column = key;
	return catalog->has_extension(catalog->ctx, wanted) == 1;
}
