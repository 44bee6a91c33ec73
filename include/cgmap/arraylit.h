/*
 * cgmap/arraylit.h - an array constant as PostgreSQL prints it.
 *
 * In:  the text of an array literal ('{a, b}' read by array_in) and the
 *      canonical name of its element type.  Out: the text array_out
 *      gives back for it (each element as its type's output function
 *      prints it, quoted where array_out quotes), in the caller's arena,
 *      as pg_get_function_arguments shows a parameter's default
 *      '{INSERT, UPDATE, DELETE}'::text[] ('{INSERT,UPDATE,DELETE}').
 *      NULL when the element type is not one whose output cgmap knows
 *      (text, character varying, name, smallint, integer, bigint,
 *      boolean) or the literal is one array_in would refuse or that
 *      carries dimension bounds ('[0:1]={a,b}'): the caller keeps the
 *      text as written.
 */
#ifndef CGMAP_ARRAYLIT_H
#define CGMAP_ARRAYLIT_H

#include "cgmap/arena.h"

const char *cgm_array_literal_out(cgm_arena *arena, const char *elemtype, const char *text);

#endif
