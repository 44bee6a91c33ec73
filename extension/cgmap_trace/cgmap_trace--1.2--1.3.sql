/* cgmap_trace--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.3'" to load this file. \quit

-- 1.3 adds three views of the calls the library records beside the edges:
-- call paths (the frames from the entry point to a call, with times),
-- shapes (the distinct edge sets of each top-level call), and the timeline
-- (calls and exclusive time per function in a ring of time buckets).
-- cgmap_trace_info() gains their sizes and dropped counts; a function's
-- result columns cannot change in place: drop and create it.
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
    OUT buckets integer
)
RETURNS record
AS 'MODULE_PATHNAME', 'cgmap_trace_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- Call paths: frame_oids[1] is the entry point, frame_oids[depth] the
-- function called; lines[i] is the line of frame i-1 that called frame i
-- (0 for the entry point).  A path cut for depth has a marker frame
-- (OID 0, line 0) before its last frame.
CREATE FUNCTION cgmap_trace_paths(
    OUT dbid oid,
    OUT path_hash bigint,
    OUT depth integer,
    OUT frame_oids oid[],
    OUT lines integer[],
    OUT calls bigint,
    OUT total_ms double precision,
    OUT self_ms double precision,
    OUT min_ms double precision,
    OUT max_ms double precision,
    OUT first_seen timestamp with time zone,
    OUT last_seen timestamp with time zone
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cgmap_trace_paths'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- frames: regprocedure names for the current database ('...' for the
-- marker of a cut path), NULL for other databases.
CREATE VIEW cgmap_trace_paths AS
  SELECT p.dbid,
         p.path_hash,
         p.depth,
         CASE WHEN p.dbid = d.oid THEN
           ARRAY(SELECT CASE WHEN f.o = 0 THEN '...'
                             ELSE f.o::regprocedure::text END
                   FROM unnest(p.frame_oids) WITH ORDINALITY AS f(o, n)
                  ORDER BY f.n)
         END AS frames,
         p.frame_oids,
         p.lines,
         p.calls,
         p.total_ms,
         p.self_ms,
         p.min_ms,
         p.max_ms,
         p.first_seen,
         p.last_seen
    FROM cgmap_trace_paths() AS p
    LEFT JOIN pg_catalog.pg_database AS d
           ON d.datname = pg_catalog.current_database();

-- Shapes: per entry point, each distinct set of edges (caller, callee,
-- line, dynamic; sorted) that one of its top-level calls exercised.
CREATE FUNCTION cgmap_trace_shapes(
    OUT dbid oid,
    OUT entry_oid oid,
    OUT shape_hash bigint,
    OUT edge_count integer,
    OUT caller_oids oid[],
    OUT callee_oids oid[],
    OUT lines integer[],
    OUT dynamic boolean[],
    OUT calls bigint,
    OUT first_seen timestamp with time zone,
    OUT last_seen timestamp with time zone
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cgmap_trace_shapes'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- edges: 'caller > callee @line' (' dyn' when dynamic) for the current
-- database, NULL for other databases.
CREATE VIEW cgmap_trace_shapes AS
  SELECT s.dbid,
         CASE WHEN s.dbid = d.oid THEN s.entry_oid::regprocedure END AS entry,
         s.entry_oid,
         s.shape_hash,
         s.edge_count,
         CASE WHEN s.dbid = d.oid THEN
           ARRAY(SELECT e.caller::regprocedure::text || ' > ' ||
                        e.callee::regprocedure::text || ' @' || e.line ||
                        CASE WHEN e.dyn THEN ' dyn' ELSE '' END
                   FROM unnest(s.caller_oids, s.callee_oids, s.lines, s.dynamic)
                        WITH ORDINALITY AS e(caller, callee, line, dyn, n)
                  ORDER BY e.n)
         END AS edges,
         s.caller_oids,
         s.callee_oids,
         s.lines,
         s.dynamic,
         s.calls,
         s.first_seen,
         s.last_seen
    FROM cgmap_trace_shapes() AS s
    LEFT JOIN pg_catalog.pg_database AS d
           ON d.datname = pg_catalog.current_database();

-- Timeline: calls and exclusive time of each function per bucket of
-- cgmap_trace.bucket_seconds, for the last cgmap_trace.buckets buckets.
CREATE FUNCTION cgmap_trace_timeline(
    OUT dbid oid,
    OUT fn_oid oid,
    OUT bucket_start timestamp with time zone,
    OUT calls bigint,
    OUT self_ms double precision
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cgmap_trace_timeline'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW cgmap_trace_timeline AS
  SELECT t.dbid,
         t.bucket_start,
         CASE WHEN t.dbid = d.oid THEN t.fn_oid::regprocedure END AS function,
         t.fn_oid,
         t.calls,
         t.self_ms
    FROM cgmap_trace_timeline() AS t
    LEFT JOIN pg_catalog.pg_database AS d
           ON d.datname = pg_catalog.current_database();

GRANT SELECT ON cgmap_trace_paths TO PUBLIC;
GRANT SELECT ON cgmap_trace_shapes TO PUBLIC;
GRANT SELECT ON cgmap_trace_timeline TO PUBLIC;
