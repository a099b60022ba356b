#!/bin/sh
# Remote scans read what they need, ahead of the workers. A bag of about
# 100 chunks (Debian's python3-rosbag) served by Debian's nginx on
# 127.0.0.1, counted in nginx's access log:
#  - export of a 10 % time window: the same bytes as from the local file,
#    and at most 12 % of the file transferred besides the fixed 400 KiB of
#    opening (the window's chunks and their index, not every index region
#    nor read-ahead past its end);
#  - cat --count through tests/tools/faultproxy.py (50 ms per answer): the
#    local count, each byte fetched about once, and the chunks fetched in the
#    background while the workers decode (several requests in flight).
# Skipped (77) without python3-rosbag.
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 "$SRCDIR/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "python3-rosbag not installed: skipped"; exit 77; }
. "$SRCDIR/tests/tools/nginx.sh"
T=$(mktemp -d) && chmod 755 "$T" || exit 1   # nginx workers run as another user
PROXY=
trap 'nginx_stop; [ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null; rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/why" 2>/dev/null | head -8; }

mkdir -p "$T/www"
sh "$SRCDIR/tests/tools/made-bags.sh" mk-window-bag.py "$T/www" || exit 1
F=$T/www/w.bag
size=$(wc -c <"$F")
nginx_start "$T/www" "$T/nginx"
U=http://127.0.0.1:$NGINX_PORT/w.bag
logged() { sleep 0.3; awk '/w\.bag/ {n++; s += $4} END {printf "%d %d\n", n, s}' "$NGINX_LOG"; }

# a 10 % time window (the bag spans 1000 s)
"$B" export --start +450 --end +550 -o "$T/l.bag" "$F" 2>"$T/why"
: >"$NGINX_LOG"
"$B" export --start +450 --end +550 -o "$T/r.bag" "$U" 2>>"$T/why"
set -- $(logged)
# opening costs a fixed 400 KiB (the first 16 KiB and the last 384 KiB, fetched
# at once), a few % of this small bag; the rest is what the window reads
if cmp "$T/l.bag" "$T/r.bag" >>"$T/why" 2>&1 && [ $((($2 - 409600) * 100)) -le $((size * 12)) ]; then
	ok "export of a 10 % window: identical, $1 requests, $2 of $size bytes"
else
	echo "$1 requests, $2 of $size bytes" >>"$T/why"; bad "export of a 10 % window: $2 of $size bytes (at most 12 % + 400 KiB)"
fi

python3 "$SRCDIR/tests/tools/faultproxy.py" "http://127.0.0.1:$NGINX_PORT" "$T/port" --delay 50 2>"$T/proxy.log" &
PROXY=$!
for _ in $(seq 200); do [ -f "$T/port" ] && break; sleep 0.05; done
"$B" cat --count "$F" >"$T/l.out" 2>&1
: >"$NGINX_LOG"
"$B" cat --count "http://127.0.0.1:$(cat "$T/port")/w.bag" >"$T/r.out" 2>&1
set -- $(logged)
most=$(sed -n 's/.*inflight=//p' "$T/proxy.log" | sort -n | tail -1)
if cmp -s "$T/l.out" "$T/r.out" && [ "$2" -le $((size + size / 50)) ] && [ "${most:-0}" -ge 3 ]; then
	ok "cat --count: the local count, $2 of $size bytes in $1 requests, up to $most at once"
else
	{ echo "$1 requests, $2 of $size bytes, up to ${most:-0} at once"; diff "$T/l.out" "$T/r.out"; } >"$T/why"
	bad "cat --count: fetched ahead, once"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
