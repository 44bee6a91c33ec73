/*
 * source_pg.c - a live database into the model, over libpq.
 *
 * In:  a conninfo/URI (or the libpq environment) and the schema filters.
 * Out: model->functions (every function of the database: the ones in scope
 *      mapped, the others - pg_catalog, extensions, filtered schemas - kept
 *      as `builtin` so resolution knows they exist), triggers, relations,
 *      what relations run on a statement's behalf (effects), event triggers,
 *      catalog references, operators, casts and aggregates' support
 *      functions, and the default search_path.  All strings are
 *      copied into model->arena; every PGresult is cleared before return.
 *      With an extraction pool, each mapped function is handed to it as soon
 *      as its row is copied (the pool then fills its line count, body hash
 *      and sites); the caller finishes or cancels the pool.
 *
 * Read-only: one REPEATABLE READ READ ONLY transaction over the catalogs; no
 * temporary object is created, so a role with USAGE on the schemas is enough.
 */
#include <errno.h>
#include <fnmatch.h>
#include <libpq-fe.h>
#include <pg_query.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgmap/bodyhash.h"
#include "cgmap/bodyver.h"
#include "cgmap/error.h"
#include "cgmap/exprcall.h"
#include "cgmap/extract_pool.h"
#include "cgmap/pipeline.h"
#include "cgmap/relfx.h"
#include "cgmap/sqlformat.h"
#include "cgmap/strbuf.h"
#include "cgmap/exprtype.h"
#include "cgmap/types.h"
#include "cgmap/viewcols.h"
#include "jsondom.h"
#include "pgconn.h"
#include "sqlprep.h"
#include "viewupd.h"

#define SEP "\x1f" /* joins arrays in query results: no name holds it */

/* The name part of the regprocedure text PostgreSQL prints with an empty
 * search_path: a pg_catalog function is visible (pg_catalog is searched
 * first, and no two of its functions share name and argument types), any
 * other is qualified.  read_function_row appends the argument types, which
 * are format_type's as in regprocedure: the same text as
 * p.oid::regprocedure without its cost, which was a third of the server's
 * time (for every builtin, a search of every function of that name). */
#define IDENTITY_NAME                                                                    \
	" CASE WHEN n.nspname = 'pg_catalog' THEN quote_ident(p.proname)"                      \
	" ELSE quote_ident(n.nspname) || '.' || quote_ident(p.proname) END"

/* The columns of both function queries, in the order read_function_row
 * reads them.  Per-row subqueries cost the server more than the rest of a
 * row: argument types print through regtype's output, which is format_type
 * (no typmod) as regprocedure uses; all argument names come with their
 * modes and the client keeps those of input arguments; the search_path
 * subquery runs only for functions with settings. */
#define FUNCTION_COLUMNS(arguments, result, source, definition, description, owner)     \
	"SELECT n.nspname, p.proname," IDENTITY_NAME ", " arguments ", " result ","             \
	" p.prokind, l.lanname, " source ", " definition ", " description ","                  \
	" p.pronargs, p.pronargdefaults, p.provariadic <> 0,"                                  \
	" nullif(array_to_string(p.proargtypes::oid[]::regtype[], chr(31)), ''),"              \
	" array_to_string(p.proargnames, chr(31), ''), array_to_string(p.proargmodes, ''),"   \
	" CASE WHEN p.proconfig IS NOT NULL THEN"                                              \
	"  (SELECT substr(c, 13) FROM unnest(p.proconfig) AS c WHERE c LIKE 'search_path=%')"  \
	" END,"                                                                                \
	" p.prorettype IN ('pg_catalog.trigger'::regtype, 'pg_catalog.event_trigger'::regtype)," \
	" CASE WHEN e.own THEN 'c' WHEN e.objid IS NOT NULL THEN 't' ELSE 'f' END, "           \
	owner                                                                                  \
	" FROM pg_proc p"                                                                      \
	" JOIN pg_namespace n ON n.oid = p.pronamespace"                                       \
	" JOIN pg_language l ON l.oid = p.prolang"                                             \
	" LEFT JOIN (SELECT d.objid, bool_or(x.extname = 'cgmap_trace') AS own"                \
	"            FROM pg_depend d JOIN pg_extension x ON x.oid = d.refobjid"               \
	"            WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e'"                \
	"            GROUP BY d.objid) AS e ON e.objid = p.oid"

enum {
	COL_SCHEMA, COL_NAME, COL_IDENTITY_NAME, COL_ARGUMENTS, COL_RESULT, COL_KIND, COL_LANGUAGE,
	COL_SOURCE, COL_DEFINITION, COL_COMMENT, COL_NARGS, COL_NDEFAULTS, COL_VARIADIC,
	COL_ARGTYPES, COL_ARGNAMES, COL_ARGMODES, COL_SEARCH_PATH, COL_TRIGGER, COL_EXTENSION,
	COL_OWNER, COL_OWNER_PATH, COL_SECURITY_DEFINER, COL_VOLATILITY
};

/* The owner, and the search_path its sessions start with by its own
 * settings (ALTER ROLE ... [IN DATABASE ...] SET search_path; the one for
 * this database first), as PostgreSQL applies them at login.  NULL when
 * it has none: the database's path, or --search-path, places its calls. */
#define OWNER_COLUMNS                                                                      \
	"pg_get_userbyid(p.proowner),"                                                         \
	" (SELECT substr(c, 13) FROM pg_db_role_setting s, unnest(s.setconfig) AS c"           \
	"   WHERE s.setrole = p.proowner AND c LIKE 'search_path=%'"                            \
	"   AND s.setdatabase IN (0, (SELECT oid FROM pg_database"                             \
	"                            WHERE datname = current_database()))"                     \
	"   ORDER BY s.setdatabase DESC LIMIT 1),"                                            \
	" p.prosecdef, p.provolatile"

#define SYSTEM_SCHEMAS "('pg_catalog', 'information_schema')"
#define NOT_TEMPORARY "n.nspname !~ '^pg_(toast|temp_|toast_temp_)'"

/* pg_get_function_arguments() and pg_get_function_result() look the
 * function up again and were half of the server's time for the query
 * below.  For a function whose arguments are all IN without defaults
 * and without modes written (proargmodes is NULL: no OUT, INOUT, VARIADIC
 * or TABLE argument, and no IN a procedure's would print), and that is no
 * aggregate (an ordered-set one's print with ORDER BY), the arguments
 * are its names and types, which the client joins (plain_arguments), and
 * the result the return type format_type prints, as
 * print_function_rettype does; the others are asked for.  A procedure has
 * no result (NULL). */
#define PLAIN_OR(plain, other) \
	"CASE WHEN p.proargmodes IS NULL AND p.pronargdefaults = 0 AND p.prokind <> 'a' THEN " plain \
	" ELSE " other " END"

/* Every function outside pg_catalog and information_schema, bodies and all,
 * streamed row by row.  No ORDER BY: the rows come as the scan finds them,
 * so the first body reaches the parser while the server still deparses the
 * rest (cgm_model_index orders the model afterwards). */
static const char *const user_functions_query =
	FUNCTION_COLUMNS(PLAIN_OR("NULL", "pg_get_function_arguments(p.oid)"),
			 "CASE WHEN p.prokind = 'p' THEN NULL"
			 " WHEN p.proargmodes IS NULL THEN"
			 "  CASE WHEN p.proretset THEN 'SETOF ' ELSE '' END || format_type(p.prorettype, NULL)"
			 " ELSE pg_get_function_result(p.oid) END",
			 "CASE WHEN l.lanname IN ('plpgsql', 'sql') THEN p.prosrc END",
			 "CASE WHEN p.prosqlbody IS NOT NULL THEN pg_get_functiondef(p.oid) END",
			 "c.description", OWNER_COLUMNS)
	" LEFT JOIN pg_description c ON c.objoid = p.oid AND c.classoid = 'pg_proc'::regclass"
	"  AND c.objsubid = 0"
	" WHERE n.nspname NOT IN " SYSTEM_SCHEMAS " AND " NOT_TEMPORARY;

/* Builtins are read for resolution only, after the mapped bodies: none of
 * the costly deparsing, no body, no comment; the result type (which typing
 * a call's result needs) through format_type, which prints what
 * pg_get_function_result does for all but OUT parameters (then "record"). */
static const char *const system_functions_query =
	FUNCTION_COLUMNS("NULL",
			 "CASE WHEN p.proretset THEN 'SETOF ' ELSE '' END || format_type(p.prorettype, NULL)",
			 "NULL", "NULL", "NULL", "NULL, NULL, false, p.provolatile")
	" WHERE n.nspname IN " SYSTEM_SCHEMAS;

/* The queries of triggers, rules and event triggers take $1, the states
 * (tgenabled, ev_enabled, evtenabled) that fire in the session mapped:
 * "OA" for an ordinary one (origin), "RA" under session_replication_role
 * = replica (fires_states), as trigger.c, rewriteHandler.c's matchLocks
 * and event_trigger.c's filter_event_trigger decide. */

/* A partition's clone of its parent's row trigger (tgparentid) is the
 * parent's trigger: listed once, on the parent, which the statement names;
 * a statement naming the partition runs it too (relfx.c, by `row`). */
static const char *const triggers_query =
	"SELECT n.nspname, c.relname, t.tgname, t.tgtype, t.tgfoid::regprocedure::text,"
	" position(t.tgenabled::text IN $1) > 0,"
	" (SELECT string_agg(a.attname, chr(31) ORDER BY a.attnum) FROM pg_attribute a"
	"   WHERE a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr::int2[])),"
	" (t.tgtype & 1) = 1"
	" FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
	" JOIN pg_namespace n ON n.oid = c.relnamespace"
	" WHERE NOT t.tgisinternal AND t.tgparentid = 0 ORDER BY 1, 2, 3";

/* What PostgreSQL runs on a statement's behalf (relfx.h), with the
 * functions pg_depend names: the catalog resolved their overloads already.
 * A dependency on an operator is one on its function (oprcode).  Functions
 * of pg_catalog are left out (like the edges to them), and so are the
 * system schemas' own relations.  Columns: schema, relation, reach (f
 * function, v view reads, p partition, c cascade), via, object, events
 * (CGM_EV_* bits), columns, function id, target schema and relation,
 * target events, target columns, note, and whether a foreign key's action
 * is SET DEFAULT (the referencing columns' defaults run). */
#define QREL(n, c) "quote_ident(" n ".nspname) || '.' || quote_ident(" c ".relname)"
#define TG_EVENTS(t) \
	"(((" t ".tgtype >> 2) & 1) | (((" t ".tgtype >> 4) & 1) << 1) | (((" t ".tgtype >> 3) & 1) << 2)" \
	" | (((" t ".tgtype >> 5) & 1) << 3))"
#define COLS(rel, nums) \
	"(SELECT string_agg(a.attname, chr(31) ORDER BY a.attnum) FROM pg_attribute a" \
	" WHERE a.attrelid = " rel " AND a.attnum = ANY (" nums "))"
#define NO_TARGET "NULL::name, NULL::name, 0, NULL::text"
#define NO_DEFAULTS ", false"
/* A foreign key whose action runs: it has action triggers on the
 * referenced table.  A partition's clone of its parent's key has only the
 * check triggers on the partition; the parent's action, on the whole
 * partitioned table, reaches it (ri_triggers.c: no ONLY there). */
#define FK_ACTS                                                                         \
	"EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgconstraint = k.oid"               \
	" AND g.tgrelid = k.confrelid AND g.tgfoid NOT IN"                              \
	" ('\"RI_FKey_check_ins\"'::regproc, '\"RI_FKey_check_upd\"'::regproc))"
static const char *const effects_query =
	"WITH RECURSIVE dep AS ("
	"  SELECT DISTINCT d.classid, d.objid, f.oid AS fn, f.oid::regprocedure::text AS fid"
	"  FROM pg_depend d"
	"  JOIN pg_proc f ON f.oid = CASE WHEN d.refclassid = 'pg_proc'::regclass THEN d.refobjid"
	"   ELSE (SELECT o.oprcode::oid FROM pg_operator o WHERE o.oid = d.refobjid) END"
	"  WHERE d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass) AND d.deptype = 'n'"
	"   AND d.classid IN ('pg_rewrite'::regclass, 'pg_attrdef'::regclass,"
	"    'pg_constraint'::regclass, 'pg_policy'::regclass, 'pg_trigger'::regclass,"
	"    'pg_class'::regclass, 'pg_type'::regclass)"
	"   AND f.pronamespace <> 'pg_catalog'::regnamespace),"
	" dom(base, typ) AS ("
	"  SELECT t.oid, t.oid FROM pg_type t WHERE t.typtype = 'd'"
	"  UNION SELECT dom.base, t.oid FROM dom JOIN pg_type t ON t.typbasetype = dom.typ AND t.typtype = 'd'),"
	" rel AS ("
	"  SELECT c.oid, c.relname, c.relkind, c.relrowsecurity, n.nspname, n.oid AS nsp FROM pg_class c"
	"  JOIN pg_namespace n ON n.oid = c.relnamespace"
	"  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')"
	"   AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)'),"
	/* The operator classes' support functions outside pg_catalog, first:
	 * a handful, where joining all 3,600 of PostgreSQL's own with every
	 * index took a tenth of a second at 10,000 functions. */
	" uproc AS MATERIALIZED ("
	"  SELECT ap.amprocfamily, ap.amproclefttype, ap.amprocnum, ap.amproc FROM pg_amproc ap"
	"  JOIN pg_proc f ON f.oid = ap.amproc"
	"  WHERE f.pronamespace <> 'pg_catalog'::regnamespace"
	"   AND ap.amproclefttype = ap.amprocrighttype)"
	/* Views and rules. */
	/* A materialized view's query runs on REFRESH (32), not on a read. */
	" SELECT c.nspname, c.relname, 'f', CASE WHEN r.rulename = '_RETURN' THEN 'view' ELSE 'rule' END,"
	"  CASE WHEN r.rulename <> '_RETURN' THEN 'rule ' || quote_ident(r.rulename) || ' on ' || " QREL("c", "c")
	"   WHEN c.relkind = 'm' THEN 'materialized view ' || " QREL("c", "c")
	"   ELSE 'view ' || " QREL("c", "c") " END,"
	"  CASE WHEN c.relkind = 'm' THEN 32 ELSE"
	"   CASE r.ev_type WHEN '1' THEN 16 WHEN '2' THEN 2 WHEN '3' THEN 1 WHEN '4' THEN 4 END END,"
	"  NULL, d.fid, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_rewrite r ON d.classid = 'pg_rewrite'::regclass AND r.oid = d.objid"
	" JOIN rel c ON c.oid = r.ev_class"
	/* A view's _RETURN rule is no rule matchLocks filters: it reads in
	 * every session. */
	" WHERE CASE WHEN r.rulename = '_RETURN' THEN r.ev_enabled <> 'D' AND c.relkind IN ('v', 'm')"
	"  ELSE position(r.ev_enabled::text IN $1) > 0 END"
	/* Defaults and generated columns. */
	" UNION ALL SELECT c.nspname, c.relname, 'f',"
	"  CASE WHEN a.attgenerated = 's' THEN 'generated' ELSE 'default' END,"
	"  CASE WHEN a.attgenerated = 's' THEN 'generated ' ELSE 'default ' END || " QREL("c", "c")
	"   || '.' || quote_ident(a.attname),"
	"  CASE WHEN a.attgenerated = 's' AND g.cols IS NOT NULL THEN 3 ELSE 1 END,"
	"  CASE WHEN a.attgenerated = 's' THEN g.cols ELSE a.attname::text END, d.fid, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_attrdef ad ON d.classid = 'pg_attrdef'::regclass AND ad.oid = d.objid"
	" JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum"
	" JOIN rel c ON c.oid = ad.adrelid"
	/* A stored generated column is computed again by an UPDATE only when
	 * it sets a column the expression reads (extraUpdatedCols, PostgreSQL
	 * 13+), which the attrdef depends on (its own column's row is 'i');
	 * reading none, only an INSERT computes it. */
	" CROSS JOIN LATERAL (SELECT CASE WHEN a.attgenerated = 's' THEN"
	"   (SELECT string_agg(r.attname, chr(31) ORDER BY r.attnum) FROM pg_depend gd"
	"    JOIN pg_attribute r ON r.attrelid = gd.refobjid AND r.attnum = gd.refobjsubid"
	"    WHERE gd.classid = 'pg_attrdef'::regclass AND gd.objid = ad.oid AND gd.deptype = 'n'"
	"     AND gd.refclassid = 'pg_class'::regclass AND gd.refobjid = ad.adrelid"
	"     AND gd.refobjsubid > 0) END AS cols) g"
	/* A domain's DEFAULT fills in a column of that type with no default
	 * of its own (build_column_default falls back to the type's; never a
	 * generated or identity column's).  A domain made over another copies
	 * its default (DefineDomain), so the column's own type is the one. */
	" UNION ALL SELECT c.nspname, c.relname, 'f', 'default',"
	"  'default ' || " QREL("c", "c") " || '.' || quote_ident(a.attname)"
	"   || ' from domain ' || quote_ident(tn.nspname) || '.' || quote_ident(t.typname),"
	"  1, a.attname::text, d.fid, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid"
	"  AND t.typtype = 'd'"
	" JOIN pg_namespace tn ON tn.oid = t.typnamespace"
	" JOIN pg_attribute a ON a.atttypid = t.oid AND a.attnum > 0 AND NOT a.attisdropped"
	"  AND NOT a.atthasdef AND a.attidentity = '' AND a.attgenerated = ''"
	" JOIN rel c ON c.oid = a.attrelid AND c.relkind IN ('r', 'p', 'f')"
	/* CHECK constraints of tables. */
	" UNION ALL SELECT c.nspname, c.relname, 'f', 'check',"
	"  'check ' || " QREL("c", "c") " || '.' || quote_ident(k.conname), 3, NULL, d.fid, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_constraint k ON d.classid = 'pg_constraint'::regclass AND k.oid = d.objid"
	" JOIN rel c ON c.oid = k.conrelid WHERE k.contype = 'c'"
	/* CHECKs of domains, on every column of the domain or of one over it. */
	" UNION ALL SELECT c.nspname, c.relname, 'f', 'domain',"
	"  'domain ' || quote_ident(tn.nspname) || '.' || quote_ident(t.typname) || '.' || quote_ident(k.conname),"
	"  3, a.attname::text, d.fid, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_constraint k ON d.classid = 'pg_constraint'::regclass AND k.oid = d.objid"
	" JOIN pg_type t ON t.oid = k.contypid JOIN pg_namespace tn ON tn.oid = t.typnamespace"
	" JOIN dom ON dom.base = k.contypid"
	" JOIN pg_attribute a ON a.atttypid = dom.typ AND a.attnum > 0 AND NOT a.attisdropped"
	" JOIN rel c ON c.oid = a.attrelid AND c.relkind IN ('r', 'p', 'f')"
	" WHERE k.contypid <> 0"
	/* Row-level security policies: USING on reads, UPDATE and DELETE (a
	 * SELECT policy's too: their WHERE reads the rows), WITH CHECK on
	 * INSERT and UPDATE; the expression holding the function decides (its
	 * node text names it), both when neither tells. */
	" UNION ALL SELECT c.nspname, c.relname, 'f', 'policy',"
	"  'policy ' || quote_ident(p.polname) || ' on ' || " QREL("c", "c") ","
	"  CASE WHEN u.q OR NOT (u.q OR u.w) THEN CASE p.polcmd WHEN 'r' THEN 22 WHEN 'w' THEN 2"
	"    WHEN 'd' THEN 4 WHEN '*' THEN 22 ELSE 0 END ELSE 0 END"
	"  | CASE WHEN u.w OR NOT (u.q OR u.w) THEN CASE p.polcmd WHEN 'a' THEN 1 WHEN 'w' THEN 2"
	"    WHEN '*' THEN 3 ELSE 0 END ELSE 0 END,"
	"  NULL, d.fid, " NO_TARGET ", 'roles without BYPASSRLS'" NO_DEFAULTS
	" FROM dep d JOIN pg_policy p ON d.classid = 'pg_policy'::regclass AND p.oid = d.objid"
	" JOIN rel c ON c.oid = p.polrelid"
	" CROSS JOIN LATERAL (SELECT"
	"   coalesce(p.polqual::text ~ (':(op)?funcid ' || d.fn || ' '), false) AS q,"
	"   coalesce(p.polwithcheck::text ~ (':(op)?funcid ' || d.fn || ' '), false) AS w) u"
	" WHERE c.relrowsecurity"
	/* Triggers' WHEN conditions. */
	" UNION ALL SELECT c.nspname, c.relname, 'f', 'trigger_when',"
	"  'trigger ' || quote_ident(t.tgname) || ' on ' || " QREL("c", "c") ","
	"  " TG_EVENTS("t") ", " COLS("t.tgrelid", "t.tgattr::int2[]") ", d.fid, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_trigger t ON d.classid = 'pg_trigger'::regclass AND t.oid = d.objid"
	" JOIN rel c ON c.oid = t.tgrelid"
	" WHERE d.fn <> t.tgfoid AND NOT t.tgisinternal AND t.tgparentid = 0"
	"  AND position(t.tgenabled::text IN $1) > 0"
	/* A partitioned table's key expressions: an INSERT routes each row
	 * through them, and an INSERT or UPDATE of a partition checks each
	 * row it writes against the partition's constraint, which holds its
	 * ancestors' keys (an UPDATE that moves a row routes it again): on
	 * the table and on every partition under it, at any depth. */
	" UNION ALL SELECT c.nspname, c.relname, 'f', 'partition_key',"
	"  'partition key ' || quote_ident(pn.nspname) || '.' || quote_ident(p.relname), 3, NULL, d.fid,"
	"  " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_partitioned_table pt ON d.classid = 'pg_class'::regclass"
	"  AND pt.partrelid = d.objid"
	" JOIN pg_class p ON p.oid = pt.partrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace"
	" CROSS JOIN LATERAL pg_partition_tree(pt.partrelid) AS tree"
	" JOIN rel c ON c.oid = tree.relid"
	/* Index expressions and partial-index predicates. */
	" UNION ALL SELECT c.nspname, c.relname, 'f', 'index',"
	"  'index ' || quote_ident(c.nspname) || '.' || quote_ident(x.relname), 3, NULL, d.fid, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM dep d JOIN pg_index i ON d.classid = 'pg_class'::regclass AND i.indexrelid = d.objid"
	" JOIN pg_class x ON x.oid = i.indexrelid JOIN rel c ON c.oid = i.indrelid"
	/* The support functions of an index's operator classes, which the
	 * access method calls to insert a row's entry (INSERT, and an UPDATE
	 * that is not HOT) and to scan the index (a read whose plan uses it;
	 * an exclusion constraint's check on INSERT and UPDATE; GiST's
	 * distance and fetch only for a read, src/opclass.c), by the
	 * support numbers of PostgreSQL 15's btree, hash, GiST, GIN, SP-GiST
	 * and BRIN; every number of another access method on both. */
	" UNION ALL SELECT DISTINCT c.nspname, c.relname, 'f', 'index',"
	"  'index ' || quote_ident(c.nspname) || '.' || quote_ident(x.relname) || ' (operator class '"
	"   || quote_ident(ocn.nspname) || '.' || quote_ident(oc.opcname) || ')',"
	"  CASE WHEN am.amname NOT IN ('btree', 'hash', 'gist', 'gin', 'spgist', 'brin') THEN 23 ELSE"
	"   CASE WHEN (am.amname, ap.amprocnum) IN (('btree', 1), ('hash', 1), ('hash', 2), ('gist', 2),"
	"     ('gist', 3), ('gist', 4), ('gist', 5), ('gist', 6), ('gist', 7), ('gin', 1), ('gin', 2),"
	"     ('spgist', 1), ('spgist', 2), ('spgist', 3), ('spgist', 6), ('brin', 1), ('brin', 2),"
	"     ('brin', 4)) THEN 3 ELSE 0 END"
	"   | CASE WHEN (am.amname, ap.amprocnum) IN (('btree', 1), ('hash', 1), ('hash', 2), ('gist', 1),"
	"     ('gist', 4), ('gin', 1), ('gin', 3), ('gin', 4), ('gin', 5),"
	"     ('gin', 6), ('spgist', 1), ('spgist', 4), ('spgist', 5), ('brin', 1), ('brin', 3))"
	"    THEN 22 | CASE WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.contype = 'x'"
	"     AND k.conindid = i.indexrelid) THEN 3 ELSE 0 END ELSE 0 END"
	"   | CASE WHEN (am.amname, ap.amprocnum) IN (('gist', 8), ('gist', 9)) THEN 16 ELSE 0 END END,"
	"  NULL, f.oid::regprocedure::text, " NO_TARGET ", NULL" NO_DEFAULTS
	" FROM pg_index i JOIN rel c ON c.oid = i.indrelid"
	" JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_am am ON am.oid = x.relam"
	" CROSS JOIN LATERAL unnest(i.indclass::oid[]) AS k(opc)"
	" JOIN pg_opclass oc ON oc.oid = k.opc JOIN pg_namespace ocn ON ocn.oid = oc.opcnamespace"
	" JOIN uproc ap ON ap.amprocfamily = oc.opcfamily AND ap.amproclefttype = oc.opcintype"
	" JOIN pg_proc f ON f.oid = ap.amproc"
	" WHERE (am.amname NOT IN ('btree', 'hash', 'gist', 'gin', 'spgist', 'brin')"
	"   OR (am.amname, ap.amprocnum) IN (('btree', 1), ('hash', 1), ('hash', 2), ('gist', 1), ('gist', 2),"
	"    ('gist', 3), ('gist', 4), ('gist', 5), ('gist', 6), ('gist', 7), ('gist', 8), ('gist', 9),"
	"    ('gin', 1), ('gin', 2), ('gin', 3), ('gin', 4), ('gin', 5), ('gin', 6), ('spgist', 1),"
	"    ('spgist', 2), ('spgist', 3), ('spgist', 4), ('spgist', 5), ('spgist', 6), ('brin', 1),"
	"    ('brin', 2), ('brin', 3), ('brin', 4)))"
	/* A view reads the relations its query names: those its query tree
	 * scans (a range table entry, ":relid <oid> "), not every relation
	 * it depends on: pg_partition_tree('app.t'::regclass) makes the view
	 * depend on app.t and reads nothing of it, as the SQL files see. */
	" UNION ALL SELECT DISTINCT c.nspname, c.relname, 'v', 'view',"
	"  CASE c.relkind WHEN 'm' THEN 'materialized view ' ELSE 'view ' END || " QREL("c", "c") ","
	"  CASE c.relkind WHEN 'm' THEN 32 ELSE 16 END, NULL,"
	"  NULL, t.nspname, t.relname, 16, NULL, NULL" NO_DEFAULTS
	" FROM pg_depend d JOIN pg_rewrite r ON d.classid = 'pg_rewrite'::regclass AND r.oid = d.objid"
	" JOIN rel c ON c.oid = r.ev_class AND c.relkind IN ('v', 'm')"
	" JOIN rel t ON d.refclassid = 'pg_class'::regclass AND t.oid = d.refobjid"
	" WHERE d.deptype = 'n' AND r.rulename = '_RETURN' AND t.oid <> c.oid"
	"  AND strpos(r.ev_action::text, ':relid ' || t.oid::text || ' ') > 0"
	/* A partitioned table's statement runs its partitions' triggers; an
	 * UPDATE, DELETE or TRUNCATE of a table (not ONLY) those of the tables
	 * inheriting from it (14: no INSERT, which stays in the parent). */
	" UNION ALL SELECT c.nspname, c.relname, 'p', 'trigger', NULL,"
	"  CASE c.relkind WHEN 'p' THEN 15 ELSE 14 END, NULL, NULL,"
	"  t.nspname, t.relname, CASE c.relkind WHEN 'p' THEN 15 ELSE 14 END, NULL, NULL" NO_DEFAULTS
	" FROM pg_inherits h JOIN rel c ON c.oid = h.inhparent AND c.relkind IN ('p', 'r', 'f')"
	" JOIN rel t ON t.oid = h.inhrelid"
	/* Foreign keys whose ON DELETE / ON UPDATE acts on the referencing rows. */
	" UNION ALL SELECT c.nspname, c.relname, 'c', 'cascade',"
	"  'cascade ' || " QREL("t", "t") " || '.' || quote_ident(k.conname), 4, NULL, NULL,"
	"  t.nspname, t.relname, CASE k.confdeltype WHEN 'c' THEN 4 ELSE 2 END,"
	"  CASE WHEN k.confdeltype = 'c' THEN NULL ELSE " COLS("k.conrelid", "k.conkey") " END, NULL,"
	"  k.confdeltype = 'd'"
	" FROM pg_constraint k JOIN rel c ON c.oid = k.confrelid JOIN rel t ON t.oid = k.conrelid"
	" WHERE k.contype = 'f' AND k.confdeltype IN ('c', 'n', 'd') AND " FK_ACTS
	" UNION ALL SELECT c.nspname, c.relname, 'c', 'cascade',"
	"  'cascade ' || " QREL("t", "t") " || '.' || quote_ident(k.conname), 2,"
	"  " COLS("k.confrelid", "k.confkey") ", NULL,"
	"  t.nspname, t.relname, 2, " COLS("k.conrelid", "k.conkey") ", NULL, k.confupdtype = 'd'"
	" FROM pg_constraint k JOIN rel c ON c.oid = k.confrelid JOIN rel t ON t.oid = k.conrelid"
	" WHERE k.contype = 'f' AND k.confupdtype IN ('c', 'n', 'd') AND " FK_ACTS
	/* TRUNCATE ... CASCADE (128) truncates the referencing table, ONLY it,
	 * whatever the key's actions, and cascades on (136: TRUNCATE and
	 * CASCADE).  A partition's clone of its parent's key adds nothing:
	 * the parent's reaches the partition. */
	" UNION ALL SELECT c.nspname, c.relname, 'c', 'cascade',"
	"  'cascade ' || " QREL("t", "t") " || '.' || quote_ident(k.conname), 128, NULL, NULL,"
	"  t.nspname, t.relname, 136, NULL, NULL, false"
	" FROM pg_constraint k JOIN rel c ON c.oid = k.confrelid JOIN rel t ON t.oid = k.conrelid"
	" WHERE k.contype = 'f' AND k.conparentid = 0"
	" ORDER BY 1, 2, 5, 8, 9, 10";

/* Rules other than a view's, with their definition: the relations their
 * actions read and write are read from it (relfx.h, cgm_rule_actions);
 * printed with an empty search_path, every name is qualified. */
static const char *const rules_query =
	"SELECT n.nspname, c.relname,"
	" 'rule ' || quote_ident(r.rulename) || ' on ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname),"
	" CASE r.ev_type WHEN '2' THEN 2 WHEN '3' THEN 1 WHEN '4' THEN 4 ELSE 0 END,"
	" pg_get_ruledef(r.oid), r.is_instead AND r.ev_qual = '<>'"
	" FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class"
	" JOIN pg_namespace n ON n.oid = c.relnamespace"
	" WHERE r.rulename <> '_RETURN' AND position(r.ev_enabled::text IN $1) > 0"
	"  AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
	"  AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)' ORDER BY 1, 2, 3";

static const char *const event_triggers_query =
	"SELECT e.evtname, e.evtevent, array_to_string(e.evttags, chr(31)), "
	" position(e.evtenabled::text IN $1) > 0,"
	" e.evtfoid::regprocedure::text FROM pg_event_trigger e ORDER BY 1";

/* Relations and composite types with their columns in attribute order
 * (names and format_type texts, chr(31)-joined), pg_catalog's too: typing
 * a column reference needs its type wherever the relation lives. */
static const char *const relations_query =
	"SELECT n.nspname, c.relname, c.relkind,"
	" (SELECT string_agg(a.attname, chr(31) ORDER BY a.attnum) FROM pg_attribute a"
	"   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),"
	" (SELECT string_agg(format_type(a.atttypid, a.atttypmod), chr(31) ORDER BY a.attnum)"
	"   FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),"
	" (SELECT count(*) FROM pg_attribute a"
	"   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),"
	/* A partitioned table's key columns; NULL when a key is an expression. */
	" (SELECT CASE WHEN 0 = ANY (pt.partattrs::int2[]) THEN NULL ELSE"
	"   (SELECT string_agg(a.attname, chr(31)) FROM pg_attribute a"
	"    WHERE a.attrelid = c.oid AND a.attnum = ANY (pt.partattrs::int2[])) END"
	"  FROM pg_partitioned_table pt WHERE pt.partrelid = c.oid),"
	" pg_get_userbyid(c.relowner), c.relforcerowsecurity,"
	/* A view's query, to tell whether PostgreSQL updates it by itself
	 * (viewupd.h), printed under the empty search_path (every name
	 * qualified), and its analysed query's hasAggs, hasWindowFuncs and
	 * hasTargetSRFs: the first of each in the rule's node text is the
	 * top-level query's, whose flags precede its range table. */
	" CASE WHEN c.relkind = 'v' AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
	"  THEN pg_get_viewdef(c.oid) END,"
	" CASE WHEN c.relkind = 'v' AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
	"  THEN (SELECT (regexp_match(r.ev_action::text,"
	"    ':hasAggs (\\w+) :hasWindowFuncs (\\w+) :hasTargetSRFs (\\w+)'))::text"
	"    <> '{false,false,false}'"
	"   FROM pg_rewrite r WHERE r.ev_class = c.oid AND r.rulename = '_RETURN') END,"
	/* WITH (security_invoker): the view's tables read with the invoker's rights. */
	" EXISTS (SELECT 1 FROM pg_options_to_table(c.reloptions) o"
	"  WHERE o.option_name = 'security_invoker'"
	"   AND lower(o.option_value) IN ('true', 'on', '1', 'yes', 't', 'y'))"
	" FROM pg_class c"
	" JOIN pg_namespace n ON n.oid = c.relnamespace"
	" WHERE c.relkind IN ('r', 'p', 'v', 'f', 'm', 'c')"
	" AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)'";

/* The CHECKs of domains that call functions (their pg_depend rows), each
 * once per domain it holds for: its own and every domain over it. */
/* The functions the DEFAULTs of domains call (a domain's pg_depend rows
 * on functions and operators are its default's; one made over another
 * copied the base's default, and its dependencies). */
static const char *const domain_defaults_query =
	"SELECT DISTINCT format_type(t.oid, NULL),"
	"  'default of domain ' || quote_ident(tn.nspname) || '.' || quote_ident(t.typname),"
	"  f.oid::regprocedure::text"
	" FROM pg_type t JOIN pg_namespace tn ON tn.oid = t.typnamespace"
	" JOIN pg_depend d ON d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'n'"
	"  AND d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)"
	" JOIN pg_proc f ON f.oid = CASE WHEN d.refclassid = 'pg_proc'::regclass THEN d.refobjid"
	"  ELSE (SELECT o.oprcode::oid FROM pg_operator o WHERE o.oid = d.refobjid) END"
	" WHERE t.typtype = 'd' AND t.typdefaultbin IS NOT NULL"
	" ORDER BY 1, 3";

static const char *const domain_checks_query =
	"WITH RECURSIVE dom(base, typ) AS ("
	"  SELECT t.oid, t.oid FROM pg_type t WHERE t.typtype = 'd'"
	"  UNION SELECT dom.base, t.oid FROM dom JOIN pg_type t ON t.typbasetype = dom.typ AND t.typtype = 'd')"
	" SELECT DISTINCT format_type(dom.typ, NULL),"
	"  'domain ' || quote_ident(tn.nspname) || '.' || quote_ident(t.typname) || '.' || quote_ident(k.conname),"
	"  f.oid::regprocedure::text"
	" FROM pg_constraint k"
	" JOIN pg_depend d ON d.classid = 'pg_constraint'::regclass AND d.objid = k.oid AND d.deptype = 'n'"
	" JOIN pg_proc f ON f.oid = CASE WHEN d.refclassid = 'pg_proc'::regclass THEN d.refobjid"
	"  ELSE (SELECT o.oprcode::oid FROM pg_operator o WHERE o.oid = d.refobjid) END"
	" JOIN pg_type t ON t.oid = k.contypid JOIN pg_namespace tn ON tn.oid = t.typnamespace"
	" JOIN dom ON dom.base = k.contypid"
	" WHERE k.contypid <> 0 AND k.contype = 'c'"
	"  AND d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)"
	"  AND f.pronamespace <> 'pg_catalog'::regnamespace"
	" ORDER BY 1, 2, 3";

/* User types (a one-argument call may be a function-style cast to one) and
 * column names (or attribute notation on a row). */
static const char *const types_query =
	"SELECT n.nspname, t.typname, format_type(t.oid, NULL), t.typtype,"
	" CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, NULL) END,"
	" t.typcategory, t.typispreferred,"
	" CASE WHEN t.typtype = 'd' THEN t.typnotnull"
	"  OR EXISTS (SELECT 1 FROM pg_constraint c WHERE c.contypid = t.oid) END"
	" FROM pg_type t"
	" JOIN pg_namespace n ON n.oid = t.typnamespace"
	" WHERE (t.typcategory <> 'A' OR t.typtype = 'd') AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)'";

static const char *const columns_query =
	"SELECT DISTINCT a.attname FROM pg_attribute a"
	" JOIN pg_class c ON c.oid = a.attrelid"
	" JOIN pg_namespace n ON n.oid = c.relnamespace"
	" WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c') AND a.attnum > 0 AND NOT a.attisdropped"
	"  AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1";

/* Objects that refer to a function.  A function's dependency on another is
 * a call (SQL-standard bodies record them), not a reference - except for
 * aggregates, whose support functions they are.  A partition's clone of
 * its parent's row trigger is the parent's trigger, referred to once. */
static const char *const references_query =
	"SELECT d.refobjid::regprocedure::text,"
	" CASE d.classid"
	"  WHEN 'pg_rewrite'::regclass THEN 'view'"
	"  WHEN 'pg_attrdef'::regclass THEN 'default'"
	"  WHEN 'pg_constraint'::regclass THEN 'constraint'"
	"  WHEN 'pg_trigger'::regclass THEN 'trigger'"
	"  WHEN 'pg_policy'::regclass THEN 'policy'"
	"  WHEN 'pg_class'::regclass THEN CASE (SELECT c.relkind FROM pg_class c WHERE c.oid = d.objid)"
	"   WHEN 'p' THEN 'partition_key' ELSE 'index' END"
	"  WHEN 'pg_operator'::regclass THEN 'operator'"
	"  WHEN 'pg_proc'::regclass THEN 'aggregate'"
	"  WHEN 'pg_cast'::regclass THEN 'cast'"
	"  WHEN 'pg_type'::regclass THEN 'type'"
	"  WHEN 'pg_event_trigger'::regclass THEN 'event_trigger'"
	"  ELSE 'other' END,"
	" pg_describe_object(d.classid, d.objid, d.objsubid)"
	" FROM pg_depend d"
	" WHERE d.refclassid = 'pg_proc'::regclass AND d.deptype IN ('n', 'a')"
	"  AND (d.classid <> 'pg_proc'::regclass"
	"       OR EXISTS (SELECT 1 FROM pg_proc a WHERE a.oid = d.objid AND a.prokind = 'a'))"
	"  AND (d.classid <> 'pg_trigger'::regclass"
	"       OR NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.oid = d.objid AND t.tgparentid <> 0))"
	"  AND d.refobjid NOT IN (SELECT oid FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace)"
	" ORDER BY 1, 2, 3";

/* Every operator and cast, pg_catalog's too: typing needs their operand
 * and result types.  Types print as format_type and functions as
 * regprocedure under the empty search_path, as the functions' ids do. */
static const char *const operators_query =
	"SELECT n.nspname, o.oprname,"
	" CASE WHEN o.oprleft <> 0 THEN format_type(o.oprleft, NULL) END,"
	" CASE WHEN o.oprright <> 0 THEN format_type(o.oprright, NULL) END,"
	" CASE WHEN o.oprresult <> 0 THEN format_type(o.oprresult, NULL) END,"
	" CASE WHEN o.oprcode <> 0 THEN o.oprcode::regprocedure::text END,"
	" n.nspname = 'pg_catalog'"
	" FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace";

static const char *const casts_query =
	"SELECT format_type(c.castsource, NULL), format_type(c.casttarget, NULL),"
	" c.castcontext, c.castmethod,"
	" CASE WHEN c.castfunc <> 0 THEN c.castfunc::regprocedure::text END,"
	" (SELECT bool_and(t.typnamespace = 'pg_catalog'::regnamespace) FROM pg_type t"
	"   WHERE t.oid IN (c.castsource, c.casttarget))"
	" AND (c.castfunc = 0 OR (SELECT p.pronamespace = 'pg_catalog'::regnamespace"
	"   FROM pg_proc p WHERE p.oid = c.castfunc))"
	" FROM pg_cast c";

/* The support functions of the aggregates outside pg_catalog, in the
 * order of cgm_aggregate's roles. */
static const char *const aggregates_query =
	"SELECT a.aggfnoid::regprocedure::text,"
	" nullif(a.aggtransfn::oid, 0)::regprocedure::text,"
	" nullif(a.aggfinalfn::oid, 0)::regprocedure::text,"
	" nullif(a.aggcombinefn::oid, 0)::regprocedure::text,"
	" nullif(a.aggserialfn::oid, 0)::regprocedure::text,"
	" nullif(a.aggdeserialfn::oid, 0)::regprocedure::text,"
	" nullif(a.aggmtransfn::oid, 0)::regprocedure::text,"
	" nullif(a.aggminvtransfn::oid, 0)::regprocedure::text,"
	" nullif(a.aggmfinalfn::oid, 0)::regprocedure::text"
	" FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid"
	" WHERE p.pronamespace <> 'pg_catalog'::regnamespace";

static const char *value(PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}

/* A rule's effect on the relation of row `r` of rules_query, without its
 * target yet. */
static cgm_effect *add_rule_effect(cgm_model *model, PGresult *res, int r, unsigned events,
				   bool instead)
{
	cgm_arena *a = model->arena;
	cgm_effect *e = cgm_model_add_effect(model);
	e->schema = cgm_arena_strdup(a, value(res, r, 0));
	e->relation = cgm_arena_strdup(a, value(res, r, 1));
	e->reach = CGM_REACH_RULE;
	e->via = CGM_VIA_RULE;
	e->object = cgm_arena_strdup(a, value(res, r, 2));
	e->events = events;
	e->function = -1;
	e->instead = instead;
	return e;
}

/* Split a SEP-joined list into an arena array; *count gets its length. */
static const char **split_list(cgm_arena *arena, const char *joined, int expected, int *count)
{
	if (!joined) {
		*count = 0;
		return NULL;
	}
	int n = 1;
	for (const char *p = joined; *p; p++)
		if (*p == SEP[0])
			n++;
	if (expected >= 0 && n != expected) {
		*count = 0;
		return NULL;
	}
	const char **items = cgm_arena_alloc(arena, sizeof(char *) * (size_t)n);
	const char *start = joined;
	for (int i = 0; i < n; i++) {
		const char *end = strchr(start, SEP[0]);
		size_t len = end ? (size_t)(end - start) : strlen(start);
		items[i] = len ? cgm_arena_strndup(arena, start, len) : NULL;
		start = end ? end + 1 : start + len;
	}
	*count = n;
	return items;
}

/* The names of the input arguments (IN, INOUT, VARIADIC) among the names
 * of all arguments (`joined`, SEP-separated, "" for an unnamed one) and
 * their modes (one letter each; NULL: all IN).  NULL entry for an unnamed
 * one; NULL when there are no names or not `nargs` of them. */
static const char **input_argnames(cgm_arena *arena, const char *joined, const char *modes,
				   int nargs)
{
	int n = 0;
	const char **all = split_list(arena, joined, -1, &n);
	if (!all || (modes && strlen(modes) != (size_t)n))
		return NULL;
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (!modes || modes[i] == 'i' || modes[i] == 'b' || modes[i] == 'v')
			all[kept++] = all[i];
	return kept > 0 && kept == nargs ? all : NULL;
}

/* The name of a function's one output parameter (OUT, INOUT or TABLE), as
 * get_func_result_name() gives it: a call in FROM names its column so.
 * NULL when it has none, several, or that one has no name. */
static const char *output_name(cgm_arena *arena, const char *joined, const char *modes)
{
	if (!joined || !modes)
		return NULL;
	int n = 0;
	const char **all = split_list(arena, joined, -1, &n);
	if (!all || strlen(modes) != (size_t)n)
		return NULL;
	const char *name = NULL;
	int nout = 0;
	for (int i = 0; i < n; i++)
		if (modes[i] == 'o' || modes[i] == 'b' || modes[i] == 't') {
			nout++;
			name = all[i];
		}
	return nout == 1 && name && name[0] ? name : NULL;
}

/* The SET search_path of a function ("app, \"my schema\", public") into a
 * list of schema names, unquoted. */
const char **cgm_parse_search_path(cgm_arena *arena, const char *text, int *count)
{
	*count = 0;
	if (!text)
		return NULL;
	int cap = 8, n = 0;
	const char **items = cgm_arena_alloc(arena, sizeof(char *) * (size_t)cap);
	const char *p = text;
	while (*p) {
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		char buf[256];
		size_t len = 0;
		if (*p == '"') {
			p++;
			while (*p && len + 1 < sizeof buf) {
				if (*p == '"' && p[1] == '"') {
					buf[len++] = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					buf[len++] = *p++;
				}
			}
		} else {
			while (*p && *p != ',' && *p != ' ' && len + 1 < sizeof buf) {
				char c = *p++;
				buf[len++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
			}
		}
		buf[len] = '\0';
		if (n == cap) {
			items = cgm_arena_grow(arena, items, (size_t)n, (size_t)cap * 2, sizeof(char *));
			cap *= 2;
		}
		items[n++] = cgm_arena_strdup(arena, buf);
		while (*p && *p != ',')
			p++;
	}
	*count = n;
	return items;
}

const char **cgm_role_search_path(cgm_arena *arena, const char *const *path, int n,
				  const char *role)
{
	const char **copy = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		copy[i] = strcmp(path[i], "$user") == 0 ? cgm_arena_strdup(arena, role)
							: cgm_arena_strdup(arena, path[i]);
	return copy;
}

bool cgm_schema_selected(const cgm_source_options *opts, const char *name)
{
	for (int i = 0; i < opts->nexclude; i++)
		if (fnmatch(opts->exclude_schemas[i], name, 0) == 0)
			return false;
	if (opts->nschemas == 0)
		return true;
	for (int i = 0; i < opts->nschemas; i++)
		if (fnmatch(opts->schemas[i], name, 0) == 0)
			return true;
	return false;
}

static cgm_kind kind_of(const char *prokind)
{
	switch (prokind ? prokind[0] : 'f') {
	case 'p':
		return CGM_KIND_PROCEDURE;
	case 'a':
		return CGM_KIND_AGGREGATE;
	case 'w':
		return CGM_KIND_WINDOW;
	default:
		return CGM_KIND_FUNCTION;
	}
}

/* The SQL-standard body in pg_get_functiondef's text: from BEGIN ATOMIC
 * to its END, or the RETURN expr line of the short form. */
static const char *atomic_body(cgm_arena *arena, const char *def)
{
	const char *p = def ? strstr(def, "BEGIN ATOMIC") : NULL;
	if (!p && def) {
		p = strstr(def, "\nRETURN ");
		if (p)
			p++;
	}
	if (!p)
		return cgm_arena_strdup(arena, def);
	size_t len = strlen(p);
	while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == ' '))
		len--;
	return cgm_arena_strndup(arena, p, len);
}

/* A slot for the next function that no later one will move: the room made
 * from the count is used first; should the catalog hold more rows than it
 * counted, every function in the pool's hands is finished before the array
 * grows. */
static cgm_function *stable_function_slot(cgm_model *model, cgm_extract_pool *pool)
{
	if (model->nfunctions == model->cap_functions && pool)
		cgm_extract_pool_drain(pool);
	return cgm_model_add_function(model);
}

/* The arguments pg_get_function_arguments() prints for a function whose
 * arguments are all IN without defaults: each name, quoted as
 * quote_identifier() quotes it, before its type, joined by ", "; a
 * procedure's each marked IN, as print_function_arguments marks them
 * against DROP PROCEDURE's syntax. */
static const char *plain_arguments(cgm_arena *arena, const char *const *argnames,
				   const char *const *argtypes, int nargs, bool procedure)
{
	cgm_strbuf b = CGM_STRBUF_INIT;
	for (int i = 0; i < nargs; i++) {
		if (i > 0)
			cgm_strbuf_puts(&b, ", ");
		if (procedure)
			cgm_strbuf_puts(&b, "IN ");
		if (argnames && argnames[i] && argnames[i][0]) {
			cgm_sql_quote_ident(&b, argnames[i]);
			cgm_strbuf_putc(&b, ' ');
		}
		cgm_strbuf_puts(&b, argtypes[i]);
	}
	const char *out = cgm_arena_strdup(arena, b.data ? b.data : "");
	cgm_strbuf_free(&b);
	return out;
}

/* One row of either function query into a new function; mapped ones go to
 * the pool (or get their line count and hash here when there is none). */
static void read_function_row(cgm_model *model, PGresult *res, int r, bool system,
			      const cgm_source_options *opts, cgm_extract_pool *pool)
{
	cgm_arena *a = model->arena;
	cgm_function *f = stable_function_slot(model, pool);
	const char *schema = value(res, r, COL_SCHEMA);
	f->schema = cgm_arena_strdup(a, schema);
	f->name = cgm_arena_strdup(a, value(res, r, COL_NAME));
	f->arguments = cgm_arena_strdup(a, value(res, r, COL_ARGUMENTS));
	f->result = cgm_arena_strdup(a, value(res, r, COL_RESULT));
	f->kind = kind_of(value(res, r, COL_KIND));
	f->language = cgm_arena_strdup(a, value(res, r, COL_LANGUAGE));
	f->nargs = atoi(value(res, r, COL_NARGS));
	f->ndefaults = atoi(value(res, r, COL_NDEFAULTS));
	f->variadic = value(res, r, COL_VARIADIC)[0] == 't';
	int n = 0;
	f->argtypes = split_list(a, value(res, r, COL_ARGTYPES), f->nargs, &n);
	if (n != f->nargs) {
		f->argtypes = NULL;
		f->nargs = 0;
	}
	/* The argument part of the id, as regprocedure prints it. */
	f->identity_args = cgm_identity_args(a, f->argtypes, f->nargs);
	f->id = cgm_arena_printf(a, "%s(%s)", value(res, r, COL_IDENTITY_NAME), f->identity_args);
	f->out_name = output_name(a, value(res, r, COL_ARGNAMES), value(res, r, COL_ARGMODES));
	f->argnames = input_argnames(a, value(res, r, COL_ARGNAMES), value(res, r, COL_ARGMODES),
				     f->nargs);
	if (!system && !f->arguments && (f->argtypes || f->nargs == 0))
		f->arguments = plain_arguments(a, f->argnames, f->argtypes, f->nargs,
					       f->kind == CGM_KIND_PROCEDURE);
	const char *path = value(res, r, COL_SEARCH_PATH);
	f->npath = -1;
	if (path)
		f->search_path = cgm_parse_search_path(a, path, &f->npath);
	const char *owner = value(res, r, COL_OWNER);
	if (owner)
		f->owner = cgm_arena_strdup(a, owner);
	const char *owner_path = value(res, r, COL_OWNER_PATH);
	if (owner && owner_path) {
		int n_owner = 0;
		const char **names = cgm_parse_search_path(a, owner_path, &n_owner);
		f->owner_path = cgm_role_search_path(a, names, n_owner, owner);
		f->nowner_path = n_owner;
	}
	f->is_trigger = value(res, r, COL_TRIGGER)[0] == 't';
	f->security_definer = value(res, r, COL_SECURITY_DEFINER)[0] == 't';
	f->volatility = value(res, r, COL_VOLATILITY)[0];
	/* 't' a member of an extension, 'c' of cgmap_trace: cgmap's own
	 * functions are never mapped, even with --include-extensions (they
	 * would be called dead, or show the mapper's own reads as calls). */
	char extension = value(res, r, COL_EXTENSION)[0];
	f->from_extension = extension != 'f';
	bool in_scope = !system && extension != 'c' &&
			(!f->from_extension || opts->include_extensions) &&
			cgm_schema_selected(opts, schema);
	f->builtin = !in_scope;
	const char *def = value(res, r, COL_DEFINITION);
	f->atomic_body = def != NULL;
	if (!in_scope)
		return; /* kept for resolution only: no body, no comment */
	f->source = def ? atomic_body(a, def) : cgm_arena_strdup(a, value(res, r, COL_SOURCE));
	f->comment = cgm_arena_strdup(a, value(res, r, COL_COMMENT));
	/* prosrc as stored, which cgmap_trace hashes; a BEGIN ATOMIC body's
	 * prosrc is not the text cgmap holds. */
	f->body_version = def ? NULL : cgm_body_version(a, f->source);
	if (pool) {
		cgm_extract_pool_submit(pool, f, true);
	} else {
		f->line_count = cgm_count_lines(f->source);
		f->body_hash = cgm_body_hash(a, f->source);
	}
}

/* libpq's messages end with a newline; the command adds its own. */
static int functions_error(const char *message)
{
	size_t len = strlen(message);
	while (len > 0 && (message[len - 1] == '\n' || message[len - 1] == ' '))
		len--;
	return cgm_error(CGM_ESOURCE, "cannot read functions from \"pg_proc\": %.*s", (int)len,
			 message);
}

/* Room for `count` more functions before the first row arrives. */
static void reserve_functions(cgm_model *model, long count)
{
	if (count <= model->cap_functions - model->nfunctions)
		return;
	int cap = model->nfunctions + (int)count;
	model->functions = cgm_arena_grow(model->arena, model->functions, (size_t)model->nfunctions,
					  (size_t)cap, sizeof(cgm_function));
	model->cap_functions = cap;
}

/* Wait until the query in flight has a result ready and return it (NULL:
 * no more).  While no whole row is there the thread parses a queued
 * function instead of sleeping; libpq buffers what arrives meanwhile. */
static PGresult *next_result(PGconn *conn, cgm_extract_pool *pool)
{
	while (PQisBusy(conn)) {
		if (!(pool && cgm_extract_pool_help(pool))) {
			struct pollfd pfd = { .fd = PQsocket(conn), .events = POLLIN };
			if (pfd.fd < 0)
				break;
			if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
				break;
		}
		/* On a broken connection PQgetResult below reports why. */
		if (!PQconsumeInput(conn))
			break;
	}
	return PQgetResult(conn);
}

/* The mapped functions in single-row mode, each handed to the pool as soon
 * as it is copied.  Every result is read to the end, even after an error,
 * so the connection is left idle. */
static int stream_user_functions(cgm_model *model, PGconn *conn, const cgm_source_options *opts,
				 cgm_extract_pool *pool)
{
	if (!PQsendQuery(conn, user_functions_query))
		return functions_error(PQerrorMessage(conn));
	int rc = 0;
	if (!PQsetSingleRowMode(conn))
		rc = functions_error("cannot switch to single-row mode");
	PGresult *res;
	while ((res = next_result(conn, pool)) != NULL) {
		ExecStatusType status = PQresultStatus(res);
		if (status == PGRES_SINGLE_TUPLE) {
			if (rc == 0)
				read_function_row(model, res, 0, false, opts, pool);
		} else if (status != PGRES_TUPLES_OK && rc == 0) {
			rc = functions_error(PQresultErrorMessage(res));
		}
		PQclear(res);
	}
	return rc;
}

static int load_system_functions(cgm_model *model, PGconn *conn, const cgm_source_options *opts,
				 cgm_extract_pool *pool)
{
	PGresult *res = PQexec(conn, system_functions_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = functions_error(PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	int rows = PQntuples(res);
	for (int r = 0; r < rows; r++)
		read_function_row(model, res, r, true, opts, pool);
	PQclear(res);
	return 0;
}

static unsigned trigger_events(int tgtype)
{
	unsigned ev = 0;
	if (tgtype & (1 << 2))
		ev |= CGM_EV_INSERT;
	if (tgtype & (1 << 3))
		ev |= CGM_EV_DELETE;
	if (tgtype & (1 << 4))
		ev |= CGM_EV_UPDATE;
	if (tgtype & (1 << 5))
		ev |= CGM_EV_TRUNCATE;
	return ev;
}

/* The $1 of the queries above: which states fire in the session mapped. */
static const char *fires_states(const cgm_source_options *opts)
{
	return opts && opts->replica ? "RA" : "OA";
}

/* A query taking the firing states as $1. */
static PGresult *exec_fires(PGconn *conn, const char *query, const char *fires)
{
	const char *params[1] = { fires };
	return PQexecParams(conn, query, 1, NULL, params, NULL, NULL, 0);
}

static int load_triggers(cgm_model *model, PGconn *conn, const char *fires)
{
	PGresult *res = exec_fires(conn, triggers_query, fires);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read triggers from \"pg_trigger\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	cgm_arena *a = model->arena;
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_trigger *t = cgm_model_add_trigger(model);
		t->table_schema = cgm_arena_strdup(a, value(res, r, 0));
		t->table_name = cgm_arena_strdup(a, value(res, r, 1));
		t->name = cgm_arena_strdup(a, value(res, r, 2));
		t->events = trigger_events(atoi(value(res, r, 3)));
		t->function_id = cgm_arena_strdup(a, value(res, r, 4));
		t->function = -1;
		t->enabled = value(res, r, 5)[0] == 't';
		t->columns = split_list(a, value(res, r, 6), -1, &t->ncolumns);
		t->row = value(res, r, 7)[0] == 't';
	}
	PQclear(res);
	return 0;
}

static int reach_of(const char *code)
{
	switch (code ? code[0] : 'f') {
	case 'v':
		return CGM_REACH_VIEW;
	case 'p':
		return CGM_REACH_PARTITION;
	case 'c':
		return CGM_REACH_CASCADE;
	default:
		return CGM_REACH_FUNCTION;
	}
}

/* Relation effects (relfx.h) and event triggers; functions kept by id
 * until the model is indexed (cgm_model_link). */
static int load_effects(cgm_model *model, PGconn *conn, const char *fires)
{
	PGresult *res = exec_fires(conn, effects_query, fires);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read what relations run from \"pg_depend\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	cgm_arena *a = model->arena;
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_via via;
		if (cgm_via_parse(&via, value(res, r, 3)) < 0)
			continue;
		cgm_effect *e = cgm_model_add_effect(model);
		e->schema = cgm_arena_strdup(a, value(res, r, 0));
		e->relation = cgm_arena_strdup(a, value(res, r, 1));
		e->reach = (cgm_reach)reach_of(value(res, r, 2));
		e->via = via;
		e->object = cgm_arena_strdup(a, value(res, r, 4));
		e->events = (unsigned)atoi(value(res, r, 5) ? value(res, r, 5) : "0");
		e->columns = split_list(a, value(res, r, 6), -1, &e->ncolumns);
		e->function_id = cgm_arena_strdup(a, value(res, r, 7));
		e->function = -1;
		e->target_schema = cgm_arena_strdup(a, value(res, r, 8));
		e->target_relation = cgm_arena_strdup(a, value(res, r, 9));
		e->target_events = (unsigned)atoi(value(res, r, 10) ? value(res, r, 10) : "0");
		e->target_columns = split_list(a, value(res, r, 11), -1, &e->ntarget_columns);
		e->note = cgm_arena_strdup(a, value(res, r, 12));
		e->target_defaults = value(res, r, 13) && value(res, r, 13)[0] == 't';
	}
	PQclear(res);
	res = exec_fires(conn, rules_query, fires);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read rules from \"pg_rewrite\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_rule_action *acts;
		int n = cgm_rule_actions(a, value(res, r, 4), &acts);
		unsigned events = (unsigned)atoi(value(res, r, 3) ? value(res, r, 3) : "0");
		bool instead = value(res, r, 5) && value(res, r, 5)[0] == 't';
		bool any = false;
		for (int k = 0; k < n && events; k++) {
			if (!acts[k].schema)
				continue; /* pg_catalog's: nothing of it runs */
			cgm_effect *e = add_rule_effect(model, res, r, events, instead);
			any = true;
			e->target_schema = acts[k].schema;
			e->target_relation = acts[k].name;
			e->target_events = acts[k].events;
			e->target_columns = acts[k].columns;
			e->ntarget_columns = acts[k].ncolumns;
		}
		/* An unconditional DO INSTEAD rule that acts on no relation of
		 * ours (NOTHING) still replaces the statement. */
		if (events && instead && !any && n >= 0)
			add_rule_effect(model, res, r, events, instead);
	}
	PQclear(res);
	res = PQexec(conn, domain_checks_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read the checks of domains from \"pg_constraint\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_domain_check *dc = cgm_model_add_domain_check(model);
		dc->type = cgm_arena_strdup(a, value(res, r, 0));
		dc->object = cgm_arena_strdup(a, value(res, r, 1));
		dc->function_id = cgm_arena_strdup(a, value(res, r, 2));
		dc->function = -1;
	}
	PQclear(res);
	res = PQexec(conn, domain_defaults_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read the defaults of domains from \"pg_type\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_domain_default *dd = cgm_model_add_domain_default(model);
		dd->type = cgm_arena_strdup(a, value(res, r, 0));
		dd->object = cgm_arena_strdup(a, value(res, r, 1));
		dd->function_id = cgm_arena_strdup(a, value(res, r, 2));
		dd->function = -1;
	}
	PQclear(res);
	res = exec_fires(conn, event_triggers_query, fires);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE,
				   "cannot read event triggers from \"pg_event_trigger\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_event_trigger *et = cgm_model_add_event_trigger(model);
		et->name = cgm_arena_strdup(a, value(res, r, 0));
		et->event = cgm_arena_strdup(a, value(res, r, 1));
		et->tags = split_list(a, value(res, r, 2), -1, &et->ntags);
		if (value(res, r, 2) && !value(res, r, 2)[0])
			et->ntags = 0;
		et->enabled = value(res, r, 3)[0] == 't';
		et->function_id = cgm_arena_strdup(a, value(res, r, 4));
		et->function = -1;
	}
	PQclear(res);
	return 0;
}

/* The relation `schema`.`name` of the model, or NULL. */
static const cgm_relation *relation_named(const cgm_model *model, const char *schema,
					  const char *name)
{
	for (int i = 0; schema && name && i < model->nrelations; i++)
		if (strcmp(model->relations[i].name, name) == 0 &&
		    strcmp(model->relations[i].schema, schema) == 0)
			return &model->relations[i];
	return NULL;
}

/* Whether PostgreSQL updates view `rel` by itself (viewupd.h), from its
 * query as pg_get_viewdef prints it (`viewdef`) and whether the analysed
 * query groups or returns sets (`groups`, from the catalog): the base
 * relation must be a table, a partitioned or foreign table or a view. */
static void view_update(cgm_model *model, cgm_relation *rel, const char *viewdef, bool groups)
{
	cgm_sql_problem problem;
	if (!viewdef || groups || !cgm_sql_check(viewdef, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem))
		return;
	PgQueryParseResult parsed = pg_query_parse(viewdef);
	if (!parsed.error) {
		jd_node *tree = jd_parse(model->arena, parsed.parse_tree, strlen(parsed.parse_tree));
		jd_node *stmts = jd_get(tree, "stmts");
		jd_node *select = jd_size(stmts) == 1
					  ? jd_get(jd_get(jd_at(stmts, 0), "stmt"), "SelectStmt")
					  : NULL;
		cgm_view_shape shape;
		const cgm_relation *base = NULL;
		if (cgm_view_shape_of(model->arena, select, NULL, NULL, &shape) && shape.simple)
			base = relation_named(model, shape.base_schema, shape.base_name);
		if (base && base != rel && strchr("rpfv", base->relkind ? base->relkind : 'x')) {
			rel->base_schema = base->schema;
			rel->base_name = base->name;
			rel->nupdatable = cgm_view_updatable_columns(
				model->arena, &shape, NULL, 0, base->columns, base->ncolumns,
				&rel->updatable_columns, &rel->base_columns);
		}
	}
	pg_query_free_parse_result(parsed);
}

/* The views' queries as pg_get_viewdef printed them, kept from
 * load_relations for view_columns (by relation index, NULL for others). */
typedef struct viewdefs {
	int first, n;
	const char **text;
} viewdefs;

/* The roles no policy applies to, as views' and rules' owners (relfx.c). */
static int load_rls_bypass_roles(cgm_model *model, PGconn *conn)
{
	PGresult *res = PQexec(conn, "SELECT rolname FROM pg_roles WHERE rolsuper OR rolbypassrls"
				     " ORDER BY 1");
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read roles from \"pg_roles\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	int n = PQntuples(res);
	model->rls_bypass_roles = cgm_arena_alloc(model->arena, sizeof(char *) * (size_t)(n ? n : 1));
	for (int r = 0; r < n; r++)
		model->rls_bypass_roles[r] = cgm_arena_strdup(model->arena, value(res, r, 0));
	model->nrls_bypass_roles = n;
	PQclear(res);
	return 0;
}

/* The extensions installed, for the calls that run only when one is
 * (cgm_site_rare.requires_extension). */
static int load_extensions(cgm_model *model, PGconn *conn)
{
	PGresult *res = PQexec(conn, "SELECT extname FROM pg_catalog.pg_extension ORDER BY 1");
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read extensions from \"pg_extension\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	int n = PQntuples(res);
	model->extensions = cgm_arena_alloc(model->arena, sizeof(char *) * (size_t)(n ? n : 1));
	for (int r = 0; r < n; r++)
		model->extensions[r] = cgm_arena_strdup(model->arena, value(res, r, 0));
	model->nextensions = n;
	PQclear(res);
	return 0;
}

static int load_relations(cgm_model *model, PGconn *conn, viewdefs *defs)
{
	PGresult *res = PQexec(conn, relations_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read relations from \"pg_class\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	int first = model->nrelations;
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_relation *rel = cgm_model_add_relation(model);
		rel->schema = cgm_arena_strdup(model->arena, value(res, r, 0));
		rel->name = cgm_arena_strdup(model->arena, value(res, r, 1));
		rel->relkind = value(res, r, 2)[0];
		rel->owner = cgm_arena_strdup(model->arena, value(res, r, 7));
		rel->force_rls = value(res, r, 8)[0] == 't';
		rel->security_invoker = value(res, r, 11)[0] == 't';
		rel->nkey_columns = -1;
		if (!PQgetisnull(res, r, 6))
			rel->key_columns = split_list(model->arena, value(res, r, 6), -1,
						      &rel->nkey_columns);
		int ncols = atoi(value(res, r, 5)), nnames = 0, ntypes = 0;
		const char **names = split_list(model->arena, value(res, r, 3), ncols, &nnames);
		const char **types = split_list(model->arena, value(res, r, 4), ncols, &ntypes);
		if (ncols > 0 && names && types) {
			rel->ncolumns = ncols;
			rel->columns = cgm_arena_alloc(model->arena, sizeof(cgm_column) * (size_t)ncols);
			for (int c = 0; c < ncols; c++)
				rel->columns[c] = (cgm_column){ names[c], types[c] };
		}
	}
	/* Every relation listed: a view's base may come after it. */
	defs->first = first;
	defs->n = PQntuples(res);
	defs->text = cgm_arena_alloc(model->arena, sizeof(char *) * (size_t)(defs->n + 1));
	for (int r = 0; r < PQntuples(res); r++) {
		defs->text[r] = NULL;
		if (PQgetisnull(res, r, 9))
			continue;
		view_update(model, &model->relations[first + r], value(res, r, 9),
			    !value(res, r, 10) || value(res, r, 10)[0] != 'f');
		defs->text[r] = cgm_arena_strdup(model->arena, value(res, r, 9));
	}
	PQclear(res);
	return 0;
}

/* Does a call in a view's output column make PostgreSQL evaluate the
 * column on every read (viewcols.h)?  pg_catalog's volatile functions
 * (cgm_builtin_is_volatile, as the SQL files decide) and set-returning
 * ones; user functions' volatility and results relfx.c reads. */
static bool view_column_forced(void *ctx, const char *schema, const char *name, int nargs)
{
	const cgm_model *model = ctx;
	(void)nargs;
	if (schema && strcmp(schema, "pg_catalog") != 0)
		return false;
	if (cgm_builtin_is_volatile(name))
		return true;
	for (int i = 0; i < model->nfunctions; i++) {
		const cgm_function *f = &model->functions[i];
		if (f->builtin && f->name && strcmp(f->name, name) == 0 && f->schema &&
		    strcmp(f->schema, "pg_catalog") == 0 && f->result &&
		    strncmp(f->result, "SETOF ", 6) == 0)
			return true;
	}
	return false;
}

/* Whether a function of that name exists: `t.name` of a row may call it
 * (viewcols.h). */
static bool has_function_named(void *ctx, const char *name)
{
	const cgm_model *model = ctx;
	for (int i = 0; i < model->nfunctions; i++)
		if (model->functions[i].name && strcmp(model->functions[i].name, name) == 0)
			return true;
	return false;
}

/* The schema and name of a regprocedure text (`app.f(integer)`, quoted
 * parts unquoted), in `arena`; false when it is not one. */
static bool function_name_of(cgm_arena *arena, const char *id, const char **schema,
			     const char **name)
{
	const char *parts[2] = { NULL, NULL };
	int n = 0;
	const char *p = id;
	while (p && n < 2) {
		char buf[256];
		size_t len = 0;
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				if (len + 1 < sizeof buf)
					buf[len++] = *p;
			}
			if (*p != '"')
				return false;
			p++;
		} else {
			while (*p && *p != '.' && *p != '(' && len + 1 < sizeof buf)
				buf[len++] = *p++;
		}
		buf[len] = 0;
		parts[n++] = cgm_arena_strdup(arena, buf);
		if (*p == '.')
			p++;
		else
			break;
	}
	if (n == 0 || !p || *p != '(')
		return false;
	*schema = n == 2 ? parts[0] : NULL;
	*name = parts[n - 1];
	return true;
}

/* ---- the overload each call of a view's query takes (exprcall.h) ---- */

static const char *view_type_name(void *ctx, const jd_node *type_name)
{
	cgm_model *model = ctx;
	return type_name ? cgm_type_canonical_json(model->arena, type_name, NULL) : NULL;
}

/* pg_get_viewdef printed the query under an empty search_path: a name it
 * leaves unqualified is pg_catalog's. */
static const cgm_column *view_relation(void *ctx, const char *schema, const char *name,
				       int *ncolumns)
{
	const cgm_relation *r = relation_named(ctx, schema ? schema : "pg_catalog", name);
	*ncolumns = r ? r->ncolumns : 0;
	return r ? r->columns : NULL;
}

static int view_candidates(void *ctx, const char *schema, const char *name, int nargs,
			   cgm_exprcall_candidate *out, int max)
{
	const cgm_model *model = ctx;
	int n = 0;
	for (int i = 0; i < model->nfunctions; i++) {
		const cgm_function *f = &model->functions[i];
		if (!f->name || strcmp(f->name, name) != 0 || !f->schema ||
		    strcmp(f->schema, schema ? schema : "pg_catalog") != 0 ||
		    f->kind == CGM_KIND_PROCEDURE || !f->argtypes)
			continue;
		if (!(nargs <= f->nargs && nargs >= f->nargs - f->ndefaults) &&
		    !(f->variadic && nargs >= f->nargs - 1))
			continue;
		if (n == max)
			return -1;
		out[n++] = (cgm_exprcall_candidate){ f, 0 };
	}
	return n;
}

/* Whether another of the view's function effects (among `mine`, its
 * effects' indices into model->effects) is an overload of fschema.fname: only then does the
 * column a call is in depend on its arguments' types. */
static bool overloaded_in_view(const cgm_model *model, const int *mine, int nmine,
			       const cgm_effect *e, const char *fschema, const char *fname,
			       cgm_arena *scratch)
{
	for (int k = 0; k < nmine; k++) {
		const cgm_effect *o = &model->effects[mine[k]];
		const char *schema, *name;
		if (o == e || o->reach != CGM_REACH_FUNCTION || !o->function_id ||
		    strcmp(o->function_id, e->function_id) == 0 ||
		    !function_name_of(scratch, o->function_id, &schema, &name))
			continue;
		if (strcmp(name, fname) == 0 && strcmp(schema, fschema) == 0)
			return true;
	}
	return false;
}

static const cgm_function *function_with_id(const cgm_model *model, const char *id)
{
	for (int i = 0; i < model->nfunctions; i++)
		if (model->functions[i].id && strcmp(model->functions[i].id, id) == 0)
			return &model->functions[i];
	return NULL;
}

/* A view's functions by the output columns that call them, and the
 * columns of the relations it reads by the columns reading them
 * (viewcols.h), from its query as pg_get_viewdef printed it under the
 * empty search_path (every name outside pg_catalog qualified).  A function
 * the text does not name (an operator's, an implicit cast's) is taken as
 * run on every read, as before. */
static int view_columns(cgm_model *model, const viewdefs *defs)
{
	cgm_exprcall_source calls = {
		.ctx = model,
		.arena = model->arena,
		.type_name = view_type_name,
		.relation = view_relation,
		.candidates = view_candidates,
		.model = model,
	};
	for (int r = 0; r < defs->n; r++) {
		const char *sql = defs->text[r];
		const cgm_relation *rel = &model->relations[defs->first + r];
		cgm_sql_problem problem;
		if (!sql || rel->relkind != 'v' || rel->ncolumns <= 0 ||
		    !cgm_sql_check(sql, CGM_SQL_CHECK_LEXER | CGM_SQL_CHECK_DEPTH, &problem))
			continue;
		PgQueryParseResult parsed = pg_query_parse(sql);
		if (parsed.error) {
			pg_query_free_parse_result(parsed);
			continue;
		}
		/* The tree and its parts in an arena of their own: the model
		 * keeps only what the effects take (copied). */
		cgm_arena *scratch = cgm_arena_new();
		jd_node *tree = jd_parse(scratch, parsed.parse_tree, strlen(parsed.parse_tree));
		pg_query_free_parse_result(parsed);
		jd_node *stmts = jd_get(tree, "stmts");
		jd_node *select = jd_size(stmts) == 1
					  ? jd_get(jd_get(jd_at(stmts, 0), "stmt"), "SelectStmt")
					  : NULL;
		const char **names = cgm_arena_alloc(scratch, sizeof(char *) * (size_t)rel->ncolumns);
		for (int i = 0; i < rel->ncolumns; i++)
			names[i] = rel->columns[i].name;
		cgm_viewcols vc;
		if (!cgm_viewcols_of(scratch, select, names, rel->ncolumns, view_column_forced, NULL,
				     model, &vc)) {
			cgm_arena_free(scratch);
			continue;
		}
		/* The view's effects on a read, in one pass: among its
		 * functions, overloads are told apart. */
		int *mine = cgm_arena_alloc(scratch, sizeof(int) * (size_t)(model->neffects + 1));
		int nmine = 0;
		for (int i = 0; i < model->neffects; i++) {
			const cgm_effect *e = &model->effects[i];
			if (e->events == CGM_EV_SELECT && e->via == CGM_VIA_VIEW &&
			    strcmp(e->relation, rel->name) == 0 && strcmp(e->schema, rel->schema) == 0)
				mine[nmine++] = i;
		}
		calls.query = select;
		calls.arena = scratch;
		for (int m = 0; m < nmine; m++) {
			cgm_effect *e = &model->effects[mine[m]];
			if (e->reach == CGM_REACH_VIEW) {
				bool fresh = true;
				for (int k = 0; k < vc.nrels; k++) {
					const cgm_viewcols_rel *vr = &vc.rels[k];
					if (!vr->schema || strcmp(vr->schema, e->target_schema) != 0 ||
					    strcmp(vr->name, e->target_relation) != 0)
						continue;
					const cgm_relation *t =
						relation_named(model, e->target_schema, e->target_relation);
					cgm_viewcols_add_rel(model->arena, e, fresh, vr, t ? t->columns : NULL,
							     t ? t->ncolumns : 0, has_function_named, model);
					fresh = false;
				}
				continue;
			}
			const char *schema, *name;
			if (e->reach != CGM_REACH_FUNCTION || !e->function_id ||
			    !function_name_of(scratch, e->function_id, &schema, &name))
				continue;
			/* Of several overloads the view calls, each output
			 * column runs the one its arguments' types take. */
			const cgm_function *f = overloaded_in_view(model, mine, nmine, e, schema, name,
								   scratch)
							? function_with_id(model, e->function_id)
							: NULL;
			bool first = true;
			for (int p = 0; p < vc.nparts; p++) {
				if (!(f ? cgm_exprcall_may_run(&calls, vc.parts[p].node, schema, name, f)
					: cgm_viewcols_calls(vc.parts[p].node, schema, name)))
					continue;
				/* The view's own column name (names[] point into
				 * the model's relation). */
				cgm_viewcols_add_column(model->arena, &e->columns, &e->ncolumns, first,
							vc.parts[p].column);
				first = false;
			}
		}
		cgm_arena_free(scratch);
	}
	cgm_exprcall_source_done(&calls);
	return 0;
}

static int load_types_and_columns(cgm_model *model, PGconn *conn)
{
	PGresult *res = PQexec(conn, types_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read types from \"pg_type\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_relation *t = cgm_model_add_type(model);
		t->schema = cgm_arena_strdup(model->arena, value(res, r, 0));
		t->name = cgm_arena_strdup(model->arena, value(res, r, 1));
		/* pg_catalog's own types resolution knows already (exprtype_pg15). */
		if (strcmp(t->schema, "pg_catalog") != 0) {
			cgm_type_info *info = cgm_model_add_type_info(model);
			info->name = cgm_arena_strdup(model->arena, value(res, r, 2));
			info->kind = value(res, r, 3)[0];
			if (!PQgetisnull(res, r, 4))
				info->base = cgm_arena_strdup(model->arena, value(res, r, 4));
			info->category = value(res, r, 5)[0];
			info->preferred = value(res, r, 6)[0] == 't';
			if (!PQgetisnull(res, r, 7))
				info->constrained = value(res, r, 7)[0] == 't' ? 'y' : 'n';
		}
	}
	PQclear(res);
	res = PQexec(conn, columns_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read columns from \"pg_attribute\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	for (int r = 0; r < PQntuples(res); r++)
		cgm_model_add_column(model, value(res, r, 0));
	PQclear(res);
	return 0;
}

/* References are kept by id until the model is indexed (cgm_source_link). */
static int load_references(cgm_model *model, PGconn *conn)
{
	PGresult *res = PQexec(conn, references_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read references from \"pg_depend\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_reference *ref = cgm_model_add_reference(model);
		ref->function = -1;
		ref->function_id = cgm_arena_strdup(model->arena, value(res, r, 0));
		ref->object_kind = cgm_arena_strdup(model->arena, value(res, r, 1));
		ref->object = cgm_arena_strdup(model->arena, value(res, r, 2));
	}
	PQclear(res);
	return 0;
}

static int query_error(const char *what, const char *catalog, PGconn *conn, PGresult *res)
{
	int rc = cgm_error(CGM_ESOURCE, "cannot read %s from \"%s\": %s", what, catalog,
			   PQerrorMessage(conn));
	PQclear(res);
	return rc;
}

/* Operators, casts and aggregates, kept by function id until the model is
 * indexed (cgm_model_link). */
static int load_operators_casts_aggregates(cgm_model *model, PGconn *conn)
{
	cgm_arena *a = model->arena;
	PGresult *res = PQexec(conn, operators_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return query_error("operators", "pg_operator", conn, res);
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_operator *op = cgm_model_add_operator(model);
		op->schema = cgm_arena_strdup(a, value(res, r, 0));
		op->name = cgm_arena_strdup(a, value(res, r, 1));
		op->left = cgm_arena_strdup(a, value(res, r, 2));
		op->right = cgm_arena_strdup(a, value(res, r, 3));
		op->result = cgm_arena_strdup(a, value(res, r, 4));
		op->function_id = cgm_arena_strdup(a, value(res, r, 5));
		op->function = -1;
		op->builtin = value(res, r, 6)[0] == 't';
	}
	PQclear(res);

	res = PQexec(conn, casts_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return query_error("casts", "pg_cast", conn, res);
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_cast *c = cgm_model_add_cast(model);
		c->source = cgm_arena_strdup(a, value(res, r, 0));
		c->target = cgm_arena_strdup(a, value(res, r, 1));
		c->context = value(res, r, 2)[0];
		c->method = value(res, r, 3)[0];
		c->function_id = cgm_arena_strdup(a, value(res, r, 4));
		c->function = -1;
		const char *builtin = value(res, r, 5);
		c->builtin = builtin && builtin[0] == 't';
	}
	PQclear(res);

	res = PQexec(conn, aggregates_query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return query_error("aggregates", "pg_aggregate", conn, res);
	static const char *const roles[] = { "transition", "final", "combine", "serialize",
					     "deserialize", "moving transition", "moving inverse",
					     "moving final" };
	for (int r = 0; r < PQntuples(res); r++) {
		cgm_aggregate *agg = cgm_model_add_aggregate(model);
		agg->aggregate_id = cgm_arena_strdup(a, value(res, r, 0));
		agg->aggregate = -1;
		agg->support_roles = cgm_arena_alloc(a, sizeof(char *) * 8);
		agg->support_ids = cgm_arena_alloc(a, sizeof(char *) * 8);
		agg->support = cgm_arena_alloc(a, sizeof(int) * 8);
		for (int k = 0; k < 8; k++) {
			const char *id = value(res, r, 1 + k);
			if (!id)
				continue;
			agg->support_roles[agg->nsupport] = roles[k];
			agg->support_ids[agg->nsupport] = cgm_arena_strdup(a, id);
			agg->support[agg->nsupport++] = -1;
		}
	}
	PQclear(res);
	return 0;
}

/* The settings, and room for every function of the snapshot: every row of
 * pg_proc, more than both function queries read, so no function moves while
 * a worker parses it. */
static int load_settings(cgm_model *model, PGconn *conn)
{
	/* current_schemas(true) is the effective path: $user expanded, missing
	 * schemas dropped, pg_catalog where PostgreSQL searches it. */
	PGresult *res = PQexec(conn,
			       "SELECT current_database(), current_setting('server_version'),"
			       " array_to_string(current_schemas(true), chr(31)),"
			       " (SELECT count(*) FROM pg_catalog.pg_proc),"
			       " current_setting('server_version_num')");
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read the database settings: %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	cgm_arena *a = model->arena;
	model->source.kind = "database";
	model->source.name = cgm_arena_strdup(a, value(res, 0, 0));
	model->source.server_version = cgm_arena_strdup(a, value(res, 0, 1));
	model->source.default_search_path =
		split_list(a, value(res, 0, 2), -1, &model->source.npath);
	reserve_functions(model, atol(value(res, 0, 3)));
	model->source.server_version_num = atol(value(res, 0, 4));
	PQclear(res);
	return 0;
}

/* A --schema or --exclude-schema pattern that matches no schema of the
 * database is an error (cgm_schema_patterns_check). */
static int check_schema_patterns(const cgm_model *model, PGconn *conn, const cgm_source_options *opts)
{
	if (opts->nschemas == 0 && opts->nexclude == 0)
		return 0;
	PGresult *res = PQexec(conn, "SELECT nspname FROM pg_catalog.pg_namespace");
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = cgm_error(CGM_ESOURCE, "cannot read schemas from \"pg_namespace\": %s",
				   PQerrorMessage(conn));
		PQclear(res);
		return rc;
	}
	int n = PQntuples(res);
	const char **names = cgm_xcalloc((size_t)n + 1, sizeof(char *));
	for (int r = 0; r < n; r++)
		names[r] = PQgetvalue(res, r, 0);
	char where[256];
	snprintf(where, sizeof where, "database \"%s\"", model->source.name ? model->source.name : "");
	int rc = cgm_schema_patterns_check(opts, names, n, where);
	free(names);
	PQclear(res);
	return rc;
}

static int run(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	if (!ok)
		return cgm_error(CGM_ESOURCE, "cannot run \"%s\": %s", sql, PQerrorMessage(conn));
	return 0;
}

/* Casts and domain checks are read before the functions stream: the
 * coercions their user casts of context assignment or implicit, and the
 * checks of domains (user types all), can run (cgm_coercions), so that
 * extraction keeps no sites and expressions for the others (coerce.h). */
static int spare_coercions(const cgm_model *model, cgm_extract_pool *pool)
{
	cgm_coercions coercions = model->ndomain_checks > 0 ? CGM_COERCE_USER_TYPES : CGM_COERCE_NONE;
	for (int i = 0; i < model->ncasts; i++) {
		const cgm_cast *c = &model->casts[i];
		if (c->builtin || !c->function_id || (c->context != 'a' && c->context != 'i'))
			continue;
		if (c->target && cgm_type_is_builtin(c->target)) {
			coercions = CGM_COERCE_ALL;
			break;
		}
		coercions = CGM_COERCE_USER_TYPES;
	}
	cgm_extract_pool_coercions(pool, coercions);
	return 0;
}

int cgm_source_pg_stream(cgm_model *model, const cgm_source_options *opts,
			 cgm_extract_pool *pool)
{
	PGconn *conn = NULL;
	viewdefs defs = { 0, 0, NULL };
	int rc = cgm_pg_connect(&conn, opts->dsn);
	if (rc < 0)
		return rc;
	/* The small catalogs first: once the functions stream, the connection
	 * is busy until their last row. */
	if ((rc = run(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")) < 0 ||
	    (rc = load_settings(model, conn)) < 0 ||
	    /* Identities are printed as with an empty search_path. */
	    (rc = run(conn, "SET LOCAL search_path = ''")) < 0 ||
	    (rc = check_schema_patterns(model, conn, opts)) < 0 ||
	    /* Compiling the function query costs more than it saves. */
	    (rc = run(conn, "SET LOCAL jit = off")) < 0 ||
	    (rc = load_triggers(model, conn, fires_states(opts))) < 0 ||
	    (rc = load_relations(model, conn, &defs)) < 0 ||
	    (rc = load_rls_bypass_roles(model, conn)) < 0 || (rc = load_extensions(model, conn)) < 0 ||
	    (rc = load_references(model, conn)) < 0 ||
	    (rc = load_effects(model, conn, fires_states(opts))) < 0 ||
	    (rc = load_types_and_columns(model, conn)) < 0 ||
	    (rc = load_operators_casts_aggregates(model, conn)) < 0 ||
	    (rc = spare_coercions(model, pool)) < 0 ||
	    (rc = stream_user_functions(model, conn, opts, pool)) < 0 ||
	    (rc = load_system_functions(model, conn, opts, pool)) < 0 ||
	    (rc = view_columns(model, &defs)) < 0) {
		PQfinish(conn);
		return rc;
	}
	PQclear(PQexec(conn, "COMMIT"));
	PQfinish(conn);
	if (opts->stamp) {
		char buf[32];
		time_t now = time(NULL);
		strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		model->source.mapped_at = cgm_arena_strdup(model->arena, buf);
	}
	return 0;
}

int cgm_source_pg_load(cgm_model *model, const cgm_source_options *opts)
{
	return cgm_source_pg_stream(model, opts, NULL);
}
