#!/usr/bin/python3
"""Seed the fuzz corpora from the fixture bags (run from the source tree).

corpus/open:   small fixture bags whole, plus truncated and unindexed variants, and the
               bags older than 2.0 of tests/data/oldbags, whole and cut; small rosbag2
               .db3 files (Python's sqlite3, 512-byte pages), whole and cut
corpus/header: single records and record runs cut from them
corpus/msgdef: every connection's message_definition
corpus/decode: <u16 len><definition><message> for a few messages per connection
corpus/expr:   <u16 len><definition><u16 len (| 0x8000: a value)><expression><message>
               for the first message (under 8 KiB) per connection, with a few
               expressions naming its fields
corpus/gen:    the messages of nested_bz2.bag, bare
corpus/media:  <type: 0 Image, 1 CompressedImage, 2 PointCloud2><message> for each
               message of made/images.bag's image and cloud topics (needs python3-rosbag)

Arguments, if any, name the corpora to write (e.g. `make-seeds.py expr`).
"""
import bz2, hashlib, os, re, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, '..', 'data', 'fixtures')
LIMIT = 64 * 1024

def fields(b):
    d, i = {}, 0
    while i + 4 <= len(b):
        n = struct.unpack_from('<I', b, i)[0]
        k, _, v = b[i + 4:i + 4 + n].partition(b'=')
        d[k.decode('latin1')] = v
        i += 4 + n
    return d

def records(b, at):
    while at + 8 <= len(b):
        hl = struct.unpack_from('<I', b, at)[0]
        if at + 8 + hl > len(b):
            return
        dl = struct.unpack_from('<I', b, at + 4 + hl)[0]
        yield at, b[at + 4:at + 4 + hl], b[at + 8 + hl:at + 8 + hl + dl], b[at:at + 8 + hl + dl]
        at += 8 + hl + dl

def lz4_decompress(data):
    try:
        import roslz4
        return roslz4.decompress(data)
    except Exception:
        return None

ONLY = set(sys.argv[1:])

def save(kind, blob):
    if ONLY and kind not in ONLY:
        return
    d = os.path.join(HERE, 'corpus', kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(blob).hexdigest()[:16]), 'wb') as f:
        f.write(blob)

bags = []
samples = []           # (definition, first message) per connection
for sub in ('bags', 'broken', 'foreign/rosbag.js'):
    for name in sorted(os.listdir(os.path.join(FIX, sub))):
        p = os.path.join(FIX, sub, name)
        if name.endswith('.bag'):
            bags.append(open(p, 'rb').read())

for b in bags:
    if len(b) <= LIMIT:
        save('open', b)
    if not b.startswith(b'#ROSBAG V2.0\n'):
        continue
    start = 13
    recs = list(records(b, start))
    for at, hdr, data, whole in recs[:12]:
        save('header', whole[:4096])
    if len(b) <= LIMIT:
        save('header', b[start:start + 8192])
        save('open', b[:len(b) * 2 // 3])                    # truncated
        hdr = recs[0][1]
        i = b.find(b'index_pos=', start)
        if i > 0:
            save('open', b[:i + 10] + b'\0' * 8 + b[i + 18:])  # index_pos 0
    defs = {}
    for at, hdr, data, whole in recs:
        f = fields(hdr)
        op = f.get('op', b'\xff')[0]
        if op == 7:
            c = fields(data)
            defs[f['conn']] = c.get('message_definition', b'')
        if op == 5:
            comp = f.get('compression')
            try:
                body = data if comp == b'none' else bz2.decompress(data) if comp == b'bz2' else lz4_decompress(data)
            except (ValueError, OSError):
                body = None
            if body is None:
                continue
            seen = {}
            for _, h2, d2, _ in records(body, 0):
                f2 = fields(h2)
                if f2.get('op', b'\xff')[0] == 7:
                    defs[f2['conn']] = fields(d2).get('message_definition', b'')
                elif f2.get('op', b'\xff')[0] == 2 and f2.get('conn') in defs:
                    k = f2['conn']
                    seen[k] = seen.get(k, 0) + 1
                    if seen[k] <= 2 and len(d2) < LIMIT:
                        dd = defs[k]
                        save('decode', struct.pack('<H', len(dd)) + dd + d2)
                        if seen[k] == 1:
                            samples.append((dd, d2))
    for d in defs.values():
        save('msgdef', d)

# bags older than 2.0 (tests/data/oldbags): whole, cut in the middle and 3 bytes into
# their last record, and the first 64 KiB of the real 1.0 recording
OLD = os.path.join(HERE, '..', 'data', 'oldbags')
for name in sorted(os.listdir(OLD)):
    if name.endswith('.bag'):
        b = open(os.path.join(OLD, name), 'rb').read()
        save('open', b[:LIMIT])
        if len(b) <= LIMIT:
            save('open', b[:len(b) // 2])
            save('open', b[:len(b) - 3])

# damaged bags: two mutants of each kind from the mutation test (tests/tools/mutate.py)
sys.path.insert(0, os.path.join(HERE, '..'))
import mutate
kept = {}
for m in mutate.all_mutants():
    if len(m['data']) <= LIMIT and kept.get(m['category'], 0) < 2:
        kept[m['category']] = kept.get(m['category'], 0) + 1
        save('open', m['data'])
EXPRS = [
    'data > 41', 'data == 9223372036854775807 || data == -9223372036854775808', 'data =~ "^(hello|tie)$"',
    '!(data == 42)', 'data != data', 'len(data) > 3', 'data + 1 > 0', 'abs(data) < 1e300', 'data.secs < 0',
    'stamp.nsecs == 999999999 && frame_id == "base"', 'stamp - $time < 0',
    'parts[*].name == "p0"', 'len(samples) >= 1 && kind == 2', 'bigger > 18446744073709551614',
    'samples[*] > samples[*]', 'pair[-1].offsets[*] < 0', 'code[-1] == 255', 'ttl == -0.5',
    'poses[-1].pose.position.x > 0 or poses[-1].header.stamp.nsecs == 1', 'len(poses[*].header.frame_id) > 2',
    'markers[*].pose.position.x >= 0 && markers[0].ns =~ "f"',
    'transforms[*].child_frame_id == "base_0" && transforms[0].transform.translation.x >= 2',
    'status[*].level >= 1', 'status[*].values[*].value == "42"',
    'abs(transforms[0].transform.translation.x - 3) < 1.5', 'data[*] > 16 && len(data) == height * step / 3',
    'header.seq / 2 > 1', 'header.stamp.secs * 1000000000 + header.stamp.nsecs > 0',
]
VALUES = ['data', 'data * 2', 'header.stamp', 'len(transforms)', 'poses[-1].pose.position.x', 'header.stamp - $time']
GENERIC = [
    '$time >= 1500000004.5 && $topic != "/greeting"', '$type =~ "Int"', 'true || false && !true',
    '1 + 2 * 3 == 7', '-9223372036854775808 * -1 > 0', '0.0 / 0 != 0.0 / 0', '"a\\0b" > "a"',
    'no_such_field > 1', 'data >', '(data > 1', 'data =~ "("', '12abc > 1', 'a < b < c', 'a[*]',
]

def save_expr(dd, expr, msg, value=False):
    x = expr.encode()
    save('expr', struct.pack('<H', len(dd)) + dd + struct.pack('<H', len(x) | (0x8000 if value else 0)) + x + msg)

for i, (dd, msg) in enumerate(samples):
    names = set(re.findall(rb'^[ \t]*[\w/]+(?:\[\d*\])?[ \t]+(\w+)[ \t]*$', dd, re.M))
    head = lambda x: re.match(r'[!( ]*(?:len\(|abs\()?(\w+)', x).group(1).encode()
    if len(msg) > 8192:
        continue
    for x in [x for x in EXPRS if head(x) in names][:3]:
        save_expr(dd, x, msg)
    for x in [x for x in VALUES if head(x) in names][:1]:
        save_expr(dd, x, msg, True)
    if i == 0:
        for x in GENERIC:
            save_expr(dd, x, msg)

# corpus/open: rosbag2 sqlite3 storage (db3-read.c), Iron's schema with a definition
# and a NULL row, whole and cut at a page boundary and inside a page
def db3_seed(defs):
    import sqlite3, tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'x.db3')
        db = sqlite3.connect(path)
        db.execute('PRAGMA page_size=512')
        db.executescript('CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, '
                         'serialization_format TEXT, offered_qos_profiles TEXT);'
                         'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB);'
                         'CREATE INDEX timestamp_idx ON messages (timestamp ASC);')
        if defs:
            db.executescript('CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT, encoding TEXT, '
                             'encoded_message_definition TEXT, type_description_hash TEXT);'
                             "INSERT INTO message_definitions VALUES (1, 'p/msg/W', 'ros2msg', "
                             "'wstring w\nint32[] v\nstring s\n', '');")
        db.execute("INSERT INTO topics VALUES (1, '/w', 'p/msg/W', 'cdr', '')")
        for i in range(12):
            data = (b'\0\1\0\0' + struct.pack('<I', 2) + b'h\0\0\0i\0\0\0' + struct.pack('<I', i % 3) +
                    struct.pack('<%di' % (i % 3), *range(i % 3)) + struct.pack('<I', 2) + b'x\0')
            db.execute('INSERT INTO messages (topic_id, timestamp, data) VALUES (1, ?, ?)',
                       (1000 + 7 * i - (i % 4), None if i == 5 else data))
        db.commit()
        db.close()
        return open(path, 'rb').read()
for defs in (True, False):
    b = db3_seed(defs)
    for cut in (len(b), len(b) - 512, len(b) // 2 + 100):
        save('open', b[:cut])

# corpus/gen: the messages of nested_bz2.bag, for fuzz-gen.c, which decodes each
# input as every type of the code bagscope gen writes for that bag
b = open(os.path.join(FIX, 'bags', 'nested_bz2.bag'), 'rb').read()
for at, hdr, data, whole in records(b, 13):
    f = fields(hdr)
    if f.get('op', b'\xff')[0] == 5 and f.get('compression') == b'bz2':
        for _, h2, d2, _ in records(bz2.decompress(data), 0):
            if fields(h2).get('op', b'\xff')[0] == 2:
                save('gen', d2)
if not ONLY or 'media' in ONLY:
    import rosbag
    kinds = {'sensor_msgs/Image': 0, 'sensor_msgs/CompressedImage': 1, 'sensor_msgs/PointCloud2': 2}
    for topic, raw, t in rosbag.Bag(os.path.join(FIX, 'made', 'images.bag')).read_messages(raw=True):
        if raw[0] in kinds:
            save('media', bytes([kinds[raw[0]]]) + bytes(raw[1]))
