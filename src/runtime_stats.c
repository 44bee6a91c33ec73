/*
 * runtime_stats.c - adding runtime figures without overflow, and the range
 * of figures cgmap reads and writes (see cgmap/runtime.h).
 *
 * In:  two sets of figures (calls, total and self milliseconds).
 * Out: their sum in the first, held at the largest value cgmap keeps
 *      (INT64_MAX calls, CGM_STATS_MAX_MS milliseconds) instead of
 *      wrapping negative or becoming infinite; whether it was held.  No
 *      memory is allocated.
 *
 * The limits make a round trip exact: every count and every time in range
 * prints in the snapshot and reads back as the same value, so cgmap always
 * reads what it wrote.
 */
#include <math.h>
#include <stdint.h>

#include "cgmap/runtime.h"

bool cgm_stats_time_valid(double ms)
{
	return isfinite(ms) && ms >= 0.0 && ms <= CGM_STATS_MAX_MS;
}

int64_t cgm_count_add(int64_t a, int64_t b, bool *held)
{
	/* Counts are never negative: only the upper bound can be passed. */
	if (b > 0 && a > INT64_MAX - b) {
		*held = true;
		return INT64_MAX;
	}
	return a + b;
}

static double time_add(double a, double b, bool *held)
{
	double sum = a + b;
	if (!(sum <= CGM_STATS_MAX_MS)) { /* NaN too */
		*held = true;
		return CGM_STATS_MAX_MS;
	}
	return sum < 0.0 ? 0.0 : sum;
}

bool cgm_runtime_stats_add(cgm_runtime_stats *to, const cgm_runtime_stats *from)
{
	bool held = false;
	to->calls = cgm_count_add(to->calls, from->calls, &held);
	to->total_ms = time_add(to->total_ms, from->total_ms, &held);
	to->self_ms = time_add(to->self_ms, from->self_ms, &held);
	return held;
}

bool cgm_runtime_stats_clamp(cgm_runtime_stats *stats)
{
	bool held = false;
	if (stats->calls < 0) {
		stats->calls = 0;
		held = true;
	}
	double *times[] = { &stats->total_ms, &stats->self_ms };
	for (int i = 0; i < 2; i++)
		if (!cgm_stats_time_valid(*times[i])) {
			*times[i] = *times[i] > 0.0 ? CGM_STATS_MAX_MS : 0.0;
			held = true;
		}
	return held;
}
