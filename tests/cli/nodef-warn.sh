#!/bin/sh
# CLI test: one missing definition is one warning. A 1.1 bag (the sample
# gen_v11_rosrecord.bag with std_msgs/Int32 renamed my_msgs/Int32a, two
# connections of it) read by cat, info and stats warns once about the
# missing definition, and never about an md5 mismatch with the md5 of an
# empty definition (d41d8cd9...).
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BAGSCOPE:-$top/src/bagscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LC_ALL=C sed 's|std_msgs/Int32|my_msgs/Int32a|g' "$top/tests/data/oldbags/gen_v11_rosrecord.bag" > "$tmp/v11.bag"
fails=0
for cmd in cat info stats; do
	"$bin" $cmd "$tmp/v11.bag" >/dev/null 2>"$tmp/err"
	n=$(grep -c 'my_msgs/Int32a\|d41d8cd9' "$tmp/err")
	if [ "$n" -eq 1 ] && grep -q 'no definition of my_msgs/Int32a' "$tmp/err" && ! grep -q d41d8cd9 "$tmp/err"; then
		echo "ok    $cmd warns once about the missing definition"
	else
		echo "FAIL  $cmd: $n warnings about it:"; sed 's/^/      | /' "$tmp/err"; fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ]
