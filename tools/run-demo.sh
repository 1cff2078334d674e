#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-demo.sh BUILD [REQUESTS] - the main demo (`make run`): the same key-value
# workload on SLUB, SLAB and SLOB, SLUB's slabinfo and buddyinfo in full, then
# one table side by side.
set -euo pipefail
build=${1:-build}
reqs=${2:-600000}
results=()
for a in slub slab slob; do
	bin="$build/bin/uslab-demo-$a"
	[ -x "$bin" ] || { echo "run-demo: $bin is missing" >&2; exit 1; }
	if [ "$a" = slub ]; then
		out=$("$bin" "$reqs")
		printf '%s\n' "$out" | grep -v '^DEMO '
	else
		out=$("$bin" --quiet "$reqs")
	fi
	results+=("$(printf '%s\n' "$out" | grep '^DEMO ')")
done
echo
echo "== the same workload on the three allocators (${reqs} requests, 2 client + 2 worker threads) =="
printf '%-6s %14s %14s %14s %12s %14s %12s\n' allocator "ops/s" "peak RSS KiB" "end RSS KiB" \
	"pages used" "pages after" "data/held"
printf '%-6s %14s %14s %14s %12s %14s %12s\n' "" "" "" "" "with data" "emptying" ""
for r in "${results[@]}"; do
	# DEMO name ops peak_rss end_rss pages_used pages_end live_bytes
	read -r _ name ops peak endrss used after live <<<"$r"
	awk -v n="$name" -v o="$ops" -v p="$peak" -v e="$endrss" -v u="$used" -v a="$after" -v l="$live" \
		'BEGIN { printf "%-6s %14d %14d %14d %12d %14d %11.1f%%\n", n, o, p, e, u, a, 100 * l / (u * 4096) }'
done
echo "data/held: bytes the program asked for and still holds, over the bytes of pages the"
echo "allocator holds for them (100% = no internal fragmentation or per-CPU caching)."
