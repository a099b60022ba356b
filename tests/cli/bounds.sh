#!/bin/sh
# bounds.sh - issue 18's findings that show on the command line, on bags
# from tests/tools/write-bounds:
#  - a negative duration (secs -1, nsecs -5) is -1.000000005 s in cat (json,
#    yaml, csv), filters, plot and the generated dump, as rosbag's Python
#    reader (genpy) reads it: to_nsec() == -1000000005;
#  - bidirectional controls (U+202E, U+2066, U+200F) in a topic and a string
#    never reach the terminal raw: escaped as \u202e ... by info, defs, cat,
#    while --format json keeps the exact text (json.loads gives it back).
# Environment: BAGSCOPE, BUILDDIR, SRCDIR.
BUILDDIR=${BUILDDIR:-$(pwd)}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRCDIR/tests/tools/sanitized.sh"
B=${BAGSCOPE:-$BUILDDIR/src/bagscope}
W=$BUILDDIR/tests/tools/write-bounds
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
[ -x "$W" ] || { echo "write-bounds not built: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s\n' "$1"; }
# same NAME GOT WANT
same() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi; }

"$W" duration "$dir/dur.bag" && "$W" bidi "$dir/bidi.bag" || { echo "FAIL  write-bounds"; exit 1; }

# ---- negative durations ----------------------------------------------------------
if $PY "$SRCDIR/tests/tools/has-modules.py" rosbag 2>/dev/null; then
	want=$($PY -c '
import rosbag, sys
for _, m, _ in rosbag.Bag(sys.argv[1]).read_messages():
    print(m.data.to_nsec())' "$dir/dur.bag")
	same "genpy reads the duration as -1000000005 ns" "$want" -1000000005
else
	echo "rosbag's Python reader not installed: comparing with the stored value"
	want=-1000000005
fi
got=$("$B" cat --format json "$dir/dur.bag" | $PY -c '
import json, sys
d = json.loads(sys.stdin.readline())["msg"]["data"]
print(d["secs"] * 1000000000 + d["nsecs"], d["secs"], d["nsecs"])')
same "cat json: the fields as stored, signed" "$got" "$want -1 -5"
same "cat yaml" "$("$B" cat "$dir/dur.bag" | tr -s ' \n' ' ')" "data: secs: -1 nsecs: -5 --- "
same "cat csv: nanoseconds" "$("$B" cat --format csv "$dir/dur.bag" | tail -1 | cut -d, -f2)" "$want"
same "filter: data == -1.000000005" "$("$B" cat --count --filter 'data == -1.000000005' "$dir/dur.bag")" 1
same "filter: data.nsecs == -5" "$("$B" cat --count --filter 'data.nsecs == -5 && data.secs == -1' "$dir/dur.bag")" 1
same "filter: data > -1" "$("$B" cat --count --filter 'data > -1' "$dir/dur.bag")" 0
same "plot: the value" "$("$B" plot --csv --width 1 /dur.data "$dir/dur.bag" | cut -d, -f6,7)" "-1.000000005,-1.000000005"
if command -v cc >/dev/null 2>&1; then
	g=$dir/gen
	"$B" gen --lang c -o "$g" "$dir/dur.bag" &&
		cc -std=c11 -I"$SRCDIR/include" -I"$BUILDDIR/include" -o "$g/dump" "$g/dump.c" "$g/msgs.c" \
		   -L"$BUILDDIR/.libs" -lbagscope -Wl,-rpath,"$BUILDDIR/.libs" 2>"$dir/err" ||
		{ fail "gen: build"; head "$dir/err"; }
	[ -x "$g/dump" ] && same "gen: dump prints what cat --format json prints" "$(LD_PRELOAD=$SAN_PRELOAD "$g/dump" "$dir/dur.bag")" \
		"$("$B" cat --format json "$dir/dur.bag")"
fi

# ---- fixed arrays: a 16 MiB one works at -O0 (no temporary of its size on the
# stack), a 4 GiB one is refused by gen (GEN_MAX_MESSAGE_BYTES), not built into 4 GiB structs
"$W" bigarray "$dir/big16m.bag" 16777216 && "$W" bigarray "$dir/big4g.bag" 4294967295 || fail "write-bounds bigarray"
if command -v c++ >/dev/null 2>&1; then
	g=$dir/gen16
	"$B" gen --lang cpp -o "$g" "$dir/big16m.bag" &&
		c++ -std=c++17 -O0 -I"$SRCDIR/include" -I"$BUILDDIR/include" -o "$g/dump" "$g/dump.cpp" "$g/msgs.cpp" \
		    -L"$BUILDDIR/.libs" -lbagscope -Wl,-rpath,"$BUILDDIR/.libs" 2>"$dir/err" ||
		{ fail "gen cpp 16 MiB: build"; head "$dir/err"; }
	[ -x "$g/dump" ] && same "gen cpp -O0: a 16 MiB fixed array dumps as cat prints it" \
		"$(LD_PRELOAD=$SAN_PRELOAD "$g/dump" "$dir/big16m.bag" | cksum)" "$("$B" cat --format json "$dir/big16m.bag" | cksum)"
fi
"$B" gen --lang c -o "$dir/gen4g" "$dir/big4g.bag" 2>"$dir/err"
same "gen: a 4 GiB fixed array is left out (exit 1)" "$?" 1
grep -q "would take 4294967296 bytes in memory (fixed arrays), more than gen's 268435456: left out" "$dir/err" &&
	ok "  saying why" || fail "  message: $(cat "$dir/err")"
grep -q "b__Big" "$dir/gen4g/msgs.h" && fail "  yet it was generated" || ok "  not in msgs.h"

# ---- bidirectional controls ------------------------------------------------------------
# raw FILE: the bidirectional controls in FILE, as code points ("" when none)
raw() {
	$PY -c '
import sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
print(" ".join("U+%04X" % ord(c) for c in t if ord(c) in (0x61C, 0x200E, 0x200F) or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069))' "$1"
}
for cmd in "info" "info --json" "defs" "defs --tree" "check" "stats" "cat" "cat --format csv" "cat --format hex"; do
	# shellcheck disable=SC2086
	"$B" $cmd "$dir/bidi.bag" >"$dir/out" 2>&1
	same "$cmd: no raw bidirectional control" "$(raw "$dir/out")" ""
done
"$B" info "$dir/bidi.bag" >"$dir/out" 2>&1
grep -qF '/bidi\u202etxt.exe' "$dir/out" && ok "info: the topic shows its U+202E escaped" ||
	{ fail "info: topic"; cat "$dir/out"; }
"$B" cat --format json "$dir/bidi.bag" >"$dir/out"
same "cat --format json keeps the exact text" "$($PY -c '
import json, sys
m = json.loads(open(sys.argv[1]).readline())
print(ascii(m["topic"]), ascii(m["msg"]["data"]))' "$dir/out")" \
	"'/bidi\\u202etxt.exe' 'abc\\u202efed\\u2066x\\u200fend'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
