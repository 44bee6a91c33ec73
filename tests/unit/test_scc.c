/*
 * test_scc.c - strongly connected components (cgmap/scc.h): the members
 * of each component are exactly the nodes that reach each other, every
 * edge between components goes from a higher number to a lower one, and
 * a chain or a cycle of 300,000 nodes needs no C stack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/scc.h"

/* Adjacency arrays from an edge list (pairs), grouped by caller. */
static void adjacency(int **start, int **to, int n, const int *edges, int nedges)
{
	*start = calloc((size_t)n + 1, sizeof(int));
	*to = calloc((size_t)nedges + 1, sizeof(int));
	assert_non_null(*start);
	assert_non_null(*to);
	for (int e = 0; e < nedges; e++)
		(*start)[edges[2 * e] + 1]++;
	for (int u = 0; u < n; u++)
		(*start)[u + 1] += (*start)[u];
	int *fill = calloc((size_t)n + 1, sizeof(int));
	assert_non_null(fill);
	for (int e = 0; e < nedges; e++) {
		int u = edges[2 * e];
		(*to)[(*start)[u] + fill[u]++] = edges[2 * e + 1];
	}
	free(fill);
}

static void test_small_graph(void **state)
{
	(void)state;
	/* 0 -> 1 -> 2 -> 0, 2 -> 3, 3 <-> 4, 5 alone, 6 calls itself. */
	const int edges[] = { 0, 1, 1, 2, 2, 0, 2, 3, 3, 4, 4, 3, 6, 6 };
	int *start, *to, comp[7];
	adjacency(&start, &to, 7, edges, 7);
	assert_int_equal(cgm_scc(comp, 7, start, to), 4);
	assert_int_equal(comp[0], comp[1]);
	assert_int_equal(comp[1], comp[2]);
	assert_int_equal(comp[3], comp[4]);
	assert_int_not_equal(comp[0], comp[3]);
	assert_int_not_equal(comp[5], comp[6]);
	assert_true(comp[2] > comp[3]); /* callers after their callees */
	free(start);
	free(to);
}

/* Random graphs against reachability computed by brute force. */
static void test_random_graphs(void **state)
{
	(void)state;
	enum { N = 40 };
	srand(7);
	for (int round = 0; round < 200; round++) {
		int nedges = rand() % (3 * N);
		int *edges = calloc((size_t)nedges * 2 + 2, sizeof(int));
		assert_non_null(edges);
		bool reach[N][N];
		memset(reach, 0, sizeof(reach));
		for (int e = 0; e < nedges; e++) {
			edges[2 * e] = rand() % N, edges[2 * e + 1] = rand() % N;
			reach[edges[2 * e]][edges[2 * e + 1]] = true;
		}
		for (int i = 0; i < N; i++)
			reach[i][i] = true;
		for (int k = 0; k < N; k++)
			for (int i = 0; i < N; i++)
				for (int j = 0; j < N; j++)
					reach[i][j] = reach[i][j] || (reach[i][k] && reach[k][j]);
		int *start, *to, comp[N];
		adjacency(&start, &to, N, edges, nedges);
		int ncomp = cgm_scc(comp, N, start, to);
		for (int i = 0; i < N; i++) {
			assert_true(comp[i] >= 0 && comp[i] < ncomp);
			for (int j = 0; j < N; j++)
				assert_int_equal(comp[i] == comp[j], reach[i][j] && reach[j][i]);
		}
		for (int e = 0; e < nedges; e++)
			assert_true(comp[edges[2 * e]] >= comp[edges[2 * e + 1]]);
		free(start);
		free(to);
		free(edges);
	}
}

static void test_deep_chain_and_cycle(void **state)
{
	(void)state;
	enum { N = 300000 };
	int *edges = calloc((size_t)N * 2, sizeof(int));
	int *comp = calloc(N, sizeof(int));
	assert_non_null(edges);
	assert_non_null(comp);
	for (int i = 0; i + 1 < N; i++)
		edges[2 * i] = i, edges[2 * i + 1] = i + 1;
	int *start, *to;
	adjacency(&start, &to, N, edges, N - 1);
	assert_int_equal(cgm_scc(comp, N, start, to), N);
	assert_int_equal(comp[0], N - 1); /* the first caller last */
	free(start);
	free(to);
	edges[2 * (N - 1)] = N - 1, edges[2 * (N - 1) + 1] = 0; /* closed */
	adjacency(&start, &to, N, edges, N);
	assert_int_equal(cgm_scc(comp, N, start, to), 1);
	free(start);
	free(to);
	free(edges);
	free(comp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_graph),
		cmocka_unit_test(test_random_graphs),
		cmocka_unit_test(test_deep_chain_and_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
