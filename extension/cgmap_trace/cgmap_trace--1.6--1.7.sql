/* cgmap_trace--1.6--1.7.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.7'" to load this file. \quit

-- cgmap_trace_gone's fn looked a dropped function's identity up with
-- to_regprocedure(), which raises, not answers NULL, when a type the
-- identity names is gone as well (a function dropped with its argument's
-- type by DROP TYPE ... CASCADE, a test suite's temporary type): one such
-- record made the whole view unreadable.  The identity is now matched
-- against what pg_identify_object() says of each function of that name,
-- the very text the library kept (format_procedure_qualified).  The
-- library is unchanged: library_version stays 1.6.
CREATE OR REPLACE VIEW cgmap_trace_gone AS
  SELECT g.dbid,
         CASE WHEN g.dbid = d.oid THEN
           CASE WHEN g.identity IS NULL THEN g.fn_oid::pg_catalog.regprocedure
                ELSE (SELECT p.oid::pg_catalog.regprocedure
                        FROM pg_catalog.pg_proc AS p
                       WHERE pg_catalog.strpos(g.identity, p.proname::text) > 0
                         AND (pg_catalog.pg_identify_object('pg_catalog.pg_proc'::pg_catalog.regclass,
                                                            p.oid, 0)).identity = g.identity
                       LIMIT 1) END
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
