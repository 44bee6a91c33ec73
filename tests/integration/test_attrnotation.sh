#!/usr/bin/env bash
# test_attrnotation.sh - attribute notation: `p.full_name`, `team.badge`,
# `(r).badge`, `(a).label`, `($1).full_name`, `(app.me()).badge`, a SQL
# function's `p.full_name` and `$1.badge` of its parameter, and
# `upper(q.full_name)` call the function of the row's type, the overload
# of that type, while a column of the same name (`p.first`), a system
# column (`q.ctid`) and a PL/pgSQL variable's field (`r.first`) call
# nothing; a view's `p.full_name` is run by a read of the view.
# fixtures/attrnotation.sql gives the edges of
# fixtures/expected/attrnotation.edges from the live database and from the
# file; run with `cgmap_trace.track = all`, each is observed on its static
# edge and nothing is left unexplained (app.first(), shadowed by the
# column, would be if PostgreSQL called it).
#
# Exit: 0 pass, 1 fail, 77 skip (the extension cannot be built or installed).
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"

pgtest_traced_case attrnotation "calls in attribute notation" <<'SQL'
SELECT app.names();
SELECT app.team_badges();
SELECT app.describe();
SELECT app.by_param(ROW(3, 'Alan', 'Turing'));
SELECT app.mine();
SELECT app.greet(ROW(4, 'Edsger', 'Dijkstra'));
SELECT app.people_names();
SQL
