#!/usr/bin/env bash
# test_fresh_machine.sh - the set-up and usage commands of README.md and
# docs/runtime.md, run as written on the machine they promise to work on:
# Debian 12 with gcc, cmake, make, PostgreSQL 15 (server and client) and
# libpq-dev, and nothing else of cgmap's (ctest label `fresh`).  That
# machine is a container when a Docker daemon answers (with a base image,
# see tests/lib/dockerbase.sh), else a chroot made by debootstrap
# (tests/lib/freshroot.sh: as root, with debootstrap and the Debian mirror;
# skipped, exit 77, without them).  CGMAP_FRESH_MACHINE=docker or chroot
# picks one.  In it, on a copy of this checkout's files:
#   - as a user who is not root, `./scripts/demo.sh` stops at the set-up and
#     prints the exact apt-get command that installs what is missing;
#   - as root, `./scripts/demo.sh` installs what it needs, and only that (no
#     test tools, no browser), documents the demo database with observed
#     calls, and leaves the system PostgreSQL's extension folder alone;
#   - README's "Packages" commands build both Debian packages and install
#     them with apt-get; the installed cgmap runs README's usage lines;
#   - docs/runtime.md's ways of building and installing cgmap_trace (make in
#     its folder, build.sh/install.sh out of tree) and README's CMake
#     target `cgmap_trace_install` install it into the system PostgreSQL.
# The container's image is tagged cgmap-fresh:test and kept, and the
# chroot's base is kept as a tarball, so a second run starts from a cache;
# the machine itself is new on every run and removed at its end.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}

skip() { echo "skip: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-fresh.XXXXXX")
chmod 755 "$work"

# The checkout's files, as a clone has them (tracked files, working-tree
# content), without build folders.
checkout_tar() {
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf "$1")
	else
		tar -C "$src" --exclude=./build --exclude=./out -cf "$1" .
	fi
}

machine=${CGMAP_FRESH_MACHINE:-}
if [ -z "$machine" ]; then
	if command -v docker >/dev/null && docker info >/dev/null 2>&1; then machine=docker; else machine=chroot; fi
fi

case "$machine" in
docker)
	. "$src/tests/lib/dockerbase.sh"
	dockerbase_find
	echo "machine: a container from $build_base"
	container=cgmap-fresh-$$
	cleanup() {
		docker rm -f "$container" >/dev/null 2>&1 || true
		rm -rf "$work"
	}
	trap cleanup EXIT
	# The machine: what a new machine has, and a user who is not root.
	cat >"$work/Dockerfile" <<EOF
FROM $build_base
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \\
	gcc cmake make libpq-dev postgresql-15 postgresql-client-15 ca-certificates && \\
	rm -rf /var/lib/apt/lists/*
RUN useradd -m dev
EOF
	docker build -t cgmap-fresh:test "$work" >"$work/build.log" 2>&1 ||
		{ tail -n 30 "$work/build.log" >&2; fail "the fresh machine's image could not be built"; }
	checkout_tar "$work/src.tar"
	docker run -d --name "$container" cgmap-fresh:test sleep infinity >/dev/null
	docker exec "$container" mkdir -p /home/dev/cgmap
	docker cp "$work/src.tar" "$container:/home/dev/src.tar"
	docker exec "$container" sh -c 'tar -C /home/dev/cgmap -xf /home/dev/src.tar && rm /home/dev/src.tar && chown -R dev:dev /home/dev/cgmap'
	as_dev() { docker exec -w /home/dev/cgmap "$container" runuser -u dev -- "$@"; }
	as_root() { docker exec -w /home/dev/cgmap "$container" "$@"; }
	;;
chroot)
	. "$src/tests/lib/freshroot.sh"
	root=$work/root
	cleanup() {
		freshroot_remove "$root"
		rm -rf --one-file-system "$work"
	}
	trap cleanup EXIT
	freshroot_make "$root" || fail "the fresh machine could not be made"
	echo "machine: a Debian 12 chroot from $(freshroot_mirror)"
	checkout_tar "$work/src.tar"
	mkdir -p "$root/home/dev/cgmap"
	tar -C "$root/home/dev/cgmap" -xf "$work/src.tar"
	freshroot_run "$root" root / chown -R dev:dev /home/dev/cgmap
	as_dev() { freshroot_run "$root" dev /home/dev/cgmap "$@"; }
	as_root() { freshroot_run "$root" root /home/dev/cgmap "$@"; }
	;;
*) fail "CGMAP_FRESH_MACHINE is docker or chroot, not \"$machine\"" ;;
esac
extdir=/usr/share/postgresql/15/extension

# --- not root: the exact command, nothing installed ----------------------------
if as_dev ./scripts/demo.sh >"$work/dev.out" 2>&1; then
	fail "./scripts/demo.sh succeeded as a user on a machine without the build dependencies"
fi
command=$(sed -n 's/^setup: run as root: *//p' "$work/dev.out")
[ -n "$command" ] || fail "demo.sh as a user printed no command to run as root: $(cat "$work/dev.out")"
case "$command" in
"apt-get update && apt-get install -y "*) ;;
*) fail "demo.sh as a user printed \"$command\", not an apt-get command" ;;
esac
for p in libpg-query-dev libjansson-dev libgraphviz-dev; do
	case " $command " in *" $p "*) ;; *) fail "the command \"$command\" does not install $p" ;; esac
done
for p in chromium nodejs libcmocka-dev postgresql-15-postgis-3; do
	case " $command " in *" $p "*) fail "the demo's command installs $p, which only tests use" ;; esac
done
echo "ok: as a user, demo.sh prints: $command"

# --- root: README's demo command ---------------------------------------------
as_root ./scripts/demo.sh >"$work/demo.out" 2>&1 ||
	{ tail -n 40 "$work/demo.out" >&2; fail "./scripts/demo.sh failed as root on a fresh machine"; }
for f in index.html cgmap.json callgraph.dot reports/dead.html; do
	as_root test -s "out/demo/$f" || fail "./scripts/demo.sh wrote no out/demo/$f"
done
as_root grep -Eq '"observed": ?true' out/demo/cgmap.json ||
	fail "the demo's snapshot holds no observed call"
as_root test ! -e "$extdir/cgmap_trace.control" ||
	fail "./scripts/demo.sh installed cgmap_trace into the system PostgreSQL"
for p in chromium nodejs libcmocka-dev; do
	if as_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		fail "./scripts/demo.sh installed $p, which only tests use"
	fi
done
echo "ok: as root, demo.sh documented the demo database into out/demo ($(as_root find out/demo -type f | wc -l) files)"

# --- README, "Packages" --------------------------------------------------------
as_root bash scripts/setup.sh --package >"$work/pkg.out" 2>&1 &&
	as_root bash scripts/package.sh >>"$work/pkg.out" 2>&1 ||
	{ tail -n 40 "$work/pkg.out" >&2; fail "README's package commands failed"; }
as_root sh -c 'apt-get update -q && apt-get install -y ./build/package/cgmap_*_amd64.deb &&
	apt-get install -y ./build/package/postgresql-15-cgmap-trace_*_amd64.deb' >"$work/install.out" 2>&1 ||
	{ tail -n 30 "$work/install.out" >&2; fail "apt-get install of the packages failed"; }
as_root test -x /usr/bin/cgmap || fail "the cgmap package installed no /usr/bin/cgmap"
as_root test -s "$extdir/cgmap_trace.control" || fail "the extension package installed no control file"
echo "ok: README's package commands build and install both packages"

# README's usage lines, with the installed cgmap, on the demo schema.
usage='set -e
cd "$(mktemp -d)"
cp /home/dev/cgmap/fixtures/demo.sql schema.sql
mkdir migrations
echo "CREATE FUNCTION app.extra() RETURNS int LANGUAGE sql AS \$\$ SELECT 1 \$\$;" >migrations/001.sql
cgmap --sql schema.sql migrations/ --out docs/ --quiet 2>/dev/null
test -s docs/index.html
cgmap render docs/cgmap.json --out site/ --quiet
test -s site/index.html
cgmap report dead docs/cgmap.json --format markdown >dead.md
cgmap report profile docs/cgmap.json >profile.txt
mkdir base head
cp docs/cgmap.json base/
cp docs/cgmap.json head/
cgmap diff base/cgmap.json head/cgmap.json --format markdown --fail-on missing-callee,removed-called-function >diff.md
cgmap diff --sql /tmp/base.sql --sql schema.sql >/dev/null 2>&1
cgmap callers app.price docs/cgmap.json --depth 3 | grep -q app.checkout
cgmap path app.checkout audit.write docs/cgmap.json | grep -q audit.write
cgmap impact app.price --snapshot docs/cgmap.json | grep -q app.checkout
echo usage-ok'
got=$(as_root bash -c "cp /home/dev/cgmap/fixtures/demo.sql /tmp/base.sql; cd /tmp && $usage" 2>&1) ||
	fail "README's usage lines failed with the installed cgmap: $got"
case "$got" in *usage-ok) ;; *) fail "README's usage lines: $got" ;; esac
echo "ok: README's usage lines run with the installed cgmap"

# --- docs/runtime.md and README: building and installing cgmap_trace -------------
as_root apt-get remove -y postgresql-15-cgmap-trace >/dev/null 2>&1 ||
	fail "apt-get remove postgresql-15-cgmap-trace failed"
as_root test ! -e "$extdir/cgmap_trace.control" || fail "the control file is left after apt-get remove"
as_root sh -c 'cd extension/cgmap_trace && make && make install' >"$work/make.out" 2>&1 ||
	{ tail -n 30 "$work/make.out" >&2; fail "docs/runtime.md's make && make install failed"; }
as_root test -s "$extdir/cgmap_trace.control" || fail "make install put no control file in $extdir"
as_root sh -c "rm -f $extdir/cgmap_trace* /usr/lib/postgresql/15/lib/cgmap_trace.so"
as_root sh -c 'extension/cgmap_trace/build.sh build/cgmap_trace && extension/cgmap_trace/install.sh build/cgmap_trace' \
	>"$work/oot.out" 2>&1 || { tail -n 30 "$work/oot.out" >&2; fail "docs/runtime.md's build.sh/install.sh failed"; }
as_root test -s /usr/lib/postgresql/15/lib/cgmap_trace.so || fail "install.sh put no library in PostgreSQL's lib folder"
as_root sh -c "rm -f $extdir/cgmap_trace* /usr/lib/postgresql/15/lib/cgmap_trace.so"
as_root sh -c 'cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCGMAP_TESTS=OFF &&
	cmake --build build/release --target cgmap_trace_install' >"$work/cmake.out" 2>&1 ||
	{ tail -n 30 "$work/cmake.out" >&2; fail "README's cmake --build build/release --target cgmap_trace_install failed"; }
as_root test -s "$extdir/cgmap_trace.control" || fail "cgmap_trace_install put no control file in $extdir"
echo "ok: cgmap_trace installed by make, by build.sh/install.sh and by the cgmap_trace_install target"
