#!/usr/bin/python3
"""Seed the fuzz corpora from the fixture bags (run from the source tree).

corpus/open:   small fixture bags whole, plus truncated and unindexed variants
corpus/header: single records and record runs cut from them
corpus/msgdef: every connection's message_definition
corpus/decode: <u16 len><definition><message> for a few messages per connection
"""
import bz2, hashlib, os, struct, sys

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

def save(kind, blob):
    d = os.path.join(HERE, 'corpus', kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(blob).hexdigest()[:16]), 'wb') as f:
        f.write(blob)

bags = []
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
    for d in defs.values():
        save('msgdef', d)

# damaged bags: two mutants of each kind from the mutation test (tests/mutate.py)
sys.path.insert(0, os.path.join(HERE, '..'))
import mutate
kept = {}
for m in mutate.all_mutants():
    if len(m['data']) <= LIMIT and kept.get(m['category'], 0) < 2:
        kept[m['category']] = kept.get(m['category'], 0) + 1
        save('open', m['data'])
