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
trap 'for p in "$T"/*.pid; do [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null; done; nginx_stop; rm -rf "$T"' EXIT

# bags of many small chunks, so that a read spans many requests
mkdir -p "$T/www"
src=$SRCDIR/tests/data/fixtures/foreign/rosbag.js/example.bag
for c in none lz4 bz2; do
	"$B" export --compression $c --chunk-size 8K -o "$T/www/$c.bag" "$src" || { echo "FAIL  making $c.bag"; exit 1; }
done
"$B" export --compression lz4 --chunk-size 16K -o "$T/www/other.bag" "$src"
nginx_start "$T/www" "$T/nginx"

# run ID OPTIONS...: start a proxy with these faults for mode ID, port in $T/ID.port
proxy() {
	id=$1
	shift
	python3 "$SRCDIR/tests/tools/faultproxy.py" "http://127.0.0.1:$NGINX_PORT" "$T/$id.port" "$@" 2>"$T/$id.proxy.log" &
	echo $! >"$T/$id.pid"
	for _ in $(seq 100); do [ -f "$T/$id.port" ] && break; sleep 0.05; done
	P=http://127.0.0.1:$(cat "$T/$id.port")
}
stop() { kill "$(cat "$T/$1.pid")" 2>/dev/null; }

# check MODE MUST_PASS CMD...: through the proxy against local, on every bag;
# ok/FAIL lines to stdout, the local and remote outputs in $T/$id.*
check() {
	mode=$1 must=$2
	shift 2
	for c in none lz4 bz2; do
		"$B" "$@" "$T/www/$c.bag" >"$T/$id.l.out" 2>/dev/null; lrc=$?
		sed -i "s|$T/www/|URL/|g" "$T/$id.l.out"
		"$B" "$@" "$P/$c.bag" >"$T/$id.r.out" 2>"$T/$id.r.err"; rrc=$?
		sed -i "s|$P/|URL/|g" "$T/$id.r.out"
		name="$mode: $* $c.bag"
		if [ $lrc -eq $rrc ] && cmp -s "$T/$id.l.out" "$T/$id.r.out"; then
			echo "ok    $name: identical"
		elif [ "$must" = pass ]; then
			echo "FAIL  $name"
			{ echo "exit $lrc local, $rrc remote"; cat "$T/$id.r.err"; tail -3 "$T/$id.proxy.log"; } | sed 's/^/      /' | head -8
		elif [ $rrc -ne 0 ] && [ "$(wc -l <"$T/$id.r.err")" -eq 1 ] && grep -q "$P/$c.bag" "$T/$id.r.err" &&
		     [ "$(head -c "$(wc -c <"$T/$id.r.out")" "$T/$id.l.out" | cmp - "$T/$id.r.out" >/dev/null 2>&1; echo $?)" = 0 ]; then
			echo "ok    $name: one line: $(cat "$T/$id.r.err")"
		else
			echo "FAIL  $name"
			{ echo "exit $lrc local, $rrc remote"; cat "$T/$id.r.err"; cmp "$T/$id.l.out" "$T/$id.r.out"; } | sed 's/^/      /' | head -8
		fi
	done
}
# mode ID NAME OPTIONS...: every command through a proxy with these faults, all must pass
mode() {
	id=$1 faults=$2
	shift 2
	proxy "$id" "$@"
	for cmd in info "cat --format json" check stats; do
		# shellcheck disable=SC2086
		check "$faults" pass $cmd
	done
	stop "$id"
}

# the modes run side by side (each its own proxy), their lines printed in order
jobs=
mode d "delay 20 ms" --delay 20 >"$T/d.res" & jobs="$jobs $!"
mode b "4 MB/s" --bandwidth 4000000 >"$T/b.res" & jobs="$jobs $!"
mode r "reset mid-body every 2nd" --reset-every 2 >"$T/r.res" & jobs="$jobs $!"
mode f "503 every 2nd" --fail-every 2 >"$T/f.res" & jobs="$jobs $!"
mode m "503s, resets and delay" --fail-every 3 --reset-every 4 --delay 5 >"$T/m.res" & jobs="$jobs $!"
{
	proxy i --ignore-range
	check "Range ignored" fail info
	if grep -q "ignores Range" "$T/i.r.err"; then echo "ok    Range ignored: says so"; else echo "FAIL  Range ignored: says so"; cat "$T/i.r.err"; fi
	stop i
	# replaced after the first requests: the open sees one object, later reads another
	proxy x --replace-after 2 --replacement /other.bag
	check "replaced mid-read" fail cat --format json
	stop x
	proxy y --replace-after 2 --replacement /other.bag
	"$B" cat --format json "$P/none.bag" >/dev/null 2>"$T/y.r.err"
	if grep -q "changed while being read" "$T/y.r.err"; then echo "ok    replaced mid-read: says so"; else echo "FAIL  replaced mid-read: says so"; cat "$T/y.r.err"; fi
	stop y
} >"$T/i.res" & jobs="$jobs $!"
# (not a bare wait: nginx is a child of this shell too)
# shellcheck disable=SC2086
wait $jobs
for id in d b r f m i; do cat "$T/$id.res"; done
passed=$(cat "$T"/*.res | grep -c '^ok')
failed=$(cat "$T"/*.res | grep -c '^FAIL')
[ "$passed" -gt 60 ] || { echo "FAIL  only $passed checks ran"; failed=$((failed + 1)); }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
