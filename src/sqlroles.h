/*
 * sqlroles.h - the roles of SQL files (cgmap --sql): who is acting when a
 * function is created (SET ROLE, SET SESSION AUTHORIZATION), and the
 * search_path each role's sessions get (ALTER ROLE ... SET search_path), so
 * that a function without a SET search_path of its own resolves its calls
 * through its owner's path, as the live source reads it from
 * pg_db_role_setting.
 *
 * In:  libpg_query's JSON trees of VariableSetStmt, AlterRoleSetStmt and
 *      RoleSpec nodes, and search paths already split into names.
 * Out: role names and paths in the caller's arena; the settings' list is
 *      the struct's own heap memory, freed by sql_roles_free.
 */
#ifndef CGMAP_SQLROLES_H
#define CGMAP_SQLROLES_H

#include <stdbool.h>

#include "cgmap/arena.h"
#include "jsondom.h"

typedef struct sql_role_setting {
	const char *role;
	bool in_database;   /* ALTER ROLE ... IN DATABASE: wins over the role's own */
	const char **path;
	int npath;
} sql_role_setting;

typedef struct sql_roles {
	const char *session; /* SET SESSION AUTHORIZATION's role, NULL: the one psql
	                      * connected as, which the files do not name */
	const char *current; /* SET ROLE's, NULL: the session's */
	sql_role_setting *settings;
	int nsettings, cap;
} sql_roles;

/* A new psql session: acting as the role it connected as. */
void sql_roles_new_session(sql_roles *roles);

/* SET [LOCAL] ROLE, SET SESSION AUTHORIZATION and their RESET: true when
 * `set` (a VariableSetStmt) was one of them. */
bool sql_roles_apply_set(sql_roles *roles, cgm_arena *arena, const jd_node *set);

/* The role that owns what is created now, or NULL when the files do not
 * say (psql's own connecting role). */
const char *sql_roles_acting(const sql_roles *roles);

/* The role a RoleSpec names: CURRENT_USER and friends the acting one;
 * NULL for PUBLIC or when unknown. */
const char *sql_roles_spec(const sql_roles *roles, const jd_node *role_spec);

/* ALTER ROLE role [IN DATABASE] SET search_path: npath < 0 resets it. */
void sql_roles_set_path(sql_roles *roles, cgm_arena *arena, const char *role, bool in_database,
			const char *const *path, int npath);

/* ALTER ROLE from RENAME TO to: its settings follow it. */
void sql_roles_rename(sql_roles *roles, const char *from, const char *to);

/* The path a session of `role` starts with by the role's own settings (the
 * IN DATABASE one first), or NULL (*count 0) when it has none. */
const char *const *sql_roles_path(const sql_roles *roles, const char *role, int *count);

void sql_roles_free(sql_roles *roles);

#endif
