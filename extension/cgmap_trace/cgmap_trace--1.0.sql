/* cgmap_trace--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION cgmap_trace" to load this file. \quit

-- Raw edges of every database of the cluster.
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
    OUT last_seen timestamp with time zone
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cgmap_trace_edges'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- Edges with readable names.  caller/callee are regprocedure only for the
-- current database (OIDs of other databases would name unrelated local
-- functions); caller is NULL for an entry point (caller_oid = 0).
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
         e.last_seen
    FROM cgmap_trace_edges() AS e
    LEFT JOIN pg_catalog.pg_database AS d
           ON d.datname = pg_catalog.current_database();

CREATE FUNCTION cgmap_trace_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'cgmap_trace_reset'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE FUNCTION cgmap_trace_info(
    OUT since timestamp with time zone,
    OUT edges_used bigint,
    OUT edges_max bigint,
    OUT dropped bigint
)
RETURNS record
AS 'MODULE_PATHNAME', 'cgmap_trace_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- Only a superuser (or a role it grants EXECUTE to) may wipe the data.
REVOKE ALL ON FUNCTION cgmap_trace_reset() FROM PUBLIC;

GRANT SELECT ON cgmap_trace_edges TO PUBLIC;
