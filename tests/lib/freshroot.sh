# freshroot.sh - sourced by test_fresh_machine.sh: a new machine as a chroot,
# for the machines where no Docker daemon runs.
#
# The machine is what README.md promises to work on: Debian 12 (bookworm)
# made by debootstrap from the host's Debian mirror, with only gcc, cmake,
# make, PostgreSQL 15 (server and client), libpq-dev and ca-certificates
# added, the host's apt sources (so it installs what the host would) and a
# user `dev` who is not root.  Making it takes a minute or two; the result
# is kept as a tarball in $CGMAP_FRESH_CACHE (default /var/cache/cgmap-fresh)
# named by a hash of what went into it, and every run unpacks a new copy, so
# no run sees what an earlier one installed.
#
# freshroot_make ROOT      make (or unpack) the machine into the empty
#                          folder ROOT and mount /proc, /dev and a /dev/shm
#                          of its own; exits 77 (ctest's skip) when this is
#                          not root, debootstrap is missing or the mirror
#                          cannot be reached
# freshroot_run ROOT USER DIR CMD...
#                          CMD as USER in DIR inside the machine, with the
#                          environment of a new login (nothing of the host's)
# freshroot_remove ROOT    end every process running inside ROOT, unmount,
#                          and remove the folder (never across a mount)
#
# Services do not start when a package is installed (policy-rc.d says no,
# as in Docker's images): the cluster the postgresql package makes stays
# down, as on a container.

freshroot_skip() { echo "skip: $*" >&2; exit 77; }

freshroot_packages="gcc cmake make libpq-dev postgresql-15 postgresql-client-15 ca-certificates"

# The host's Debian mirror: the first deb URI of its apt sources.
freshroot_mirror() {
	if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
	local uri
	uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	echo "${uri:-http://deb.debian.org/debian}"
}

freshroot_copy_apt_sources() {
	local root=$1
	rm -f "$root/etc/apt/sources.list"
	mkdir -p "$root/etc/apt/sources.list.d"
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && cp "$f" "$root$f"
	done
	return 0
}

freshroot_mount() {
	local root=$1
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
}

freshroot_make() {
	local root=$1
	[ "$(id -u)" = 0 ] || freshroot_skip "a chroot machine needs root (debootstrap, chroot, mount)"
	command -v debootstrap >/dev/null || freshroot_skip "no debootstrap (apt-get install debootstrap)"
	local mirror cache key tarball
	mirror=$(freshroot_mirror)
	cache=${CGMAP_FRESH_CACHE:-/var/cache/cgmap-fresh}
	key=$( { echo "bookworm $mirror $freshroot_packages"; cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null; } |
		sha256sum | cut -c1-16)
	tarball=$cache/bookworm-$key.tar
	mkdir -p "$root"
	if [ -s "$tarball" ]; then
		tar -C "$root" -xpf "$tarball"
		freshroot_mount "$root"
		return 0
	fi
	echo "freshroot: making a Debian 12 machine from $mirror (kept in $tarball)"
	if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1; then
		tail -n 5 "$root.debootstrap.log" >&2
		rm -f "$root.debootstrap.log"
		freshroot_remove "$root"
		freshroot_skip "debootstrap could not make Debian 12 from $mirror"
	fi
	rm -f "$root.debootstrap.log"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	freshroot_copy_apt_sources "$root"
	freshroot_mount "$root"
	freshroot_run "$root" root / sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $freshroot_packages &&
		useradd -m dev && apt-get clean && rm -rf /var/lib/apt/lists/*" >"$root.install.log" 2>&1 || {
		tail -n 20 "$root.install.log" >&2
		return 1
	}
	# Kept without what the run mounts.
	mkdir -p "$cache"
	tar -C "$root" --one-file-system --exclude=./proc/* --exclude=./dev/* -cpf "$tarball.tmp" . &&
		mv "$tarball.tmp" "$tarball"
}

freshroot_run() {
	local root=$1 user=$2 dir=$3
	shift 3
	local home=/root
	[ "$user" = root ] || home=/home/$user
	chroot "$root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		/usr/sbin/runuser -u "$user" -- /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$@"
}

freshroot_remove() {
	local root=$1
	[ -d "$root" ] || return 0
	local real pid
	real=$(cd "$root" && pwd -P)
	# Whatever still runs in the machine (a server a failed step left).
	for pid in $(ls /proc | grep -E '^[0-9]+$'); do
		[ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$real" ] && kill -9 "$pid" 2>/dev/null
	done
	local m
	for m in dev/shm dev proc; do
		if mountpoint -q "$root/$m" 2>/dev/null; then
			umount "$root/$m" 2>/dev/null || umount -l "$root/$m"
		fi
	done
	rm -rf --one-file-system "$root"
}
