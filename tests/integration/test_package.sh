#!/usr/bin/env bash
# test_package.sh - the Debian packages (scripts/package.sh, cmake/package.cmake)
# and the Dockerfile's steps: both packages are built with the commands the
# Dockerfile's build stage runs; their control fields (name, project
# version, architecture) and exact file lists are checked (the program, its
# data files, its documentation; the extension's library, control file and
# the script of every version, in the paths pg_config names); every package
# in Depends is installed here, and every shared library the ELF files need
# belongs to a package in Depends; apt-get resolves them with nothing else to
# install; dpkg installs both into an empty root holding only the Depends
# (and refuses without them); the unpacked program maps a fixture exactly as
# the build does, with the data files of its package; a server run from that
# root with shared_preload_libraries = 'cgmap_trace' creates the extension,
# updates it from 1.0 to the control file's version, and the unpacked
# program reads the calls it observed.  Runs as root and as another user;
# nothing is written outside a temporary folder and the build folder.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}
build=${CGMAP_BUILD_DIR:?}/package
. "$src/tests/lib/pgtest.sh"
. "$src/tests/lib/pgext.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-package.XXXXXX")
chmod 755 "$work"
trap 'pgtest_stop; rm -rf "$work"' EXIT

version=$(sed -n 's/^project(cgmap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || pgtest_fail "no project version in CMakeLists.txt"
arch=$(dpkg --print-architecture)
pglib=$(pg_config --pkglibdir)
pgshare=$(pg_config --sharedir)

# --- the Dockerfile's build stage: the same two commands --------------------
for step in "RUN bash scripts/setup.sh --package" "RUN bash scripts/package.sh /build"; do
	grep -qxF "$step" "$src/Dockerfile" || pgtest_fail "the Dockerfile has no step \`$step\`"
done
bash "$src/scripts/setup.sh" --package >"$work/setup.log" 2>&1 ||
	pgtest_fail "scripts/setup.sh --package: $(cat "$work/setup.log")"
CGMAP_JOBS=2 bash "$src/scripts/package.sh" "$build" >"$work/debs" 2>"$work/package.err" ||
	pgtest_fail "scripts/package.sh failed: $(cat "$work/package.err")"
deb_cgmap=$build/cgmap_${version}_${arch}.deb
deb_trace=$build/postgresql-15-cgmap-trace_${version}_${arch}.deb
printf '%s\n' "$deb_cgmap" "$deb_trace" | diff -u - "$work/debs" >&2 ||
	pgtest_fail "package.sh did not print the two packages"
cp "$deb_cgmap" "$deb_trace" "$work/"
chmod 644 "$work"/*.deb
deb_cgmap=$work/${deb_cgmap##*/}
deb_trace=$work/${deb_trace##*/}

# --- control fields --------------------------------------------------------
check_field() {  # DEB FIELD EXPECTED
	local got
	got=$(dpkg-deb -f "$1" "$2")
	[ "$got" = "$3" ] || pgtest_fail "${1##*/}: $2 is \"$got\", not \"$3\""
}
for deb in "$deb_cgmap" "$deb_trace"; do
	dpkg-deb --info "$deb" >"$work/info" || pgtest_fail "dpkg-deb --info ${deb##*/} failed"
	check_field "$deb" Version "$version"
	check_field "$deb" Architecture "$arch"
	for f in Maintainer Description Depends; do
		[ -n "$(dpkg-deb -f "$deb" "$f")" ] || pgtest_fail "${deb##*/} has no $f"
	done
done
check_field "$deb_cgmap" Package cgmap
check_field "$deb_trace" Package postgresql-15-cgmap-trace

# --- exact file lists ------------------------------------------------------
# Each package's regular files, as "mode path", against what the sources say
# it must hold: a file missing or one too many fails.
list_files() {
	dpkg-deb --contents "$1" | awk '$1 !~ /^d/ { print $1, $6 }' | sed 's| \./| /|' | sort
}
{
	echo "-rwxr-xr-x /usr/bin/cgmap"
	for f in "$src"/data/*.tsv; do echo "-rw-r--r-- /usr/share/cgmap/${f##*/}"; done
	echo "-rw-r--r-- /usr/share/doc/cgmap/README.md"
	for f in "$src"/docs/*.md; do echo "-rw-r--r-- /usr/share/doc/cgmap/docs/${f##*/}"; done
	echo "-rw-r--r-- /usr/share/doc/cgmap/third_party.md"
} | sort >"$work/want.cgmap"
{
	echo "-rw-r--r-- $pglib/cgmap_trace.so"
	echo "-rw-r--r-- $pgshare/extension/cgmap_trace.control"
	for f in "$src"/extension/cgmap_trace/cgmap_trace--*.sql; do
		echo "-rw-r--r-- $pgshare/extension/${f##*/}"
	done
} | sort >"$work/want.trace"
list_files "$deb_cgmap" >"$work/got.cgmap"
list_files "$deb_trace" >"$work/got.trace"
pgtest_expect_file "$work/want.cgmap" "$work/got.cgmap" "the file list of ${deb_cgmap##*/}"
pgtest_expect_file "$work/want.trace" "$work/got.trace" "the file list of ${deb_trace##*/}"

# --- Depends ---------------------------------------------------------------
# The package names of a Depends field, one a line (alternatives included).
depends_names() {
	dpkg-deb -f "$1" Depends | tr ',|' '\n\n' | sed 's/(.*)//; s/:any//; s/[[:space:]]//g' | grep -v '^$' | sort -u
}
# The package owning the file PATH (the same file may be known under /lib
# or /usr/lib on a merged-/usr system).
owner_of() {
	local p=$1 alt
	case "$p" in
		/usr/*) alt=${p#/usr} ;;
		*) alt=/usr$p ;;
	esac
	{ dpkg -S "$p" 2>/dev/null || dpkg -S "$alt" 2>/dev/null; } | sed -n '1s/:.*//p' | sed 's/:.*//'
}
check_depends() {  # DEB UNPACKED_ROOT
	local deb=$1 root=$2 name elf lib path owner
	depends_names "$deb" >"$work/depends"
	while read -r name; do
		dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" ||
			pgtest_fail "${deb##*/} depends on \"$name\", which is not an installed package here"
	done <"$work/depends"
	# every shared library each ELF file needs comes from a package in Depends
	while read -r elf; do
		readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$work/needed"
		[ -s "$work/needed" ] || pgtest_fail "no shared library needed by $elf?"
		while read -r lib; do
			path=$(ldd "$elf" 2>/dev/null | awk -v l="$lib" '$1 == l && $2 == "=>" { print $3 } $1 ~ "/" && index($1, l) { print $1 }' | head -n 1)
			[ -n "$path" ] || pgtest_fail "$elf needs $lib, which is not found here"
			owner=$(owner_of "$path")
			[ -n "$owner" ] || pgtest_fail "no package owns $path ($lib, needed by $elf)"
			grep -qxF "$owner" "$work/depends" ||
				pgtest_fail "${deb##*/}: ${elf#"$root"} needs $lib of package $owner, not in Depends: $(dpkg-deb -f "$deb" Depends)"
		done <"$work/needed"
	done < <(find "$root" -type f -exec sh -c 'file -b "$1" | grep -q "^ELF" && echo "$1"' _ {} \;)
}
mkdir -p "$work/x.cgmap" "$work/x.trace"
dpkg-deb -x "$deb_cgmap" "$work/x.cgmap"
dpkg-deb -x "$deb_trace" "$work/x.trace"
check_depends "$deb_cgmap" "$work/x.cgmap"
check_depends "$deb_trace" "$work/x.trace"
grep -qxF postgresql-15 "$work/depends" || pgtest_fail "${deb_trace##*/} does not depend on postgresql-15"

# apt-get, as the Dockerfile's other stages install them, finds every
# dependency installed.
for step in "RUN apt-get update && apt-get install -y --no-install-recommends /debs/cgmap_*.deb && rm -rf /var/lib/apt/lists/* /debs" \
	"RUN apt-get update && apt-get install -y --no-install-recommends /debs/postgresql-15-cgmap-trace_*.deb && rm -rf /var/lib/apt/lists/* /debs" \
	"RUN cgmap --version"; do
	grep -qxF "$step" "$src/Dockerfile" || pgtest_fail "the Dockerfile has no step \`$step\` (the install this test checks)"
done
apt-get install -s --no-install-recommends "$deb_cgmap" "$deb_trace" >"$work/apt" 2>&1 ||
	pgtest_fail "apt-get cannot install the packages: $(cat "$work/apt")"
grep '^Inst ' "$work/apt" | awk '{ print $2 }' | sort >"$work/apt.inst"
printf '%s\n' cgmap postgresql-15-cgmap-trace | diff -u - "$work/apt.inst" >&2 ||
	pgtest_fail "apt-get would install more than the two packages: $(cat "$work/apt")"

# --- dpkg into an empty root -----------------------------------------------
# ROOT's package database holds only this machine's entries of the packages
# in Depends, so dpkg checks the relations (and versions) against them.
make_root() {  # ROOT DEB...
	local root=$1 name
	shift
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
	: >"$root/var/lib/dpkg/available"
	: >"$root/var/lib/dpkg/status"
	for deb in "$@"; do depends_names "$deb"; done | sort -u | while read -r name; do
		dpkg-query -s "$name" >>"$root/var/lib/dpkg/status"
		echo >>"$root/var/lib/dpkg/status"
		: >"$root/var/lib/dpkg/info/$(dpkg-query -W -f='${binary:Package}' "$name").list"
	done
}
dpkg_root() {  # ROOT DEB...
	local root=$1
	shift
	PATH=/usr/sbin:/sbin:$PATH dpkg --force-not-root --root="$root" --log=/dev/null -i "$@"
}
root=$work/root
make_root "$root" "$deb_cgmap" "$deb_trace"
dpkg_root "$root" "$deb_cgmap" "$deb_trace" >"$work/dpkg.log" 2>&1 ||
	pgtest_fail "dpkg could not install the packages into an empty root: $(cat "$work/dpkg.log")"
for p in cgmap postgresql-15-cgmap-trace; do
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status}' "$p" | grep -q "install ok installed" ||
		pgtest_fail "$p is not installed in the root: $(cat "$work/dpkg.log")"
done
# and refuses without the dependencies (the check above can fail)
mkdir -p "$work/bare/var/lib/dpkg"
make_root "$work/bare"
: >"$work/bare/var/lib/dpkg/status"
if dpkg_root "$work/bare" "$deb_trace" >"$work/bare.log" 2>&1; then
	pgtest_fail "dpkg installed ${deb_trace##*/} into a root without postgresql-15"
fi
grep -q "dependency problems" "$work/bare.log" ||
	pgtest_fail "dpkg refused for another reason than its dependencies: $(cat "$work/bare.log")"

# --- the installed program ---------------------------------------------------
bin=$root/usr/bin/cgmap
out=$(env -u CGMAP_DATADIR "$bin" --version) || pgtest_fail "cgmap --version failed"
case "$out" in *"$version"*) ;; *) pgtest_fail "cgmap --version says \"$out\", not $version" ;; esac
env -u CGMAP_DATADIR "$bin" --help >"$work/help" 2>&1 || pgtest_fail "cgmap --help failed"
grep -q "cgmap" "$work/help" || pgtest_fail "cgmap --help printed no usage: $(cat "$work/help")"

# Nothing of this checkout is compiled into it (it looks for its data in
# /usr/share/cgmap, never in the sources it was built from).
if grep -qF "$src" "$bin"; then
	pgtest_fail "the packaged cgmap names this checkout's folder"
fi

# A fixture maps exactly as with the build's program, HTML site included
# (libgvc's layout plugins from the dependencies).
(cd "$src/fixtures" && env -u CGMAP_DATADIR "$bin" --sql demo.sql --quiet --out "$work/map.pkg") 2>"$work/map.err" ||
	pgtest_fail "the installed cgmap could not map fixtures/demo.sql: $(cat "$work/map.err")"
(cd "$src/fixtures" && env -u CGMAP_DATADIR "$cgmap" --sql demo.sql --quiet --no-html --out "$work/map.build") 2>/dev/null ||
	pgtest_fail "the build's cgmap could not map fixtures/demo.sql"
cmp "$work/map.build/cgmap.json" "$work/map.pkg/cgmap.json" >&2 ||
	pgtest_fail "the installed cgmap maps fixtures/demo.sql differently from the build's"
[ -s "$work/map.pkg/index.html" ] || pgtest_fail "the installed cgmap wrote no HTML site"
# The builtin lists it used are its package's: without them it stops.
if [ ! -e /usr/share/cgmap ]; then
	mv "$root/usr/share/cgmap" "$root/usr/share/cgmap.away"
	if (cd "$src/fixtures" && env -u CGMAP_DATADIR "$bin" --sql demo.sql --quiet --no-html --out "$work/map.none") 2>"$work/none.err"; then
		pgtest_fail "the installed cgmap mapped without its data files"
	fi
	grep -q "pg15_builtins.tsv" "$work/none.err" ||
		pgtest_fail "no error naming the missing data file: $(cat "$work/none.err")"
	mv "$root/usr/share/cgmap.away" "$root/usr/share/cgmap"
fi

# --- the installed extension in a server --------------------------------------
# A server run from the root (the system's programs around the package's
# files), preloaded as the Dockerfile's postgres stage is.
pgext_tree_over "$root" || pgtest_fail "cannot make a PostgreSQL tree over the root"
[ "$(readlink -f "$("$PGTEST_BINDIR/pg_config" --pkglibdir)/cgmap_trace.so")" = "$root$pglib/cgmap_trace.so" ] ||
	pgtest_fail "the server would not load the package's library"
grep -qF "shared_preload_libraries=cgmap_trace" "$src/Dockerfile" ||
	pgtest_fail "the Dockerfile's postgres stage does not preload cgmap_trace"
pgtest_start "shared_preload_libraries = 'cgmap_trace'"
pgtest_psql -c "CREATE DATABASE demo" >/dev/null
pgtest_psql -d demo -f "$src/fixtures/demo.sql" >/dev/null
pgtest_psql -d demo -c "CREATE EXTENSION cgmap_trace VERSION '1.0'" >/dev/null ||
	pgtest_fail "CREATE EXTENSION cgmap_trace VERSION '1.0' failed"
pgtest_psql -d demo -c "ALTER EXTENSION cgmap_trace UPDATE" >/dev/null ||
	pgtest_fail "ALTER EXTENSION cgmap_trace UPDATE failed"
want=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$src/extension/cgmap_trace/cgmap_trace.control")
got=$(pgtest_psql -d demo -c "SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace'")
[ "$got" = "$want" ] || pgtest_fail "the extension is at version \"$got\" after UPDATE, not $want"
pgtest_psql -d demo -c "SET client_min_messages = warning" -c "SELECT app.run_report('ab')" >/dev/null
env -u CGMAP_DATADIR "$bin" --dsn "dbname=demo" --no-html --quiet --out "$work/live" 2>"$work/live.err" ||
	pgtest_fail "the installed cgmap could not map the database: $(cat "$work/live.err")"
# (format 2 refers to a function by its place in "functions")
n=$(jq '.functions as $f | [.edges[] | select((.from | if type == "number" then $f[.].id else . end) == "app.run_report(text)" and .observed)] | length' "$work/live/cgmap.json")
[ "$n" -ge 1 ] || pgtest_fail "no call of app.run_report(text) observed by the packaged extension"

echo "ok: cgmap_${version} and postgresql-15-cgmap-trace_${version} build, install into an empty root and run"
