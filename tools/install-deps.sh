#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# install-deps.sh - install the Debian 12 packages that building and testing
# uslab need, and only those that are missing.  Idempotent and quiet: when
# everything is there it prints one line and touches nothing; otherwise it
# runs apt-get update once and installs what is missing.  Needs root (or sudo)
# only when something is missing.
#
#   make gcc libc6-dev binutils   the gcc build (ld -r, objcopy, objdump, nm)
#   clang libclang-rt-14-dev      the clang build and its sanitizer runtimes
#   check libsubunit-dev          the Check unit test framework
#   pkg-config cmake              the install test (pkg-config and CMake users)
#   coreutils diffutils           timeout, realpath, cmp in the scripts
#   liburcu-dev                   RCU (liburcu-bp), a dependency of the library
#   valgrind                      memcheck client requests (headers) and tests
#   procps tmux util-linux        slabtop, a terminal for uslabtop tests, unshare
#   groff-base man-db             rendering checks of the manual pages
#
# usage: install-deps.sh [--label NAME] [PACKAGE...]
# With packages given, installs those instead (bench/setup.sh uses this);
# NAME prefixes the messages.
set -euo pipefail

label=install-deps
if [ "${1:-}" = --label ]; then
	label=$2
	shift 2
fi
packages=(make gcc libc6-dev binutils clang libclang-rt-14-dev check libsubunit-dev
	pkg-config cmake coreutils diffutils liburcu-dev valgrind procps tmux util-linux groff-base man-db)
[ $# -gt 0 ] && packages=("$@")

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "$label: all ${#packages[@]} packages present"
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "$label: missing ${missing[*]}; run as root to install them" >&2
		exit 1
	fi
	sudo=(sudo)
fi

echo "$label: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" apt-get update -qq &&
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	cat "$log" >&2
	echo "$label: apt-get failed" >&2
	exit 1
fi
echo "$label: done"
