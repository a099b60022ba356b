#!/bin/sh
# make check entry: `bagscope check` exit statuses and finding lines on the fixtures.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
fail=0
for f in "$D"/bags/*.bag "$D"/foreign/rosbag.js/example*.bag; do
	out=$("$B" check "$f") || { echo "FAIL clean bag $f: $out"; fail=1; }
	"$B" check --quick "$f" >/dev/null || { echo "FAIL quick $f"; fail=1; }
done
out=$("$B" check "$D"/broken/truncated_bz2.bag); rc=$?
[ $rc -eq 1 ] || { echo "FAIL truncated_bz2: exit $rc"; fail=1; }
echo "$out" | grep -q "at byte 7935: lost up to byte 8334" || { echo "FAIL truncated_bz2: $out"; fail=1; }
echo "$out" | tail -n 1 | grep -q "7 messages read and decoded: 3 problems" || { echo "FAIL summary: $out"; fail=1; }
"$B" check "$D"/broken/not_a_bag.bag >/dev/null; [ $? -eq 1 ] || { echo "FAIL not_a_bag"; fail=1; }
"$B" check >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL usage"; fail=1; }
[ $fail -eq 0 ] && echo "check.sh: ok"
exit $fail
