#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# disasm.sh - what `make asm` runs: disassemble functions of a library, one
# file each, to reread the fast paths after a change.
#
# usage: tools/disasm.sh OBJDUMP LIBRARY OUTDIR FUNCTION...
#
# A function is found under its kernel name or, where objdump shows the
# exported alias at that address, as uslab_NAME; its out-of-line part
# (NAME.cold, which the compiler splits off) follows it in the same file.
set -uo pipefail
objdump="$1" lib="$2" out="$3"
shift 3
mkdir -p "$out"

# disasm SYMBOL: the instructions of SYMBOL, or nothing.
disasm() {
	"$objdump" -d -l --no-show-raw-insn --disassemble="$1" "$lib" |
		awk '/^[0-9a-f]+ <.*>:$/ { on = 1 } on'
}

for f in "$@"; do
	file="$out/$f.s"
	body=$(disasm "$f")
	[ -n "$body" ] || body=$(disasm "uslab_$f")
	if [ -z "$body" ]; then
		echo "  $f: not found in $lib"
		continue
	fi
	cold=$(disasm "$f.cold")
	printf '%s\n%s\n' "$body" "$cold" >"$file"
	n=$(grep -cE '^ +[0-9a-f]+:' <<<"$body")
	c=$(grep -cE '^ +[0-9a-f]+:' <<<"$cold")
	echo "  $f: $n instructions${cold:+ (+$c in $f.cold)} -> $file"
done
