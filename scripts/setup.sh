#!/usr/bin/env bash
# setup.sh [--tests] - install what cgmap needs from Debian's packages: to
# build it and run the demo (default), or also everything the tests and
# benchmarks use (--tests: the real extensions cgmap is tested on, the
# browser of the HTML test, the fuzzing compiler).  As root it runs apt-get;
# otherwise it prints the exact command and fails, so nothing is
# half-installed silently.
set -euo pipefail

profile=run
case "${1:-}" in
	"") ;;
	--tests) profile=tests ;;
	*) echo "usage: $0 [--tests]" >&2; exit 2 ;;
esac

packages=(
	cmake make gcc pkg-config         # build
	libpg-query-dev                   # PostgreSQL's parser as a library
	libpq-dev                         # connecting to PostgreSQL
	libjansson-dev                    # JSON (snapshots, runtime files)
	libjsmn-dev                       # JSON tokens (libpg_query PL/pgSQL trees, read in place)
	libyaml-dev                       # the project configuration file (.cgmap.yml)
	libgraphviz-dev graphviz          # graph layout (libgvc) and dot(1) for tests
	libcmocka-dev                     # unit tests
	postgresql-15                     # the demo's and the tests' throwaway clusters
	postgresql-server-dev-15          # the cgmap_trace extension (PGXS); parse-tree node structs (src/rawtree.c)
)
test_packages=(
	jq                                # tests and benchmarks read snapshots with it
	postgresql-15-plprofiler          # cgmap_trace chains with it (test, overhead benchmark)
	postgresql-15-plpgsql-check       # cgmap_trace chains with it (test)
	postgresql-15-pgtap               # real PL/pgSQL code cgmap is tested on:
	postgresql-15-partman             #   pgTAP, pg_partman, periods,
	postgresql-15-periods             #   PostGIS with topology and tiger geocoder
	postgresql-15-postgis-3
	chromium                          # browser test of the HTML site
	nodejs                            # drives Chromium in that test (no npm packages)
	time                              # peak memory in the benchmarks
	clang                             # long fuzzing runs with libFuzzer (scripts/fuzz.sh)
)
if [ "$profile" = tests ]; then
	packages+=("${test_packages[@]}")
fi

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
