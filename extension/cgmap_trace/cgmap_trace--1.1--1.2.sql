/* cgmap_trace--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.2'" to load this file. \quit

-- Each edge records the version of its caller's body (caller_body: the
-- 64-bit FNV-1a hash of the caller's prosrc as 16 hex digits, NULL for an
-- entry point), and edges of one call site seen against different bodies
-- are kept apart: after CREATE OR REPLACE, cgmap can tell an edge seen
-- against an earlier body from one of the body it maps.  A function's
-- result columns cannot change in place: drop the view and the function,
-- create them again.
ALTER EXTENSION cgmap_trace DROP VIEW cgmap_trace_edges;
DROP VIEW cgmap_trace_edges;
ALTER EXTENSION cgmap_trace DROP FUNCTION cgmap_trace_edges();
DROP FUNCTION cgmap_trace_edges();

CREATE FUNCTION cgmap_trace_edges(
    OUT dbid oid,
    OUT caller_oid oid,
    OUT callee_oid oid,
    OUT site_line integer,
    OUT dynamic boolean,
    OUT calls bigint,
    OUT total_ms double precision,
    OUT self_ms double precision,
    OUT first_seen timestamp with time zone,
    OUT last_seen timestamp with time zone,
    OUT caller_body text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cgmap_trace_edges'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- The columns of 1.1 first, in their order, so readers of 1.1 still work.
CREATE VIEW cgmap_trace_edges AS
  SELECT e.dbid,
         CASE WHEN e.caller_oid <> 0 AND e.dbid = d.oid
              THEN e.caller_oid::regprocedure END AS caller,
         e.caller_oid,
         CASE WHEN e.dbid = d.oid
              THEN e.callee_oid::regprocedure END AS callee,
         e.callee_oid,
         e.site_line,
         e.dynamic,
         e.calls,
         e.total_ms,
         e.self_ms,
         e.first_seen,
         e.last_seen,
         e.caller_body
    FROM cgmap_trace_edges() AS e
    LEFT JOIN pg_catalog.pg_database AS d
           ON d.datname = pg_catalog.current_database();

GRANT SELECT ON cgmap_trace_edges TO PUBLIC;
