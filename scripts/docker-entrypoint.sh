#!/usr/bin/env bash
# docker-entrypoint.sh [postgres OPTION...] - the entry point of the
# Dockerfile's `postgres` image: Debian's PostgreSQL 15 with the cgmap_trace
# extension preloaded.  It takes the environment of the official postgres
# image for what cgmap needs:
#
#   POSTGRES_PASSWORD          the superuser's password (required unless
#                              POSTGRES_HOST_AUTH_METHOD=trust)
#   POSTGRES_USER              the superuser (default postgres)
#   POSTGRES_DB                the first database (default: POSTGRES_USER)
#   POSTGRES_HOST_AUTH_METHOD  the authentication of TCP connections
#                              (default scram-sha-256)
#   PGDATA                     the cluster (default /var/lib/postgresql/data,
#                              the image's volume)
#
# On the first start (no PG_VERSION in PGDATA) it runs initdb, adds
# `listen_addresses = '*'` to postgresql.conf, creates POSTGRES_DB and in it
# the cgmap_trace extension, runs the *.sql and *.sh files of
# /docker-entrypoint-initdb.d in name order, all on a server started with
# the command's options (the image's CMD preloads cgmap_trace) listening
# only on its unix socket, and stops that server.  Then, and on every later start, it runs postgres as the user
# postgres (dropping root with setpriv).  Any other command is run as given.
set -euo pipefail

export PGDATA=${PGDATA:-/var/lib/postgresql/data}
sockdir=/var/run/postgresql

if [ "${1:0:1}" = - ]; then set -- postgres "$@"; fi
[ "${1:-}" = postgres ] || exec "$@"

if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA" "$sockdir"
	# A fresh bind mount belongs to root: hand it to postgres.
	[ "$(stat -c %U "$PGDATA")" = postgres ] || chown -R postgres:postgres "$PGDATA"
	chown postgres:postgres "$sockdir"
	chmod 700 "$PGDATA"
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

say() { echo "docker-entrypoint: $*" >&2; }

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	user=${POSTGRES_USER:-postgres}
	db=${POSTGRES_DB:-$user}
	auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
	pwopt=()
	if [ -n "${POSTGRES_PASSWORD:-}" ]; then
		pwfile=$(mktemp)
		printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
		pwopt=(--pwfile="$pwfile")
	elif [ "$auth" != trust ]; then
		say "no POSTGRES_PASSWORD: set it (docker run -e POSTGRES_PASSWORD=...), or POSTGRES_HOST_AUTH_METHOD=trust to let anyone connect"
		exit 1
	fi
	say "initdb in $PGDATA (superuser \"$user\", database \"$db\")"
	initdb -D "$PGDATA" -U "$user" "${pwopt[@]}" -E UTF8 --locale=C.UTF-8 \
		--auth-local=trust --auth-host="$auth" >/dev/null
	[ -z "${pwfile:-}" ] || rm -f "$pwfile"
	echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
	echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"

	opts=$(printf '%q ' "${@:2}")
	pg_ctl -D "$PGDATA" -o "$opts -c listen_addresses='' -c unix_socket_directories=$sockdir" -w start >/dev/null
	psql=(psql -X -q -v ON_ERROR_STOP=1 -h "$sockdir" -U "$user")
	if [ "$db" != postgres ]; then
		echo 'CREATE DATABASE :"db"' | "${psql[@]}" -d postgres -v db="$db"
	fi
	"${psql[@]}" -d "$db" -c 'CREATE EXTENSION cgmap_trace'
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
			*.sql) say "running $f"; "${psql[@]}" -d "$db" -f "$f" ;;
			*.sh) say "running $f"; PGHOST=$sockdir PGUSER=$user PGDATABASE=$db bash "$f" ;;
			*) [ ! -e "$f" ] || say "ignoring $f" ;;
		esac
	done
	pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
	say "cluster ready"
fi

exec "$@"
