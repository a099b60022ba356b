#!/bin/sh
# resources.sh - every subcommand, and the code `gen` writes, on the hostile
# inputs of issue 18 (made by tests/tools/write-bounds) under `ulimit -v
# 2000000` (2 GB of address space) and a time bound each:
#   nested.bag    `Mid[] m`, Mid = `Empty[65536] e`: 2^32 elements in 4 bytes
#                 (nestedz.bag: the same with `uint8[0] z` in Empty, for a [*] path)
#   tree.bag      24 levels of two empty-ish fields each: 2^24 messages in 0 bytes
#   bigdef.bag    one message whose definition has 40,000 types
#   conns.bag     100,000 connections, each on its own topic (50 MB); 10,000
#                 against a sanitized library, whose shadow memory no
#                 `ulimit -v` holds: the sizes that show a quadratic path in
#                 time and memory are run as built, the same commands on a
#                 tenth of them under ASan for memory errors
# A run passes when it ends by itself (exit 0, 1 or 2, no signal) inside
# its bound. The bounds are wide (the machine may be loaded): what they
# catch is the quadratic or exponential path (minutes, or the 2 GB limit),
# not a slow machine; each line gives the run's time and peak memory (with
# /usr/bin/time). On the hostile messages, cat, check and the generated
# dump must also say the message does not decode.
# Environment: BAGSCOPE, BUILDDIR (write-bounds), SRCDIR.
BUILDDIR=${BUILDDIR:-$(pwd)}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${BAGSCOPE:-$BUILDDIR/src/bagscope}
W=$BUILDDIR/tests/tools/write-bounds
. "$SRCDIR/tests/tools/sanitized.sh"
SAN_VLIMIT=${SAN_VLIMIT:-2000000}
NCONNS=100000
[ -z "$SAN_PRELOAD" ] || NCONNS=10000
[ -x "$W" ] || { echo "write-bounds not built: skipped"; exit 77; }
# on a tmpfs where one has room: gen's 100,000 files (400 MB there) took 5.8 s
# of the kernel's time on ext4, 0.9 s on tmpfs
shm=
[ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -gt 1500000 ] 2>/dev/null && shm=/dev/shm
dir=$(mktemp -d ${shm:+-p "$shm"}) || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s\n' "$1"; }

"$W" nested "$dir/nested.bag" && "$W" tree "$dir/tree.bag" && "$W" bigdef "$dir/bigdef.bag" 40000 &&
	"$W" conns "$dir/conns.bag" "$NCONNS" || { echo "FAIL  write-bounds"; exit 1; }

# bounded SECONDS NAME CMD...: CMD ends by itself within SECONDS under 2 GB of address space
bounded() {
	secs=$1 what=$2
	shift 2
	: >"$dir/time"
	if [ -x /usr/bin/time ]; then
		(ulimit -v "$SAN_VLIMIT" && LD_PRELOAD=$SAN_PRELOAD exec /usr/bin/time -o "$dir/time" -f ', %e s, %U s user, %M KB' \
			timeout -s KILL "$secs" "$@") >"$dir/out" 2>"$dir/err"
	else
		(ulimit -v "$SAN_VLIMIT" && LD_PRELOAD=$SAN_PRELOAD exec timeout -s KILL "$secs" "$@") >"$dir/out" 2>"$dir/err"
	fi
	rc=$?
	if [ $rc -le 2 ]; then
		ok "$what (exit $rc$(tail -n 1 "$dir/time"))"
	else
		fail "$what: exit $rc (124/137: over ${secs}s; else a signal or no memory)"
		head -c 600 "$dir/err" | sed 's/^/      | /'
	fi
}

for bag in nested tree bigdef; do
	f=$dir/$bag.bag
	for cmd in "info" "info --freq" "defs" "defs --tree" "check" "check --quick" "stats" \
	           "cat" "cat --format json" "cat --format csv" "cat --format hex" "cat --count"; do
		# shellcheck disable=SC2086
		bounded 20 "$bag: $cmd" "$B" $cmd "$f"
	done
	bounded 20 "$bag: cat --filter" "$B" cat --count --filter 'len(m) > 0 || $topic =~ "^/"' "$f"
	bounded 20 "$bag: plot" "$B" plot --csv --width 40 "/n.m[0]" "/t.a" "/d.v0" "$f"
	bounded 20 "$bag: export" "$B" export --force -o "$dir/out-$bag.bag" "$f"
	bounded 20 "$bag: frames" "$B" frames --topic /n -o "$dir/frames-$bag" "$f"
	rm -rf "$dir/gen-$bag"
	bounded 60 "$bag: gen" "$B" gen --lang c -o "$dir/gen-$bag" "$f"
done

# the hostile messages do not decode, with one line saying why
"$B" cat "$dir/nested.bag" >"$dir/out" 2>"$dir/err"
grep -q "expands to more than 65600 elements" "$dir/err" && [ "$(wc -l <"$dir/err")" -eq 1 ] &&
	ok "cat: nested does not decode, in one line" || { fail "cat: nested"; cat "$dir/err"; }
# a [*] path through them binds each element once, within the same budget
"$W" nestedz "$dir/nestedz.bag" || fail "write-bounds nestedz"
bounded 20 "nestedz: cat --filter 'm[*].e[*].z[*] == 1'" "$B" cat --count --filter 'm[*].e[*].z[*] == 1' "$dir/nestedz.bag"
grep -q "so the filter cannot test it" "$dir/err" && ok "  the filter cannot test it, saying so" ||
	{ fail "  nestedz filter: $(cat "$dir/err")"; }
"$B" check "$dir/tree.bag" >"$dir/out" 2>&1
grep -q "expands to more than 65536 elements" "$dir/out" && ok "check: tree does not decode" ||
	{ fail "check: tree"; cat "$dir/out"; }
"$B" cat --count "$dir/bigdef.bag" >"$dir/out" 2>&1 && [ "$(cat "$dir/out")" = 1 ] &&
	ok "bigdef: its one message decodes" || fail "bigdef: $(cat "$dir/out")"

# the generated C and C++ dump on the nested message, built once each (the
# library's own include and lib directories, as the generated Makefile's
# pkg-config would give them)
if command -v cc >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1; then
	inc="-I$SRCDIR/include -I$BUILDDIR/include"
	lib="-L$BUILDDIR/.libs -lbagscope -Wl,-rpath,$BUILDDIR/.libs"
	for lang in c cpp; do
		g=$dir/gen-$lang
		"$B" gen --lang $lang -o "$g" "$dir/nested.bag" 2>/dev/null
		if [ $lang = c ]; then
			# shellcheck disable=SC2086
			cc -std=c11 -O1 $inc -o "$g/dump" "$g/dump.c" "$g/msgs.c" $lib 2>"$dir/err"
		else
			# shellcheck disable=SC2086
			c++ -std=c++17 -O1 $inc -o "$g/dump" "$g/dump.cpp" "$g/msgs.cpp" $lib 2>"$dir/err"
		fi || { fail "gen $lang: build"; head -20 "$dir/err"; continue; }
		bounded 20 "gen $lang: dump on nested" "$g/dump" "$dir/nested.bag"
		grep -q "does not decode" "$dir/err" && [ ! -s "$dir/out" ] && ok "  says it does not decode, prints nothing" ||
			{ fail "  gen $lang dump: $(head -c 300 "$dir/err")"; }
	done
fi

# 100,000 connections (10,000 under ASan): every subcommand linear in them (seconds, not minutes)
c=$dir/conns.bag
for cmd in "info" "defs" "check --quick" "check" "stats" "stats --index" "cat --count"; do
	# shellcheck disable=SC2086
	bounded 60 "$NCONNS connections: $cmd" "$B" $cmd "$c"
done
bounded 60 "$NCONNS connections: cat --filter" "$B" cat --count --filter "data > $((NCONNS - 10))" "$c"
[ "$(cat "$dir/out")" = 9 ] && ok "  9 messages" || fail "  filter count: $(cat "$dir/out")"
bounded 60 "$NCONNS connections: plot" "$B" plot --csv --width 40 /c/5.data "$c"
bounded 90 "$NCONNS connections: export" "$B" export --force -o "$dir/out.bag" "$c"
rm -f "$dir/out.bag"
bounded 120 "$NCONNS connections: gen" "$B" gen --lang c -o "$dir/gen-conns" "$c"
[ "$(ls "$dir/gen-conns" | wc -l)" -eq $((NCONNS + 6)) ] && ok "  a header per topic" ||
	fail "  gen wrote $(ls "$dir/gen-conns" | wc -l) files"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
