/*
 * cgmap/model.h - the in-memory call graph every pipeline stage shares.
 *
 * In:  filled by a source (live catalog or SQL files), then by extract,
 *      resolve, merge and analyze, or read back whole from a JSON snapshot.
 * Out: read by every emitter (JSON, DOT, HTML, reports, diff).
 * Memory: a cgm_model owns one arena; every string and array hanging off the
 *      model lives in it and is freed at once by cgm_model_free().  Nothing
 *      here is freed on its own.
 */
#ifndef CGMAP_MODEL_H
#define CGMAP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmap/arena.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CGM_SNAPSHOT_FORMAT 1

typedef enum {
	CGM_KIND_FUNCTION = 0,
	CGM_KIND_PROCEDURE,
	CGM_KIND_AGGREGATE,
	CGM_KIND_WINDOW
} cgm_kind;

/* What made a call site. */
typedef enum {
	CGM_SITE_CALL = 0,     /* function call inside an expression or query */
	CGM_SITE_PERFORM,      /* PERFORM f(...) */
	CGM_SITE_CALL_STMT,    /* CALL p(...) */
	CGM_SITE_TRIGGER,      /* INSERT/UPDATE/DELETE/TRUNCATE on a table with triggers */
	CGM_SITE_EXEC_LITERAL, /* call found inside the constant SQL of an EXECUTE */
	CGM_SITE_DYNAMIC       /* EXECUTE whose SQL cannot be known statically */
} cgm_site_kind;

/* What resolution made of a site. */
typedef enum {
	CGM_RES_UNRESOLVED = 0, /* not resolved yet */
	CGM_RES_RESOLVED,       /* exactly one target */
	CGM_RES_AMBIGUOUS,      /* several candidates, all linked */
	CGM_RES_MISSING,        /* no function of that name and shape exists */
	CGM_RES_BUILTIN,        /* a pg_catalog function (no edge unless asked) */
	CGM_RES_NONE            /* nothing to resolve: dynamic site, DML without triggers */
} cgm_resolution;

/* DML events, as bits: also the events a trigger fires on. */
enum {
	CGM_EV_INSERT = 1 << 0,
	CGM_EV_UPDATE = 1 << 1,
	CGM_EV_DELETE = 1 << 2,
	CGM_EV_TRUNCATE = 1 << 3
};

/* One call site in one function body.  Names are as PostgreSQL folds them
 * (unquoted identifiers lower-cased), schema NULL when unqualified. */
typedef struct cgm_site {
	int line;               /* 1-based line within the function body (prosrc) */
	cgm_site_kind kind;
	bool via_literal;       /* found in the constant SQL of an EXECUTE */
	const char *stmt;       /* PL/pgSQL statement kind ("assign", "perform", ...) or "sql" */
	const char *schema;     /* callee schema as written, or NULL */
	const char *name;       /* callee name as written; for triggers the table */
	int nargs;
	const char **argnames;  /* nargs entries, NULL entry for a positional argument */
	const char **argtypes;  /* nargs entries, canonical type or NULL when unknown;
	                         * "unknown" for an untyped string literal */
	bool variadic_call;     /* last argument written as VARIADIC arr */
	unsigned events;        /* CGM_SITE_TRIGGER: CGM_EV_* of the statement */
	const char *text;       /* CGM_SITE_DYNAMIC: the EXECUTE expression text */

	cgm_resolution resolution;
	int ntargets;
	int *targets;           /* indexes into model->functions */
} cgm_site;

/* A parse failure of one body: the function stays, marked. */
typedef struct cgm_parse_error {
	int line;               /* 1-based line within the body, 0 when unknown */
	const char *message;
} cgm_parse_error;

/* Runtime figures (zero when nothing was observed). */
typedef struct cgm_runtime_stats {
	int64_t calls;
	double total_ms;
	double self_ms;
} cgm_runtime_stats;

typedef struct cgm_function {
	const char *id;            /* regprocedure text with an empty search_path */
	const char *schema;
	const char *name;
	const char *identity_args; /* "integer, text" as in the id */
	const char *arguments;     /* pg_get_function_arguments: names, modes, defaults */
	const char *result;        /* pg_get_function_result, or NULL */
	cgm_kind kind;
	const char *language;
	const char *comment;       /* COMMENT ON FUNCTION, or NULL */
	const char *source;        /* the body (prosrc, or the BEGIN ATOMIC text), or NULL */
	bool atomic_body;          /* source is a SQL-standard BEGIN ATOMIC ... END body */
	int line_count;            /* lines in source */
	const char *file;          /* SQL-file mode: file of the definition, else NULL */
	int file_line;             /* SQL-file mode: line of CREATE in file */
	const char *body_hash;     /* hash of the normalised body, hex */

	/* Resolution inputs. */
	int nargs;                 /* input arguments (IN, INOUT, VARIADIC) */
	const char **argtypes;     /* nargs canonical type names (format_type) */
	const char **argnames;     /* nargs names, NULL entry when unnamed */
	int ndefaults;             /* trailing input arguments with defaults */
	bool variadic;             /* last input argument is VARIADIC */
	const char *variadic_elem; /* element type of the VARIADIC array, or NULL */
	int npath;
	const char **search_path;  /* its own SET search_path, or NULL (npath -1) */

	bool builtin;              /* lives in pg_catalog: resolution only */
	bool analysed;             /* plpgsql or sql whose body was extracted */
	bool is_trigger;           /* returns trigger / event_trigger */
	bool from_extension;

	int nsites;
	cgm_site *sites;
	int nerrors;
	cgm_parse_error *errors;

	/* Filled by merge / analyze. */
	cgm_runtime_stats runtime;
	bool observed_entry;       /* called from a client statement at runtime */
	bool referenced;           /* a catalog object or trigger refers to it */
	bool root;
	bool reachable;
	bool dead;
	bool cold;
	int scc;                   /* id of its recursive component, -1 when none */
} cgm_function;

/* Edge provenance bits. */
enum {
	CGM_EDGE_STATIC = 1 << 0,
	CGM_EDGE_OBSERVED = 1 << 1
};

typedef enum {
	CGM_VIA_CALL = 0,     /* direct call (including PERFORM, CALL) */
	CGM_VIA_LITERAL,      /* inside constant EXECUTE SQL */
	CGM_VIA_TRIGGER,      /* DML firing a trigger */
	CGM_VIA_DYNAMIC       /* observed from a dynamic EXECUTE site */
} cgm_via;

typedef struct cgm_edge {
	int from, to;         /* indexes into model->functions */
	cgm_via via;
	unsigned provenance;  /* CGM_EDGE_* */
	bool ambiguous;       /* one of several candidates of a site */
	int nlines;
	int *lines;           /* sorted, distinct call-site lines in `from` */
	cgm_runtime_stats runtime;
} cgm_edge;

/* A table trigger (live catalog or CREATE TRIGGER). */
typedef struct cgm_trigger {
	const char *table_schema;
	const char *table_name;
	const char *name;
	unsigned events;      /* CGM_EV_* */
	int function;         /* index into model->functions, -1 when unknown */
	const char *function_id;
	bool enabled;
} cgm_trigger;

/* A catalog object that refers to a function. */
typedef struct cgm_reference {
	int function;         /* index into model->functions, -1 when unknown */
	const char *function_id;
	const char *object_kind; /* "view", "default", "constraint", "trigger", "policy",
	                          * "index", "operator", "aggregate", "cast", ... */
	const char *object;   /* the object's description */
} cgm_reference;

/* A relation (table, view, foreign table) that DML may name: lets an
 * unqualified table be found through the search_path like PostgreSQL does. */
typedef struct cgm_relation {
	const char *schema;
	const char *name;
} cgm_relation;

/* A problem that belongs to no single function: an SQL file that does not
 * parse, an unknown OID in a runtime log, ... */
typedef struct cgm_diagnostic {
	const char *file;     /* or NULL */
	int line;             /* 0 when unknown */
	const char *message;
} cgm_diagnostic;

/* Where the model came from. */
typedef struct cgm_source_info {
	const char *kind;     /* "database" or "sql" */
	const char *name;     /* database name or the SQL paths */
	const char *server_version;
	const char *mapped_at;/* ISO 8601 UTC, only with --stamp (outputs are deterministic) */
	int npath;
	const char **default_search_path;
} cgm_source_info;

typedef struct cgm_model {
	cgm_arena *arena;
	cgm_source_info source;

	int nfunctions, cap_functions;
	cgm_function *functions;   /* user functions sorted by id, builtins after */
	int nuser;                 /* functions[0..nuser) are the mapped ones */

	int nedges, cap_edges;
	cgm_edge *edges;

	int ntriggers, cap_triggers;
	cgm_trigger *triggers;

	int nreferences, cap_references;
	cgm_reference *references;

	int nrelations, cap_relations;
	cgm_relation *relations;

	/* What a one-argument call that names no function may be instead:
	 * a function-style cast to a type (`mytype(x)`), or attribute notation
	 * on a row (`id(r)` is `r.id`).  Used only for such calls. */
	int ntypes, cap_types;
	cgm_relation *types;       /* user-defined types, schema and name */
	int ncolumns, cap_columns;
	const char **columns;      /* distinct column names of relations and composite types */

	int ndiagnostics, cap_diagnostics;
	cgm_diagnostic *diagnostics;

	int *lookup;               /* open-addressing id -> index, by cgm_model_index */
	int lookup_size;

	bool has_runtime;          /* any runtime data merged */
	const char *runtime_window;/* description of the observation window */

	/* Recorded in the snapshot ("options", "runtime.sources"): what shaped
	 * the graph, set by the mapping command and by merge. */
	bool include_builtins;     /* edges to pg_catalog functions were kept */
	bool include_extensions;   /* functions of extensions were mapped */
	int nruntime_sources;
	const char **runtime_sources; /* one line per runtime source merged, e.g.
	                               * "database demo@host:5432" or "file run.json" */
} cgm_model;

cgm_model *cgm_model_new(void);
void cgm_model_free(cgm_model *model);

/* Append and return a zeroed slot; pointers into the arrays move on append. */
cgm_function *cgm_model_add_function(cgm_model *model);
cgm_edge *cgm_model_add_edge(cgm_model *model);
cgm_trigger *cgm_model_add_trigger(cgm_model *model);
cgm_reference *cgm_model_add_reference(cgm_model *model);
cgm_relation *cgm_model_add_relation(cgm_model *model);
cgm_relation *cgm_model_add_type(cgm_model *model);
void cgm_model_add_column(cgm_model *model, const char *name);
cgm_diagnostic *cgm_model_add_diagnostic(cgm_model *model);

/* Set trigger and reference function indexes from their function_id
 * (after cgm_model_index). */
void cgm_model_link(cgm_model *model);

/* Index of the function with that id, or -1.  Needs cgm_model_index(). */
int cgm_model_find(const cgm_model *model, const char *id);
/* Sort user functions by id (builtins after), remap every index, and build
 * the id lookup.  Call once the function list is complete. */
void cgm_model_index(cgm_model *model);

/* Edge indexes in the order every output lists edges: from id, to id, via
 * name, then model order (malloc'd, nedges entries; caller frees). */
int *cgm_model_edge_order(const cgm_model *model);
/* Per function index, the rank of its id in byte order (equal ids share
 * the rank of the first): rank must hold model->nfunctions ints; a missing
 * id ranks as "".  The functions are usually sorted already (the model
 * keeps them by id), which is checked before sorting. */
void cgm_model_id_ranks(int *rank, const cgm_model *model);
/* Lines in a function body ("" and NULL: 0; a final newline adds none). */
int cgm_count_lines(const char *s);

const char *cgm_kind_name(cgm_kind kind);
int cgm_kind_parse(cgm_kind *out, const char *name);
const char *cgm_site_kind_name(cgm_site_kind kind);
int cgm_site_kind_parse(cgm_site_kind *out, const char *name);
const char *cgm_resolution_name(cgm_resolution res);
int cgm_resolution_parse(cgm_resolution *out, const char *name);
const char *cgm_via_name(cgm_via via);
int cgm_via_parse(cgm_via *out, const char *name);
/* "INSERT|UPDATE" style text of CGM_EV_* bits, into buf. */
const char *cgm_events_text(char *buf, size_t len, unsigned events);

#ifdef __cplusplus
}
#endif

#endif
