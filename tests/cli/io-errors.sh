#!/bin/sh
# make check entry: the byte sources (src/lib/io) report errors through the one
# error object (struct bag_error: code, offset, message) and not through a
# caller's char buffer (the public bag_url_expand() included); and what they
# report still reaches the user: the cause of a file that does not open, and a
# read past the end named with the file and its byte.
B=${BAGSCOPE:-src/bagscope}
S=$(dirname "$0")/../../src/lib/io
fail=0
n=$(grep -c 'size_t errlen' "$S"/*.c "$S"/*.h | awk -F: '{s += $2} END {print s}')
[ "$n" -eq 0 ] || { echo "FAIL: $n caller-buffer error parameters in src/lib/io:"; grep -n 'size_t errlen' "$S"/*.c "$S"/*.h; fail=1; }
grep -q 'struct bag_error \*err);' "$S/source-int.h" || { echo "FAIL: source-int.h ops without struct bag_error"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B" info "$tmp/none.bag" 2> "$tmp/err" >/dev/null
grep -qx "bagscope: $tmp/none.bag: No such file or directory" "$tmp/err" || { echo "FAIL missing file:"; cat "$tmp/err"; fail=1; }
"$B" info /dev/zero 2> "$tmp/err" >/dev/null
grep -qx "bagscope: /dev/zero: not a regular file" "$tmp/err" || { echo "FAIL not regular:"; cat "$tmp/err"; fail=1; }
printf '#ROSBAG V2.0\n' > "$tmp/short.bag"
"$B" info "$tmp/short.bag" 2> "$tmp/err" >/dev/null
grep -q "^bagscope: $tmp/short.bag: at byte 13: " "$tmp/err" || { echo "FAIL short read:"; cat "$tmp/err"; fail=1; }
[ $fail -eq 0 ] && echo "io-errors.sh: ok"
exit $fail
