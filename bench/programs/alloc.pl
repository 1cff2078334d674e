# SPDX-License-Identifier: MIT
# An allocation-heavy Perl workload for `make bench`: hashes of arrays built
# and thinned, sorting, regular expressions and string building.
# Deterministic; SCALE (environment) multiplies the work.  Prints one
# checksum line, so that the driver can see the run did its work.
use strict;
use warnings;

my $scale = $ENV{SCALE} // 1;
my $n = int(200000 * $scale) || 1;
my %h;
$h{"k$_" . ("y" x ($_ % 29))} = [$_, "v" x ($_ % 50)] for 1 .. $n;
my $sum = 0;
$sum += $_->[0] for values %h;
die "sum $sum" unless $sum == $n * ($n + 1) / 2;
delete $h{"k$_" . ("y" x ($_ % 29))} for grep { $_ % 3 == 0 } 1 .. $n;
my @words = map { sprintf("w%07d", ($_ * 7919) % 1000003) } 1 .. int(150000 * $scale) || 1;
my @sorted = sort @words;
my $joined = join(",", @sorted[0 .. ($#sorted < 999 ? $#sorted : 999)]);
my $count = () = $joined =~ /w00\d{5}/g;
my $s = "";
$s .= chr(65 + $_ % 26) x ($_ % 100) for 1 .. int(20000 * $scale) || 1;
(my $t = $s) =~ s/([AEIOU])+/lc($1)/ge;
printf "perl %d %d %d %s\n", scalar(keys %h), $count, length($s), substr($t, 0, 20);
