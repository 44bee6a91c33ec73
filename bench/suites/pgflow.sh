#!/usr/bin/env bash
# bench/suites/pgflow.sh - pgflow's SQL core under its own pgTAP tests,
# through bench/suite_verdicts.sh.
#
# usage: bench/suites/pgflow.sh [suite_verdicts options] PGFLOW_TREE PGMQ_TREE
#   PGFLOW_TREE  pgflow's git tree (git HEAD of 2026-03, core 0.14.1); its
#                pkgs/core is used
#   PGMQ_TREE    pgmq's git tree at tag v1.5.1: its
#                pgmq-extension/sql/pgmq.sql is loaded as a script
#   needs pgTAP (postgresql-15-pgtap) and pg_cron (postgresql-15-cron)
#
# Loads pgmq's script, pgflow-standins.sql beside this script (Supabase's
# realtime, pg_net and vault, which Debian does not package), pgflow's
# schemas/*.sql in name order (0010_extensions.sql's CREATE EXTENSION of
# pgmq, pg_net and supabase_vault fail: the script and the stand-ins are
# there instead) and supabase/seed.sql, then runs supabase/tests/*.test.sql
# and supabase/tests/*/*.test.sql, each in its own session, from a copy of
# pkgs/core where _shared names supabase/tests/_shared (the tests include
# its files as Supabase's runner does, from supabase/tests).  pg_cron is
# preloaded for database pgflow.  Fetches nothing.
set -euo pipefail
pgflow='' pgmq=''
if [ $# -ge 2 ]; then
	args=("$@")
	pgflow=${args[$# - 2]} pgmq=${args[$# - 1]}
fi
[ -n "$pgflow" ] && [ -d "$pgflow/pkgs/core" ] && [ -d "$pgmq/pgmq-extension" ] ||
	{ sed -n "2,/^set -euo/p" "$0" | sed "$ d" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
given="$*"
opts=("${@:1:$#-2}")
work=$(mktemp -d -t cgmap-pgflow.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -R "$pgflow/pkgs/core" "$work/src"
cp "$pgmq/pgmq-extension/sql/pgmq.sql" "$work/src/pgmq.sql"
cp "$root/bench/suites/pgflow-standins.sql" "$work/src/supabase-standins.sql"
ln -s supabase/tests/_shared "$work/src/_shared"
cd "$root"
bash bench/suite_verdicts.sh --db pgflow --extension pgtap \
	--setting "shared_preload_libraries = 'cgmap_trace,pg_cron'" --setting "cron.database_name = 'pgflow'" \
	${opts[@]+"${opts[@]}"} --load pgmq.sql --load supabase-standins.sql --load 'schemas/*.sql' \
	--load supabase/seed.sql --workload 'supabase/tests/*.test.sql' --workload 'supabase/tests/*/*.test.sql' \
	"$work/src" | grep -v '^reproduce:'
echo "reproduce: bash bench/suites/pgflow.sh $given"
