#!/bin/sh
# install.sh OUTDIR [make arguments...]
# Installs a cgmap_trace built by build.sh OUTDIR into the PostgreSQL that
# PG_CONFIG (default: pg_config in PATH) names.  Needs write access to its
# lib and extension folders, usually root.
set -eu
if [ $# -lt 1 ]; then
	echo "usage: $0 OUTDIR [make arguments...]" >&2
	exit 2
fi
out=$1
shift
if [ ! -f "$out/cgmap_trace.so" ]; then
	echo "$0: $out/cgmap_trace.so not found; run build.sh $out first" >&2
	exit 1
fi
make -C "$out" PG_CONFIG="${PG_CONFIG:-pg_config}" install "$@"
