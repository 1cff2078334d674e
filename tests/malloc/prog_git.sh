#!/bin/bash
# SPDX-License-Identifier: MIT
# git: init, add, commit, log, gc and fsck on a generated repository.  With
# fixed identities and dates, commits are deterministic: the drop-in's
# repository must have the same commit ids as one made under glibc's malloc.
. "$(dirname "$0")/lib.sh"
need git git
export HOME=$WORK GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=uslab GIT_AUTHOR_EMAIL=uslab@example.invalid
export GIT_COMMITTER_NAME=uslab GIT_COMMITTER_EMAIL=uslab@example.invalid
export GIT_AUTHOR_DATE='2022-03-20T12:00:00Z' GIT_COMMITTER_DATE='2022-03-20T12:00:00Z'

# make_repo DIR RUNNER: generate files, two commits, gc, fsck; prints log.
make_repo() {
	local dir=$1 run=$2 i
	mkdir -p "$dir/src"
	for i in $(seq 1 400); do
		seq "$i" 3 $((i * 40)) > "$dir/src/file$i.txt"
	done
	$run git -C "$dir" init -q -b main || return 1
	$run git -C "$dir" add . || return 1
	$run git -C "$dir" commit -q -m "generated tree" || return 1
	for i in $(seq 1 400 | awk 'NR % 7 == 0'); do
		echo "change $i" >> "$dir/src/file$i.txt"
	done
	rm "$dir/src/file3.txt"
	$run git -C "$dir" commit -q -a -m "second commit" || return 1
	$run git -C "$dir" gc -q || return 1
	$run git -C "$dir" fsck --full --strict 2>&1 || return 1
	$run git -C "$dir" log --format='%H %s' || return 1
	$run git -C "$dir" show --stat --format=%s HEAD | tail -1
	$run git -C "$dir" cat-file -p HEAD:src/file14.txt | tail -1
}

make_repo glibc-repo env > glibc.out 2>&1 || { cat glibc.out; fail "git under glibc"; }
make_repo uslab-repo preload > uslab.out 2>&1 || { cat uslab.out; fail "git under the drop-in"; }
same_output git glibc.out uslab.out
[ "$(grep -c ' generated tree$\| second commit$' uslab.out)" = 2 ] || fail "git log lacks the two commits"
grep -q '^change 14$' uslab.out || fail "git cat-file lost the change"
echo "ok: git $(head -1 uslab.out)"
