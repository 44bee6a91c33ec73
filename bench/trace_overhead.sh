#!/usr/bin/env bash
# bench/trace_overhead.sh - what cgmap_trace costs in TPS.
#
# Starts its own throwaway PostgreSQL 15 cluster (unix socket only, removed
# at exit), builds cgmap_trace (extension/cgmap_trace/build.sh) into a private
# copy of the installation tree (tests/lib/pgext.sh; the system PostgreSQL is
# not written to), and runs
# pgbench with a custom script calling a tree of PL/pgSQL and SQL functions
# (b_top -> 6 x b_mid -> 2 x b_leaf + b_leaf2 + b_sql, every other b_mid
# also an EXECUTE of b_leaf: 28 PL/pgSQL calls per transaction, 34 with the
# SQL ones) under these configurations:
#
#   none            no extension loaded
#   loaded-off      cgmap_trace loaded, cgmap_trace.enabled = off
#   edges           cgmap_trace enabled, track = plpgsql, edges only
#                   (track_paths, track_shapes, track_timeline off)
#   full            cgmap_trace enabled, track = plpgsql, edges + paths +
#                   shapes + timeline (the defaults)
#   all             cgmap_trace enabled, track = all (fmgr hooks, no inlining),
#                   everything recorded
#   track_functions PostgreSQL's own track_functions = 'all'
#   plprofiler      plprofiler enabled globally (when installed)
#   plpgsql_check   plpgsql_check.profiler = on (when installed)
#
# Configurations are interleaved round by round (to spread drift evenly);
# each gets RUNS runs of SECONDS seconds and the median TPS is reported.
# TPS on a shared machine moves with whatever else runs there, so the script
# also reports the server CPU time per transaction (user+system time of the
# pgbench backends, read from the postmaster's reaped-children counters),
# which is much less sensitive to other load; overheads are given for both.
#
# Then, per configuration, the cost of ONE call: a single session calls a
# trivial PL/pgSQL function MICRO_CALLS times in one statement and reads its
# own CPU time from /proc/self/stat before and after (median of RUNS).
#
# Environment: RUNS (3), SECONDS_PER_RUN (10), CLIENTS (2), THREADS (2),
#              MICRO_CALLS (1000000; 0 skips the per-call part),
#              CONFIGS (space-separated subset of the names above).
set -euo pipefail

RUNS=${RUNS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
CLIENTS=${CLIENTS:-2}
THREADS=${THREADS:-2}
MICRO_CALLS=${MICRO_CALLS:-1000000}
CONFIGS=${CONFIGS:-"none edges full plprofiler"}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=tests/lib/pgtest.sh
. "$root/tests/lib/pgtest.sh"
# shellcheck source=tests/lib/pgext.sh
. "$root/tests/lib/pgext.sh"

pkglibdir=$(pg_config --pkglibdir)

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-bench-build.XXXXXX")
chmod 755 "$work"
if ! { "$root/extension/cgmap_trace/build.sh" "$work/build" && pgext_tree "$work/tree" "$work/build"; } >"$work/log" 2>&1; then
	cat "$work/log" >&2
	rm -rf "$work"
	echo "trace_overhead: cannot build/install cgmap_trace" >&2
	exit 1
fi

# keep only the configurations that can run here
configs=()
for c in $CONFIGS; do
	case $c in
	plprofiler | plpgsql_check)
		if [ -e "$pkglibdir/$c.so" ]; then configs+=("$c"); else echo "(skipping $c: not installed)"; fi ;;
	none | loaded-off | edges | full | all | track_functions) configs+=("$c") ;;
	*) echo "trace_overhead: unknown configuration $c" >&2; exit 2 ;;
	esac
done

pgtest_start "max_connections = 20" "shared_buffers = 128MB"

workload=$(mktemp "${TMPDIR:-/tmp}/cgmap-bench-workload.XXXXXX")
trap 'rm -f "$workload"; pgtest_stop; rm -rf "$work"' EXIT
cat >"$workload" <<'EOF'
\set k random(1, 1000)
SELECT b_top(:k);
EOF

pgtest_psql <<'SQL'
CREATE FUNCTION b_leaf(i int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN i + 1;
END $$;
CREATE FUNCTION b_sql(i int) RETURNS int LANGUAGE sql AS $$ SELECT i * 2 $$;
CREATE FUNCTION b_leaf2(i int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN i - 1;
END $$;
CREATE FUNCTION b_mid(i int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  r := b_leaf(i) + b_sql(i);
  r := r + b_leaf(r) + b_leaf2(i);
  IF i % 2 = 0 THEN
    EXECUTE 'SELECT b_leaf($1)' INTO r USING r;
  END IF;
  RETURN r;
END $$;
CREATE FUNCTION b_top(k int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE s int := 0;
BEGIN
  FOR j IN 1..6 LOOP
    s := s + b_mid(k + j);
  END LOOP;
  RETURN s;
END $$;
SQL

# configure NAME: restart the cluster with the settings of that configuration
configure() {
	local spl="" extra=()
	case $1 in
	none) ;;
	loaded-off) spl="cgmap_trace"; extra=("cgmap_trace.enabled = off") ;;
	edges) spl="cgmap_trace"; extra=("cgmap_trace.track = 'plpgsql'" "cgmap_trace.track_paths = off"
		"cgmap_trace.track_shapes = off" "cgmap_trace.track_timeline = off") ;;
	full) spl="cgmap_trace"; extra=("cgmap_trace.track = 'plpgsql'") ;;
	all) spl="cgmap_trace"; extra=("cgmap_trace.track = 'all'") ;;
	track_functions) extra=("track_functions = 'all'") ;;
	plprofiler) spl="plprofiler" ;;
	plpgsql_check) spl="plpgsql_check"; extra=("plpgsql_check.profiler = on") ;;
	esac
	{
		echo "shared_preload_libraries = '$spl'"
		local l
		for l in "${extra[@]}"; do echo "$l"; done
	} >"$PGTEST_DIR/data/postgresql.auto.conf"
	pgtest_restart
	case $1 in
	edges | full | all | loaded-off)
		pgtest_psql -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS cgmap_trace" -c "SELECT cgmap_trace_reset()" >/dev/null ;;
	plprofiler)
		pgtest_psql -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS plprofiler" \
			-c "SELECT pl_profiler_set_collect_interval(10)" \
			-c "SELECT pl_profiler_set_enabled_global(true)" >/dev/null ;;
	plpgsql_check)
		pgtest_psql -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS plpgsql_check" >/dev/null ;;
	esac
	# warm-up
	pgbench -n -M prepared -c "$CLIENTS" -j "$THREADS" -T 2 -f "$workload" >/dev/null 2>&1
}

# CPU time (in clock ticks) of the postmaster's exited children
reaped_ticks() {
	local pid
	pid=$(head -1 "$PGTEST_DIR/data/postmaster.pid")
	# fields after the command name: cutime and cstime are the 14th and 15th
	sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $14 + $15}'
}
hz=$(getconf CLK_TCK)

declare -A tps cpu
for round in $(seq 1 "$RUNS"); do
	for c in "${configs[@]}"; do
		configure "$c"
		sleep 1
		t0=$(reaped_ticks)
		out=$(pgbench -n -M prepared -c "$CLIENTS" -j "$THREADS" -T "$SECONDS_PER_RUN" -f "$workload" 2>&1) || {
			echo "$out" >&2
			echo "trace_overhead: pgbench failed for $c" >&2
			exit 1
		}
		sleep 1
		t1=$(reaped_ticks)
		t=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -1)
		n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
		u=$(awk -v d="$((t1 - t0))" -v hz="$hz" -v n="$n" 'BEGIN {printf "%.2f", d / hz * 1e6 / n}')
		tps[$c]="${tps[$c]:-} $t"
		cpu[$c]="${cpu[$c]:-} $u"
		printf 'round %d %-16s %10.1f tps %8.2f us CPU/xact\n' "$round" "$c" "$t" "$u"
		case $c in
		edges | full | all)
			pgtest_psql -c "SELECT 'edges: ' || count(*) || ', calls: ' || sum(calls)
			                       || ', paths: ' || (SELECT count(*) FROM cgmap_trace_paths)
			                       || ', shapes: ' || (SELECT count(*) FROM cgmap_trace_shapes)
			                       || ', timeline rows: ' || (SELECT count(*) FROM cgmap_trace_timeline)
			                  FROM cgmap_trace_edges" | sed 's/^/    /' ;;
		esac
	done
done

# per-call cost: CPU nanoseconds of one session per b_leaf() call
micro_run() {
	pgtest_psql -v calls="$MICRO_CALLS" <<'SQL'
SELECT count(b_leaf(i)) FROM generate_series(1, 1000) AS i \g /dev/null
SELECT split_part(pg_read_file('/proc/self/stat'), ') ', 2) AS s0 \gset
SELECT count(b_leaf(i)) FROM generate_series(1, :calls) AS i \g /dev/null
SELECT split_part(pg_read_file('/proc/self/stat'), ') ', 2) AS s1 \gset
SELECT round(((split_part(:'s1', ' ', 12)::bigint + split_part(:'s1', ' ', 13)::bigint)
            - (split_part(:'s0', ' ', 12)::bigint + split_part(:'s0', ' ', 13)::bigint))
            * (1e9 / current_setting('cgmap.hz')::numeric) / :calls, 1);
SQL
}
declare -A micro
if [ "$MICRO_CALLS" -gt 0 ]; then
	for round in $(seq 1 "$RUNS"); do
		for c in "${configs[@]}"; do
			configure "$c"
			ns=$(PGOPTIONS="-c cgmap.hz=$hz" micro_run)
			micro[$c]="${micro[$c]:-} $ns"
			printf 'round %d %-16s %8.1f ns CPU per call of b_leaf()\n' "$round" "$c" "$ns"
		done
	done
fi

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo
echo "cgmap_trace overhead: pgbench -M prepared -c $CLIENTS -j $THREADS, $RUNS x ${SECONDS_PER_RUN}s per configuration, medians"
echo "workload: b_top -> 6 x b_mid -> (2 x b_leaf, b_leaf2, b_sql, every other one an EXECUTE of b_leaf): 28 PL/pgSQL calls (34 with b_sql) per transaction"
echo "machine: $(nproc) cores, $(uname -sr), $(pg_config --version)"
base=$(echo "${tps[none]:-}" | median)
basecpu=$(echo "${cpu[none]:-}" | median)
printf '%-16s %10s %8s %12s %8s\n' configuration "TPS" "vs none" "CPU us/xact" "vs none"
for c in "${configs[@]}"; do
	m=$(echo "${tps[$c]}" | median)
	mc=$(echo "${cpu[$c]}" | median)
	rel=n/a relc=n/a
	if [ -n "$base" ]; then
		rel=$(awk -v m="$m" -v b="$base" 'BEGIN {printf "%+.1f%%", (m / b - 1) * 100}')
		relc=$(awk -v m="$mc" -v b="$basecpu" 'BEGIN {printf "%+.1f%%", (m / b - 1) * 100}')
	fi
	printf '%-16s %10.1f %8s %12.2f %8s\n' "$c" "$m" "$rel" "$mc" "$relc"
done
echo
echo "runs (TPS):"
for c in "${configs[@]}"; do printf '  %-16s %s\n' "$c" "${tps[$c]}"; done
echo "runs (CPU us/xact):"
for c in "${configs[@]}"; do printf '  %-16s %s\n' "$c" "${cpu[$c]}"; done
if [ "$MICRO_CALLS" -gt 0 ]; then
	echo
	echo "one session, SELECT count(b_leaf(i)) FROM generate_series(1, $MICRO_CALLS): CPU ns per call, median of $RUNS"
	basens=$(echo "${micro[none]:-}" | median)
	printf '%-16s %10s %10s   %s\n' configuration "ns/call" "added" "runs"
	for c in "${configs[@]}"; do
		m=$(echo "${micro[$c]}" | median)
		add=n/a
		[ -n "$basens" ] && add=$(awk -v m="$m" -v b="$basens" 'BEGIN {printf "%+.0f", m - b}')
		printf '%-16s %10.1f %10s  %s\n' "$c" "$m" "$add" "${micro[$c]}"
	done
fi
echo
echo "reproduce: MICRO_CALLS=$MICRO_CALLS RUNS=$RUNS SECONDS_PER_RUN=$SECONDS_PER_RUN CLIENTS=$CLIENTS THREADS=$THREADS CONFIGS='$CONFIGS' bench/trace_overhead.sh"
