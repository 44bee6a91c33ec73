#!/usr/bin/env bash
# docker-base.sh [PREFIX] - make the two Debian 12 base images the
# Dockerfile starts from, on a machine whose Docker cannot pull
# debian:bookworm and debian:bookworm-slim from a registry (no network to
# Docker Hub, a mirror-only network): debootstrap builds a minimal bookworm
# root from the Debian archive, and `docker import` turns it into
#
#   PREFIX:bookworm        the build stage's base (BUILD_BASE)
#   PREFIX:bookworm-slim   the same without documentation, manual pages and
#                          locales, as debian:bookworm-slim (RUNTIME_BASE)
#
# (PREFIX: default cgmap-base/debian).  Then build with
#
#   docker build --build-arg BUILD_BASE=PREFIX:bookworm \
#                --build-arg RUNTIME_BASE=PREFIX:bookworm-slim -t cgmap .
#
# Needs root, debootstrap and a running Docker daemon.  DEBIAN_MIRROR: the
# archive to bootstrap from and that the images' apt sources name (default
# http://deb.debian.org/debian; security updates from the matching
# debian-security).  Nothing is left behind but the two images.
set -euo pipefail
prefix=${1:-cgmap-base/debian}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" = 0 ] || { echo "docker-base.sh: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null ||
	{ echo "docker-base.sh: no debootstrap (apt-get install -y debootstrap)" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "docker-base.sh: no Docker daemon answers" >&2; exit 1; }

root=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-docker-base.XXXXXX")
trap 'rm -rf "$root"' EXIT
echo "docker-base.sh: debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root/fs" "$mirror" >"$root/debootstrap.log" 2>&1 || {
	tail -n 30 "$root/debootstrap.log" >&2
	echo "docker-base.sh: debootstrap failed" >&2
	exit 1
}

fs=$root/fs
# The apt sources of debian:bookworm: the release, its updates and security.
rm -f "$fs/etc/apt/sources.list"
cat >"$fs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# No downloaded packages kept in the image, as in the official images.
cat >"$fs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
rm -rf "$fs"/var/cache/apt/archives/*.deb "$fs"/var/lib/apt/lists/* "$fs"/var/log/* "$fs"/tmp/*
: >"$fs/etc/hostname"

import() { # import TAG: the root as it is now
	tar --numeric-owner -C "$fs" -c . | docker import -c 'CMD ["bash"]' - "$1" >/dev/null
	echo "docker-base.sh: made $1"
}
import "$prefix:bookworm"

# The slim variant: dpkg leaves out documentation (but copyright files),
# manual pages and translations, now and in every later install.
cat >"$fs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
find "$fs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$fs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$fs"/usr/share/man/* "$fs"/usr/share/groff/* "$fs"/usr/share/info/* \
	"$fs"/usr/share/lintian/* "$fs"/usr/share/linda/* "$fs"/usr/share/locale/*
import "$prefix:bookworm-slim"

echo "docker-base.sh: build with"
echo "  docker build --build-arg BUILD_BASE=$prefix:bookworm --build-arg RUNTIME_BASE=$prefix:bookworm-slim ..."
