#!/usr/bin/env bash
# snapshot_bench.sh [N] - speed and memory of writing and reading the
# snapshot (cgmap.json) and the DOT graph on a synthetic schema of N
# functions (default 10000, bench/gen_schema.sh), mapped from a throwaway
# PostgreSQL 15 cluster.
#
# Prints, with the command that reproduces each figure:
#   - the mapping run: wall time of the write stage (--timing), user CPU and
#     peak memory of the whole run (/usr/bin/time -v);
#   - the snapshot read alone, and the snapshot write and the DOT write on
#     the model read back: CPU (user + system) and wall time of each call,
#     measured in-process by a small driver linked with the cgmap library,
#     and the peak memory of the read.
# Targets at 10,000 functions: write stage (cgmap.json and callgraph.dot,
# written at once on two threads) at most 0.1 s, read well under 1 s,
# mapping run under 200 MB peak.  CPU time is the figure to compare on a
# shared machine: wall time moves with the load.  The sizes of both files
# are printed too: the write costs about in proportion to them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-10000}
build=${CGMAP_BENCH_BUILD:-$root/build/release}

bash scripts/setup.sh --tests >/dev/null
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target cgmap >/dev/null

work=$(mktemp -d)
# shellcheck source=tests/lib/pgtest.sh
. tests/lib/pgtest.sh
pgtest_start
trap 'rm -rf "$work"; pgtest_stop' EXIT

# The driver: one stage per run, timed around the library call only.
cat >"$work/driver.c" <<'C'
#include "cgmap/error.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
	       u.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* driver SNAPSHOT [OUTDIR]: read; with OUTDIR also write cgmap.json and
 * callgraph.dot there. */
int main(int argc, char **argv)
{
	cgm_model *m;
	double c0 = cpu_seconds(), w0 = wall_seconds();
	if (cgm_snapshot_read(&m, argv[1]) != 0) {
		fprintf(stderr, "read: %s\n", cgm_error_message());
		return 1;
	}
	printf("read   cpu %6.3f s  wall %6.3f s\n", cpu_seconds() - c0, wall_seconds() - w0);
	if (argc < 3)
		return 0;
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgmap.json", argv[2]);
	c0 = cpu_seconds(), w0 = wall_seconds();
	if (cgm_snapshot_write(m, path) != 0) {
		fprintf(stderr, "write: %s\n", cgm_error_message());
		return 1;
	}
	printf("json   cpu %6.3f s  wall %6.3f s\n", cpu_seconds() - c0, wall_seconds() - w0);
	snprintf(path, sizeof(path), "%s/callgraph.dot", argv[2]);
	c0 = cpu_seconds(), w0 = wall_seconds();
	if (cgm_emit_dot(m, path) != 0) {
		fprintf(stderr, "dot: %s\n", cgm_error_message());
		return 1;
	}
	printf("dot    cpu %6.3f s  wall %6.3f s\n", cpu_seconds() - c0, wall_seconds() - w0);
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
pgtest_psql -c "CREATE DATABASE bench" >/dev/null
pgtest_psql -d bench -f "$work/schema.sql" >/dev/null

# Warm the server's caches once, then measure.
"$build/cgmap" --dsn dbname=bench --out "$work/warm" --no-html --no-runtime --quiet
/usr/bin/time -v "$build/cgmap" --dsn dbname=bench --out "$work/out" --no-html --no-runtime \
	--quiet --timing 2>"$work/map.txt"
/usr/bin/time -v "$work/driver" "$work/out/cgmap.json" >"$work/read.txt" 2>"$work/read-time.txt"
mkdir -p "$work/again"
"$work/driver" "$work/out/cgmap.json" "$work/again" >"$work/write.txt"
cmp -s "$work/out/cgmap.json" "$work/again/cgmap.json" || { echo "snapshot read back differs" >&2; exit 1; }
cmp -s "$work/out/callgraph.dot" "$work/again/callgraph.dot" || { echo "DOT read back differs" >&2; exit 1; }

field() { awk -F': ' -v k="$1" '$1 ~ k {print $2}' "$2"; }
size_mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN {printf "%.1f", b / 1048576}'; }
echo "cgmap snapshot benchmark: $n generated functions, cgmap.json $(size_mb "$work/out/cgmap.json") MB, callgraph.dot $(size_mb "$work/out/callgraph.dot") MB ($(nproc) cores)"
echo "mapping run:      $(grep '^stage write' "$work/map.txt" | awk '{print "write stage " $3 " s wall"}'), user CPU $(field 'User time' "$work/map.txt") s, peak $(field 'Maximum resident set size' "$work/map.txt" | awk '{printf "%.1f", $1/1024}') MB"
echo "  reproduce: cgmap --dsn dbname=bench --out OUT --no-html --no-runtime --timing under /usr/bin/time -v"
sed 's/^/snapshot /' "$work/read.txt"
echo "  peak of the read: $(field 'Maximum resident set size' "$work/read-time.txt" | awk '{printf "%.1f", $1/1024}') MB"
sed 's/^/written /' "$work/write.txt" | grep -v '^written read'
echo "  reproduce: bash bench/snapshot_bench.sh $n (driver: SNAPSHOT [OUTDIR], see this script)"
