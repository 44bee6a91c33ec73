# pgext.sh - a private PostgreSQL installation tree holding an extension
# built by this checkout, for integration tests.
#
# Source it after tests/lib/pgtest.sh, then
#   pgext_tree TREE BUILDDIR      (BUILDDIR: a PGXS build, e.g. by build.sh)
# TREE gets the layout of the installation pg_config names: hard links (or
# copies) of its programs, symbolic links to each of its libraries and share
# files, and the files `make install` of BUILDDIR installs, as real files in
# their place.  PostgreSQL finds its lib and share folders relative to its
# program, so a server started from TREE loads this checkout's extension
# while the system installation is never written to: no root is needed, and
# test runs of different checkouts never replace each other's library.
# Sets PGTEST_BINDIR (read by pgtest_start).  The caller removes TREE.
# When TREE already holds the extension's files in the system's paths (its
# Debian package installed there), `pgext_tree_over TREE` adds the rest.
#
# pgext_link_missing links what was installed in the system after the tree
# was made (e.g. a package installed by apt-get during the test).

# Link each entry of folder $1 into folder $2 unless $2 has it; a folder
# both have (e.g. lib/bitcode, where the build put its own files) is
# merged the same way.
pgext_mirror_dir() {
	local sys=$1 tree=$2 f t
	mkdir -p "$tree"
	for f in "$sys"/* "$sys"/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		t="$tree/${f##*/}"
		if [ -d "$t" ] && [ ! -L "$t" ] && [ -d "$f" ]; then
			pgext_mirror_dir "$f" "$t"
		elif [ ! -e "$t" ] && [ ! -L "$t" ]; then
			ln -s "$f" "$t"
		fi
	done
}

pgext_link_missing() {
	pgext_mirror_dir "$PGEXT_SYS_LIB" "$PGEXT_TREE$PGEXT_SYS_LIB"
	pgext_mirror_dir "$PGEXT_SYS_SHARE/extension" "$PGEXT_TREE$PGEXT_SYS_SHARE/extension"
}

pgext_tree() {
	local tree=$1 build=$2 stage
	PGEXT_SYS_LIB=$(pg_config --pkglibdir)
	PGEXT_SYS_SHARE=$(pg_config --sharedir)
	stage="$tree/.stage"
	mkdir -p "$stage"
	make -C "$build" PG_CONFIG="${PG_CONFIG:-pg_config}" DESTDIR="$stage" install >"$stage.log" 2>&1 ||
		{ cat "$stage.log" >&2; return 1; }
	# this checkout's files first, then links to everything else
	mkdir -p "$tree$PGEXT_SYS_LIB" "$tree$PGEXT_SYS_SHARE/extension"
	if [ -d "$stage$PGEXT_SYS_LIB" ]; then
		cp -R "$stage$PGEXT_SYS_LIB"/. "$tree$PGEXT_SYS_LIB"/
	fi
	if [ -d "$stage$PGEXT_SYS_SHARE/extension" ]; then
		cp -R "$stage$PGEXT_SYS_SHARE/extension"/. "$tree$PGEXT_SYS_SHARE/extension"/
	fi
	rm -rf "$stage" "$stage.log"
	pgext_tree_over "$tree"
}

# Complete TREE, whose extension files are in place, with the system's
# installation around them.
pgext_tree_over() {
	local tree=$1 f
	PGEXT_SYS_BIN=$(pg_config --bindir)
	PGEXT_SYS_LIB=$(pg_config --pkglibdir)
	PGEXT_SYS_SHARE=$(pg_config --sharedir)
	PGEXT_TREE=$tree
	# the programs: real files (a server run through a symbolic link would
	# resolve it and find the system's lib and share folders again)
	mkdir -p "$tree$PGEXT_SYS_BIN" "$tree$PGEXT_SYS_LIB" "$tree$PGEXT_SYS_SHARE/extension"
	for f in "$PGEXT_SYS_BIN"/*; do
		ln "$f" "$tree$PGEXT_SYS_BIN/" 2>/dev/null || cp -p "$f" "$tree$PGEXT_SYS_BIN/" || return 1
	done
	for f in "$PGEXT_SYS_SHARE"/*; do
		[ "${f##*/}" = extension ] || [ -e "$tree$PGEXT_SYS_SHARE/${f##*/}" ] ||
			ln -s "$f" "$tree$PGEXT_SYS_SHARE/${f##*/}"
	done
	pgext_link_missing
	chmod -R a+rX "$tree"
	chmod 755 "$tree"
	PGTEST_BINDIR="$tree$PGEXT_SYS_BIN"
	export PGTEST_BINDIR
	# the server must find its lib folder in the tree, not the system's
	[ "$("$PGTEST_BINDIR/pg_config" --pkglibdir)" = "$tree$PGEXT_SYS_LIB" ] || {
		echo "pgext: this PostgreSQL installation is not relocatable" >&2
		return 1
	}
}

# pgext_trace_tree WORK: this checkout's cgmap_trace built into WORK/ext
# and a private tree made of it at WORK/tree (PGTEST_BINDIR set); a build
# that fails fails the test, a tree that cannot be made skips it (77).
pgext_trace_tree() {
	local work=$1 src=${CGMAP_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
	"$src/extension/cgmap_trace/build.sh" "$work/ext" >"$work/ext.log" 2>&1 ||
		{ tail -20 "$work/ext.log" >&2; pgtest_fail "build.sh failed"; }
	pgext_tree "$work/tree" "$work/ext" ||
		{ echo "SKIP: could not make a private installation tree (see above)" >&2; exit 77; }
}

# pgext_trace_test NAME [COMMAND...]: the start of a test of cgmap_trace
# against its own cluster.  Skips (77) without the cgmap binary ($CGMAP),
# pg_config, make or a COMMAND the test needs; then $work, a new folder
# (cgmap-NAME.*, removed at exit), holds this checkout's cgmap_trace and
# the private tree made of it (pgext_trace_tree).  The caller starts the
# cluster (pgtest_start) with the settings it needs.
pgext_trace_test() {
	local name=$1 needed
	shift
	[ -x "${CGMAP:-}" ] || { echo "SKIP: no cgmap binary at ${CGMAP:-}" >&2; exit 77; }
	for needed in pg_config make "$@"; do
		command -v "$needed" >/dev/null 2>&1 || { echo "SKIP: $needed not found" >&2; exit 77; }
	done
	work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-$name.XXXXXX")
	chmod 755 "$work"
	trap 'rm -rf "$work"' EXIT
	pgext_trace_tree "$work"
}
