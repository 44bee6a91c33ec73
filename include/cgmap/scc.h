/*
 * cgmap/scc.h - the strongly connected components of a graph given as
 * adjacency arrays (the callees of node u are to[start[u]] ..
 * to[start[u + 1] - 1]), by Tarjan's algorithm without recursion: graphs
 * of any size, no C stack depth.
 *
 * In: the arrays, read only.  Out: comp[u] for every node; nothing kept.
 */
#ifndef CGMAP_SCC_H
#define CGMAP_SCC_H

/* Fills comp[0 .. n-1] with component numbers and returns how many
 * components there are.  Components are numbered as they complete, so
 * every edge between two components goes from a higher number to a lower
 * one (callees first): walking numbers downwards visits callers before
 * their callees. */
int cgm_scc(int *comp, int n, const int *start, const int *to);

#endif
