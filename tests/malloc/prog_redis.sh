#!/bin/bash
# SPDX-License-Identifier: MIT
# redis-server under the drop-in, on 127.0.0.1 and a free port, driven by
# redis-benchmark for a fixed number of requests; then data written through
# redis-cli must read back, and the server must shut down cleanly.
. "$(dirname "$0")/lib.sh"
need redis-server redis-server
need redis-benchmark redis-tools
need redis-cli redis-tools
requests=20000
host=127.0.0.1
pid=
stop_server() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	pid=
}
trap stop_server EXIT

for attempt in 1 2 3; do
	port=$(free_port) || fail "no free port"
	# not through the preload function: $! must be the server itself
	LD_PRELOAD="$MALLOC_LIB" redis-server --bind $host --port "$port" --save '' --appendonly no \
		--daemonize no --dir "$WORK" --logfile "$WORK/redis.log" &
	pid=$!
	for _ in $(seq 1 100); do
		redis-cli -h $host -p "$port" ping 2>/dev/null | grep -q PONG && break 2
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	stop_server
done
[ -n "$pid" ] || { cat "$WORK/redis.log"; fail "redis-server did not start"; }
grep -q libuslab-malloc- "/proc/$pid/maps" || fail "redis-server does not have the drop-in mapped"

preload redis-benchmark -h $host -p "$port" -n $requests -c 20 -q \
	-t set,get,incr,lpush,lpop,sadd,hset,lrange_100 > bench.out 2>&1 ||
	{ cat bench.out; fail "redis-benchmark"; }
grep -q 'requests per second' bench.out || { cat bench.out; fail "redis-benchmark printed no result"; }
for i in $(seq 1 200); do
	printf 'SET key:%d %s\n' "$i" "$(printf 'v%.0s' $(seq 1 $((i % 50 + 1))))"
done | redis-cli -h $host -p "$port" > set.out || fail "redis-cli SET"
[ "$(grep -c '^OK$' set.out)" = 200 ] || fail "redis: not every SET succeeded"
got=$(redis-cli -h $host -p "$port" GET key:77)
[ "$got" = "$(printf 'v%.0s' $(seq 1 28))" ] || fail "redis: GET key:77 returned '$got'"
redis-cli -h $host -p "$port" shutdown nosave > /dev/null 2>&1
wait "$pid"
status=$?
pid=
grep -qi 'bye\|ready to exit' "$WORK/redis.log" || { tail -5 "$WORK/redis.log"; fail "redis-server did not shut down cleanly"; }
[ $status = 0 ] || fail "redis-server exited with status $status"
echo "ok: redis $(tr '\n' ' ' < bench.out | tr -s ' ' | cut -c1-150)"
