#!/bin/sh
# Bags written by bagscope's writer must read back in the real ROS tools:
# `rosbag info --yaml`, rosbag's Python reader and `rostopic echo -b`, in all
# three compressions. Skipped (77) when the ROS tools are not installed.
PY=/usr/bin/python3
command -v rosbag >/dev/null 2>&1 && command -v rostopic >/dev/null 2>&1 &&
	$PY -c 'import rosbag' 2>/dev/null || { echo "ROS tools not installed: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
check() {   # name, condition result
	if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok    $1"; else failed=$((failed + 1)); echo "FAIL  $1"; fi
}
for comp in none bz2 lz4; do
	bag=$dir/sample-$comp.bag
	tests/write-sample "$bag" $comp
	check "write $comp" $?
	rosbag info --yaml "$bag" > "$dir/info.yaml" 2>&1
	$PY - "$dir/info.yaml" "$comp" <<'PYEOF'
import sys, yaml
info = yaml.safe_load(open(sys.argv[1]))
comp = sys.argv[2]
assert info['messages'] == 210, info
assert info['compression'] == comp, info
assert info['indexed'] is True
topics = {t['topic']: t for t in info['topics']}
assert topics['/chatter']['messages'] == 100 and topics['/count']['messages'] == 100
assert topics['/point']['messages'] == 10 and topics['/point']['type'] == 'geometry_msgs/Point'
assert abs(info['start'] - 1500000000.0) < 1e-6 and abs(info['end'] - 1500000004.9) < 1e-6
PYEOF
	check "rosbag info --yaml $comp" $?
	$PY - "$bag" <<'PYEOF'
import sys, rosbag
b = rosbag.Bag(sys.argv[1])
assert b.get_message_count() == 210
assert len(b._chunks) > 5, len(b._chunks)
msgs = list(b.read_messages(raw=False))
assert len(msgs) == 210
ints = [m.message.data for m in msgs if m.topic == '/count']
assert ints == [i * 1000003 - 50000000 for i in range(100)], ints[:5]
strs = [m.message.data for m in msgs if m.topic == '/chatter']
assert strs == ['hello %d' % i for i in range(100)], strs[:3]
pts = [m.message for m in msgs if m.topic == '/point']
assert [p.x for p in pts] == [i * 0.5 for i in range(0, 100, 10)]
conns = {c.topic: c for c in b._get_connections()}
assert conns['/point'].header['latching'] == b'1' and conns['/point'].header['callerid'] == b'/pub'
assert conns['/chatter'].header['callerid'] == b'/talker'
PYEOF
	check "rosbag read_messages $comp" $?
	got=$(rostopic echo -b "$bag" -p /count 2>/dev/null | tail -n +2 | cut -d, -f2 | head -3 | tr '\n' ' ')
	[ "$got" = "-50000000 -48999997 -47999994 " ]
	check "rostopic echo -b $comp" $?
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
