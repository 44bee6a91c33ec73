#!/usr/bin/env bash
# setup.sh [--build|--package|--tests] - install what cgmap needs from
# Debian's packages:
#   --build    to build cgmap and the cgmap_trace extension;
#   (default)  that, and PostgreSQL 15 to run the demo (./scripts/demo.sh);
#   --package  --build, and the tools that make its Debian packages
#              (scripts/package.sh, the Dockerfile's build stage);
#   --tests    all of these, and everything the tests and benchmarks use
#              (the unit test framework, the real extensions cgmap is tested
#              on, the browser of the HTML test, the fuzzing compiler,
#              debootstrap for the new machine of test_fresh_machine).
# As root it runs apt-get; otherwise it prints the exact command and fails,
# so nothing is half-installed silently.
set -euo pipefail

profile=run
case "${1:-}" in
	"") ;;
	--build) profile=build ;;
	--package) profile=package ;;
	--tests) profile=tests ;;
	*) echo "usage: $0 [--build|--package|--tests]" >&2; exit 2 ;;
esac

build_packages=(
	cmake make gcc pkg-config         # build
	libpg-query-dev                   # PostgreSQL's parser as a library
	libpq-dev                         # connecting to PostgreSQL
	libjansson-dev                    # JSON (snapshots, runtime files)
	libjsmn-dev                       # JSON tokens (libpg_query PL/pgSQL trees, read in place)
	libyaml-dev                       # the project configuration file (.cgmap.yml)
	zlib1g-dev                        # gzip snapshots (cgmap.json.gz)
	libgraphviz-dev                   # graph layout (libgvc)
	postgresql-server-dev-15          # the cgmap_trace extension (PGXS); parse-tree node structs (src/rawtree.c)
)
run_packages=(
	postgresql-15                     # the demo's and the tests' throwaway clusters
)
package_packages=(
	dpkg-dev                          # dpkg-shlibdeps: the packages' Depends (cpack)
	file                              # how cpack finds the ELF files to give to it
)
test_packages=(
	libcmocka-dev                     # unit tests
	graphviz                          # dot(1) in tests
	jq                                # tests and benchmarks read snapshots with it
	postgresql-15-plprofiler          # cgmap_trace chains with it (test, overhead benchmark)
	postgresql-15-plpgsql-check       # cgmap_trace chains with it (test)
	postgresql-15-pgtap               # real PL/pgSQL code cgmap is tested on:
	postgresql-15-partman             #   pgTAP, pg_partman, periods,
	postgresql-15-periods             #   PostGIS with topology and tiger geocoder
	postgresql-15-postgis-3           #   orafce, PgQ
	postgresql-15-orafce
	postgresql-15-pgq3
	chromium                          # browser test of the HTML site
	nodejs                            # drives Chromium in that test (no npm packages)
	time                              # peak memory in the benchmarks
	clang                             # long fuzzing runs with libFuzzer (scripts/fuzz.sh)
	debootstrap                       # the new machine README's commands are run on (test_fresh_machine)
)
packages=("${build_packages[@]}")
case "$profile" in
	run) packages+=("${run_packages[@]}") ;;
	package) packages+=("${package_packages[@]}") ;;
	tests) packages+=("${run_packages[@]}" "${package_packages[@]}" "${test_packages[@]}") ;;
esac

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
