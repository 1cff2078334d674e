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
#   python3 perl sqlite3 git gcc redis-server redis-tools
#                            the whole programs run under each malloc
set -uo pipefail

packages=(libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 valgrind python3 perl sqlite3 git gcc
	  redis-server redis-tools)
# any gnuplot will do; install the small one when there is none
command -v gnuplot >/dev/null 2>&1 || packages+=(gnuplot-nox)

# The install itself is the project's one installer; a failure is reported
# and the driver shows what needs the missing packages as "n/a".
if ! "$(dirname "$0")/../tools/install-deps.sh" --label "bench setup" "${packages[@]}"; then
	echo "bench setup: what needs the missing packages is reported as n/a" >&2
fi
# The package's own service must not run beside the benchmarks (it would
# take CPU and memory); bench/programs/redis.sh starts a server of its own.
if command -v redis-server >/dev/null 2>&1 && command -v service >/dev/null 2>&1; then
	service redis-server stop >/dev/null 2>&1 || true
fi
exit 0
