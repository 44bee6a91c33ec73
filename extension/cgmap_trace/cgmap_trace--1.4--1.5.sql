/* cgmap_trace--1.4--1.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.5'" to load this file. \quit

-- 1.5 keeps the calls that the edges of a dropped function had counted
-- (test suites drop and create their functions by the hundred): per
-- callee, under its identity when it was dropped, so that a function of
-- the same identity created again is known to have run.  stale_kept: the
-- records of stale_removed whose removal hides no call of a function that
-- exists (their calls are in cgmap_trace_gone(), they were site runs of a
-- dropped function, or records of a dropped database).
ALTER EXTENSION cgmap_trace DROP FUNCTION cgmap_trace_info();
DROP FUNCTION cgmap_trace_info();

CREATE FUNCTION cgmap_trace_info(
    OUT since timestamp with time zone,
    OUT edges_used bigint,
    OUT edges_max bigint,
    OUT dropped bigint,
    OUT evictions bigint,
    OUT evicted_calls bigint,
    OUT temp_skipped bigint,
    OUT stale_removed bigint,
    OUT paths_used bigint,
    OUT paths_max bigint,
    OUT paths_dropped bigint,
    OUT shapes_used bigint,
    OUT shapes_max bigint,
    OUT shapes_dropped bigint,
    OUT timeline_functions bigint,
    OUT timeline_max bigint,
    OUT timeline_dropped bigint,
    OUT bucket_seconds integer,
    OUT buckets integer,
    OUT stale_kept bigint
)
RETURNS record
AS 'MODULE_PATHNAME', 'cgmap_trace_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- identity: the function as it was when dropped (qualified name and
-- argument types), NULL when only its callers were dropped (fn_oid names
-- it then).
CREATE FUNCTION cgmap_trace_gone(
    OUT dbid oid,
    OUT fn_oid oid,
    OUT identity text,
    OUT calls bigint,
    OUT total_ms double precision,
    OUT self_ms double precision,
    OUT first_seen timestamp with time zone,
    OUT last_seen timestamp with time zone
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cgmap_trace_gone'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- fn: for the current database, the function these calls count for now:
-- the one of the dropped function's identity, if one was created again
-- (NULL if none), or the function whose callers were dropped.
CREATE VIEW cgmap_trace_gone AS
  SELECT g.dbid,
         CASE WHEN g.dbid = d.oid THEN
           CASE WHEN g.identity IS NULL THEN g.fn_oid::pg_catalog.regprocedure
                ELSE pg_catalog.to_regprocedure(g.identity) END
         END AS fn,
         g.identity,
         g.fn_oid,
         g.calls,
         g.total_ms,
         g.self_ms,
         g.first_seen,
         g.last_seen
    FROM cgmap_trace_gone() AS g
    LEFT JOIN pg_catalog.pg_database AS d
           ON d.datname = pg_catalog.current_database();

GRANT SELECT ON cgmap_trace_gone TO PUBLIC;
