/*
 * cgmap/stacks.h - the call paths of a model (cgmap_trace 1.3, snapshot
 * runtime.paths) as folded stacks, the input of flame graph tools
 * (flamegraph.pl, inferno, speedscope): `stacks.folded` of the site
 * (docs/html.md).
 *
 * One line per distinct stack, in byte order: the frames from the entry
 * point, separated by ';', a space, then the exclusive time of the calls
 * of that path in microseconds as an integer (rounded once per line).
 * Paths that differ only by call-site lines are one stack, their times
 * summed.  A frame is the function id with '%', ';', space and every
 * control byte written %XX (two uppercase hex digits), so a line always
 * splits at its last space and at each ';'; the depth marker is "...".
 */
#ifndef CGMAP_STACKS_H
#define CGMAP_STACKS_H

#include "cgmap/model.h"
#include "cgmap/strbuf.h"

/* Append the folded stacks of model->paths to out (nothing when it has
 * none); returns how many lines were appended. */
int cgm_stacks_folded(cgm_strbuf *out, const cgm_model *model);

#endif
