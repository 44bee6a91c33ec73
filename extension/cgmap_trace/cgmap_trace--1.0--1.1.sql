/* cgmap_trace--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.1'" to load this file. \quit

-- cgmap_trace_info() gains the counters of the table's policy: edges evicted
-- to make room (least recently seen first) and the calls they had counted,
-- calls not recorded because a temporary function was the caller or the
-- callee, and edges removed because their function or database was dropped.
-- A function's result columns cannot change in place: drop and create it.
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
    OUT stale_removed bigint
)
RETURNS record
AS 'MODULE_PATHNAME', 'cgmap_trace_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- cgmap_trace_edges() (and the view over it) lists only the edges of the
-- databases the current role may connect to, unless it is a superuser or a
-- member of pg_read_all_stats; that is done in C, for 1.0 too.
