#!/usr/bin/env bash
# test_docker.sh - the Dockerfile's two images, built from this checkout and
# run (ctest label `docker`; skipped, exit 77, when no Docker daemon answers
# or no Debian 12 base image can be had):
#   - the cgmap image prints the project's version, holds no build tools,
#     and maps a SQL file of a folder mounted into it, as the calling user,
#     into the same snapshot the cgmap of this build writes, with its HTML;
#   - the postgres image refuses to start without POSTGRES_PASSWORD, starts
#     with it, has cgmap_trace in shared_preload_libraries and created in
#     its first database, takes CREATE EXTENSION in a new database, accepts
#     a password over TCP only, and observes a workload (fixtures/demo.sql,
#     a dynamic EXECUTE) that cgmap reads with --dsn both from this machine
#     through the published port and from the cgmap image beside it;
#   - the tables and the observed calls survive `docker restart`, and a new
#     container on the image's volume (the cluster, the trace file).
# Base images: as tests/lib/dockerbase.sh finds them (CGMAP_DOCKER_*_BASE,
# debian:bookworm(-slim), or scripts/docker-base.sh's).  The images
# are tagged cgmap:test and cgmap-postgres:test and kept, so that a second
# run builds from Docker's cache; containers and volumes are removed.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
cgmap=${CGMAP:?}

skip() { echo "skip: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v jq >/dev/null || skip "jq is not installed"
command -v psql >/dev/null || skip "psql is not installed"
. "$src/tests/lib/dockerbase.sh"
dockerbase_find
echo "bases: $build_base, $runtime_base"

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-docker.XXXXXX")
chmod 755 "$work"
name=cgmap-test-$$
containers=()
volume=$name-data
cleanup() {
	local c
	for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
	docker volume rm -f "$volume" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# --- build -------------------------------------------------------------------
build() { # build TARGET TAG
	if ! docker build --build-arg BUILD_BASE="$build_base" --build-arg RUNTIME_BASE="$runtime_base" \
		--target "$1" -t "$2" "$src" >"$work/build-$1.log" 2>&1; then
		tail -n 40 "$work/build-$1.log" >&2
		fail "docker build --target $1 failed"
	fi
}
build cgmap cgmap:test
build postgres cgmap-postgres:test
docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^(cgmap|cgmap-postgres):test ' || true

# --- the cgmap image ---------------------------------------------------------
version=$(sed -n 's/^project(cgmap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
got=$(docker run --rm cgmap:test --version)
[ "$got" = "cgmap $version" ] || fail "docker run cgmap --version printed \"$got\", not \"cgmap $version\""
# Only the program and what it links: no compiler, no package lists.
tools=$(docker run --rm --entrypoint sh cgmap:test -c \
	'for t in gcc cc cmake make cpack git; do command -v $t; done; ls /var/lib/apt/lists | grep -v -e "^lock$" -e "^partial$" || true')
[ -z "$tools" ] || fail "the cgmap image holds build tools or package lists: $tools"

mkdir "$work/project"
cp "$src/fixtures/demo.sql" "$work/project/schema.sql"
uid=$(id -u) gid=$(id -g)
if [ "$uid" = 0 ]; then uid=65534 gid=65534; fi # as a user who owns the folder, never root
chown -R "$uid:$gid" "$work/project"
docker run --rm --user "$uid:$gid" -v "$work/project:/work" cgmap:test --sql schema.sql --out docs/ \
	>"$work/map.out" 2>"$work/map.err" || fail "the cgmap image could not map schema.sql: $(cat "$work/map.err")"
for f in cgmap.json callgraph.dot index.html; do
	[ -s "$work/project/docs/$f" ] || fail "the cgmap image wrote no docs/$f"
done
owner=$(stat -c %u:%g "$work/project/docs/cgmap.json")
[ "$owner" = "$uid:$gid" ] || fail "docs/cgmap.json belongs to $owner, not to the user who ran the image ($uid:$gid)"
(cd "$work/project" && "$cgmap" --sql schema.sql --out "$work/host" --no-html 2>/dev/null) ||
	fail "this build's cgmap could not map schema.sql"
cmp "$work/host/cgmap.json" "$work/project/docs/cgmap.json" >&2 ||
	fail "the snapshot of the cgmap image differs from this build's"
n=$(jq '.functions | length' "$work/project/docs/cgmap.json")
[ "$n" -gt 10 ] || fail "the cgmap image mapped $n functions of fixtures/demo.sql"
echo "ok: cgmap image: --version, no build tools, maps a mounted folder as uid $uid ($n functions, the same snapshot)"

# --- the postgres image ------------------------------------------------------
vols=$(docker image inspect -f '{{json .Config.Volumes}}' cgmap-postgres:test)
[ "$vols" = '{"/var/lib/postgresql/data":{}}' ] || fail "the postgres image declares the volumes $vols"

# Without a password it says what to do and stops.
if docker run --rm cgmap-postgres:test >"$work/nopw.out" 2>&1; then
	fail "the postgres image started without POSTGRES_PASSWORD"
fi
grep -q POSTGRES_PASSWORD "$work/nopw.out" || fail "no word of POSTGRES_PASSWORD: $(cat "$work/nopw.out")"

password="cgmap-secret"
start_pg() { # start_pg [docker run option...]: a container on the volume
	local c=$name-pg-${#containers[@]}
	containers+=("$c")
	docker run -d --name "$c" -v "$volume:/var/lib/postgresql/data" -p 127.0.0.1::5432 "$@" \
		cgmap-postgres:test >/dev/null || fail "docker run cgmap-postgres failed"
	pg=$c
	wait_pg
}
wait_pg() {
	port=$(docker port "$pg" 5432/tcp | head -n 1)
	port=${port##*:}
	for _ in $(seq 1 120); do
		if PGPASSWORD=$password psql -X -At -h 127.0.0.1 -p "$port" -U postgres -d postgres \
			-c "SELECT 1" >/dev/null 2>&1; then
			return 0
		fi
		[ "$(docker inspect -f '{{.State.Running}}' "$pg")" = true ] || break
		sleep 0.5
	done
	docker logs "$pg" >&2
	fail "the postgres container accepts no connection on port $port"
}
sql() { PGPASSWORD=$password psql -X -q -v ON_ERROR_STOP=1 -At -h 127.0.0.1 -p "$port" -U postgres "$@"; }

start_pg -e POSTGRES_PASSWORD="$password"
got=$(sql -d postgres -c "SHOW shared_preload_libraries")
[ "$got" = cgmap_trace ] || fail "shared_preload_libraries is \"$got\""
want=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$src/extension/cgmap_trace/cgmap_trace.control")
got=$(sql -d postgres -c "SELECT extversion FROM pg_extension WHERE extname = 'cgmap_trace'")
[ "$got" = "$want" ] || fail "cgmap_trace in the first database: \"$got\", not $want"
sql -d postgres -c "CREATE DATABASE other" -c "SELECT 1" >/dev/null
sql -d other -c "CREATE EXTENSION cgmap_trace" || fail "CREATE EXTENSION cgmap_trace failed in a new database"
if PGPASSWORD=wrong psql -X -At -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "SELECT 1" >/dev/null 2>&1; then
	fail "a wrong password was accepted over TCP"
fi
[ ! -e "$(docker exec "$pg" sh -c 'ls -d /var/lib/postgresql/15/main 2>/dev/null || true')" ] ||
	fail "the image holds Debian's default cluster"

# A workload: fixtures/demo.sql, then calls through a dynamic EXECUTE.
sql -d postgres -f "$src/fixtures/demo.sql" >/dev/null
sql -d postgres -c "SET client_min_messages = warning" -c "SELECT app.run_report('ab')" \
	-c "SELECT app.run_report('ab')" -c "SELECT app.checkout('alice', 3)" >/dev/null
dsn="host=127.0.0.1 port=$port user=postgres dbname=postgres"
observed() { # observed SNAPSHOT: the observed calls of app.run_report(text)
	# (format 2 refers to a function by its place in "functions")
	jq '.functions as $f | [.edges[] | select((.from | if type == "number" then $f[.].id else . end) == "app.run_report(text)" and .observed)] | length' "$1"
}
PGPASSWORD=$password "$cgmap" --dsn "$dsn" --no-html --quiet --out "$work/live" 2>"$work/live.err" ||
	fail "cgmap --dsn could not map the container's database: $(cat "$work/live.err")"
n=$(observed "$work/live/cgmap.json")
[ "$n" -ge 2 ] || fail "$n observed calls of app.run_report(text) read from the container (want the literal and the dynamic one)"
# The same from the cgmap image, in the server's network namespace.
mkdir "$work/image-live"
chown "$uid:$gid" "$work/image-live"
docker run --rm --user "$uid:$gid" --network "container:$pg" -e PGPASSWORD="$password" \
	-v "$work/image-live:/work" cgmap:test --dsn "host=127.0.0.1 port=5432 user=postgres dbname=postgres" \
	--no-html --quiet --out live 2>"$work/image-live.err" ||
	fail "the cgmap image could not map the container's database: $(cat "$work/image-live.err")"
m=$(observed "$work/image-live/live/cgmap.json")
[ "$m" = "$n" ] || fail "the cgmap image read $m observed calls of app.run_report(text), cgmap here $n"
calls() { sql -d postgres -c "SELECT coalesce(sum(calls), 0) FROM cgmap_trace_edges()"; }
before=$(calls)
[ "$before" -gt 0 ] || fail "cgmap_trace_edges() is empty after the workload"
echo "ok: postgres image: preloaded, CREATE EXTENSION, $n observed calls of app.run_report read by cgmap here and in its image"

# --- persistence -------------------------------------------------------------
docker restart "$pg" >/dev/null
wait_pg
got=$(calls)
[ "$got" = "$before" ] || fail "after docker restart cgmap_trace_edges() sums $got calls, not $before"
got=$(sql -d postgres -c "SELECT count(*) FROM app.orders")
[ "$got" -gt 0 ] || fail "after docker restart app.orders is empty"
orders=$got
docker stop "$pg" >/dev/null
docker rm "$pg" >/dev/null
start_pg # a new container on the same volume: no password needed to start
got=$(calls)
[ "$got" = "$before" ] || fail "in a new container on the volume cgmap_trace_edges() sums $got calls, not $before"
got=$(sql -d postgres -c "SELECT count(*) FROM app.orders")
[ "$got" = "$orders" ] || fail "in a new container on the volume app.orders has $got rows, not $orders"
# The new container is published on a port of its own.
dsn="host=127.0.0.1 port=$port user=postgres dbname=postgres"
PGPASSWORD=$password "$cgmap" --dsn "$dsn" --no-html --quiet --out "$work/again" 2>"$work/again.err" ||
	fail "cgmap could not map the database of the new container: $(cat "$work/again.err")"
n2=$(observed "$work/again/cgmap.json")
[ "$n2" = "$n" ] || fail "the new container shows $n2 observed calls of app.run_report(text), not $n"
echo "ok: the cluster and the observed calls ($before) survive docker restart and a new container on the volume"
