# dockerbase.sh - sourced by the tests that build Docker images: finds the
# two Debian 12 base images the Dockerfile starts from, or skips the test.
#
# dockerbase_find sets build_base and runtime_base:
# CGMAP_DOCKER_BUILD_BASE / CGMAP_DOCKER_RUNTIME_BASE when both are set;
# otherwise debian:bookworm and debian:bookworm-slim when present or
# pullable, else the images scripts/docker-base.sh makes
# (cgmap-base/debian:bookworm, cgmap-base/debian:bookworm-slim).  Exits 77
# (ctest's skip) when there is no docker command, no daemon, or no base.

dockerbase_skip() { echo "skip: $*" >&2; exit 77; }

dockerbase_have() { docker image inspect "$1" >/dev/null 2>&1; }

dockerbase_find() {
	command -v docker >/dev/null || dockerbase_skip "no docker command (apt-get install docker.io)"
	docker info >/dev/null 2>&1 || dockerbase_skip "no Docker daemon answers (docker info fails)"
	build_base=${CGMAP_DOCKER_BUILD_BASE:-}
	runtime_base=${CGMAP_DOCKER_RUNTIME_BASE:-}
	if [ -n "$build_base" ] && [ -n "$runtime_base" ]; then
		return 0
	fi
	if { dockerbase_have debian:bookworm || docker pull -q debian:bookworm >/dev/null 2>&1; } &&
		{ dockerbase_have debian:bookworm-slim || docker pull -q debian:bookworm-slim >/dev/null 2>&1; }; then
		build_base=debian:bookworm runtime_base=debian:bookworm-slim
	elif dockerbase_have cgmap-base/debian:bookworm && dockerbase_have cgmap-base/debian:bookworm-slim; then
		build_base=cgmap-base/debian:bookworm runtime_base=cgmap-base/debian:bookworm-slim
	else
		dockerbase_skip "no Debian 12 base image: debian:bookworm cannot be pulled; make local ones with scripts/docker-base.sh"
	fi
}
