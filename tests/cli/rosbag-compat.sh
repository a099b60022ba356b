#!/bin/sh
# Bags written by bagscope's writer must read back in the real ROS tools, in
# all three compressions: `rosbag info` (counts, topics, types, md5s, times,
# compression and chunk count), rosbag's Python reader (every value, time
# order, connection headers, a time-range query) and `rostopic echo -b`.
# The bags come from tests/tools/write-sample (see write-sample.c for what it
# writes). `rosbag info` runs once over the three bags; the Python checks and
# rostopic's entry point run in one process. Skipped (77) when the ROS tools
# are not installed.
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
SAMPLE=${WRITE_SAMPLE:-tests/tools/write-sample}
command -v rosbag >/dev/null 2>&1 && command -v rostopic >/dev/null 2>&1 &&
	$PY "$(dirname "$0")/../tools/has-modules.py" rosbag 2>/dev/null || { echo "ROS tools not installed: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
check() {   # name, exit status of the check
	if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok    $1"; else failed=$((failed + 1)); echo "FAIL  $1"; fi
}

# The chunk count the writer must produce: write-sample's records laid out
# with rosbag's rule (close a chunk once it is longer than 1024 bytes), and
# the count of chunk records actually in the file, read byte by byte.
cat > "$dir/chunks.py" <<'PYEOF'
import struct, sys

def field(name, value):
    return 4 + len(name) + 1 + len(value)

def conn_record(topic, typ, md5, definition, callerid, latching):
    hdr = field('conn', b'1234') + field('op', b'x') + field('topic', topic)
    data = (field('callerid', callerid) if callerid is not None else 0) + field('latching', b'1') + \
        field('md5sum', md5) + field('message_definition', definition) + field('topic', topic) + field('type', typ)
    return 8 + hdr + data

conns = {
    'chatter': conn_record('/chatter', 'std_msgs/String', 'x' * 32, 'string data\n', '/talker', False),
    'count': conn_record('/count', 'std_msgs/Int64', 'x' * 32, 'int64 data\n', None, False),
    'point': conn_record('/point', 'geometry_msgs/Point', 'x' * 32, 'float64 x\nfloat64 y\nfloat64 z\n', '/pub', True),
}
seen, size, expected = set(), 0, 0
for i in range(100):
    writes = [('chatter', 4 + len('hello %d' % i)), ('count', 8)] + ([('point', 24)] if i % 10 == 0 else [])
    for conn, n in writes:
        if conn not in seen:
            seen.add(conn)
            size += conns[conn]
        size += 46 + n
        if size > 1024:
            expected += 1
            size = 0
expected += size > 0

data = open(sys.argv[1], 'rb').read()
def header_fields(h):
    out, at = {}, 0
    while at < len(h):
        n, = struct.unpack_from('<I', h, at)
        k, _, v = h[at + 4:at + 4 + n].partition(b'=')
        out[k.decode()] = v
        at += 4 + n
    return out
pos, chunks, header_count = 13, 0, None
while pos < len(data):
    hlen, = struct.unpack_from('<I', data, pos)
    f = header_fields(data[pos + 4:pos + 4 + hlen])
    dlen, = struct.unpack_from('<I', data, pos + 4 + hlen)
    if f['op'] == b'\x03':
        header_count, = struct.unpack('<I', f['chunk_count'])
    chunks += f['op'] == b'\x05'
    pos += 8 + hlen + dlen
assert pos == len(data), (pos, len(data))
assert chunks == expected == header_count, (chunks, expected, header_count)
assert chunks >= 10, chunks
print(chunks)
PYEOF

# the bags, and their chunk layout
for comp in none bz2 lz4; do
	bag=$dir/sample-$comp.bag
	"$SAMPLE" "$bag" $comp
	check "write $comp" $?
	chunks=$($PY "$dir/chunks.py" "$bag")
	check "chunk layout $comp ($chunks chunks)" $?
	echo "$chunks" >"$dir/chunks-$comp"
done

# `rosbag info` and `rosbag info --yaml`, each one run over the three bags
# (each bag's section starts at its 'path:' line)
(cd "$dir" && $PY "$(command -v rosbag)" info sample-none.bag sample-bz2.bag sample-lz4.bag) >"$dir/info.txt" 2>&1
(cd "$dir" && $PY "$(command -v rosbag)" info --yaml sample-none.bag sample-bz2.bag sample-lz4.bag) >"$dir/info.yaml" 2>&1
for comp in none bz2 lz4; do
	chunks=$(cat "$dir/chunks-$comp")
	awk -v f="sample-$comp.bag" '/^path:/ { on = $2 == f } on' "$dir/info.txt" |
		grep -q "^compression: *$comp \[$chunks/$chunks chunks"
	check "rosbag info: $comp, $chunks/$chunks chunks" $?
done

# the rest in one Python process (rosbag's and rostopic's imports cost about
# 0.3 s each start): per bag, the YAML info, rosbag's reader, and `rostopic
# echo -b` run through rostopic's own entry point (what /usr/bin/rostopic calls)
$PY - "$dir" <<'PYEOF' >"$dir/ros.log" 2>&1
import contextlib, io, sys, traceback, yaml, rosbag, rospy, rostopic
d = sys.argv[1]
T0 = 1500000000 * 10**9

def info_yaml(comp, info):
    assert info['version'] == 2.0 and info['indexed'] is True, info
    assert info['messages'] == 210, info
    assert info['compression'] == comp, info
    assert abs(info['start'] - 1499999998.0) < 1e-6 and abs(info['end'] - 1500000004.9) < 1e-6, info
    topics = {t['topic']: (t['type'], t['messages']) for t in info['topics']}
    assert topics == {'/chatter': ('std_msgs/String', 100), '/count': ('std_msgs/Int64', 100),
                      '/point': ('geometry_msgs/Point', 10)}, topics
    types = {t['type']: t['md5'] for t in info['types']}
    assert types == {'std_msgs/String': '992ce8a1687cec8c8bd883ec73ca41d1',
                     'std_msgs/Int64': '34add168574510e6e17f5d23ecc077ef',
                     'geometry_msgs/Point': '4a842b65f413084dc2b10fb484ea7f17'}, types

def read_messages(path):
    b = rosbag.Bag(path)
    assert b.get_message_count() == 210
    msgs = list(b.read_messages())
    assert len(msgs) == 210
    times = [m.timestamp.to_nsec() for m in msgs]
    assert times == sorted(times), 'not in time order'
    ints = [(m.timestamp.to_nsec(), m.message.data) for m in msgs if m.topic == '/count']
    assert ints == [(T0 + (i // 2) * 10**8, i * 1000003 - 50000000) for i in range(100)], ints[:4]
    strs = [(m.timestamp.to_nsec(), m.message.data) for m in msgs if m.topic == '/chatter']
    assert strs == [(T0 + (i // 2) * 10**8, 'hello %d' % i) for i in range(100)], strs[:4]
    pts = [(m.timestamp.to_nsec(), m.message.x, m.message.y, m.message.z) for m in msgs if m.topic == '/point']
    assert pts == [(T0 + (i // 2) * 10**8 - 2 * 10**9 + 1, i * 0.5, -float(i), 1.0 / (i + 1))
                   for i in range(0, 100, 10)], pts[:3]
    assert msgs[0].topic == '/point' and msgs[0].timestamp.to_nsec() == T0 - 2 * 10**9 + 1
    conns = {c.topic: c.header for c in b._get_connections()}
    assert conns['/point']['latching'] == b'1' and conns['/point']['callerid'] == b'/pub'
    assert conns['/chatter']['callerid'] == b'/talker' and conns['/chatter']['latching'] == b'0'
    assert 'callerid' not in conns['/count']
    assert conns['/point']['message_definition'] == b'float64 x\nfloat64 y\nfloat64 z\n'
    window = [m.message.data for m in b.read_messages(topics=['/count'],
              start_time=rospy.Time(1500000001), end_time=rospy.Time(1500000002))]
    assert window == [i * 1000003 - 50000000 for i in range(20, 42)], window

def echo(path, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            rostopic.rostopicmain(['rostopic', 'echo', '-b', path] + args)
        except SystemExit as e:
            assert not e.code, 'rostopic echo -b %s: exit %r' % (' '.join(args), e.code)
    return out.getvalue()

def rostopic_echo(path):
    rows = echo(path, ['-p', '/count']).split('\n')
    assert rows[0] == '%time,field.data', rows[0]
    assert rows[1:101] == ['%d,%d' % (T0 + (i // 2) * 10**8, i * 1000003 - 50000000) for i in range(100)], rows[1:4]
    rows = echo(path, ['-p', '/point']).split('\n')
    assert rows[0] == '%time,field.x,field.y,field.z', rows[0]
    got = [tuple(float(v) for v in r.split(',')[1:]) for r in rows[1:] if r]
    assert got == [(i * 0.5, -float(i), 1.0 / (i + 1)) for i in range(0, 100, 10)], got[:3]
    data = [l[len('data: '):].strip('"\'') for l in echo(path, ['/chatter']).split('\n') if l.startswith('data: ')]
    assert data == ['hello %d' % i for i in range(100)], data[:3]

def check(name, fn, *args):
    try:
        fn(*args)
        print('ok    ' + name)
    except Exception:
        print('FAIL  ' + name)
        traceback.print_exc(limit=1, file=sys.stdout)

infos = {}
try:
    infos = {doc['path']: doc for doc in yaml.safe_load_all(open(d + '/info.yaml')) if doc}
except Exception:
    traceback.print_exc(limit=1, file=sys.stdout)
for comp in ('none', 'bz2', 'lz4'):
    path = '%s/sample-%s.bag' % (d, comp)
    check('rosbag info --yaml ' + comp, lambda: info_yaml(comp, infos['sample-%s.bag' % comp]))
    check('rosbag read_messages ' + comp, read_messages, path)
    check('rostopic echo -b ' + comp, rostopic_echo, path)
PYEOF
cat "$dir/ros.log"
passed=$((passed + $(grep -c '^ok ' "$dir/ros.log")))
failed=$((failed + $(grep -c '^FAIL ' "$dir/ros.log")))
[ "$(grep -c '^ok \|^FAIL ' "$dir/ros.log")" = 9 ] || { failed=$((failed + 1)); echo "FAIL  the Python checks did not all run"; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
