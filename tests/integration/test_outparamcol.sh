#!/usr/bin/env bash
# test_outparamcol.sh - a function in FROM names its column after its one
# OUT parameter (jsonb_array_elements_text's `value`, a function of the
# files' `word`), before its alias: fixtures/outparamcol.sql gives the
# edges of fixtures/expected/outparamcol.edges from the live database and
# from the file, and run with `cgmap_trace.track = all` each is observed on
# its static edge and nothing is left unexplained.  Before, the subquery's
# `value` was typed as the function's jsonb parameter of the same name and
# the call went to app.tags(jsonb[]), which PostgreSQL does not call.
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case outparamcol "calls typed by a FROM function's OUT column" <<'SQL'
SELECT app.tags_of('{"tags": ["a", "b"]}');
SELECT app.count_words('{"s": "a b c"}');
SELECT app.count_renamed('{}');
SQL
pgtest_expect_edge "$PGTEST_WORK/map.edges" no "app.tags(jsonb[])"
