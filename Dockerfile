# cgmap images, built from this checkout:
#
#   docker build -t cgmap .                               cgmap alone (the default: the last stage)
#   docker build --target postgres -t cgmap-postgres .    PostgreSQL 15 with cgmap_trace preloaded
#
#   docker run --rm -v "$PWD:/work" -w /work cgmap --sql db/migrations --out docs/
#   docker run -d -e POSTGRES_PASSWORD=... -p 5432:5432 cgmap-postgres
#
# The build stage makes the two Debian packages with the commands
# tests/integration/test_package.sh runs (scripts/setup.sh --package,
# scripts/package.sh); the other stages install them with apt-get, which the
# test runs too (apt-get install -s, then dpkg into an empty root).

# --- build: the .deb files of cgmap and postgresql-15-cgmap-trace ------------
FROM debian:bookworm AS build
WORKDIR /src
COPY scripts/setup.sh scripts/setup.sh
RUN bash scripts/setup.sh --package
COPY . .
RUN bash scripts/package.sh /build
RUN mkdir /debs && cp /build/*.deb /debs/

# --- postgres: PostgreSQL 15 (the official image, Debian bookworm) with the
# cgmap_trace extension preloaded and created in the first database.
FROM postgres:15-bookworm AS postgres
COPY --from=build /debs/postgresql-15-cgmap-trace_*.deb /debs/
RUN apt-get update && apt-get install -y --no-install-recommends /debs/postgresql-15-cgmap-trace_*.deb && rm -rf /var/lib/apt/lists/* /debs
RUN echo 'CREATE EXTENSION cgmap_trace;' >/docker-entrypoint-initdb.d/cgmap_trace.sql
CMD ["postgres", "-c", "shared_preload_libraries=cgmap_trace"]

# --- cgmap: the program alone (the default target) ---------------------------
FROM debian:bookworm-slim AS cgmap
COPY --from=build /debs/cgmap_*.deb /debs/
RUN apt-get update && apt-get install -y --no-install-recommends /debs/cgmap_*.deb && rm -rf /var/lib/apt/lists/* /debs
RUN cgmap --version
ENTRYPOINT ["cgmap"]
