/*
 * sqlroles.c - the roles of SQL files: who acts, and each role's
 * search_path setting (sqlroles.h).
 *
 * In:  VariableSetStmt, AlterRoleSetStmt and RoleSpec trees (libpg_query's
 *      JSON, jsondom.h); paths split into names by the caller.
 * Out: names and paths copied into the caller's arena; the settings' array
 *      is heap memory of the struct, freed by sql_roles_free.
 *
 * A role's settings apply when one of its sessions starts, not when SET
 * ROLE switches to it (PostgreSQL reads pg_db_role_setting at login): so
 * the settings are kept apart from the acting role, and only the last of
 * them counts, as the catalog holds only the last.
 */
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "sqlroles.h"

void sql_roles_new_session(sql_roles *roles)
{
	roles->session = NULL;
	roles->current = NULL;
}

static const char *set_value(const jd_node *set)
{
	const jd_node *args = jd_get(set, "args");
	if (jd_size(args) != 1)
		return NULL;
	return jd_string(jd_get(jd_get(jd_get(jd_at(args, 0), "A_Const"), "sval"), "sval"));
}

bool sql_roles_apply_set(sql_roles *roles, cgm_arena *arena, const jd_node *set)
{
	const char *name = jd_string(jd_get(set, "name"));
	const char *kind = jd_string(jd_get(set, "kind"));
	if (!name || !kind)
		return false;
	bool is_role = strcmp(name, "role") == 0;
	if (!is_role && strcmp(name, "session_authorization") != 0)
		return false;
	const char *value = strcmp(kind, "VAR_SET_VALUE") == 0 ? set_value(set) : NULL;
	if (is_role) {
		/* SET ROLE NONE and RESET ROLE: back to the session's role. */
		roles->current = value && strcmp(value, "none") != 0 ? cgm_arena_strdup(arena, value)
								     : NULL;
	} else {
		/* SET SESSION AUTHORIZATION also ends a SET ROLE. */
		roles->session = value ? cgm_arena_strdup(arena, value) : NULL;
		roles->current = NULL;
	}
	return true;
}

const char *sql_roles_acting(const sql_roles *roles)
{
	return roles->current ? roles->current : roles->session;
}

const char *sql_roles_spec(const sql_roles *roles, const jd_node *role_spec)
{
	const jd_node *spec = jd_get(role_spec, "RoleSpec");
	if (!spec)
		spec = role_spec;
	const char *type = jd_string(jd_get(spec, "roletype"));
	if (!type)
		return NULL;
	if (strcmp(type, "ROLESPEC_CSTRING") == 0)
		return jd_string(jd_get(spec, "rolename"));
	if (strcmp(type, "ROLESPEC_CURRENT_ROLE") == 0 || strcmp(type, "ROLESPEC_CURRENT_USER") == 0)
		return sql_roles_acting(roles);
	if (strcmp(type, "ROLESPEC_SESSION_USER") == 0)
		return roles->session;
	return NULL; /* PUBLIC */
}

static sql_role_setting *find_setting(const sql_roles *roles, const char *role, bool in_database)
{
	for (int i = 0; i < roles->nsettings; i++)
		if (roles->settings[i].in_database == in_database &&
		    strcmp(roles->settings[i].role, role) == 0)
			return &roles->settings[i];
	return NULL;
}

void sql_roles_set_path(sql_roles *roles, cgm_arena *arena, const char *role, bool in_database,
			const char *const *path, int npath)
{
	sql_role_setting *s = find_setting(roles, role, in_database);
	if (!s) {
		if (npath < 0)
			return;
		if (roles->nsettings == roles->cap) {
			roles->cap = roles->cap ? roles->cap * 2 : 8;
			roles->settings = cgm_xrealloc(roles->settings,
						       sizeof(*roles->settings) * (size_t)roles->cap);
		}
		s = &roles->settings[roles->nsettings++];
		s->role = cgm_arena_strdup(arena, role);
		s->in_database = in_database;
	}
	if (npath < 0) { /* RESET: no setting, as if never set */
		*s = roles->settings[--roles->nsettings];
		return;
	}
	const char **copy = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(npath ? npath : 1));
	for (int i = 0; i < npath; i++)
		copy[i] = cgm_arena_strdup(arena, path[i]);
	s->path = copy;
	s->npath = npath;
}

void sql_roles_rename(sql_roles *roles, const char *from, const char *to)
{
	for (int i = 0; i < roles->nsettings; i++)
		if (strcmp(roles->settings[i].role, from) == 0)
			roles->settings[i].role = to;
	if (roles->session && strcmp(roles->session, from) == 0)
		roles->session = to;
	if (roles->current && strcmp(roles->current, from) == 0)
		roles->current = to;
}

const char *const *sql_roles_path(const sql_roles *roles, const char *role, int *count)
{
	*count = 0;
	if (!role)
		return NULL;
	const sql_role_setting *s = find_setting(roles, role, true);
	if (!s)
		s = find_setting(roles, role, false);
	if (!s)
		return NULL;
	*count = s->npath;
	return s->path;
}

void sql_roles_free(sql_roles *roles)
{
	free(roles->settings);
	roles->settings = NULL;
	roles->nsettings = roles->cap = 0;
}
