#!/usr/bin/env bash
# Peak memory (RSS) and time of the map (`cgmap --sql FILE --out DIR`) on
# synthetic schemas of 10,000, 50,000 and 100,000 functions
# (bench/gen_schema.sh), with the command that reproduces each figure.
# Usage: bench/memory_bench.sh [CGMAP_BINARY] [N...]
# Default binary: build/release/cgmap (a Release build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/release/cgmap}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 50000 100000)
command -v /usr/bin/time >/dev/null || { echo "memory_bench: needs GNU time (/usr/bin/time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-8s %12s %9s %9s %9s\n' functions peak_rss_mb wall_s user_s sys_s
for n in "${sizes[@]}"; do
	sql=$work/schema$n.sql
	bash "$here/gen_schema.sh" "$n" > "$sql"
	cmd=("$bin" --sql "$sql" --out "$work/out$n" --no-html --quiet)
	/usr/bin/time -v -o "$work/time$n" "${cmd[@]}"
	rss=$(awk -F: '/Maximum resident/ {print $2}' "$work/time$n")
	wall=$(awk '/Elapsed/ {print $NF}' "$work/time$n")
	user=$(awk -F: '/User time/ {print $2}' "$work/time$n")
	sys=$(awk -F: '/System time/ {print $2}' "$work/time$n")
	printf '%-8s %12.1f %9s %9s %9s\n' "$n" "$(echo "$rss / 1024" | bc -l)" "$wall" $user $sys
	echo "  reproduce: bash bench/gen_schema.sh $n > /tmp/s$n.sql && /usr/bin/time -v $bin --sql /tmp/s$n.sql --out /tmp/o$n --no-html --quiet"
done
