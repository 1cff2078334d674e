#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh - uslabinfo and uslabtop against live uslab processes, for one allocator.
#
# usage: tests/introspect/run.sh BUILD ALLOC [NAME...]
#   BUILD  the build root, after make BUILD=BUILD ALLOCATORS=ALLOC libs tools:
#          lib/libuslab-ALLOC.a and lib/libuslab-malloc-ALLOC.so of the allocator,
#          bin/uslabinfo and bin/uslabtop (built once, for any allocator)
#   ALLOC  slub, slab or slob
#   NAME   run only these tests (area, slabinfo, buddyinfo, ...; see TESTS below)
#
# The process looked at is tests/introspect/target.c, linked with the static
# library and driven line by line on its stdin (it answers "ok" when a
# command is done, so its counts are settled when a tool reads them), plus
# python3 under the malloc drop-in.  Text is checked by check.py, whose
# parsers follow the kernel's documented formats.  The real procps slabtop
# reads the process's slabinfo bind-mounted over /proc/slabinfo, and the
# kernel's own slabinfo tool (tools/mm/slabinfo.c of Debian's
# linux-source-6.12, extracted once into BUILD/introspect/) reads the
# --sysfs tree bind-mounted over /sys/kernel/slab, both in a private mount
# namespace (unshare -m, or unshare -Urm without privileges); uslabtop runs
# in a detached tmux session.  What the machine cannot do is skipped, with
# the reason.
#
# Prints one line per test and, last, "introspect-ALLOC: N passed, N
# failed, N skipped".  Exit status 0 iff nothing failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/common/driver.sh"
driver_variant_args "$@"
CC=${CC:-gcc}
TESTS="area slabinfo buddyinfo listing aliases sysfs kernel_slabinfo slabtop uslabtop_once
	uslabtop_live shrink fork map errors exit validate stats_off stale dropin"

out=$build/tests/$alloc/introspect
mkdir -p "$out" "$build/introspect" || exit 2
out=$(realpath "$out")
cache_dir=$(realpath "$build/introspect")
usi=$(realpath -m "$build/bin/uslabinfo")
uts=$(realpath -m "$build/bin/uslabtop")
lib=$build/lib/libuslab-$alloc.a
dropin=$(realpath -m "$build/lib/libuslab-malloc-$alloc.so")
check="python3 $here/check.py"
max_order=11	# the memory map's default (the targets set no option)

for f in "$usi" "$uts" "$lib"; do
	if [ ! -f "$f" ]; then
		fail build "$f does not exist (make BUILD=$build ALLOCATORS=$alloc libs tools)"
		summary "introspect-$alloc"
	fi
done

# ---- the target process ----

if ! $CC -std=gnu11 -O1 -g -Wall -Wextra -Werror -I"$root/include" -o "$out/target" \
	"$here/target.c" "$lib" -lurcu-bp -pthread >"$out/target.build.log" 2>&1; then
	fail build "target.c does not build" "$out/target.build.log"
	summary "introspect-$alloc"
fi

tpid=""
# target_start [ENV=VALUE...]: start a target; tpid is its pid.
target_start() {
	local word
	tpid=""
	coproc TARGET { exec env "$@" "$out/target" 2>>"$out/target.stderr"; }
	read -r -t 30 word tpid <&"${TARGET[0]}" && [ "$word" = ready ]
}

# send COMMAND...: one command; true if the target answered ok.
send() {
	local reply
	echo "$*" >&"${TARGET[1]}" || return 1
	read -r -t 120 reply <&"${TARGET[0]}" || return 1
	[ "${reply%% *}" = ok ]
}

target_stop() {
	[ -n "${TARGET_PID:-}" ] || return 0
	echo quit >&"${TARGET[1]}" 2>/dev/null
	wait "$TARGET_PID" 2>/dev/null
}

# own NAME: the target's own slabinfo, into $out/NAME (printed path).
own() {
	send slabinfo "$out/$1" && echo "$out/$1"
}

# wait_area PID: its statistics file exists (the service makes it just after start).
wait_area() {
	for _ in $(seq 50); do [ -e "/dev/shm/uslab-$1" ] && return 0; sleep 0.1; done
	return 1
}

# The private mount namespace for the bind mounts: unshare -m as root,
# else unshare -Urm; empty when neither is allowed.
unshare_cmd=()
if unshare -m true 2>/dev/null; then
	unshare_cmd=(unshare -m)
elif unshare -Urm true 2>/dev/null; then
	unshare_cmd=(unshare -Urm)
fi

# ---- tests on one target ----

t_area() {
	local f=/dev/shm/uslab-$tpid
	wait_area "$tpid" || { fail area "$f does not exist"; return 1; }
	[ "$(stat -c %a "$f")" = 600 ] || { fail area "$f has mode $(stat -c %a "$f"), not 600"; return 1; }
	timeout 60 "$usi" --list >"$out/list.out" 2>&1
	grep -Eq "^ *$tpid +$alloc " "$out/list.out" || { fail area "--list lacks pid $tpid" "$out/list.out"; return 1; }
	pass area
}

t_slabinfo() {
	local mine
	send create introspect_list 200 3000 ctor || { fail slabinfo "target: create"; return 1; }
	mine=$(own slabinfo.own) || { fail slabinfo "target: slabinfo"; return 1; }
	timeout 60 "$usi" --slabinfo "$tpid" >"$out/slabinfo.tool" 2>"$out/slabinfo.err" ||
		{ fail slabinfo "uslabinfo --slabinfo failed" "$out/slabinfo.err"; return 1; }
	$check slabinfo "$out/slabinfo.tool" introspect_list=3000 introspect_boot=1 >"$out/slabinfo.check" ||
		{ fail slabinfo "the output does not parse as slabinfo 2.1" "$out/slabinfo.check"; return 1; }
	$check same "$mine" "$out/slabinfo.tool" >"$out/slabinfo.check" ||
		{ fail slabinfo "counts differ from the process's own" "$out/slabinfo.check"; return 1; }
	cmp -s "$mine" "$out/slabinfo.tool" ||
		{ fail slabinfo "not byte for byte the process's own slabinfo"; return 1; }
	pass slabinfo
}

t_buddyinfo() {
	send buddyinfo "$out/buddyinfo.own" || { fail buddyinfo "target: buddyinfo"; return 1; }
	timeout 60 "$usi" --buddyinfo "$tpid" >"$out/buddyinfo.tool" 2>&1 ||
		{ fail buddyinfo "uslabinfo --buddyinfo failed" "$out/buddyinfo.tool"; return 1; }
	$check buddyinfo "$out/buddyinfo.tool" "$max_order" >"$out/buddyinfo.check" ||
		{ fail buddyinfo "not /proc/buddyinfo's format" "$out/buddyinfo.check"; return 1; }
	cmp -s "$out/buddyinfo.own" "$out/buddyinfo.tool" ||
		{ fail buddyinfo "differs from the process's own buddyinfo"; return 1; }
	pass buddyinfo
}

t_listing() {
	local objs size
	timeout 60 "$usi" "$tpid" '^introspect_list$' >"$out/listing.out" 2>&1 ||
		{ fail listing "uslabinfo PID REGEX failed" "$out/listing.out"; return 1; }
	read -r _ objs size _ < <(sed -n 2p "$out/listing.out")
	[ "$(head -c 4 "$out/listing.out")" = Name ] && [ "${objs:-0}" -ge 3000 ] && [ "${size:-}" = 200 ] ||
		{ fail listing "no line with >= 3000 objects of 200 bytes" "$out/listing.out"; return 1; }
	timeout 60 "$usi" -r "$tpid" '^introspect_list$' >"$out/report.out" 2>&1
	grep -q "^Slabcache: introspect_list " "$out/report.out" && grep -q "^Object : *200 " "$out/report.out" ||
		{ fail listing "--report lacks the cache's report" "$out/report.out"; return 1; }
	pass listing
}

t_aliases() {
	[ "$alloc" = slob ] && { skip aliases "SLOB never merges caches"; return 0; }
	send create introspect_merge_a 328 10 && send create introspect_merge_b 328 10 ||
		{ fail aliases "target: create"; return 1; }
	timeout 60 "$usi" -a "$tpid" >"$out/aliases.out" 2>&1
	grep -Eq "^introspect_merge_a +<-.* introspect_merge_b( |$)" "$out/aliases.out" ||
		{ fail aliases "-a does not show introspect_merge_b merged into introspect_merge_a" "$out/aliases.out"; return 1; }
	pass aliases
}

t_sysfs() {
	local mine links=()
	[ "$alloc" != slob ] && links=(introspect_merge_b=introspect_merge_a)
	rm -rf "$out/sysfs"
	timeout 60 "$usi" --sysfs "$tpid" "$out/sysfs" >"$out/sysfs.out" 2>&1 ||
		{ fail sysfs "uslabinfo --sysfs failed" "$out/sysfs.out"; return 1; }
	mine=$(own sysfs.own) || { fail sysfs "target: slabinfo"; return 1; }
	$check sysfs "$out/sysfs" "$mine" "${links[@]}" >"$out/sysfs.check" ||
		{ fail sysfs "the tree disagrees with slabinfo" "$out/sysfs.check"; return 1; }
	pass sysfs
}

# The kernel's tools/mm/slabinfo.c, extracted once from linux-source-6.12.
kernel_slabinfo_source() {
	local src=$cache_dir/slabinfo.c tarball=/usr/src/linux-source-6.12.tar.xz tmp
	[ -f "$src" ] && return 0
	if [ ! -f "$tarball" ]; then
		"$root/tools/install-deps.sh" --label introspect linux-source-6.12 >"$out/linux-source.log" 2>&1 ||
			return 1
	fi
	tmp=$(mktemp -d) || return 1
	tar -xJf "$tarball" -C "$tmp" --wildcards '*/tools/mm/slabinfo.c' 2>>"$out/linux-source.log" &&
		cp "$tmp"/*/tools/mm/slabinfo.c "$src.part" && mv "$src.part" "$src"
	rm -rf "$tmp"
	[ -f "$src" ]
}

t_kernel_slabinfo() {
	local tool=$cache_dir/slabinfo
	[ ${#unshare_cmd[@]} -gt 0 ] || { skip kernel_slabinfo "no private mount namespace here (unshare -m and unshare -Urm both refused)"; return 0; }
	[ -d /sys/kernel/slab ] || { skip kernel_slabinfo "this kernel has no /sys/kernel/slab to mount the tree over"; return 0; }
	[ -d "$out/sysfs" ] || { fail kernel_slabinfo "no --sysfs tree (run the sysfs test first)"; return 1; }
	kernel_slabinfo_source || { skip kernel_slabinfo "tools/mm/slabinfo.c unavailable: Debian's linux-source-6.12 could not be installed or read (as root: tools/install-deps.sh linux-source-6.12; log $out/linux-source.log)"; return 0; }
	if [ ! -x "$tool" ] || [ "$cache_dir/slabinfo.c" -nt "$tool" ]; then
		$CC -O1 -w -o "$tool" "$cache_dir/slabinfo.c" >"$out/kslabinfo.build.log" 2>&1 ||
			{ fail kernel_slabinfo "the kernel's slabinfo.c does not compile" "$out/kslabinfo.build.log"; return 1; }
	fi
	"${unshare_cmd[@]}" sh -c 'mount --bind "$1" /sys/kernel/slab && "$2" -z && echo --- && "$2" -a' \
		_ "$out/sysfs" "$tool" >"$out/kslabinfo.out" 2>&1 ||
		{ fail kernel_slabinfo "the kernel's slabinfo tool failed on the tree" "$out/kslabinfo.out"; return 1; }
	sed '/^---$/,$d' "$out/kslabinfo.out" >"$out/kslabinfo.list"
	$check kernel-tool "$out/kslabinfo.list" "$out/sysfs.own" introspect_list >"$out/kslabinfo.check" ||
		{ fail kernel_slabinfo "its listing disagrees with slabinfo" "$out/kslabinfo.check"; return 1; }
	if [ "$alloc" != slob ] && ! sed '1,/^---$/d' "$out/kslabinfo.out" | grep -q "introspect_merge_b"; then
		{ fail kernel_slabinfo "its alias listing (-a) lacks introspect_merge_b" "$out/kslabinfo.out"; return 1; }
	fi
	pass kernel_slabinfo
}

t_slabtop() {
	command -v slabtop >/dev/null || { skip slabtop "procps slabtop is not installed (Debian package procps)"; return 0; }
	[ ${#unshare_cmd[@]} -gt 0 ] || { skip slabtop "no private mount namespace here (unshare -m and unshare -Urm both refused)"; return 0; }
	[ -e /proc/slabinfo ] || { skip slabtop "this kernel has no /proc/slabinfo to mount over"; return 0; }
	timeout 60 "$usi" --slabinfo "$tpid" >"$out/slabtop.slabinfo" 2>&1 ||
		{ fail slabtop "uslabinfo --slabinfo failed" "$out/slabtop.slabinfo"; return 1; }
	"${unshare_cmd[@]}" sh -c 'mount --bind "$1" /proc/slabinfo && exec slabtop -o' \
		_ "$out/slabtop.slabinfo" >"$out/slabtop.out" 2>&1 ||
		{ fail slabtop "slabtop -o failed on the bind-mounted slabinfo" "$out/slabtop.out"; return 1; }
	$check slabtop "$out/slabtop.out" "$out/slabtop.slabinfo" introspect_list introspect_boot >"$out/slabtop.check" ||
		{ fail slabtop "slabtop's rows disagree with slabinfo" "$out/slabtop.check"; return 1; }
	pass slabtop
}

t_uslabtop_once() {
	local mine
	mine=$(own top.own) || { fail uslabtop_once "target: slabinfo"; return 1; }
	timeout 60 "$uts" -o "$tpid" >"$out/top-once.out" 2>&1 ||
		{ fail uslabtop_once "uslabtop -o failed" "$out/top-once.out"; return 1; }
	$check slabtop "$out/top-once.out" "$mine" introspect_list introspect_boot >"$out/top-once.check" ||
		{ fail uslabtop_once "its rows disagree with slabinfo" "$out/top-once.check"; return 1; }
	$check top-sorted "$out/top-once.out" o >"$out/top-once.check" ||
		{ fail uslabtop_once "not sorted by objects" "$out/top-once.check"; return 1; }
	pass uslabtop_once
}

# wait_screen SOCKET PATTERN FILE: poll the pane until PATTERN shows (20 s at most).
wait_screen() {
	local i
	for i in $(seq 200); do
		tmux -S "$1" capture-pane -p >"$3" 2>/dev/null
		grep -q -- "$2" "$3" && return 0
		sleep 0.1
	done
	return 1
}

t_uslabtop_live() {
	local sock=$out/tmux.sock ret=0
	command -v tmux >/dev/null || { skip uslabtop_live "tmux is not installed (Debian package tmux)"; return 0; }
	rm -f "$sock" "$out/top-live.exit"
	tmux -S "$sock" new-session -d -x 200 -y 100 \
		"$uts -d 0.3 $tpid 2>$out/top-live.err; echo \$? >$out/top-live.exit; sleep 60" ||
		{ fail uslabtop_live "tmux new-session failed"; return 1; }
	if ! wait_screen "$sock" "Active / Total Objects" "$out/top-live.screen"; then
		fail uslabtop_live "uslabtop did not draw" "$out/top-live.err"; ret=1
	elif ! send create introspect_late 64 20000 ctor; then
		fail uslabtop_live "target: create"; ret=1
	elif ! wait_screen "$sock" " introspect_late" "$out/top-live.screen"; then
		fail uslabtop_live "a cache created after it started never appeared" "$out/top-live.screen"; ret=1
	elif ! tmux -S "$sock" send-keys n || ! wait_screen "$sock" "sorted by name" "$out/top-live.name"; then
		fail uslabtop_live "the key n did not change the sort" "$out/top-live.name"; ret=1
	elif ! $check top-sorted "$out/top-live.name" n >"$out/top-live.check"; then
		fail uslabtop_live "after n the rows are not sorted by name" "$out/top-live.check"; ret=1
	else
		tmux -S "$sock" send-keys q
		for _ in $(seq 100); do [ -s "$out/top-live.exit" ] && break; sleep 0.1; done
		if [ "$(cat "$out/top-live.exit" 2>/dev/null)" != 0 ]; then
			fail uslabtop_live "q did not end it with status 0" "$out/top-live.err"; ret=1
		fi
	fi
	tmux -S "$sock" kill-server 2>/dev/null
	[ $ret = 0 ] && pass uslabtop_live
}

t_shrink() {
	local before after msg
	[ "$alloc" = slob ] && { skip shrink "SLOB gives an empty page back at once: a shrink has nothing to free"; return 0; }
	send create introspect_shrink 256 4000 && send free introspect_shrink ||
		{ fail shrink "target: create/free"; return 1; }
	before=$($check row "$(own shrink.before)" introspect_shrink num_slabs) ||
		{ fail shrink "no row for introspect_shrink: $before"; return 1; }
	msg=$(timeout 60 "$usi" --shrink "$tpid" introspect_shrink 2>&1) ||
		{ fail shrink "uslabinfo --shrink failed: $msg"; return 1; }
	after=$($check row "$(own shrink.after)" introspect_shrink num_slabs)
	[[ $msg == *"slabs $before -> $after,"* ]] ||
		{ fail shrink "its report '$msg' disagrees with slabinfo ($before -> $after)"; return 1; }
	[ "$after" -lt "$before" ] || { fail shrink "no slab freed: $msg"; return 1; }
	pass shrink
}

t_fork() {
	local line child="" ok=""
	echo "fork introspect_child 700" >&"${TARGET[1]}"
	for _ in 1 2; do
		read -r -t 60 line <&"${TARGET[0]}" || break
		case $line in child\ *) child=${line#child } ;; ok\ *) ok=1 ;; esac
	done
	[ -n "$child" ] && [ -n "$ok" ] || { fail fork "the target did not fork a child"; return 1; }
	# a fork child's service makes its area after a short settling delay
	for _ in $(seq 100); do [ -e "/dev/shm/uslab-$child" ] && break; sleep 0.1; done
	timeout 60 "$usi" --slabinfo "$child" >"$out/fork.child" 2>&1
	timeout 60 "$usi" --slabinfo "$tpid" >"$out/fork.parent" 2>&1
	kill "$child"
	$check slabinfo "$out/fork.child" introspect_child=700 >"$out/fork.check" ||
		{ fail fork "the child's caches are not readable" "$out/fork.check"; return 1; }
	$check absent "$out/fork.parent" introspect_child >"$out/fork.check" ||
		{ fail fork "the parent shows the child's cache" "$out/fork.check"; return 1; }
	pass fork
}

t_map() {
	local ext msg mine
	for ext in svg html; do
		rm -f "$out/map.$ext"
		msg=$(timeout 120 "$usi" --map "$tpid" "$out/map.$ext" 2>&1)
		[ -s "$out/map.$ext" ] || { fail map "uslabinfo --map wrote no $ext: $msg"; return 1; }
		mine=$(own "map.$ext.own") || { fail map "target: slabinfo"; return 1; }
		$check picture "$out/map.$ext" "$mine" introspect_list >"$out/map.check" ||
			{ fail map "the $ext picture's counts disagree with slabinfo" "$out/map.check"; return 1; }
	done
	pass map
}

t_errors() {
	local msg st
	timeout 60 "$usi" --shrink "$tpid" no_such_cache >"$out/errors.out" 2>&1
	st=$?
	[ $st = 1 ] && grep -q "no cache named 'no_such_cache'" "$out/errors.out" ||
		{ fail errors "--shrink of a missing cache: status $st" "$out/errors.out"; return 1; }
	"$usi" --shrink "$tpid" >/dev/null 2>&1
	[ $? = 2 ] || { fail errors "a missing operand is not a usage error (status 2)"; return 1; }
	sleep 30 & local other=$!
	msg=$(timeout 60 "$usi" "$other" 2>&1)
	st=$?
	kill $other
	[ $st = 1 ] && [[ $msg == *"has no uslab statistics area"* ]] ||
		{ fail errors "a process without uslab: status $st, '$msg'"; return 1; }
	pass errors
}

t_exit() {
	target_stop
	[ ! -e "/dev/shm/uslab-$tpid" ] || { fail exit "/dev/shm/uslab-$tpid left after a normal exit"; return 1; }
	pass exit
}

# ---- tests with their own processes ----

t_validate() {
	local msg st
	target_start USLAB_OPTIONS="slub_debug=FZPU,introspect_valid" ||
		{ fail validate "the target did not start"; return 1; }
	send create introspect_valid 96 500 || { fail validate "target: create"; return 1; }
	msg=$(timeout 60 "$usi" --validate "$tpid" introspect_valid 2>&1)
	st=$?
	target_stop
	# why skip: SLAB and SLOB may have no debug caches to validate (SLUB must)
	if [ "$alloc" != slub ] && [[ $msg == *"nothing to validate"* ]]; then
		skip validate "${msg#uslabinfo: }"
		return 0
	fi
	[ $st = 0 ] && [[ $msg == *"validated: 0 errors found"* ]] ||
		{ fail validate "status $st: $msg"; return 1; }
	pass validate
}

t_stats_off() {
	local msg st
	target_start USLAB_OPTIONS=stats=off || { fail stats_off "the target did not start"; return 1; }
	msg=$(timeout 60 "$usi" "$tpid" 2>&1)
	st=$?
	[ -e "/dev/shm/uslab-$tpid" ] && { target_stop; { fail stats_off "the area exists with stats=off"; return 1; }; }
	target_stop
	[ $st = 1 ] && [[ $msg == *"stats=off"* ]] ||
		{ fail stats_off "uslabinfo: status $st, '$msg'"; return 1; }
	pass stats_off
}

t_stale() {
	local dead msg
	target_start || { fail stale "the target did not start"; return 1; }
	dead=$tpid
	wait_area "$dead"
	kill -9 "$TARGET_PID"
	wait "$TARGET_PID" 2>/dev/null
	[ -e "/dev/shm/uslab-$dead" ] || { fail stale "a killed process left no file to test with"; return 1; }
	msg=$(timeout 60 "$usi" --slabinfo "$dead" 2>&1)
	[[ $msg == *"is gone; removed its stale file"* ]] && [ ! -e "/dev/shm/uslab-$dead" ] ||
		{ fail stale "a dead pid's file: '$msg'"; return 1; }
	target_start && dead=$tpid && wait_area "$dead" && kill -9 "$TARGET_PID" && wait "$TARGET_PID" 2>/dev/null
	target_start || { fail stale "the target did not start"; return 1; }
	for _ in $(seq 100); do [ -e "/dev/shm/uslab-$dead" ] || break; sleep 0.1; done
	target_stop
	[ ! -e "/dev/shm/uslab-$dead" ] ||
		{ fail stale "a new process's service did not remove the file of dead pid $dead"; return 1; }
	pass stale
}

t_dropin() {
	local py=/usr/bin/python3 word pid="" ret=0
	[ -f "$dropin" ] || { fail dropin "$dropin does not exist"; return 1; }
	[ -x $py ] || { skip dropin "no $py to run under the drop-in"; return 0; }
	coproc PY { LD_PRELOAD=$dropin exec $py -c 'import sys
data = [bytes(600 + i % 300) for i in range(20000)]
print("ready", flush=True)
sys.stdin.readline()' 2>"$out/dropin.err"; }
	read -r -t 60 word <&"${PY[0]}" && pid=$PY_PID
	if [ -z "$pid" ] || [ "$word" != ready ]; then
		fail dropin "python3 under the drop-in did not start" "$out/dropin.err"; ret=1
	elif ! timeout 60 "$usi" --slabinfo "$pid" >"$out/dropin.slabinfo" 2>&1; then
		fail dropin "uslabinfo --slabinfo failed" "$out/dropin.slabinfo"; ret=1
	elif ! $check slabinfo "$out/dropin.slabinfo" >"$out/dropin.check"; then
		fail dropin "its slabinfo does not parse" "$out/dropin.check"; ret=1
	elif [ "$alloc" != slob ] &&
	     ! awk 'NR > 2 && $2 >= 1000 { found = 1 } END { exit !found }' "$out/dropin.slabinfo"; then
		# (SLOB's malloc is its kmalloc, which has no caches to list)
		fail dropin "no cache with python's objects" "$out/dropin.slabinfo"; ret=1
	elif ! timeout 60 "$usi" --buddyinfo "$pid" >"$out/dropin.buddyinfo" 2>&1 ||
	     ! $check buddyinfo "$out/dropin.buddyinfo" "$max_order" >"$out/dropin.check"; then
		fail dropin "its buddyinfo is not readable" "$out/dropin.buddyinfo"; ret=1
	fi
	echo >&"${PY[1]}"
	wait "$PY_PID" 2>/dev/null
	[ $ret = 0 ] && pass dropin
}

# ---- run ----

if target_start; then
	for t in area slabinfo buddyinfo listing aliases sysfs kernel_slabinfo slabtop \
		 uslabtop_once uslabtop_live shrink fork map errors exit; do
		selected "$t" && "t_$t"
	done
	target_stop
else
	fail start "the target did not start" "$out/target.stderr"
fi
for t in validate stats_off stale dropin; do
	selected "$t" && "t_$t"
done
summary "introspect-$alloc"
