/*
 * plpgsql_locate.h - where a text PL/pgSQL's parser took from a body
 * stands in that body (see plpgsql_locate.c).
 */
#ifndef CGMAP_PLPGSQL_LOCATE_H
#define CGMAP_PLPGSQL_LOCATE_H

/* Offset in body of the first place at or after `from` where text stands,
 * read as PL/pgSQL reads a statement with INTO: the INTO clause blanked,
 * byte for byte; -1 when it stands nowhere. */
long cgm_plpgsql_locate(const char *body, long from, const char *text);

#endif
