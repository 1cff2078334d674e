#!/bin/bash
# SPDX-License-Identifier: MIT
# redis.sh [REQUESTS] - redis-server under the malloc being measured (the
# LD_PRELOAD this script was started with), driven on 127.0.0.1 by
# redis-benchmark, which runs on glibc's malloc like every other helper
# here, so that only the server's malloc differs between rows.  REQUESTS
# per test (default 20000), random keys over a keyspace of 100000, so the
# server's data grows.  Prints "RESULT bench_wall_s" (the benchmark alone,
# not the server's start and stop) and "RESULT server_rss_kib" (the
# server's VmHWM, read before it shuts down).
set -u
requests=${1:-20000}
preload=${LD_PRELOAD:-}
unset LD_PRELOAD
dir=$(mktemp -d) || exit 1
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
now_ns() { date +%s%N; }

for attempt in 1 2 3; do
	port=$(free_port) || exit 1
	LD_PRELOAD=$preload redis-server --bind 127.0.0.1 --port "$port" --save '' \
		--appendonly no --daemonize no --dir "$dir" --logfile "$dir/log" &
	pid=$!
	for _ in $(seq 1 250); do
		redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG && break 2
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	pid=
done
[ -n "$pid" ] || { cat "$dir/log" >&2; echo "redis.sh: redis-server did not start" >&2; exit 1; }

t0=$(now_ns)
redis-benchmark -h 127.0.0.1 -p "$port" -n "$requests" -c 20 -r 100000 -q \
	-t set,get,incr,lpush,lpop,sadd,hset,lrange_100 > "$dir/bench.out" 2>&1 ||
	{ cat "$dir/bench.out" >&2; exit 1; }
t1=$(now_ns)
grep -q 'requests per second' "$dir/bench.out" ||
	{ cat "$dir/bench.out" >&2; echo "redis.sh: no result from redis-benchmark" >&2; exit 1; }
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1
wait "$pid"
status=$?
pid=
[ "$status" = 0 ] || { tail -5 "$dir/log" >&2; echo "redis.sh: redis-server exited with $status" >&2; exit 1; }
echo "RESULT bench_wall_s $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') s"
echo "RESULT server_rss_kib $hwm KiB"
