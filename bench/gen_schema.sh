#!/usr/bin/env bash
# gen_schema.sh [N] [SEED] - print a synthetic schema of N functions (default
# 10000) on stdout: realistic bodies of 10-60 lines, about 70% PL/pgSQL and
# 30% SQL, calls between them (each calls only lower-numbered ones, so the
# file loads in order), DML on tables with triggers, defaults, checks, a
# domain, policies, index expressions and cascading keys, reads of views
# (some over views) calling functions, constant and dynamic EXECUTE, a few
# overloads.  Deterministic for a given N and SEED.
set -euo pipefail
n=${1:-10000}
seed=${2:-42}
awk -v N="$n" -v SEED="$seed" '
function pick(i) { return i > 1 ? int(rand() * (i - 1)) + 1 : 0 }
function fname(i) { return sprintf("bench.f%05d", i) }
function call(i,   j) { j = pick(i); if (j == 0) return "1"; return fname(j) "(" int(rand()*100) ")" }
BEGIN {
  srand(SEED)
  print "SET check_function_bodies = off;"
  print "CREATE SCHEMA bench;"
  for (t = 1; t <= 20; t++) {
    printf "CREATE TABLE bench.t%02d (id bigserial PRIMARY KEY, v integer, note text);\n", t
  }
  print "CREATE FUNCTION bench.trg_note() RETURNS trigger LANGUAGE plpgsql AS $$"
  print "BEGIN\n  NEW.note := coalesce(NEW.note, '\''auto'\'');\n  RETURN NEW;\nEND\n$$;"
  for (t = 1; t <= 20; t += 2)
    printf "CREATE TRIGGER note BEFORE INSERT OR UPDATE ON bench.t%02d FOR EACH ROW EXECUTE FUNCTION bench.trg_note();\n", t
  for (i = 1; i <= N; i++) {
    lines = 10 + int(rand() * 51)
    if (rand() < 0.3) {
      printf "CREATE FUNCTION %s(x integer) RETURNS integer LANGUAGE sql AS $$\n", fname(i)
      printf "  SELECT coalesce(max(v), 0) + x\n"
      printf "  FROM (\n"
      for (l = 0; l < lines - 6; l++) {
        if (l > 0) printf "    UNION ALL\n"
        printf "    SELECT %s AS v\n", call(i)
        l++
      }
      printf "  ) AS s\n$$;\n"
    } else {
      printf "CREATE FUNCTION %s(x integer) RETURNS integer LANGUAGE plpgsql AS $$\n", fname(i)
      print "DECLARE\n  total integer := 0;\n  r record;\n  label text := '\''f'\'' || x;\nBEGIN"
      body = 5
      while (body < lines - 2) {
        k = rand()
        if (k < 0.30) { printf "  total := total + %s;\n", call(i); body++ }
        else if (k < 0.45) { printf "  IF %s > x THEN\n    total := total - 1;\n  ELSE\n    PERFORM %s;\n  END IF;\n", call(i), call(i); body += 5 }
        else if (k < 0.55) { t = 1 + int(rand()*20); printf "  FOR r IN SELECT id, v FROM bench.%s%02d WHERE v > %s LOOP\n    total := total + r.v;\n  END LOOP;\n", (t % 3 == 0 ? "v" : "t"), t, call(i); body += 3 }
        else if (k < 0.65) { printf "  INSERT INTO bench.t%02d(v, note) VALUES (%s, label);\n", 1 + int(rand()*20), call(i); body++ }
        else if (k < 0.70) { printf "  UPDATE bench.t%02d SET v = v + 1 WHERE id = x;\n", 1 + int(rand()*20); body++ }
        else if (k < 0.74) { printf "  EXECUTE '\''SELECT %s'\'' INTO total;\n", call(i); body++ }
        else if (k < 0.77) { printf "  EXECUTE format('\''SELECT bench.f%%s(%%L)'\'', lpad((x %% 100)::text, 5, '\''0'\''), x) INTO total;\n"; body++ }
        else if (k < 0.85) { printf "  -- step %d: keep the running total in range\n  total := total %% 1000000;\n", body; body += 2 }
        else { printf "  RAISE DEBUG '\''%s at %%'\'', total;\n", fname(i); body++ }
      }
      print "  RETURN total;\nEND\n$$;"
    }
  }
  # What the tables run for a statement: defaults, checks, a domain,
  # policies, index expressions, views (some over views), cascading keys.
  m = N < 50 ? N : 50
  print "CREATE FUNCTION bench.imm(x integer) RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT x % 97 $$;"
  printf "CREATE DOMAIN bench.small AS integer CHECK (%s(VALUE) IS NOT NULL);\n", fname(1 + (7 % m))
  for (t = 1; t <= 20; t++) {
    printf "ALTER TABLE bench.t%02d ADD COLUMN stamp integer DEFAULT %s(0), ADD COLUMN size bench.small,", t, fname(1 + (t % m))
    printf " ADD CONSTRAINT t%02d_v_check CHECK (%s(v) IS NOT NULL);\n", t, fname(1 + ((t * 3) % m))
    printf "CREATE INDEX t%02d_imm ON bench.t%02d (bench.imm(v)) WHERE bench.imm(id::integer) > 0;\n", t, t
    if (t % 2 == 0) {
      printf "ALTER TABLE bench.t%02d ENABLE ROW LEVEL SECURITY;\n", t
      printf "CREATE POLICY t%02d_read ON bench.t%02d FOR SELECT USING (%s(v) > 0);\n", t, t, fname(1 + ((t * 5) % m))
    }
    printf "CREATE TABLE bench.c%02d (id integer, t_id bigint REFERENCES bench.t%02d ON DELETE CASCADE);\n", t, t
    printf "CREATE TRIGGER c_note BEFORE DELETE ON bench.c%02d FOR EACH ROW EXECUTE FUNCTION bench.trg_note();\n", t
  }
  for (t = 3; t <= 20; t += 3) {
    if (t % 2 == 1)
      printf "CREATE VIEW bench.v%02d AS SELECT id, %s(v) AS v FROM bench.t%02d;\n", t, fname(1 + ((t * 11) % m)), t
    else
      printf "CREATE VIEW bench.v%02d AS SELECT id, %s(v) AS v FROM bench.v%02d;\n", t, fname(1 + ((t * 11) % m)), t - 3
  }
}'
