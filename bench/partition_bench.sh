#!/usr/bin/env bash
# partition_bench.sh [TABLES] [PARTITIONS] - speed and memory of mapping
# SQL files where tables hand what they run on to many others: TABLES
# partitioned tables (default 200) with a default and a check, each with
# PARTITIONS partitions (default 25), then a check and a column with a
# default added to each parent (reaching every partition), as migrations
# of time-partitioned tables do.  Every partition gets copies of its
# parent's effects and references.  Prints the wall time, peak memory,
# the effects made and the command that reproduces it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CGMAP_BENCH_BUILD:-build/release}
tables=${1:-200}
parts=${2:-25}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target cgmap >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-partition-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
awk -v tables="$tables" -v parts="$parts" 'BEGIN {
	print "CREATE SCHEMA app;"
	print "CREATE FUNCTION app.ok(n integer) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN n > 0; END $$;"
	print "CREATE FUNCTION app.stamp() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;"
	for (t = 0; t < tables; t++) {
		printf "CREATE TABLE app.t%d (id integer DEFAULT app.stamp(), n integer CHECK (app.ok(n))) PARTITION BY RANGE (id);\n", t
		for (p = 0; p < parts; p++)
			printf "CREATE TABLE app.t%d_p%d PARTITION OF app.t%d FOR VALUES FROM (%d) TO (%d);\n", t, p, t, p * 10, p * 10 + 10
		printf "ALTER TABLE app.t%d ADD CONSTRAINT t%d_ok2 CHECK (app.ok(id));\n", t, t
		printf "ALTER TABLE app.t%d ADD COLUMN x integer DEFAULT app.stamp();\n", t
	}
}' >"$work/schema.sql"
/usr/bin/time -f "%e %M" "$build/cgmap" --sql "$work/schema.sql" --out "$work/map" --no-html --quiet 2>"$work/time.txt"
read -r wall rss <"$work/time.txt"
effects=$(jq '[.relations[].effects | length] | add' "$work/map/cgmap.json")
echo "partition_bench: $tables partitioned tables x $parts partitions ($(wc -l <"$work/schema.sql") statements)"
echo "  wall time:    $wall s"
echo "  peak memory:  $((rss / 1024)) MB"
echo "  effects:      $effects"
echo "  reproduce:    bash bench/partition_bench.sh $tables $parts"
