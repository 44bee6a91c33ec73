/*
 * pgconn.h - one way to open a libpq connection for every cgmap stage that
 * reads a server (catalog source, runtime data, collect).
 */
#ifndef CGMAP_PGCONN_H
#define CGMAP_PGCONN_H

#include <libpq-fe.h>

/* Connect to `dsn` (conninfo or URI; NULL or "" uses the libpq environment:
 * PGHOST, PGDATABASE, ...).  On failure: CGM_ESOURCE with libpq's message,
 * which never contains the password. */
int cgm_pg_connect(PGconn **out, const char *dsn);

/* "dbname@host:port" for messages and runtime provenance (arena-free:
 * written into buf). */
const char *cgm_pg_describe(PGconn *conn, char *buf, size_t len);

#endif
