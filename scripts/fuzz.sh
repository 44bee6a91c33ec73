#!/usr/bin/env bash
# fuzz.sh [SECONDS] [TARGET...] - a long libFuzzer campaign on cgmap's
# readers of untrusted input: SECONDS per target (default 600), targets
# sqlfile, snapshot and bodies (the parse cache; default all three).  Builds build/fuzz with clang
# (-DCGMAP_FUZZ=ON: libFuzzer, ASan, UBSan), seeds each corpus from
# fixtures/ and the regression inputs in tests/fuzz/regress/, and keeps the
# corpus in build/fuzz/corpus/TARGET between runs.  A crash, leak, hang
# (-timeout) or memory blow-up (-rss_limit_mb) leaves its input in
# build/fuzz/artifacts/; fix it, then add the input to
# tests/fuzz/regress/TARGET/ so every ctest run replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-600}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sqlfile snapshot bodies)

if ! command -v clang >/dev/null; then
	echo "fuzz: clang is not installed (scripts/setup.sh installs it)" >&2
	exit 1
fi
CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCGMAP_FUZZ=ON >/dev/null
cmake --build build/fuzz -j"$(nproc)" --target fuzz_sqlfile fuzz_snapshot fuzz_bodies >/dev/null

mkdir -p build/fuzz/artifacts
# Each input is written to a file (and a snapshot fsynced): in memory when
# the machine has it.
tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && tmp=/dev/shm
status=0
for t in "${targets[@]}"; do
	corpus=build/fuzz/corpus/$t
	mkdir -p "$corpus"
	case $t in
	sqlfile)
		find fixtures -name '*.sql' -exec cp {} "$corpus/" \; ;;
	snapshot)
		cp fixtures/html/demo.json "$corpus/" ;;
	bodies) ;; # its seeds are its regression inputs
	*)
		echo "fuzz: no target $t (sqlfile, snapshot, bodies)" >&2
		exit 2 ;;
	esac
	cp tests/fuzz/regress/"$t"/* "$corpus/" 2>/dev/null || true
	echo "== fuzz_$t for ${seconds}s (corpus $corpus)"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LSAN_OPTIONS=suppressions=$root/tests/lsan.supp:print_suppressions=0 \
		TMPDIR=$tmp \
		"build/fuzz/tests/fuzz_$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
		-max_len=262144 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" \
		"$corpus" || status=$?
done
exit $status
