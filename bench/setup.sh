#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# setup.sh - install the Debian 12 packages that `make bench` measures with,
# and only those that are missing.  Idempotent: when everything is there it
# prints one line and touches nothing.  Needs root (or sudo) only when
# something is missing; without either it says what is missing and exits 0,
# and the driver reports the peers or programs it cannot run as "n/a".
#
#   libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0   the peers (LD_PRELOAD)
#   valgrind                 instruction counts (callgrind)
#   gnuplot-nox              the plots (SVG)
#   python3 sqlite3 git gcc  the whole programs run under each malloc
set -uo pipefail

packages=(libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 valgrind python3 sqlite3 git gcc)
# any gnuplot will do; install the small one when there is none
command -v gnuplot >/dev/null 2>&1 || packages+=(gnuplot-nox)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "bench setup: all ${#packages[@]} packages present"
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "bench setup: missing ${missing[*]} (not root: what needs them is reported as n/a)" >&2
		exit 0
	fi
	sudo=(sudo)
fi

echo "bench setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" apt-get update -qq &&
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	tail -20 "$log" >&2
	echo "bench setup: apt-get failed; what needs ${missing[*]} is reported as n/a" >&2
fi
exit 0
