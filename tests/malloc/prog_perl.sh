#!/bin/bash
# SPDX-License-Identifier: MIT
# perl: hashes, arrays, regular expressions, sorting and string building,
# with known answers; the output matches the run under glibc's malloc.
. "$(dirname "$0")/lib.sh"
need perl perl
cat > work.pl <<'PERL'
use strict; use warnings;
my %h; my $n = 200000;
$h{"k$_" . ("y" x ($_ % 29))} = [$_, "v" x ($_ % 50)] for 1 .. $n;
my $sum = 0; $sum += $_->[0] for values %h;
die "sum $sum" unless $sum == $n * ($n + 1) / 2;
delete $h{"k$_" . ("y" x ($_ % 29))} for grep { $_ % 3 == 0 } 1 .. $n;
my @words = map { sprintf("w%07d", ($_ * 7919) % 1000003) } 1 .. 150000;
my @sorted = sort @words;
my $joined = join(",", @sorted[0 .. 999]);
my $count = () = $joined =~ /w00\d{5}/g;
my $s = ""; $s .= chr(65 + $_ % 26) x ($_ % 100) for 1 .. 20000;
(my $t = $s) =~ s/([AEIOU])+/lc($1)/ge;
printf "%d %d %d %s %d\n", scalar(keys %h), $count, length($s), substr($t, 0, 40), length($joined);
PERL
perl work.pl > glibc.out 2>&1 || { cat glibc.out; fail "perl under glibc"; }
preload perl work.pl > uslab.out 2>&1 || { cat uslab.out; fail "perl under the drop-in"; }
same_output perl glibc.out uslab.out
read -r keys _ < uslab.out
[ "$keys" = 133334 ] || fail "perl: $keys keys left, expected 133334"
echo "ok: perl $(cat uslab.out)"
