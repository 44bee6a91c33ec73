#!/usr/bin/env bash
# test_html_kill.sh - killing `cgmap render` (SIGKILL, which no handler
# sees) mid-render takes its layout workers with it: none survives, and the
# output folder stops changing before the site is complete; rendering again
# completes it and leaves no temporary file of the killed run.  No database:
# the schema of bench/gen_schema.sh is mapped from its SQL file.  Graphviz lays
# out every graph (--layout graphviz): cgmap's own layout of function graphs
# finishes 2,000 pages before a kill could land.
set -euo pipefail
: "${CGMAP:?CGMAP must name the cgmap binary}"
: "${CGMAP_SOURCE_DIR:?}"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-kill.XXXXXX")
render_pid=
cleanup() {
	if [ -n "$render_pid" ]; then kill -9 "$render_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

nfunctions=2000
bash "$CGMAP_SOURCE_DIR/bench/gen_schema.sh" "$nfunctions" >"$work/schema.sql"
"$CGMAP" --sql "$work/schema.sql" --no-html --quiet --out "$work/map" 2>/dev/null

# The process ids whose parent is $1 (from /proc, no procps needed; one awk
# for all of them, so the scan takes milliseconds even on a busy machine).
# The files go through cat, which reads on past a process that ended since
# the glob: mawk (Debian's awk) stops at the first file it cannot open, and
# the workers listed after it were missed when other tests' processes came
# and went ("has no layout workers to kill" in CI).
children_of() {
	cat /proc/[0-9]*/status 2>/dev/null |
		awk -v parent="$1" '/^Pid:/ { pid = $2 } /^PPid:/ && $2 == parent { print pid }' || true
}

# A process that is gone, or a zombie (it writes nothing any more).
gone() {
	local state
	state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}

count_pages() { find "$work/site/functions" -name '*.html' 2>/dev/null | wc -l; }

"$CGMAP" render "$work/map/cgmap.json" --out "$work/site" --threads 2 --layout graphviz --quiet &
render_pid=$!

# Wait (bounded) until the workers are writing function pages.
for _ in $(seq 1 600); do
	[ "$(count_pages)" -ge 20 ] && break
	kill -0 "$render_pid" 2>/dev/null || fail "cgmap render ended before it could be killed"
	sleep 0.1
done
[ "$(count_pages)" -ge 20 ] || fail "no function page appeared"
# Stopped first, so that it cannot finish while its workers are listed.
kill -STOP "$render_pid" 2>/dev/null || fail "cgmap render ended before it could be stopped"
workers=$(children_of "$render_pid")
[ -n "$workers" ] || fail "cgmap render has no layout workers to kill"
kill -9 "$render_pid"
wait "$render_pid" 2>/dev/null || true
render_pid=

# Every worker must go (bounded wait; they die with their parent).
for pid in $workers; do
	for _ in $(seq 1 300); do
		gone "$pid" && break
		sleep 0.1
	done
	gone "$pid" || fail "layout worker $pid survived the kill of cgmap"
done

# The folder no longer changes, and the site was not finished behind our
# back: the workers stopped when cgmap did.
before=$(count_pages)
sleep 1
after=$(count_pages)
[ "$before" = "$after" ] || fail "function pages still appear after the kill ($before, then $after)"
[ "$after" -lt "$nfunctions" ] ||
	fail "all $after function pages were written after cgmap was killed"

# Rendering again completes the site and removes whatever temporary file
# the killed run was writing.
"$CGMAP" render "$work/map/cgmap.json" --out "$work/site" --threads 2 --layout graphviz --quiet
[ "$(count_pages)" -gt "$nfunctions" ] || fail "the second rendering wrote only $(count_pages) pages"
left=$(find "$work/site" -name '.*.tmp.*' | head -n 3)
[ -z "$left" ] || fail "temporary files of the killed run remain: $left"
echo "ok: killed mid-render with $after of $nfunctions function pages written; no worker left"
