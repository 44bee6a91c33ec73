#!/usr/bin/env bash
# setup.sh - install what cgmap needs to build, test and run, from Debian's
# packages.  As root it runs apt-get; otherwise it prints the exact command
# and fails, so nothing is half-installed silently.
set -euo pipefail

packages=(
	cmake make gcc pkg-config         # build
	libpg-query-dev                   # PostgreSQL's parser as a library
	libpq-dev                         # connecting to PostgreSQL
	libjansson-dev                    # JSON (snapshots, runtime files)
	libjsmn-dev                       # JSON tokens (libpg_query PL/pgSQL trees, read in place)
	libgraphviz-dev graphviz          # graph layout (libgvc) and dot(1) for tests
	libcmocka-dev                     # unit tests
	postgresql-15                     # integration tests start real clusters
	postgresql-server-dev-15          # the cgmap_trace extension (PGXS); parse-tree node structs (src/rawtree.c)
	postgresql-15-plprofiler          # cgmap_trace chains with it (test, overhead benchmark)
	postgresql-15-plpgsql-check       # cgmap_trace chains with it (test)
	postgresql-15-pgtap               # real PL/pgSQL code cgmap is tested on:
	postgresql-15-partman             #   pgTAP, pg_partman, periods,
	postgresql-15-periods             #   PostGIS with topology and tiger geocoder
	postgresql-15-postgis-3
	chromium                          # browser test of the HTML site
	nodejs                            # drives Chromium in that test (no npm packages)
	time                              # peak memory in the benchmarks
	jq                                # tests and benchmarks read snapshots with it
	clang                             # long fuzzing runs with libFuzzer (scripts/fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all packages present"
	exit 0
fi

if [ "$(id -u)" = 0 ]; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	echo "setup: missing packages: ${missing[*]}" >&2
	echo "setup: run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
	exit 1
fi
