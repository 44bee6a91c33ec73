#!/usr/bin/env bash
# query_bench.sh [N] - speed of `cgmap callers`, `callees`, `path` and
# `impact` on a snapshot of a synthetic schema of N functions (default
# 10000, bench/gen_schema.sh), mapped from its SQL file (no server needed).
#
# Prints, each with the command that reproduces it:
#   - the snapshot: functions, edges, bytes, and the bytes of its largest
#     top-level lists;
#   - in-process (a small driver linked with the cgmap library): CPU time of
#     reading the snapshot, building the query graph, and each query's walk
#     alone (median of RUNS, default 5);
#   - end to end, one process per query (read, match, walk, write the
#     answer): median wall and user+system CPU of RUNS runs, and the size of
#     the answer; `cgmap report missing` is the floor (reading alone).
# Target at 10,000 functions: each query well under a second end to end.
# CPU time is the figure to compare on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-10000}
runs=${RUNS:-5}
build=${CGMAP_BENCH_BUILD:-$root/build/release}

if [ -z "${CGMAP_BENCH_NO_BUILD:-}" ]; then
	bash scripts/setup.sh >/dev/null
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j"$(nproc)" --target cgmap cgmapcore >/dev/null
fi
cgmap=$build/cgmap

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/driver.c" <<'C'
#include "cgmap/error.h"
#include "cgmap/infile.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"
#include "cgmap/query.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
	       u.ru_stime.tv_usec / 1e6;
}

static int one(const cgm_model *m, const char *pattern)
{
	int *set, n;
	if (cgm_query_match(&set, &n, m, pattern) < 0 || n < 1) {
		fprintf(stderr, "driver: %s\n", cgm_error_message());
		exit(1);
	}
	int f = set[0];
	free(set);
	return f;
}

/* driver SNAPSHOT FIRST MID LAST RUNS */
int main(int argc, char **argv)
{
	if (argc != 6)
		return 2;
	cgm_infile_set_max_size(0);
	int runs = atoi(argv[5]);
	double t = cpu();
	cgm_model *m;
	if (cgm_snapshot_read(&m, argv[1]) < 0) {
		fprintf(stderr, "driver: %s\n", cgm_error_message());
		return 1;
	}
	double read = cpu() - t;
	int first = one(m, argv[2]), mid = one(m, argv[3]), last = one(m, argv[4]);
	t = cpu();
	cgm_qgraph g;
	cgm_qgraph_build(&g, m);
	double build = cpu() - t;
	double best[5] = { 1e9, 1e9, 1e9, 1e9, 1e9 };
	int size[5] = { 0 };
	for (int r = 0; r < runs; r++) {
		cgm_qtree tr;
		cgm_qpaths p;
		cgm_qimpact im;
		int targets[2] = { first, mid };
		t = cpu();
		cgm_query_tree(&tr, &g, &first, 1, CGM_Q_CALLERS, 0);
		best[0] = cpu() - t < best[0] ? cpu() - t : best[0];
		size[0] = tr.nrows;
		cgm_qtree_free(&tr);
		t = cpu();
		cgm_query_tree(&tr, &g, &last, 1, CGM_Q_CALLEES, 0);
		best[1] = cpu() - t < best[1] ? cpu() - t : best[1];
		size[1] = tr.nrows;
		cgm_qtree_free(&tr);
		t = cpu();
		cgm_query_paths(&p, &g, &last, 1, &first, 1, 10, 0);
		best[2] = cpu() - t < best[2] ? cpu() - t : best[2];
		size[2] = p.npaths;
		cgm_qpaths_free(&p);
		t = cpu();
		cgm_query_impact(&im, &g, targets, 2);
		best[3] = cpu() - t < best[3] ? cpu() - t : best[3];
		size[3] = im.nentries;
		cgm_qimpact_free(&im);
		t = cpu();
		int close[3];
		cgm_query_closest(close, 3, m, "bench.f0000x");
		best[4] = cpu() - t < best[4] ? cpu() - t : best[4];
		size[4] = 3;
	}
	printf("  read snapshot          cpu %7.3f s\n", read);
	printf("  build query graph      cpu %7.3f s\n", build);
	static const char *const names[] = { "callers (all)", "callees (all)", "path --max 10",
					     "impact (2 functions)", "closest ids (no match)" };
	static const char *const units[] = { "rows", "rows", "paths", "entry points", "ids" };
	for (int i = 0; i < 5; i++)
		printf("  %-22s cpu %7.3f s  (%d %s; best of %d)\n", names[i], best[i], size[i], units[i],
		       runs);
	cgm_qgraph_free(&g);
	cgm_model_free(m);
	return 0;
}
C
# shellcheck disable=SC2046
# The link line is CMake's for cgmapcore: libpg_query's archive (its
# raw_parser and plpgsqlToJSON wrapped by rawtree.c), zlib and libyaml too.
cc -O2 -I include -o "$work/driver" "$work/driver.c" "$build/libcgmapcore.a" \
	-Wl,--wrap=raw_parser -Wl,--wrap=plpgsqlToJSON -Wl,--undefined=__wrap_raw_parser \
	-l:libpg_query.a $(pkg-config --libs jansson libgvc libpq yaml-0.1 zlib) -lpthread -lm

bash bench/gen_schema.sh "$n" >"$work/schema.sql"
"$cgmap" --sql "$work/schema.sql" --no-html --quiet --out "$work/map" 2>/dev/null
snap=$work/map/cgmap.json
python3 - "$snap" <<'PY'
import json, sys
path = sys.argv[1]
with open(path) as f:
    d = json.load(f)
sizes = sorted(((len(json.dumps(v)), k) for k, v in d.items() if isinstance(v, list)), reverse=True)
print("snapshot: %d functions, %d edges, %d bytes; largest lists: %s" % (
    len(d["functions"]), len(d["edges"]), len(open(path, "rb").read()),
    ", ".join("%s %d MB" % (k, s // 1000000) for s, k in sizes[:3])))
PY

# Functions of gen_schema.sh call only lower-numbered ones: f00001 has the
# most callers, the last function the most callees.
first=bench.f00001
mid=$(printf 'bench.f%05d' $((n / 2)))
last=$(printf 'bench.f%05d' "$n")

echo "in process (driver SNAPSHOT FIRST MID LAST RUNS, see this script):"
"$work/driver" "$snap" "$first" "$mid" "$last" "$runs"

# measure LABEL CMD...: median wall and CPU seconds of $runs runs.
measure() {
	local label=$1
	shift
	local walls=() cpus=() out=$work/out
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >"$out" 2>/dev/null || true
		read -r wall user sys <<<"$(tail -1 "$work/time")"
		walls+=("$wall")
		cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
	done
	local mw mc
	mw=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	mc=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	printf '  %-26s wall %6.2f s  cpu %6.2f s  answer %7d lines\n' "$label" "$mw" "$mc" "$(wc -l <"$out")"
	printf '      %s\n' "$(printf '%q ' "$@" | sed "s|$work|\$WORK|g; s|$build|\$BUILD|g")"
}

echo "end to end (median of $runs):"
big=(--max-file-size 0) # the snapshot may pass the default input limit
measure "read (report missing)" "$cgmap" report missing "$snap" "${big[@]}"
measure "callers (all)" "$cgmap" callers "$first" "$snap" "${big[@]}"
measure "callers --depth 3" "$cgmap" callers "$first" "$snap" --depth 3 "${big[@]}"
measure "callees (all)" "$cgmap" callees "$last" "$snap" "${big[@]}"
measure "path --max 10" "$cgmap" path "$last" "$first" "$snap" --max 10 "${big[@]}"
measure "impact" "$cgmap" impact "$first" "$mid" --snapshot "$snap" "${big[@]}"
measure "impact --format json" "$cgmap" impact "$mid" --snapshot "$snap" --format json "${big[@]}"
measure "no match (closest ids)" "$cgmap" callers bench.f0000x "$snap" "${big[@]}"
echo "reproduce: bash bench/query_bench.sh $n  (RUNS=$runs; \$WORK is a temporary folder," \
	"\$BUILD the build folder: CGMAP_BENCH_BUILD, CGMAP_BENCH_NO_BUILD=1 to use it as it is)"
