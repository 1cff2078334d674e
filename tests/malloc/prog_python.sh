#!/bin/bash
# SPDX-License-Identifier: MIT
# python3 (Debian's) with PYTHONMALLOC=malloc on an allocation-heavy script:
# its own checks pass and its digest matches the run under glibc's malloc.
. "$(dirname "$0")/lib.sh"
need /usr/bin/python3 python3
script=$(dirname "$(realpath "$0")")/alloc_heavy.py
# SLOB's first fit searches every partly used page: a tenth of the work
[ "$ALLOC" = slob ] && export SCALE=0.1
PYTHONMALLOC=malloc /usr/bin/python3 "$script" > glibc.out 2>&1 || { cat glibc.out; fail "python3 under glibc"; }
EXPECT_USLAB=1 PYTHONMALLOC=malloc preload /usr/bin/python3 "$script" > uslab.out 2>&1 ||
	{ cat uslab.out; fail "python3 under the drop-in"; }
same_output python3 glibc.out uslab.out
echo "ok: python3 $(cat uslab.out)"
