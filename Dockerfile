# cgmap images, built from this checkout:
#
#   docker build -t cgmap .                               cgmap alone (the default: the last stage)
#   docker build --target postgres -t cgmap-postgres .    PostgreSQL 15 with cgmap_trace preloaded
#
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/work" cgmap --sql db/migrations --out docs/
#   docker run -d -e POSTGRES_PASSWORD=... -p 5432:5432 cgmap-postgres
#
# The build stage makes the two Debian packages with the commands
# tests/integration/test_package.sh runs (scripts/setup.sh --package,
# scripts/package.sh); the other stages install them with apt-get, which the
# test runs too (apt-get install -s, then dpkg into an empty root).
# tests/integration/test_docker.sh builds both images and runs them.
#
# Both images start from Debian 12: BUILD_BASE for the build stage,
# RUNTIME_BASE for the two images.  Where Docker Hub cannot be reached,
# scripts/docker-base.sh makes both bases from the Debian archive with
# debootstrap and prints the --build-arg options that name them.
ARG BUILD_BASE=debian:bookworm
ARG RUNTIME_BASE=debian:bookworm-slim

# --- build: the .deb files of cgmap and postgresql-15-cgmap-trace ------------
FROM ${BUILD_BASE} AS build
WORKDIR /src
COPY scripts/setup.sh scripts/setup.sh
RUN bash scripts/setup.sh --package
COPY . .
RUN bash scripts/package.sh /build
RUN mkdir /debs && cp /build/*.deb /debs/

# --- postgres: Debian's PostgreSQL 15 with the cgmap_trace extension
# preloaded and created in the first database (scripts/docker-entrypoint.sh:
# POSTGRES_PASSWORD, POSTGRES_USER, POSTGRES_DB as in the official image).
# No cluster is made at install time: the entry point makes it in the volume.
FROM ${RUNTIME_BASE} AS postgres
ENV LANG=C.UTF-8 \
    PGDATA=/var/lib/postgresql/data \
    PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY --from=build /debs/postgresql-15-cgmap-trace_*.deb /debs/
RUN mkdir -p /etc/postgresql-common/createcluster.d && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/no-main-cluster.conf
RUN apt-get update && apt-get install -y --no-install-recommends /debs/postgresql-15-cgmap-trace_*.deb && rm -rf /var/lib/apt/lists/* /debs
RUN mkdir -p "$PGDATA" /var/run/postgresql /docker-entrypoint-initdb.d && chown postgres:postgres "$PGDATA" /var/run/postgresql && chmod 700 "$PGDATA"
COPY scripts/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
# SIGINT: a fast shutdown, which also writes cgmap_trace's table to disk.
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres", "-c", "shared_preload_libraries=cgmap_trace"]

# --- cgmap: the program alone (the default target) ---------------------------
FROM ${RUNTIME_BASE} AS cgmap
COPY --from=build /debs/cgmap_*.deb /debs/
RUN apt-get update && apt-get install -y --no-install-recommends /debs/cgmap_*.deb && rm -rf /var/lib/apt/lists/* /debs
RUN cgmap --version
WORKDIR /work
ENTRYPOINT ["cgmap"]
