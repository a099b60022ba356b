#!/bin/sh
# CLI test of small things a new user hit (issue 19, CLI and docs):
# - `bagscope help` prints the usage (exit 0); `help CMD` is CMD --help;
# - --start after --end is an error (exit 2) in cat, export, frames, plot;
# - a --start that does not parse names every accepted form;
# - export --topic /nosuch fails (exit 1) and writes nothing.
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BAGSCOPE:-$top/src/bagscope}
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok    $1"; }
bad() { echo "FAIL  $1"; fails=$((fails + 1)); }

"$bin" help </dev/null >"$tmp/out" 2>&1 && grep -q '^usage: bagscope' "$tmp/out" && grep -q '^  export ' "$tmp/out" \
	&& ok "bagscope help prints the usage" || bad "bagscope help: $(head -c 200 "$tmp/out")"
"$bin" help cat </dev/null >"$tmp/out" 2>&1 && grep -q '^usage: bagscope cat' "$tmp/out" \
	&& ok "bagscope help cat is cat --help" || bad "bagscope help cat: $(head -c 200 "$tmp/out")"
for cmd in cat export frames plot; do
	case $cmd in
	export) args="-o $tmp/x.bag" ;;
	frames) args="--topic /cam/rgb8 -o $tmp/frames" ;;
	plot) args="/turtle1/pose.x" ;;
	*) args= ;;
	esac
	# shellcheck disable=SC2086
	b=$bag
	[ $cmd = frames ] && b=$top/tests/data/fixtures/made/images.bag
	"$bin" $cmd --start +5 --end +3 $args "$b" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "--start +5 is after --end +3" "$tmp/err" \
		&& ok "$cmd: --start after --end is an error" || bad "$cmd: --start after --end gave $rc: $(cat "$tmp/err")"
done
"$bin" cat --start yesterday "$bag" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "epoch seconds" "$tmp/err" && grep -q "a date" "$tmp/err" && grep -q "an offset" "$tmp/err" \
	&& grep -q "50%" "$tmp/err" && ok "a bad --start names every accepted form" || bad "bad --start: $rc $(cat "$tmp/err")"
"$bin" export --topic /nosuch -o "$tmp/none.bag" "$bag" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -e "$tmp/none.bag" ] && grep -q "no connection has topic /nosuch" "$tmp/err" \
	&& ok "export --topic /nosuch fails and writes nothing" || bad "export --topic /nosuch: $rc $(cat "$tmp/err")"
[ $fails -eq 0 ]
