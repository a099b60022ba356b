#!/bin/sh
# Bags read through a fault-injecting proxy (tests/tools/faultproxy.py) in
# front of Debian's nginx, both on 127.0.0.1: delay, bandwidth limits,
# connections reset mid-body, 503s, a server that ignores Range, an object
# replaced mid-read. Every command's output is byte-identical to the local
# run, or the command fails with one clear line naming the URL (and what it
# printed before is a prefix of the local output): never wrong output.
# Environment: BAGSCOPE, SRCDIR.
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
. "$SRCDIR/tests/tools/nginx.sh"
T=$(mktemp -d) && chmod 755 "$T" || exit 1   # nginx workers run as another user
PROXY=
trap '[ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null; nginx_stop; rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/why" 2>/dev/null | head -8; }

# bags of many small chunks, so that a read spans many requests
mkdir -p "$T/www"
src=$SRCDIR/tests/data/fixtures/foreign/rosbag.js/example.bag
for c in none lz4 bz2; do
	"$B" export --compression $c --chunk-size 8K -o "$T/www/$c.bag" "$src" 2>"$T/why" || { bad "making $c.bag"; exit 1; }
done
"$B" export --compression lz4 --chunk-size 16K -o "$T/www/other.bag" "$src" 2>"$T/why"
nginx_start "$T/www" "$T/nginx"

# proxy NAME OPTIONS...: restart the proxy with these faults
proxy() {
	[ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null && wait "$PROXY" 2>/dev/null
	rm -f "$T/port"
	python3 "$SRCDIR/tests/tools/faultproxy.py" "http://127.0.0.1:$NGINX_PORT" "$T/port" "$@" 2>"$T/proxy.log" &
	PROXY=$!
	for _ in $(seq 100); do [ -f "$T/port" ] && break; sleep 0.05; done
	P=http://127.0.0.1:$(cat "$T/port")
}

# check MODE MUST_PASS CMD...: through the proxy against local, on every bag
check() {
	mode=$1 must=$2
	shift 2
	for c in none lz4 bz2; do
		"$B" "$@" "$T/www/$c.bag" >"$T/l.out" 2>/dev/null; lrc=$?
		sed -i "s|$T/www/|URL/|g" "$T/l.out"
		"$B" "$@" "$P/$c.bag" >"$T/r.out" 2>"$T/r.err"; rrc=$?
		sed -i "s|$P/|URL/|g" "$T/r.out"
		name="$mode: $* $c.bag"
		if [ $lrc -eq $rrc ] && cmp -s "$T/l.out" "$T/r.out"; then
			ok "$name: identical"
		elif [ "$must" = pass ]; then
			{ echo "exit $lrc local, $rrc remote"; cat "$T/r.err"; tail -3 "$T/proxy.log"; } >"$T/why"; bad "$name"
		elif [ $rrc -ne 0 ] && [ "$(wc -l <"$T/r.err")" -eq 1 ] && grep -q "$P/$c.bag" "$T/r.err" &&
		     [ "$(head -c "$(wc -c <"$T/r.out")" "$T/l.out" | cmp - "$T/r.out" >/dev/null 2>&1; echo $?)" = 0 ]; then
			ok "$name: one line: $(cat "$T/r.err")"
		else
			{ echo "exit $lrc local, $rrc remote"; cat "$T/r.err"; cmp "$T/l.out" "$T/r.out"; } >"$T/why"; bad "$name"
		fi
	done
}
commands() {
	mode=$1 must=$2
	check "$mode" "$must" info
	check "$mode" "$must" cat --format json
	check "$mode" "$must" check
	check "$mode" "$must" stats
}

proxy --delay 20;              commands "delay 20 ms" pass
proxy --bandwidth 4000000;     commands "4 MB/s" pass
proxy --reset-every 2;         commands "reset mid-body every 2nd" pass
proxy --fail-every 2;          commands "503 every 2nd" pass
proxy --fail-every 3 --reset-every 4 --delay 5; commands "503s, resets and delay" pass
proxy --ignore-range
check "Range ignored" fail info
if grep -q "ignores Range" "$T/r.err"; then ok "Range ignored: says so"; else cat "$T/r.err" >"$T/why"; bad "Range ignored: says so"; fi
# replaced after the first requests: the open sees one object, later reads another
proxy --replace-after 2 --replacement /other.bag
check "replaced mid-read" fail cat --format json
proxy --replace-after 2 --replacement /other.bag
"$B" cat --format json "$P/none.bag" >/dev/null 2>"$T/r.err"
if grep -q "changed while being read" "$T/r.err"; then ok "replaced mid-read: says so"; else cat "$T/r.err" >"$T/why"; bad "replaced mid-read: says so"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
