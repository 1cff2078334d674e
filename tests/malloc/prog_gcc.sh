#!/bin/bash
# SPDX-License-Identifier: MIT
# gcc (cc1, as and ld all under the drop-in) compiles a large generated C
# file at -O2.  The object file must be byte-identical to the one built
# under glibc's malloc, and the program must print the expected sum.
. "$(dirname "$0")/lib.sh"
need gcc gcc
nf=1200
awk -v nf=$nf 'BEGIN {
	print "#include <stdio.h>"
	for (i = 0; i < nf; i++) {
		printf "static const int tab%d[] = {", i
		for (k = 0; k < 16; k++) printf "%d,", (i * 31 + k * 17) % 1000
		print "};"
		printf "long f%d(long x) {\n  long s = 0;\n  for (int k = 0; k < 16; k++) {\n", i
		printf "    switch ((x + k) %% 4) {\n"
		printf "    case 0: s += tab%d[k] * x; break;\n", i
		printf "    case 1: s -= tab%d[k]; break;\n", i
		printf "    case 2: s ^= tab%d[k] << 3; break;\n", i
		printf "    default: s += k * %d; }\n  }\n  return s;\n}\n", i
	}
	print "int main(void) {\n  long t = 0;"
	for (i = 0; i < nf; i++) printf "  t += f%d(%d);\n", i, i % 13
	print "  printf(\"%ld\\n\", t);\n  return 0;\n}"
}' > big.c
gcc -O2 -c big.c -o glibc.o 2> glibc.err || { cat glibc.err; fail "gcc under glibc"; }
preload gcc -O2 -c big.c -o uslab.o 2> uslab.err || { cat uslab.err; fail "gcc under the drop-in"; }
cmp -s glibc.o uslab.o || fail "gcc: object code differs from the glibc build"
preload gcc -o big uslab.o 2> link.err || { cat link.err; fail "gcc link under the drop-in"; }
./big > big.out || fail "the compiled program failed"
# the same sum, computed from the generator's definition (python's ^ on
# negative numbers is C's on a long; awk's xor refuses them)
want=$(/usr/bin/python3 -c '
nf = '$nf'
tot = 0
for i in range(nf):
    x, s = i % 13, 0
    for k in range(16):
        t, m = (i * 31 + k * 17) % 1000, (x + k) % 4
        if m == 0: s += t * x
        elif m == 1: s -= t
        elif m == 2: s ^= t << 3
        else: s += k * i
    tot += s
print(tot)') || fail "python3 for the expected sum"
[ "$(cat big.out)" = "$want" ] || fail "compiled program printed $(cat big.out), expected $want"
echo "ok: gcc $(wc -l < big.c) lines, sum $want"
