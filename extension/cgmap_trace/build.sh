#!/bin/sh
# build.sh OUTDIR [make arguments...]
# Copies the cgmap_trace sources into OUTDIR and builds the extension there
# with PGXS, so an out-of-tree build (e.g. from CMake) leaves this folder clean.
# PG_CONFIG in the environment selects the PostgreSQL installation.
set -eu
if [ $# -lt 1 ]; then
	echo "usage: $0 OUTDIR [make arguments...]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
out=$1
shift
mkdir -p "$out"
for f in Makefile cgmap_trace.c cgmap_trace.control cgmap_trace--1.0.sql cgmap_trace--1.0--1.1.sql cgmap_trace--1.1--1.2.sql cgmap_trace--1.2--1.3.sql cgmap_trace--1.3--1.4.sql cgmap_trace--1.4--1.5.sql cgmap_trace--1.5--1.6.sql cgmap_trace--1.6--1.7.sql cgmap_trace--1.7--1.8.sql; do
	cp "$here/$f" "$out/$f"
done
make -C "$out" PG_CONFIG="${PG_CONFIG:-pg_config}" "$@"
