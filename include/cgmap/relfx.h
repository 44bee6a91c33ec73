/*
 * cgmap/relfx.h - relation effects: what PostgreSQL runs on behalf of a
 * statement that reads or writes a relation, or runs DDL.
 *
 * In:  a linked model (cgm_model_index, cgm_model_link) whose source filled
 *      model->relations, model->effects (views, defaults, generated columns,
 *      checks, domain checks, policies, triggers' WHEN, rules, indexes,
 *      partitions, cascading foreign keys), model->triggers and
 *      model->event_triggers.
 * Out: cgm_relfx_build indexes them once per map (heap, cgm_relfx_free);
 *      cgm_relfx_resolve_site then sets a relation or DDL site's targets,
 *      target_via and target_object (in the arena given) from the closure of
 *      those effects over nested views (a read of known columns, the
 *      site's `reads`, reaching only the view's functions of those columns
 *      and of its clauses: viewcols.h), partitions and foreign keys, so the
 *      edges follow like any other (resolve.c builds them).
 * Reading the index is thread-safe: resolution calls it from every thread.
 */
#ifndef CGMAP_RELFX_H
#define CGMAP_RELFX_H

#include <stdbool.h>

#include "cgmap/model.h"

typedef struct cgm_relfx cgm_relfx;

/* NULL only when memory runs out. */
cgm_relfx *cgm_relfx_build(const cgm_model *model);
void cgm_relfx_free(cgm_relfx *fx);

/* A CGM_SITE_RELATION or CGM_SITE_TRIGGER site (its relation found in the
 * written schema, else along `path`) or a CGM_SITE_DDL site: sets schema
 * (where the relation was found), resolution (resolved, builtin when every
 * target is, else none) and the targets with their mechanism and object.
 * `valued_columns` (cgm_site_exprs) marks the site's columns whose domain
 * checks their values' own cast sites decide: a value of the domain
 * already runs none, though the column is written.
 * Writes only `site`; allocates in `arena`. */
void cgm_relfx_resolve_site(const cgm_relfx *fx, cgm_arena *arena, const char *const *path,
			    int npath, cgm_site *site, unsigned ddl_facts, uint64_t valued_columns);

/* The command tag of a DDL statement as event triggers match it ("CREATE
 * TABLE", "DROP FUNCTION", ...), from libpg_query's node name (`CreateStmt`),
 * its object type (`OBJECT_TABLE`, "" when none) and its procedure / grant
 * flag; NULL when the statement fires no event trigger (DML, queries,
 * transaction control, databases, roles, event triggers themselves). */
const char *cgm_ddl_command_tag(const char *node, const char *objtype, bool flag);

/* The command tag the first words of `sql` give whatever follows them
 * (`ALTER TABLE x <anything>` is an ALTER TABLE), for a statement whose rest
 * is known only at run time; NULL when they do not decide it (CREATE TABLE
 * may be CREATE TABLE AS, COMMENT's object may be a role).  *facts: what
 * the statement surely cannot do, as far as the words tell (CGM_DDL_*): a
 * DROP may drop, of an ALTER only its ddl_command_start and _end triggers
 * are sure, the rest being the subcommands'. */
const char *cgm_ddl_command_tag_of_words(const char *sql, unsigned *facts);

/* One statement of a rule's action on a relation (schema NULL when not
 * written): what it does there (CGM_EV_*, SELECT for a read) and the
 * columns an INSERT lists or an UPDATE sets. */
typedef struct cgm_rule_action {
	const char *schema, *name;
	unsigned events;
	int ncolumns;
	const char **columns;
	int nleading; /* an INSERT without a column list: how many of the table's first
	               * columns it gives (0 unknown); pg_get_ruledef lists them */
} cgm_rule_action;

/* The relations the actions of the CREATE RULE statement `sql` (as written,
 * or as pg_get_ruledef prints it) read and write, in `arena`: their count,
 * or -1 when `sql` does not parse or is no CREATE RULE (src/ruleact.c). */
int cgm_rule_actions(cgm_arena *arena, const char *sql, cgm_rule_action **out);

/* What a DDL statement cannot do (CGM_DDL_* bits), from libpg_query's node
 * name and, for ALTER TABLE / ALTER TYPE (`AlterTableStmt`), its
 * subcommands' types (`AT_EnableTrig`, ...): a rename, a change of owner or
 * schema, a move of all of a tablespace's tables (ALTER TABLE ALL IN
 * TABLESPACE: files copied, no rewrite) drops and rewrites nothing; an ALTER TABLE drops nothing when each
 * subcommand is one that drops no object sql_drop reports (a DROP COLUMN or
 * CONSTRAINT, a DROP DEFAULT may; a SET DEFAULT, which the caller names
 * `AT_ColumnDefault(set)`, and a DROP IDENTITY drop theirs internally; a new column type drops
 * and makes again its indexes and constraints, internally), and rewrites
 * nothing when none is a new column type, SET LOGGED/UNLOGGED or SET
 * ACCESS METHOD (an added column rewrites the table only as its definition
 * says, which the subtype does not: the caller clears
 * CGM_DDL_REWRITES_NOTHING for one that does).  An unknown subcommand may
 * do both. */
unsigned cgm_ddl_facts(const char *node, const char *const *subtypes, int nsubtypes);

/* Is pg_catalog's `name` one of its volatile functions defaults call
 * (random(), nextval(), gen_random_uuid(), ...)?  For a builtin whose
 * volatility the model lacks (the SQL files' shipped list): an ADD COLUMN
 * with a default calling one rewrites the table. */
bool cgm_builtin_is_volatile(const char *name);

/* Whether an event trigger on `event` with those tags fires for `tag`, a
 * statement of which nothing more is known. */
bool cgm_event_trigger_fires(const cgm_event_trigger *et, const char *tag);
/* The same for a statement that cannot do what `ddl_facts` says: no
 * sql_drop for one that drops nothing, no table_rewrite for one that
 * rewrites nothing. */
bool cgm_event_trigger_fires_ddl(const cgm_event_trigger *et, const char *tag, unsigned ddl_facts);

#endif
