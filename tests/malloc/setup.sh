#!/bin/bash
# SPDX-License-Identifier: MIT
# setup.sh - install the Debian packages whose programs the malloc drop-in
# is tested with (tests/malloc/prog_*.sh), when they are missing.  Runs
# apt-get only as root and only for what is missing; prints what it did.
# Without root, missing programs make their tests skip (exit 77), never fail.

set -u
# command -> Debian package
pkgs=(
	/usr/bin/python3:python3
	git:git
	perl:perl
	sqlite3:sqlite3
	gcc:gcc
	redis-server:redis-server
	redis-benchmark:redis-tools
	redis-cli:redis-tools
)
missing=()
for entry in "${pkgs[@]}"; do
	cmd=${entry%%:*} pkg=${entry#*:}
	command -v "$cmd" >/dev/null 2>&1 && continue
	case " ${missing[*]-} " in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "setup: missing ${missing[*]} (not root: their tests will skip)"
	exit 0
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
	echo "setup: apt-get install ${missing[*]} failed: their tests will skip"
# A package's service must not be left running: the tests start their own.
if command -v redis-server >/dev/null 2>&1 && command -v service >/dev/null 2>&1; then
	service redis-server stop >/dev/null 2>&1 || true
fi
exit 0
