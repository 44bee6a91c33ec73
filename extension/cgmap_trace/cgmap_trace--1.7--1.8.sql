/* cgmap_trace--1.7--1.8.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cgmap_trace UPDATE TO '1.8'" to load this file. \quit

-- The 1.8 library keeps the edges and site runs it removes with a dropped
-- function, not only the calls they counted: a test suite that drops and
-- creates its functions again (DROP EXTENSION, DROP SCHEMA ... CASCADE and
-- a reload) ran those edges, and the functions created again with the same
-- identities are the ones they were of.  cgmap_trace_gone_edges() lists
-- them with cgmap_trace_edges()'s columns, under the OIDs the functions
-- had (cgmap_trace_gone() names each dropped one); a site run has callee
-- 0.  gone_edges_lost counts those it had no room or no name for.
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
    OUT library_version text,
    OUT gone_edges_lost bigint
)
RETURNS record
AS 'MODULE_PATHNAME', 'cgmap_trace_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE FUNCTION cgmap_trace_gone_edges(
    OUT dbid oid,
    OUT caller oid,
    OUT callee oid,
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
AS 'MODULE_PATHNAME', 'cgmap_trace_gone_edges'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;
