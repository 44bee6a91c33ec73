/* cgmap_trace--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.6'" to load this file. \quit

-- The 1.6 library counts one call per evaluation of a value-per-call
-- set-returning function (as pg_stat_user_functions does; before: one per
-- row, plus one), and keeps the calls of the records it finds stale when
-- the view is read (a function whose creating transaction rolled back) as
-- it keeps those of dropped functions.  Neither changes the SQL surface;
-- library_version says which library the server is running, which the
-- extension's version cannot (a server not restarted after an upgrade
-- still runs the library it loaded at start).
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
    OUT stale_kept bigint,
    OUT library_version text
)
RETURNS record
AS 'MODULE_PATHNAME', 'cgmap_trace_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;
