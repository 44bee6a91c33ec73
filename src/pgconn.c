/*
 * pgconn.c - libpq connections (see pgconn.h).  The caller owns the
 * connection and closes it with PQfinish().
 */
#include "pgconn.h"

#include <stdio.h>
#include <string.h>

#include "cgmap/error.h"

int cgm_pg_connect(PGconn **out, const char *dsn)
{
	const char *keys[] = { "dbname", "application_name", "fallback_application_name", NULL };
	const char *values[] = { dsn && *dsn ? dsn : NULL, NULL, "cgmap", NULL };
	/* expand_dbname lets `dbname` carry a whole conninfo or URI. */
	PGconn *conn = PQconnectdbParams(keys, values, 1);
	if (!conn)
		return cgm_error(CGM_ESOURCE, "cannot connect: out of memory");
	if (PQstatus(conn) != CONNECTION_OK) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", PQerrorMessage(conn));
		size_t n = strlen(msg);
		while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
		PQfinish(conn);
		return cgm_error(CGM_ESOURCE, "cannot connect to the database: %s", msg);
	}
	PGresult *res = PQexec(conn, "SET application_name = 'cgmap'");
	PQclear(res);
	*out = conn;
	return 0;
}

const char *cgm_pg_describe(PGconn *conn, char *buf, size_t len)
{
	const char *host = PQhost(conn);
	snprintf(buf, len, "%s@%s:%s", PQdb(conn), host && host[0] == '/' ? "localhost" : host,
		 PQport(conn));
	return buf;
}
