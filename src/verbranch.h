/*
 * verbranch.h - the branches of a PL/pgSQL body written for another
 * server version, which never run on the server the map stands for.
 * PoWA's powa_wal_src reads
 *
 *     IF current_setting('server_version_num')::int < 100000 THEN
 *         v_current_wal := pg_xlogfile_name(pg_current_xlog_location());
 *     ELSE
 *         v_current_wal := pg_walfile_name(pg_current_wal_lsn());
 *     END IF;
 *
 * On PostgreSQL 15 the first branch never runs, so its calls are neither
 * edges nor missing callees.  pg_jobmon and PoWA also read the version
 * into a variable first (`SELECT current_setting('server_version_num')
 * ::int INTO v_version`, `v := ...`, a declaration's default) and test
 * the variable: a variable assigned once, by a statement every way to
 * the IF passes, holds the version there.
 *
 * A condition is decided when it reads the version and every release in
 * [lowest, highest] decides it alike (doeval.h): a live database is one
 * release, the SQL files stand for any release of PostgreSQL 15.
 *
 * The PL/pgSQL tree gives each statement only its first line, so a
 * branch is a range of lines: from its first statement's line, after the
 * line where THEN (or ELSE) ends, to the line before the next statement
 * outside it.  A branch sharing a line with code that runs (`IF c THEN
 * PERFORM a(); ELSE PERFORM b(); END IF;` on one line) is not decided.
 *
 * In:  a function extracted and not yet resolved (its sites and body).
 * Out: the sites on a dead branch's lines taken out of fn->sites (and
 *      site_exprs, kept beside them), and the lines in
 *      fn->other_version_lines for the snapshot and the function's page.
 *      The parse is freed before returning.
 */
#ifndef CGMAP_VERBRANCH_H
#define CGMAP_VERBRANCH_H

#include "cgmap/model.h"

/* What the map stands for: the releases [lowest, highest] of its server
 * (0: unknown, nothing decided), and the SQL functions of no argument
 * that return the version, `SELECT current_setting('server_version_num')
 * ::integer` (pgTAP's pg_version_num()): a call of one in a condition
 * reads the version.  `names[i]` is called bare only when no other
 * function of no argument has that name. */
typedef struct cgm_server_versions {
	long long lowest, highest;
	int nfunctions;
	const char **schemas, **names, **exprs;
	bool *bare;
} cgm_server_versions;

/* The versions a map of `model` stands for, its version functions found
 * (in the model's arena). */
cgm_server_versions *cgm_verbranch_versions(cgm_model *model, long long lowest, long long highest);

/* The line ranges [first[i], last[i]] of fn's branches that never run
 * on a server of `versions` (NULL: none), at most `max` of them: their
 * number. */
int cgm_verbranch_dead_lines(const cgm_function *fn, const cgm_server_versions *versions, int *first,
			     int *last, int max);

/* Take fn's sites on those lines out and, when there were any, keep the
 * lines in fn->other_version_lines (allocated in `arena`, which must live
 * as long as the model): the number of sites taken out. */
int cgm_verbranch_prune(cgm_arena *arena, cgm_function *fn, const cgm_server_versions *versions);

#endif
