/*
 * scc.c - strongly connected components (cgmap/scc.h).
 *
 * In:  adjacency arrays.  Out: a component number per node, in the
 *      caller's array.  Working arrays are malloc'd and freed here.
 */
#include "cgmap/scc.h"
#include "cgmap/arena.h"

#include <stdbool.h>
#include <stdlib.h>

int cgm_scc(int *comp, int n, const int *start, const int *to)
{
	int *index = cgm_xcalloc((size_t)n + 1, sizeof(int)), *low = cgm_xcalloc((size_t)n + 1, sizeof(int));
	int *stack = cgm_xcalloc((size_t)n + 1, sizeof(int)), *call = cgm_xcalloc((size_t)n + 1, sizeof(int));
	int *next_edge = cgm_xcalloc((size_t)n + 1, sizeof(int));
	bool *on_stack = cgm_xcalloc((size_t)n + 1, sizeof(bool));
	int counter = 0, sp = 0, ncomp = 0;
	for (int i = 0; i < n; i++)
		index[i] = -1, comp[i] = -1;
	for (int root = 0; root < n; root++) {
		if (index[root] >= 0)
			continue;
		int depth = 0;
		call[depth++] = root;
		index[root] = low[root] = counter++;
		stack[sp++] = root, on_stack[root] = true;
		next_edge[root] = start[root];
		while (depth > 0) {
			int v = call[depth - 1];
			if (next_edge[v] < start[v + 1]) {
				int w = to[next_edge[v]++];
				if (index[w] < 0) {
					index[w] = low[w] = counter++;
					stack[sp++] = w, on_stack[w] = true;
					next_edge[w] = start[w];
					call[depth++] = w;
				} else if (on_stack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			depth--;
			if (depth > 0) {
				int parent = call[depth - 1];
				if (low[v] < low[parent])
					low[parent] = low[v];
			}
			if (low[v] == index[v]) {
				int w;
				do {
					w = stack[--sp];
					on_stack[w] = false;
					comp[w] = ncomp;
				} while (w != v);
				ncomp++;
			}
		}
	}
	free(index), free(low), free(stack), free(call), free(next_edge), free(on_stack);
	return ncomp;
}
