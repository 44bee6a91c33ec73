#!/usr/bin/env bash
# test.sh - every test of cgmap on this machine: install what is missing,
# build with warnings as errors, run unit and integration tests under ctest,
# then again in an AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh --tests

jobs=$(nproc 2>/dev/null || echo 2)

echo "== build (warnings as errors)"
cmake -S . -B build/ci -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCGMAP_WERROR=ON >/dev/null
cmake --build build/ci -j"$jobs"
echo "== tests"
ctest --test-dir build/ci --output-on-failure -j"$jobs"

if [ "${CGMAP_SKIP_SANITIZE:-}" != 1 ]; then
	echo "== build (ASan + UBSan)"
	cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCGMAP_WERROR=ON -DCGMAP_SANITIZE=ON >/dev/null
	cmake --build build/asan -j"$jobs"
	echo "== tests under ASan + UBSan"
	# The package tests build and install their own Release packages, the
	# same in both passes: they run once, above.
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0 \
		ctest --test-dir build/asan --output-on-failure -j"$jobs" -LE package
fi
