#!/bin/sh
# make check entry: tf, log, diag and tf() paths on damaged input never crash
# or hang. 120 mutants of the bags python3-rosbag writes for the robot tests
# (tests/tools/mk-tf-bags.py, mk-robot-bags.py): bytes of message data
# overwritten (lengths, counts, strings, doubles) or the file cut short.
# Every run must end by itself within 20 s with exit 0 or 1 (a bag or a
# message that cannot be read; --every over a span a damaged time stretched
# to more than 10 million rows is refused, exit 2), and a damaged message must be reported,
# not silently dropped, when the command saw one.
B=${BAGSCOPE:-src/bagscope}
SRC=${SRCDIR:-.}
PY=/usr/bin/python3
"$PY" "$SRC/tests/tools/has-modules.py" rosbag tf2_msgs.msg diagnostic_msgs.msg 2>/dev/null || { echo "needs python3-rosbag and the message packages"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SRCDIR=$SRC sh "$SRC/tests/tools/made-bags.sh" mk-tf-bags.py "$tmp" && SRCDIR=$SRC sh "$SRC/tests/tools/made-bags.sh" mk-robot-bags.py "$tmp" || exit 1
fail=0 runs=0 reported=0

# mutants: for each bag, 20 copies (seeds counted from 1 across the bags) with
# 1-12 runs of random bytes in the chunk data, or cut short; made by one Python
# process (a start per mutant cost more than the runs on it)
"$PY" - "$tmp" tf_basic tf_reparent tf_cycle tf_mixed log diag <<'PYEOF' || exit 1
import random, sys
seed = 0
for bag in sys.argv[2:]:
    src = open('%s/%s.bag' % (sys.argv[1], bag), 'rb').read()
    for _ in range(20):
        seed += 1
        rng = random.Random(seed)
        data = bytearray(src)
        start = 4096 if len(data) > 8192 else 13
        if rng.random() < 0.15:
            data = data[:rng.randint(start, len(data) - 1)]
        else:
            for _ in range(rng.randint(1, 12)):
                at = rng.randint(start, len(data) - 8)
                run = rng.choice([1, 2, 4, 8])
                fill = rng.choice([b'\xff', b'\x00', b'\x7f', None])
                for k in range(run):
                    data[at + k] = rng.randint(0, 255) if fill is None else fill[0]
        open('%s/m%d.bag' % (sys.argv[1], seed), 'wb').write(data)
PYEOF

# run NAME CMD...: ends in 20 s with 0 or 1
run() {
	name=$1; shift
	timeout 20 "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	runs=$((runs + 1))
	case $rc in
	0|1) ;;
	2) case "$*" in *--every*) grep -q 'more than 10000000 rows' "$tmp/err" && rc=0 ;; esac
	   [ $rc = 0 ] || { echo "FAIL: $name: exit 2: $*"; fail=1; } ;;
	*) echo "FAIL: $name: exit $rc: $* ($(head -c 300 "$tmp/err"))"; fail=1; cp "$m" "$tmp/../robot-hostile-$seed.bag" 2>/dev/null ;;
	esac
	[ -s "$tmp/err" ] && grep -q 'could not be read\|does not parse\|messages that do not parse' "$tmp/err" && reported=$((reported + 1))
	return 0
}

seed=0
for bag in tf_basic tf_reparent tf_cycle tf_mixed log diag; do
	for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		seed=$((seed + 1))
		m=$tmp/m$seed.bag
		case $bag in
		tf_*)
			run "tf $seed" "$B" tf "$m"
			run "tf --json $seed" "$B" tf --json "$m"
			run "lookup $seed" "$B" tf --lookup map odom --at 0 --at 1500000000.3 "$m"
			run "every $seed" "$B" tf --lookup map base_link --every 0.05 "$m"
			run "plot tf() $seed" "$B" plot --csv --width 7 'tf(map,base_link).yaw' "$m" ;;
		log)
			run "log $seed" "$B" log "$m"
			run "log json $seed" "$B" log --format json --level warn --node o "$m"
			run "log summary $seed" "$B" log --summary "$m" ;;
		diag)
			run "diag $seed" "$B" diag "$m"
			run "diag json $seed" "$B" diag --json --name motor "$m" ;;
		esac
	done
done
echo "$runs runs on 120 mutants, $reported of them reported damaged messages"
[ "$reported" -gt 10 ] || { echo "FAIL: too few runs met a damaged message ($reported): the mutants miss the message data"; fail=1; }
exit $fail
