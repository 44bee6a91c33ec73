#!/usr/bin/env bash
# package.sh [BUILDDIR] - build the Debian packages of cgmap and of the
# cgmap_trace extension for PostgreSQL 15 (cmake/package.cmake) in BUILDDIR
# (default build/package): a Release build, then cpack.  Prints the paths
# of the two .deb files.  Needs what `scripts/setup.sh --package` installs.
# CGMAP_JOBS: parallel compile jobs (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/package}
jobs=${CGMAP_JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCGMAP_TESTS=OFF \
	-DCGMAP_BUILTIN_DATADIR=/usr/share/cgmap >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null
rm -f "$build"/*.deb
if ! (cd "$build" && cpack -G DEB) >"$build/cpack.log" 2>&1; then
	cat "$build/cpack.log" >&2
	echo "package.sh: cpack failed" >&2
	exit 1
fi
# Both packages or an error: without PostgreSQL 15's server headers the
# build has no extension to package.
set -- "$build"/cgmap_*.deb "$build"/postgresql-15-cgmap-trace_*.deb
for f in "$@"; do
	[ -f "$f" ] || { echo "package.sh: $f was not built" >&2; exit 1; }
	echo "$f"
done
