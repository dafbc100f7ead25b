#!/usr/bin/env bash
# pg_gsu on PostgreSQL 17, from its Debian package, in a Debian trixie root of its own.
#
# Usage: bash test/pg17.sh   (as root; needs debootstrap and the Debian archive over HTTP)
#
# The host stays as it is (bookworm, PostgreSQL 15): trixie exists only inside a folder
# this script makes and removes. The parts, each timed:
#   root      debootstrap --variant=minbase trixie, with the build dependencies of
#             debian/control.in (one download; no recommends)
#   package   the source tree as git sees it (`git ls-files -co --exclude-standard`:
#             committed files and new ones not ignored) copied in, and the Debian package
#             postgresql-17-pg-gsu built there with pg_buildext (debian/rules: OPTFLAGS="",
#             no -march=native)
#   install   apt-get install ./postgresql-17-pg-gsu_*.deb, which pulls postgresql-17 and
#             the libraries through the package's Depends (the one apt-get install)
#   server    a PostgreSQL 17 server as the root's postgres user, on a private socket
#             and port, with pg_gsu preloaded as the host's test suite has it; CREATE
#             EXTENSION pg_gsu loads the package's files
#   regress   the whole pg_regress suite (sql/, expected/; PostgreSQL 17's own output
#             differs in a few places, hence expected/*_1.out)
# At exit, also on failure or interrupt, the server is stopped, /proc, /sys and /dev are
# unmounted from the root and the root is removed. Ends with `pg17: N passed, M failed`; a part
# that fails ends the run (the parts after it need it).
#
# Environment:
#   GSU_PG17_MIRROR   Debian mirror                 (default http://deb.debian.org/debian)
#   GSU_PG17_TMP      where the root's folder goes  (default ${TMPDIR:-/tmp})
#   GSU_PG17_PORT     the server's port             (default 54347)
#   GSU_PG17_KEEP=1   keep the root (unmounted) to look at afterwards; its path is printed
#   GSU_PG17_DEB_DIR  copy the built .deb into this folder
set -euo pipefail

MIRROR=${GSU_PG17_MIRROR:-http://deb.debian.org/debian}
PORT=${GSU_PG17_PORT:-54347}
PGVER=17
SUITE=trixie
# The build dependencies of debian/control.in, for debootstrap's --include (it follows
# Depends, not Recommends): dpkg-buildpackage checks build-essential too.
INCLUDE=(
	build-essential           # gcc, make, libc6-dev; dpkg-buildpackage requires it
	debhelper                 # dh, debhelper-compat (= 13)
	postgresql-server-dev-all # pg_buildext, and the default server's (17) headers and PGXS
	libopenblas-dev           # cblas.h
	libopenblas0-serial       # the single-threaded OpenBLAS that pg_gsu.so links (Makefile)
	liblapacke-dev            # lapacke.h
	libfftw3-dev              # fftw3.h (gsu.welch)
)

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { printf '=== pg17: %s\n' "$*"; }

passed=0
failed=0
ROOT=""
PART="" # the part running, for the summary line of an interrupted run
SERVER_STARTED=0

# in_root CMD...: CMD inside the root with a clean environment (nothing of the host's
# PG_CONFIG, PGHOST, ... leaks in)
in_root() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# mounted_under DIR: the mount points at or below DIR, deepest first
mounted_under() {
	awk -v root="$1" '$5 == root || index($5, root "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

stop_server() {
	local pid
	[ "$SERVER_STARTED" -eq 1 ] || return 0
	SERVER_STARTED=0
	if [ -f "$ROOT/pg/data/postmaster.pid" ]; then
		in_root runuser -u postgres -- /usr/lib/postgresql/$PGVER/bin/pg_ctl stop -D /pg/data -m fast -w -t 60 >/dev/null 2>&1 ||
			in_root runuser -u postgres -- /usr/lib/postgresql/$PGVER/bin/pg_ctl stop -D /pg/data -m immediate -w -t 30 >/dev/null 2>&1 ||
			true
	fi
	if [ -f "$ROOT/pg/data/postmaster.pid" ]; then
		pid=$(head -n 1 "$ROOT/pg/data/postmaster.pid")
		if [[ "$pid" =~ ^[0-9]+$ ]] && [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$ROOT" ]; then
			say "killing the server $pid, which did not stop"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 1
		fi
	fi
}

cleanup() {
	local rc=$? p m
	# the clean-up itself is not interrupted (a second Ctrl-C would leave mounts behind)
	trap - EXIT
	trap '' INT TERM
	if [ -n "$PART" ]; then
		say "$PART: interrupted (exit status $rc)"
		failed=$((failed + 1))
		echo "pg17: $passed passed, $failed failed"
	fi
	[ -n "$ROOT" ] || exit "$rc"
	rm -f "$ROOT.debootstrap.log"
	[ -d "$ROOT" ] || exit "$rc"
	stop_server
	# a process still running in the root keeps its mounts busy: it can only be ours
	for p in /proc/[0-9]*; do
		if [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ]; then
			say "killing ${p#/proc/} ($(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)), still running in the root"
			kill -KILL "${p#/proc/}" 2>/dev/null || true
		fi
	done
	for m in dev sys proc; do
		if mountpoint -q "$ROOT/$m"; then
			umount -R "$ROOT/$m" 2>/dev/null || umount -R -l "$ROOT/$m" ||
				say "could not unmount $ROOT/$m"
		fi
	done
	# anything else (debootstrap's own mounts, should it have failed half-way), deepest first
	for m in $(mounted_under "$ROOT"); do
		umount "$m" 2>/dev/null || umount -l "$m" || say "could not unmount $m"
	done
	m=$(mounted_under "$ROOT")
	if [ -n "$m" ]; then
		say "still mounted, so $ROOT is NOT removed: $m"
		exit 1
	fi
	if [ "${GSU_PG17_KEEP:-0}" = 1 ]; then
		say "kept the root in $ROOT (rm -rf --one-file-system it when done)"
	else
		# --one-file-system: never into a mount, should one have escaped the check above
		rm -rf --one-file-system "$ROOT"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# part NAME CMD...: one timed part; a failure ends the run
part() {
	local name=$1 start rc=0
	shift
	say "$name"
	start=$(date +%s)
	PART=$name
	"$@" || rc=$?
	PART=""
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		say "$name: ok ($(($(date +%s) - start)) s)"
	else
		failed=$((failed + 1))
		say "$name: FAILED (exit status $rc, $(($(date +%s) - start)) s)"
		echo "pg17: $passed passed, $failed failed"
		exit 1
	fi
}

# ------------------------------------------------------------------ the parts
make_root() {
	local inc
	inc=$(printf '%s,' "${INCLUDE[@]}")
	debootstrap --variant=minbase --include="${inc%,}" "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 || {
		tail -n 30 "$ROOT.debootstrap.log"
		[ ! -f "$ROOT/debootstrap/debootstrap.log" ] || tail -n 30 "$ROOT/debootstrap/debootstrap.log"
		rm -f "$ROOT.debootstrap.log"
		return 1
	}
	rm -f "$ROOT.debootstrap.log"
	# /proc for dpkg, apt and the server; /dev and /sys bound recursively and made slaves,
	# so that nothing unmounted in the root reaches the host's mounts; a /dev/shm of its
	# own (PostgreSQL's dynamic shared memory), not the host's
	mount -t proc proc "$ROOT/proc" || return 1
	mount --rbind /sys "$ROOT/sys" || return 1
	mount --make-rslave "$ROOT/sys" || return 1
	mount --rbind /dev "$ROOT/dev" || return 1
	mount --make-rslave "$ROOT/dev" || return 1
	mount -t tmpfs -o mode=1777,size=1G shm "$ROOT/dev/shm" || return 1
	# no service starts inside the root, and postgresql-17 makes no cluster of its own
	printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d" || return 1
	chmod 0755 "$ROOT/usr/sbin/policy-rc.d" || return 1
	mkdir -p "$ROOT/etc/postgresql-common" || return 1
	echo "create_main_cluster = false" >"$ROOT/etc/postgresql-common/createcluster.conf" || return 1
	# shellcheck disable=SC2016 # dpkg-query's format
	in_root dpkg-query -W -f='${Package} ${Version}\n' postgresql-server-dev-$PGVER libopenblas0-serial
}

build_package() {
	mkdir -p "$ROOT/build/pg-gsu" || return 1
	(cd "$REPO_ROOT" && git ls-files -z -co --exclude-standard | tar -c --null -T - -f -) |
		tar -x -f - -C "$ROOT/build/pg-gsu" || return 1
	# debian/control lists the packages of the release it was generated on: regenerate it
	# for this one (PostgreSQL 17); nocheck: the suite runs below, against the package
	in_root sh -c 'cd /build/pg-gsu && pg_buildext updatecontrol &&
		DEB_BUILD_OPTIONS="nocheck noddebs parallel=2" dpkg-buildpackage -b -us -uc' \
		>"$ROOT/build/build.log" 2>&1 || {
		tail -n 40 "$ROOT/build/build.log"
		return 1
	}
	if grep -q -e '-march=native' "$ROOT/build/build.log"; then
		echo "the package was built with -march=native"
		return 1
	fi
	ls "$ROOT"/build/postgresql-$PGVER-pg-gsu_*.deb >/dev/null || return 1
	dpkg-deb -f "$ROOT"/build/postgresql-$PGVER-pg-gsu_*.deb Package Version Depends
	if [ -n "${GSU_PG17_DEB_DIR:-}" ]; then
		mkdir -p "$GSU_PG17_DEB_DIR"
		cp "$ROOT"/build/postgresql-$PGVER-pg-gsu_*.deb "$GSU_PG17_DEB_DIR"/
	fi
}

install_package() {
	local deb
	deb=$(cd "$ROOT/build" && ls postgresql-$PGVER-pg-gsu_*.deb)
	in_root sh -c "cd /build && apt-get install -y --no-install-recommends ./$deb" >"$ROOT/build/apt.log" 2>&1 || {
		tail -n 30 "$ROOT/build/apt.log"
		return 1
	}
	grep -E '^(Setting up|Unpacking) (postgresql-|libopenblas0-serial|liblapacke)' "$ROOT/build/apt.log" | sed 's/^/  /'
	# the server must load the package's files, not anything built by hand
	in_root dpkg -S /usr/lib/postgresql/$PGVER/lib/pg_gsu.so /usr/share/postgresql/$PGVER/extension/pg_gsu.control
}

start_server() {
	local bin=/usr/lib/postgresql/$PGVER/bin
	in_root sh -c 'mkdir -p /pg/socket && chown -R postgres: /pg' || return 1
	in_root runuser -u postgres -- $bin/initdb -D /pg/data --auth=trust -U postgres \
		--encoding=UTF8 --no-locale --no-sync >"$ROOT/pg/initdb.log" 2>&1 || {
		cat "$ROOT/pg/initdb.log"
		return 1
	}
	cat >>"$ROOT/pg/data/postgresql.conf" <<-EOF || return 1
		# test/pg17.sh: a private, throwaway server
		listen_addresses = ''
		port = $PORT
		unix_socket_directories = '/pg/socket'
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		shared_preload_libraries = 'pg_gsu'
	EOF
	SERVER_STARTED=1
	# OPENBLAS_NUM_THREADS=1, as scripts/cluster.sh starts the host's server
	in_root runuser -u postgres -- env OPENBLAS_NUM_THREADS=1 $bin/pg_ctl start -D /pg/data \
		-l /pg/server.log -w -t 60 >/dev/null || {
		tail -n 30 "$ROOT/pg/server.log"
		return 1
	}
	in_root $bin/psql -X -At -v ON_ERROR_STOP=1 -h /pg/socket -p "$PORT" -U postgres -d postgres <<-'SQL'
		SELECT version();
		CREATE EXTENSION pg_gsu;
		SELECT 'pg_gsu ' || extversion FROM pg_extension WHERE extname = 'pg_gsu';
		SELECT 'predict ' || gsu.predict(gsu.train(ARRAY[i % 7, i % 5]::float8[], ARRAY[0.1, 0.2],
			CASE WHEN i % 7 > 3 THEN 1 ELSE -1 END), ARRAY[6, 0]::float8[])
		FROM generate_series(1, 200) i;
		DROP EXTENSION pg_gsu;
	SQL
}

regress() {
	local pgxs tests
	pgxs=/usr/lib/postgresql/$PGVER/lib/pgxs
	tests=$(cd "$ROOT/build/pg-gsu/sql" && printf '%s\n' ./*.sql | sed 's|^\./||; s/\.sql$//' | tr '\n' ' ')
	# shellcheck disable=SC2086 # $tests: one word per file
	in_root sh -c "cd /build/pg-gsu && PGHOST=/pg/socket PGPORT=$PORT PGUSER=postgres \
		$pgxs/src/test/regress/pg_regress --inputdir=. --bindir=/usr/lib/postgresql/$PGVER/bin \
		--load-extension=pg_gsu --dbname=contrib_regression $tests" || {
		if [ -s "$ROOT/build/pg-gsu/regression.diffs" ]; then
			echo "----- regression.diffs"
			cat "$ROOT/build/pg-gsu/regression.diffs"
			echo "----- end of regression.diffs"
		fi
		return 1
	}
}

# ------------------------------------------------------------------ main
# (one function, read whole before it runs, so an edit of this file during a run is harmless)
main() {
	[ "$(id -u)" -eq 0 ] || {
		echo "pg17: run this as root (debootstrap, chroot, mount)" >&2
		echo "pg17: 0 passed, 1 failed"
		exit 1
	}
	command -v debootstrap >/dev/null || {
		echo "pg17: debootstrap is missing (apt-get install debootstrap)" >&2
		echo "pg17: 0 passed, 1 failed"
		exit 1
	}
	mkdir -p "${GSU_PG17_TMP:-${TMPDIR:-/tmp}}"
	ROOT=$(mktemp -d "${GSU_PG17_TMP:-${TMPDIR:-/tmp}}/pg_gsu_trixie.XXXXXX")
	ROOT=$(cd "$ROOT" && pwd -P) # as /proc/PID/root and /proc/self/mountinfo spell it
	chmod 0755 "$ROOT"
	say "root $ROOT ($SUITE from $MIRROR), server port $PORT"
	START=$(date +%s)
	part "root: debootstrap $SUITE" make_root
	part "package: postgresql-$PGVER-pg-gsu built with pg_buildext" build_package
	part "install: apt-get install ./postgresql-$PGVER-pg-gsu_*.deb" install_package
	part "server: PostgreSQL $PGVER, CREATE EXTENSION pg_gsu" start_server
	part "regress: the pg_regress suite against PostgreSQL $PGVER" regress
	stop_server
	say "total $(($(date +%s) - START)) s"
	echo "pg17: $passed passed, $failed failed"
}
main "$@"
