/* cgmap_trace--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.4'" to load this file. \quit

-- 1.4 counts each dynamic statement (EXECUTE, FOR ... IN EXECUTE,
-- RETURN QUERY EXECUTE, OPEN ... FOR EXECUTE) of a traced PL/pgSQL
-- function that finishes, whether or not it called a function: a dynamic
-- site that ran and called nothing (DDL, a query of tables) is no longer
-- indistinguishable from one that never ran.  runs: how many times the
-- statement at site_line of the function finished against that version of
-- its body (caller_body, as in cgmap_trace_edges).
CREATE FUNCTION cgmap_trace_sites(
    OUT dbid oid,
    OUT fn_oid oid,
    OUT site_line integer,
    OUT caller_body text,
    OUT runs bigint,
    OUT first_seen timestamp with time zone,
    OUT last_seen timestamp with time zone
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cgmap_trace_sites'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

-- fn: the regprocedure of the function for the current database, NULL for
-- other databases.
CREATE VIEW cgmap_trace_sites AS
  SELECT s.dbid,
         CASE WHEN s.dbid = d.oid THEN s.fn_oid::regprocedure END AS fn,
         s.fn_oid,
         s.site_line,
         s.caller_body,
         s.runs,
         s.first_seen,
         s.last_seen
    FROM cgmap_trace_sites() AS s
    LEFT JOIN pg_catalog.pg_database AS d
           ON d.datname = pg_catalog.current_database();

GRANT SELECT ON cgmap_trace_sites TO PUBLIC;
