#!/bin/bash
# SPDX-License-Identifier: MIT
# sqlite3: create a table, insert 100k rows, index and query it; the answers
# are checked against values computed here independently.
. "$(dirname "$0")/lib.sh"
need sqlite3 sqlite3
n=100000
preload sqlite3 db.sqlite > uslab.out 2>&1 <<SQL || { cat uslab.out; fail "sqlite3 under the drop-in"; }
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v INTEGER, pad BLOB);
BEGIN;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $n)
INSERT INTO t SELECT x, printf('row-%06d', x), (x * 7) % 1000, zeroblob(x % 300) FROM c;
COMMIT;
CREATE INDEX t_v ON t(v);
SELECT count(*), sum(id), sum(v), min(name), max(name), sum(length(pad)) FROM t;
SELECT count(*) FROM t WHERE v = 999;
DELETE FROM t WHERE id % 2 = 0;
VACUUM;
SELECT count(*), sum(id) FROM t;
PRAGMA integrity_check;
SQL
# why %.0f for the sums past 2^31: mawk's %d stops at 2147483647
want=$(awk -v n=$n 'BEGIN {
	for (x = 1; x <= n; x++) { s += x; v += (x * 7) % 1000; p += x % 300; if ((x * 7) % 1000 == 999) c++; if (x % 2) o += x }
	printf "%d|%.0f|%d|row-%06d|row-%06d|%d\n%d\n%d|%.0f\nok\n", n, s, v, 1, n, p, c, n / 2, o }')
[ "$(cat uslab.out)" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$(cat uslab.out)" "$want"; fail "sqlite3 answers"; }
echo "ok: sqlite3 $(head -1 uslab.out)"
