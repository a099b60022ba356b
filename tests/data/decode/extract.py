#!/usr/bin/python3
"""Golden data for tests/unit/test-print.c, made with Debian's ROS1 Python
packages (python3-rosbag, genpy, PyYAML): run with /usr/bin/python3 from
this directory; it rewrites every NAME.* file here.

For each connection group (topic, type, md5, definition) of the fixture bags,
and for synthetic messages of hand-written types built by genpy:
  NAME.def    line 1 the type, line 2 the md5sum, then the message_definition
  NAME.msgs   the raw messages, each as a little-endian uint32 length + bytes
  NAME.jsonl  per message, its "msg" object as the fixtures' refjson.py writes it
  NAME.yaml   per message, genpy's strify_message() (what rostopic echo prints)
              followed by "\\n---\\n"
NAME.json / NAME.yaml are what the decoder + printers must reproduce byte for
byte (float formatting is Python's repr on both sides).
"""
import json
import math
import os
import struct
import sys

import genpy
import genpy.dynamic
import rosbag
from genpy.message import strify_message

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, '..', 'fixtures')
sys.path.insert(0, os.path.join(HERE, '..', '..', '..', '..', 'shared', 'fixtures', 'tools'))

BAGS = [  # (bag, topics to leave out, max messages per group)
    ('bags/basic_none.bag', (), 1000),
    ('bags/nested_bz2.bag', (), 1000),
    ('bags/tf_lz4.bag', (), 1000),
    ('bags/large_lz4.bag', ('/big',), 1000),
    ('foreign/rosbag.js/example.bag', (), 12),
]

INT = {'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'byte', 'char'}


def conv_value(v, t):
    """The fixtures' refjson conversion (tools/refjson.py), self-contained."""
    base, is_array = t.partition('[')[0], t.endswith(']')
    if is_array:
        if base in ('uint8', 'char'):
            return list(v) if isinstance(v, (bytes, bytearray)) else [int(x) for x in v]
        return [conv_value(x, base) for x in v]
    if base == 'bool':
        return bool(v)
    if base in INT:
        return int(v)
    if base in ('float32', 'float64'):
        f = float(v)
        if math.isnan(f):
            return 'nan'
        if math.isinf(f):
            return 'inf' if f > 0 else '-inf'
        return f
    if base == 'string':
        return v.decode('utf-8', 'replace') if isinstance(v, bytes) else v
    if base in ('time', 'duration'):
        return {'secs': int(v.secs), 'nsecs': int(v.nsecs)}
    return conv_msg(v)


def conv_msg(m):
    return {n: conv_value(getattr(m, n), t) for n, t in zip(m.__slots__, m._slot_types)}


def write_group(name, datatype, md5, msg_def, cls, raws):
    with open(os.path.join(HERE, name + '.def'), 'wb') as f:
        f.write(datatype.encode() + b'\n' + md5.encode() + b'\n' + msg_def.encode())
    with open(os.path.join(HERE, name + '.msgs'), 'wb') as f:
        for r in raws:
            f.write(struct.pack('<I', len(r)) + r)
    with open(os.path.join(HERE, name + '.jsonl'), 'w', encoding='utf-8') as fj, \
            open(os.path.join(HERE, name + '.yaml'), 'w', encoding='utf-8') as fy:
        for r in raws:
            m = cls().deserialize(r)
            fj.write(json.dumps(conv_msg(m), ensure_ascii=False, allow_nan=False,
                                separators=(',', ':')) + '\n')
            fy.write(strify_message(m) + '\n---\n')


def from_bags():
    for path, skip, limit in BAGS:
        bag = rosbag.Bag(os.path.join(FIX, path))
        groups = {}
        for topic, raw, t, hdr in bag.read_messages(raw=True, return_connection_header=True):
            if topic in skip:
                continue
            datatype, data, md5, _, pytype = raw
            key = (topic, datatype, md5, hdr['message_definition'])
            g = groups.setdefault(key, (pytype, []))
            if len(g[1]) < limit:
                g[1].append(bytes(data))
        stem = os.path.splitext(os.path.basename(path))[0]
        for (topic, datatype, md5, msg_def), (pytype, raws) in groups.items():
            if isinstance(msg_def, bytes):
                msg_def = msg_def.decode()
            name = stem + topic.replace('/', '_')
            write_group(name, datatype, md5, msg_def, pytype, raws)


SYNTH_TYPE = 'bagscope_test/Tricky'
SYNTH_DEF = '''# strings, floats and shapes that exercise the printers
string S_CONST=a # not a comment
byte B=-3
string text
string[] words
char[] chars
char[3] tag
byte[] sbytes
uint8[] ubytes
float32 f32
float64[] f64s
bool[] flags
time[] stamps
duration d
Empty nothing
Empty[] nothings
Leaf[2] leaves
================================================================================
MSG: bagscope_test/Empty
# no fields, only this comment
================================================================================
MSG: bagscope_test/Leaf
int16 v
string name
'''

LONG = ('the quick brown fox jumps over the lazy dog ' * 4).strip()
WORDS = [
    [],
    ['plain', '', ' lead', 'trail ', 'two  spaces', 'yes', 'No', 'null', '~', '123', '0x1F', '0o7', '07',
     '1_000', '1:30', '-1.5e+3', '.5', '.inf', '-.Inf', '.NaN', '2024-01-02', '2024-1-2 3:04:05.5 +1',
     '2001-12-14t21:59:43.10-05:00', '<<', '=', '---x', '...', '- a', '-a', '? x', '?x', 'a: b', 'a:b',
     'a #b', 'a#b', '#c', '[x]', 'x,y', '{a}', "it's", 'say "hi"', '@at', '`tick', '%p', '!bang', '&amp',
     '*star', '|pipe', '>gt', 'tab\there', 'new\nline', 'two\n\nbreaks', 'sp \nbreak', 'brk\n sp',
     'ünï', 'emoji \U0001F600', 'nul\0byte', 'bell\x07', 'esc\x1b', 'del\x7f', 'nel\x85', 'nbsp\xa0',
     'ls\u2028', 'bom\ufeff', LONG, LONG.replace(' ', '  '), 'x' * 100, 'a ' * 60, LONG + "'quote'",
     "'" + LONG + "'", LONG + ' \u00e9t\u00e9', '\n' + LONG, 'True', 'off', 'Y', 'n', '+', '-', '.'],
]
TEXTS = ['', 'hello', LONG, LONG + ' ' + LONG, 'x' * 200, 'ctl \x01\x02\t\n\r\x0b\x0c\x1b\x7f end',
         'ü' * 100 + ' ' + 'é ' * 40, 'quote " and \\ back', 'tail space ', ' ' * 90 + 'x',
         'a\u2028b\u2029c\x85d\xa0e\ufeff', 'astral \U0001F600 \U00010000', '\0']
FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e15, 1e16, 123456789012345678.0, 1e-4, 1e-5, 1.5e-7,
          1e300, -1e-300, 5e-324, 2.0 ** 53 + 2, 0.3, 2.0 / 3, float('nan'), float('inf'),
          float('-inf'), 1e22, 9999999999999998.0, 0.000123456]
CHARS = [b'', b'AB\x00\xff', b"it's", b'say "hi"', b'both \' and "', b'\\\t\n\r\x7f~ ']


def synthetic():
    classes = genpy.dynamic.generate_dynamic(SYNTH_TYPE, SYNTH_DEF)
    cls = classes[SYNTH_TYPE]
    Empty, Leaf = classes['bagscope_test/Empty'], classes['bagscope_test/Leaf']
    raws = []
    n = max(len(TEXTS), len(CHARS), len(WORDS), 6)
    for i in range(n):
        m = cls()
        m.text = TEXTS[i % len(TEXTS)]
        m.words = WORDS[i % len(WORDS)]
        m.chars = CHARS[i % len(CHARS)]
        m.tag = CHARS[(i + 1) % len(CHARS)][:3].ljust(3, b'z')
        m.sbytes = [(-1) ** k * k for k in range(i % 4)]
        m.ubytes = bytes(range(250, 250 + i % 6))
        m.f32 = [0.1, 1e15, -2.5, float('nan'), 3.4e38, 1e-45][i % 6]
        m.f64s = FLOATS if i % 2 == 0 else FLOATS[i % len(FLOATS):][:3]
        m.flags = [bool(k % 2) for k in range(i % 3)]
        m.stamps = [genpy.Time(k, k * 7) for k in range(i % 3)]
        m.d = genpy.Duration(-i, 5)
        m.nothing = Empty()
        m.nothings = [Empty() for _ in range(i % 3)]
        m.leaves = [Leaf(v=-i, name=TEXTS[(i + 2) % len(TEXTS)]), Leaf(v=i, name='')]
        buf = __import__('io').BytesIO()
        m.serialize(buf)
        raws.append(buf.getvalue())
    write_group('synthetic', SYNTH_TYPE, cls._md5sum, SYNTH_DEF, cls, raws)


if __name__ == '__main__':
    from_bags()
    synthetic()
