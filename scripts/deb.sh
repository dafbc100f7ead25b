#!/usr/bin/env bash
# Build the Debian package of pg_gsu for this machine's PostgreSQL (postgresql-15-pg-gsu on
# bookworm, postgresql-17-pg-gsu on trixie), portable (no -march=native: see debian/rules).
#
# Usage: bash scripts/deb.sh [OUTDIR]   (OUTDIR: where the .deb goes, default the current folder)
#
# Needs postgresql-server-dev-all (pg_buildext), debhelper, dpkg-dev, build-essential and the
# build dependencies in debian/control.in. It builds in a copy of the tree (the files git
# knows, committed or not: `git ls-files -co --exclude-standard`) under a temporary folder,
# removed at exit, so the working tree stays as it is and nothing is installed; then
#   apt-get install ./postgresql-15-pg-gsu_*.deb
# installs it with its dependencies. Prints the package's name, version and Depends.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUTDIR=$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)

for tool in pg_buildext dpkg-buildpackage dh git; do
	command -v "$tool" >/dev/null || {
		echo "deb: $tool is missing (apt-get install postgresql-server-dev-all dpkg-dev debhelper git)" >&2
		exit 1
	}
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pg_gsu_deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/pg-gsu"
(cd "$REPO_ROOT" && git ls-files -z -co --exclude-standard | tar -c --null -T - -f -) |
	tar -x -f - -C "$WORK/pg-gsu"
cd "$WORK/pg-gsu"
# debian/control lists the packages of the release it was generated on: regenerate it for
# this one; nocheck: the regress suite needs the package installed (test/pg17.sh runs it)
pg_buildext updatecontrol
if ! DEB_BUILD_OPTIONS="nocheck noddebs parallel=${GSU_JOBS:-2}" dpkg-buildpackage -b -us -uc >"$WORK/build.log" 2>&1; then
	tail -n 40 "$WORK/build.log" >&2
	echo "deb: dpkg-buildpackage failed" >&2
	exit 1
fi
if grep -q -e '-march=native' "$WORK/build.log"; then
	echo "deb: the package was built with -march=native" >&2
	exit 1
fi
for deb in "$WORK"/postgresql-*-pg-gsu_*.deb; do
	dpkg-deb -f "$deb" Package Version Depends
	contents=$(dpkg-deb -c "$deb")
	grep -q '/lib/pg_gsu\.so$' <<<"$contents" || {
		echo "deb: $deb has no pg_gsu.so" >&2
		exit 1
	}
	cp "$deb" "$OUTDIR/"
	echo "deb: $OUTDIR/$(basename "$deb")"
done
