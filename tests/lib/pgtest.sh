# pgtest.sh - a throwaway PostgreSQL 15 cluster for integration tests.
#
# Source it, then `pgtest_start [postgresql.conf line ...]`.  The cluster lives
# in a fresh temporary folder, listens only on a unix socket in that folder
# (on a free port number, so parallel tests never meet), and is stopped and
# removed by an EXIT trap even when the test fails.  Exports PGHOST, PGPORT,
# PGUSER, PGDATABASE so psql and cgmap find it with no DSN.
#
# PostgreSQL refuses to run as root: as root the cluster belongs to the
# `postgres` system user and its commands run through runuser.

pgtest_bindir() {
	if [ -n "${PGTEST_BINDIR:-}" ]; then echo "$PGTEST_BINDIR"; return; fi
	if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
		pg_config --bindir; return
	fi
	for d in /usr/lib/postgresql/15/bin /usr/local/pgsql/bin; do
		[ -x "$d/initdb" ] && { echo "$d"; return; }
	done
	echo "pgtest: cannot find initdb (install postgresql-15)" >&2
	return 1
}

# Run a server-side command as the cluster owner.  As root it runs from /:
# the folder the test was started in may be one the postgres user cannot
# enter (root's home), and PostgreSQL's programs start by reading theirs
# (every path given here is absolute).
pgtest_as_owner() {
	if [ "$(id -u)" = 0 ]; then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

pgtest_free_port() {
	local port
	for _ in $(seq 1 200); do
		port=$(( 20000 + RANDOM % 30000 ))
		# A port is free for us when no socket file and no TCP listener uses it.
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"; return 0
		fi
	done
	echo "pgtest: no free port found" >&2
	return 1
}

pgtest_stop() {
	if [ -n "${PGTEST_DIR:-}" ] && [ -d "$PGTEST_DIR" ]; then
		if [ -f "$PGTEST_DIR/data/postmaster.pid" ]; then
			pgtest_as_owner "$PGTEST_BIN/pg_ctl" -D "$PGTEST_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
		fi
		if [ -z "${PGTEST_KEEP:-}" ]; then
			rm -rf "$PGTEST_DIR"
		else
			echo "pgtest: kept $PGTEST_DIR" >&2
		fi
	fi
	PGTEST_DIR=
}

# Stop the cluster at exit, after what the caller's own EXIT trap does
# (a test's `trap 'rm -rf "$work"; pgtest_stop' EXIT`, set before the
# cluster starts, still removes its folder).
pgtest_stop_at_exit() {
	local previous
	previous=$(trap -p EXIT)
	if [ -z "$previous" ]; then
		trap pgtest_stop EXIT
		return
	fi
	eval "set -- $previous"
	case $3 in
	*pgtest_stop*) ;;
	*) trap -- "$3; pgtest_stop" EXIT ;;
	esac
}

pgtest_start() {
	PGTEST_BIN=$(pgtest_bindir) || return 1
	PGTEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-pgtest.XXXXXX") || return 1
	chmod 755 "$PGTEST_DIR"
	if [ "$(id -u)" = 0 ]; then
		chown postgres: "$PGTEST_DIR"
		PGUSER=postgres
	else
		PGUSER=$(id -un)
	fi
	pgtest_stop_at_exit
	trap 'exit 130' INT TERM
	PGPORT=$(pgtest_free_port) || return 1
	if ! pgtest_as_owner "$PGTEST_BIN/initdb" -D "$PGTEST_DIR/data" -U "$PGUSER" \
		-A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$PGTEST_DIR/initdb.log" 2>&1; then
		cat "$PGTEST_DIR/initdb.log" >&2
		return 1
	fi
	{
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$PGTEST_DIR'"
		echo "port = $PGPORT"
		echo "fsync = off"
		echo "full_page_writes = off"
		echo "synchronous_commit = off"
		echo "max_connections = 40"
		local line
		for line in "$@"; do echo "$line"; done
	} >>"$PGTEST_DIR/data/postgresql.conf"
	PGHOST=$PGTEST_DIR
	PGDATABASE=postgres
	export PGHOST PGPORT PGUSER PGDATABASE PGTEST_DIR PGTEST_BIN
	unset PGPASSWORD PGSERVICE PGOPTIONS
	pgtest_server_start
}

pgtest_server_start() {
	if ! pgtest_as_owner "$PGTEST_BIN/pg_ctl" -D "$PGTEST_DIR/data" -l "$PGTEST_DIR/server.log" \
		-w -t 60 start >/dev/null; then
		echo "pgtest: server did not start; its log:" >&2
		cat "$PGTEST_DIR/server.log" >&2
		return 1
	fi
}

# Clean stop and start again (shutdown hooks run, as on a real restart).
pgtest_restart() {
	pgtest_as_owner "$PGTEST_BIN/pg_ctl" -D "$PGTEST_DIR/data" -m fast -w stop >/dev/null || return 1
	pgtest_server_start
}

pgtest_psql() {
	"$PGTEST_BIN/psql" -X -q -v ON_ERROR_STOP=1 -At "$@"
}

# Fail the test with a message.
pgtest_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# pgtest_expect_grep WHAT FILE TEXT: TEXT is in FILE (else the file is shown).
pgtest_expect_grep() {
	grep -qF -- "$3" "$2" || { cat "$2" >&2; pgtest_fail "$1: no '$3' in output above"; }
}

# pgtest_expect_line WHAT FILE LINE: the whole line is in FILE.
pgtest_expect_line() {
	grep -qxF -- "$3" "$2" || { cat "$2" >&2; pgtest_fail "$1: no line '$3' in output above"; }
}

# Compare two files; show the difference on failure.
pgtest_expect_file() {
	local expected=$1 actual=$2 what=$3
	if ! diff -u "$expected" "$actual" >&2; then
		pgtest_fail "$what differs from $expected"
	fi
}

# pgtest_expect_dump_edges WORK DB EXPECTED WHAT [FILE...]: cgmap --sql of
# DB's pg_dump --schema-only (after FILEs, e.g. pg_dumpall -g's roles)
# gives the edges of EXPECTED, as the live map and the fixture file do.
pgtest_expect_dump_edges() {
	local work=$1 db=$2 expected=$3 what=$4
	shift 4
	"$PGTEST_BIN/pg_dump" -d "$db" --schema-only -f "$work/dump.sql"
	"$CGMAP" --sql "$@" "$work/dump.sql" --out "$work/dump" --no-html 2>"$work/dump.err" ||
		pgtest_fail "cgmap --sql of the dump failed: $(cat "$work/dump.err")"
	"$CGMAP" report edges "$work/dump" >"$work/dump.edges"
	pgtest_expect_file "$expected" "$work/dump.edges" "$what"
}

# Build the cgmap_trace extension of this checkout into $1/ext and install
# it into the PostgreSQL that pg_config names; exit 77 (skip) when this
# machine cannot (no pg_config or make, not root and no write access, the
# install refused), fail when the build does.  CGMAP_SOURCE_DIR must be set.
pgtest_install_trace() {
	local work=$1 ext="${CGMAP_SOURCE_DIR:?}/extension/cgmap_trace" pkglibdir sharedir
	command -v pg_config >/dev/null 2>&1 ||
		{ echo "SKIP: pg_config not found (install postgresql-server-dev-15)" >&2; exit 77; }
	command -v make >/dev/null 2>&1 || { echo "SKIP: make not found" >&2; exit 77; }
	pkglibdir=$(pg_config --pkglibdir)
	sharedir=$(pg_config --sharedir)
	if [ "$(id -u)" != 0 ] && { [ ! -w "$pkglibdir" ] || [ ! -w "$sharedir/extension" ]; }; then
		echo "SKIP: cannot install the extension: not root and no write access to $pkglibdir" >&2
		exit 77
	fi
	"$ext/build.sh" "$work/ext" >"$work/ext.log" 2>&1 || { cat "$work/ext.log" >&2; pgtest_fail "build.sh failed"; }
	# Tests run side by side, and `make install` rewrites each file with a
	# moment of mode 0600: a server of another test reading the script
	# then gets "permission denied".  So one install at a time, and none
	# when the installed files are those this test's sources made (the
	# stamp: a hash of the sources and of the installed files as the last
	# install left them; the build itself is not byte for byte the same).
	(
		command -v flock >/dev/null 2>&1 && flock 9
		local stamp="${TMPDIR:-/tmp}/cgmap-trace-installed.$(id -u)" want
		installed_state() {
			{ cat "$ext"/cgmap_trace.c "$ext"/*.sql "$ext"/cgmap_trace.control
			  stat -c '%n %s %Y' "$pkglibdir/cgmap_trace.so" "$sharedir"/extension/cgmap_trace* 2>/dev/null
			} | sha256sum
		}
		want=$(installed_state)
		if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
			"$ext/install.sh" "$work/ext" >>"$work/ext.log" 2>&1 || exit 1
			installed_state >"$stamp"
		fi
	) 9>"${TMPDIR:-/tmp}/cgmap-trace-install.$(id -u).lock" ||
		{ echo "SKIP: install.sh could not install the extension" >&2; exit 77; }
}

# PostgreSQL as the judge of a traced map: in map folder $2, no observed
# call is unexplained, and every edge of $1 (a `cgmap report edges` of
# static edges) is observed on its static edge (lines and call counts
# aside).  $3 names the calls in the failures.  Leaves the map's edges in
# $2.edges and the expected edges seen both ways in $2.both.
pgtest_expect_traced() {
	local expected=$1 map=$2 what=$3 missing
	"${CGMAP:?}" report unexplained "$map" | grep -v '^#' >"$map.unexplained" || true
	[ ! -s "$map.unexplained" ] || pgtest_fail "$what left unexplained: $(cat "$map.unexplained")"
	"$CGMAP" report edges "$map" >"$map.edges"
	sed -E 's/ static lines .*//' "$expected" | LC_ALL=C sort >"$map.want"
	grep ' both ' "$map.edges" | sed -E 's/ both lines .*//' | LC_ALL=C sort >"$map.both" || true
	missing=$(comm -23 "$map.want" "$map.both")
	[ -z "$missing" ] || pgtest_fail "$what not observed at runtime (or observed elsewhere): $missing
$(cat "$map.edges")"
}

# A traced fixture's workload and its verdict: `pgtest_traced_workload
# WORK DB EXPECTED WHAT` runs the SQL on standard input in DB (as psql
# does, stopping at the first error) after resetting the traced calls,
# maps DB into $WORK/map and holds it to EXPECTED (pgtest_expect_traced).
pgtest_traced_workload() {
	local work=$1 db=$2 expected=$3 what=$4
	{ echo "SELECT cgmap_trace_reset();"; cat; } |
		pgtest_psql -d "$db" -v ON_ERROR_STOP=1 >"$work/workload.log" 2>&1 ||
		pgtest_fail "the workload failed: $(cat "$work/workload.log")"
	"${CGMAP:?}" --dsn "dbname=$db" --out "$work/map" 2>"$work/map.err" ||
		pgtest_fail "cgmap failed: $(cat "$work/map.err")"
	pgtest_expect_traced "$expected" "$work/map" "$what"
	echo "ok: $(wc -l <"$work/map.both") $what observed and explained"
}

# A traced fixture from start to verdict: `pgtest_traced_case NAME WHAT
# [UNTRACED]` makes the work folder $PGTEST_WORK (removed, with the cluster
# stopped, at exit), holds the static edges of fixtures/NAME.sql, live and
# from the file, to fixtures/expected/NAME.edges (pgtest_traced_fixture, in
# database NAME), then runs the SQL on standard input as the workload and
# holds the map to the same edges (pgtest_traced_workload), but those
# matching the extended regular expression UNTRACED (edges no trace can
# see, which the caller's comment says why).
pgtest_traced_case() {
	local name=$1 what=$2 untraced=${3:-} src=${CGMAP_SOURCE_DIR:?}
	local expected=$src/fixtures/expected/$name.edges
	PGTEST_WORK=$(mktemp -d)
	chmod 755 "$PGTEST_WORK"
	trap 'rm -rf "$PGTEST_WORK"; pgtest_stop' EXIT
	pgtest_traced_fixture "$PGTEST_WORK" "$name" "$src/fixtures/$name.sql" "$expected" "$what"
	if [ -n "$untraced" ]; then
		grep -v -E -- "$untraced" "$expected" >"$PGTEST_WORK/traced.edges"
		expected=$PGTEST_WORK/traced.edges
	fi
	pgtest_traced_workload "$PGTEST_WORK" "$name" "$expected" "$what"
}

# A fixture's edges, checked before it is traced: `pgtest_traced_fixture
# WORK DB FIXTURE EXPECTED WHAT` builds and installs cgmap_trace (skips
# without it), starts a cluster tracing every call, loads FIXTURE into a
# new database DB with the extension, and holds the static edges of the
# live database ($WORK/static) and of the file ($WORK/sql) to EXPECTED.
# The caller then runs its workload and `pgtest_expect_traced`.
pgtest_traced_fixture() {
	local work=$1 db=$2 fixture=$3 expected=$4 what=$5
	pgtest_install_trace "$work"
	pgtest_start "shared_preload_libraries = 'cgmap_trace'" "cgmap_trace.track = all"
	pgtest_psql -c "CREATE DATABASE $db" >/dev/null
	# The session options the loading, the maps and the workload share
	# (PGOPTIONS, which the cluster's start clears), when the test gives
	# them.
	if [ -n "${PGTEST_SESSION_OPTIONS:-}" ]; then
		export PGOPTIONS=$PGTEST_SESSION_OPTIONS
	fi
	pgtest_psql -d "$db" -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
		-c "CREATE EXTENSION cgmap_trace" -f "$fixture" >/dev/null
	"${CGMAP:?}" --dsn "dbname=$db" --out "$work/static" --no-html --no-runtime 2>"$work/static.err" ||
		pgtest_fail "cgmap failed: $(cat "$work/static.err")"
	"$CGMAP" report edges "$work/static" >"$work/static.edges"
	pgtest_expect_file "$expected" "$work/static.edges" "$what (live)"
	"$CGMAP" --sql "$fixture" --out "$work/sql" --no-html 2>"$work/sql.err" ||
		pgtest_fail "cgmap --sql failed: $(cat "$work/sql.err")"
	"$CGMAP" report edges "$work/sql" >"$work/sql.edges"
	pgtest_expect_file "$expected" "$work/sql.edges" "$what (SQL files)"
}

# A traced fixture in a replication apply session: `pgtest_replica_workload
# WORK DB` runs the SQL on standard input in DB under
# `SET session_replication_role = replica` (superuser: the cluster's owner)
# after resetting the traced calls, maps DB with `--replication-role
# replica` into $WORK/replica and fails when an observed call is left
# unexplained.  Leaves the map's edges in $WORK/replica.edges for the
# caller's own assertions (`pgtest_expect_edge`).
pgtest_replica_workload() {
	local work=$1 db=$2
	{ echo "SELECT cgmap_trace_reset();"; echo "SET session_replication_role = replica;"; cat; } |
		pgtest_psql -d "$db" -v ON_ERROR_STOP=1 >"$work/replica.log" 2>&1 ||
		pgtest_fail "the replica workload failed: $(cat "$work/replica.log")"
	"${CGMAP:?}" --dsn "dbname=$db" --replication-role replica --out "$work/replica" \
		2>"$work/replica.err" || pgtest_fail "cgmap --replication-role replica failed: $(cat "$work/replica.err")"
	"$CGMAP" report unexplained "$work/replica" | grep -v '^#' >"$work/replica.unexplained" || true
	[ ! -s "$work/replica.unexplained" ] ||
		pgtest_fail "the replica session left unexplained: $(cat "$work/replica.unexplained")"
	"$CGMAP" report edges "$work/replica" >"$work/replica.edges"
}

# `pgtest_expect_edge FILE yes|no EDGE...`: each EDGE (the start of a line
# of `cgmap report edges`, "from -> to via mechanism (object)") is in FILE
# observed on its static edge (yes: "EDGE both lines ..."), or no line of
# FILE holds it at all (no: a function's name is enough).
pgtest_expect_edge() {
	local file=$1 want=$2 edge
	shift 2
	for edge in "$@"; do
		if [ "$want" = yes ]; then
			grep -qF -- "$edge both " "$file" ||
				pgtest_fail "not mapped and observed: $edge
$(cat "$file")"
		else
			! grep -qF -- "$edge" "$file" || pgtest_fail "mapped, but does not run: $edge"
		fi
	done
}
