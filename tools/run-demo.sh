#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-demo.sh BUILD [REQUESTS] - the main demo (`make run`): the same key-value
# workload on SLUB, SLAB and SLOB, SLUB's slabinfo and buddyinfo in full, then
# one table side by side, and where the memory-map pictures are: each run
# draws its memory map while the store is full and after it was emptied
# (BUILD/demo-maps/demo-map-ALLOC-{full,emptied}.{html,svg}), and
# BUILD/demo-maps/index.html shows the six side by side.
set -euo pipefail
build=${1:-build}
reqs=${2:-600000}
maps="$build/demo-maps"
results=()
mkdir -p "$maps"
rm -f "$maps"/demo-map-*.html "$maps"/demo-map-*.svg "$maps/index.html"
for a in slub slab slob; do
	bin="$build/bin/uslab-demo-$a"
	[ -x "$bin" ] || { echo "run-demo: $bin is missing" >&2; exit 1; }
	if [ "$a" = slub ]; then
		out=$("$bin" --map-dir "$maps" "$reqs")
		printf '%s\n' "$out" | grep -v '^DEMO '
	else
		out=$("$bin" --quiet --map-dir "$maps" "$reqs")
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

# index.html: the six pictures side by side, each linking to its full page.
index_page() {
	local a w
	echo '<!DOCTYPE html>'
	echo '<html lang="en"><head><meta charset="utf-8"/><title>uslab demo: memory maps</title>'
	echo '<style>body{font-family:sans-serif;margin:1em}td{vertical-align:top;width:33%}'
	echo 'img{width:100%;border:1px solid #ccc}</style></head><body>'
	echo "<h1>The demo's memory map on SLUB, SLAB and SLOB</h1>"
	echo "<p>${reqs} requests.  One cell per 4 KiB page: blue is free (darker = larger"
	echo 'free blocks, so less fragmentation), yellow free on a thread'"'"'s page list, the'
	echo 'other colours are slabs by cache (SLOB: by list), magenta large kmalloc.  Click a'
	echo 'picture for its page: legend, counts, and a title on every cell.</p><table>'
	for w in full emptied; do
		echo "<tr><th colspan=\"3\">$w</th></tr><tr>"
		for a in slub slab slob; do
			echo "<td><a href=\"demo-map-$a-$w.html\"><b>$a</b><br/>"
			echo "<img src=\"demo-map-$a-$w.svg\" alt=\"$a, $w\"/></a></td>"
		done
		echo '</tr>'
	done
	echo '</table></body></html>'
}
index_page >"$maps/index.html"
echo
echo "== memory-map pictures (open in a browser) =="
echo "side by side:  $maps/index.html"
for a in slub slab slob; do
	echo "$a:  $maps/demo-map-$a-full.html  (store full)   $maps/demo-map-$a-emptied.html  (emptied)"
done
