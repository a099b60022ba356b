#!/bin/sh
# make check entry: a file in no format bagscope reads (an unknown version
# line, '#ROSBAG V' with a version no reader takes, no version line at all)
# is refused with exit 1 and a message that names every format it does read:
# bag versions 2.0, 1.2, 1.1, 1.0 and 0, MCAP and rosbag2. Each of those
# formats opens (a fixture of each), so the list is not a wish.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '#ROSBAG V3.0\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' > "$tmp/v30.bag"
printf '#ROSBAG V2.1\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' > "$tmp/v21.bag"
printf '#ROSBAG V1.2\n' > "$tmp/v12-line.bag"
printf '#ROSFOO V3.0\nxx' > "$tmp/foo.bag"
printf 'hello\nworld\n' > "$tmp/text.bag"
for f in v30 v21 v12-line foo text; do
	"$B" info "$tmp/$f.bag" > /dev/null 2> "$tmp/err"; rc=$?
	[ $rc -eq 1 ] || { echo "FAIL $f: exit $rc"; fail=1; }
	for v in '2\.0' '1\.2' '1\.1' '1\.0' 'and 0,' 'MCAP' 'rosbag2'; do
		grep -q "$v" "$tmp/err" || { echo "FAIL $f: '$v' not named:"; cat "$tmp/err"; fail=1; }
	done
done
# a version it reads is not called unsupported
grep -q "version 1.2 is not supported" "$tmp/err" && { echo "FAIL: 1.2 called unsupported"; fail=1; }

# every format named opens, as the version or format info gives
O=$(dirname "$0")/../data/oldbags
fmt() { "$B" info --json "$1" 2>/dev/null | sed -n 's/.*"bag_format":"\([^"]*\)".*/\1/p'; }
for pair in "2.0 $D/bags/basic_none.bag" "1.2 $O/gen_v12_indexed.bag" "1.1 $O/gen_v11_rosrecord.bag" \
	"1.0 $O/gen_v10.bag" "0 $O/gen_v0.bag"; do
	set -- $pair
	got=$(fmt "$2")
	[ "$got" = "$1" ] || { echo "FAIL: $2 reads as '$got', not $1"; fail=1; }
done
M=$(dirname "$0")/../data/mcap
"$B" info --json "$M/ros1-lz4.mcap" | grep -q '"format":"mcap"' || { echo "FAIL: MCAP does not open"; fail=1; }
mkdir "$tmp/rec" && cp "$M/ros1-lz4.mcap" "$tmp/rec/rec_0.mcap" &&
	printf 'rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: mcap\n  relative_file_paths:\n    - rec_0.mcap\n' > "$tmp/rec/metadata.yaml"
"$B" info --json "$tmp/rec" | grep -q '"messages":40,' || { echo "FAIL: rosbag2 does not open"; "$B" info --json "$tmp/rec" | head -c 300; fail=1; }
[ $fail -eq 0 ] && echo "wrong-version.sh: ok"
exit $fail
