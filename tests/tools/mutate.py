#!/usr/bin/python3
"""Proof that bagscope never recovers less than `rosbag reindex`.

A structure-aware mutation run over the small fixture bags (seeded, so the
same mutants every time): truncations at record boundaries and inside
chunks, bad lengths, flipped op codes, damaged index data and chunk infos,
swapped and duplicated records (with the offsets that point at them fixed
up, so the damage stays local), corrupted compressed bytes and a bad file
header. For each mutant, `rosbag reindex` runs on a copy and rosbag's reader
lists the messages of the result; `bagscope cat --format json` runs on the
mutant itself. The test fails if, for any mutant, bagscope lists fewer of
the (topic, time) pairs that reindex recovered.

Running reindex takes minutes, so its results are kept in
tests/data/mutants/reindex.json, keyed by each mutant's SHA-1: the suite
needs only python3 and bagscope. `--refresh` recomputes the cache (needs
python3-rosbag: run with /usr/bin/python3); a mutant missing from the cache
fails the run so that a stale cache is noticed.

usage: mutate.py BAGSCOPE [--refresh] [--verbose] [--keep DIR]
"""
import hashlib, json, os, random, shutil, struct, subprocess, sys, tempfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, '..', 'data', 'fixtures')
CACHE = os.path.join(HERE, '..', 'data', 'mutants', 'reindex.json')
SEED = 20240611
BAGS = ['bags/basic_none.bag', 'bags/large_lz4.bag', 'bags/nested_bz2.bag', 'bags/tf_lz4.bag',
        'broken/crashed_none.bag', 'broken/truncated_bz2.bag',
        'foreign/rosbag.js/example-unsorted-chunks.bag']
OP = {1: 'msgdef', 2: 'msg', 3: 'header', 4: 'index', 5: 'chunk', 6: 'chunkinfo', 7: 'conn'}

# ---- bag structure ------------------------------------------------------------

def u32(b, at):
    return struct.unpack_from('<I', b, at)[0]

def fields(hdr):
    """{name: (offset of the value in hdr, value bytes)}"""
    d, i = {}, 0
    while i + 4 <= len(hdr):
        n = u32(hdr, i)
        k, _, v = hdr[i + 4:i + 4 + n].partition(b'=')
        d.setdefault(k.decode('latin1'), (i + 4 + len(k) + 1, v))
        i += 4 + n
    return d

class Rec:
    """A record at pos: header at pos+4, data at .data_pos."""
    def __init__(self, b, pos):
        self.pos = pos
        self.hlen = u32(b, pos)
        self.hdr = b[pos + 4:pos + 4 + self.hlen]
        self.dlen = u32(b, pos + 4 + self.hlen)
        self.data_pos = pos + 8 + self.hlen
        self.end = self.data_pos + self.dlen
        self.f = fields(self.hdr)
        op = self.f.get('op')
        self.op = op[1][0] if op and len(op[1]) == 1 else 0

    def field_at(self, name):
        """File offset of a field's value."""
        return self.pos + 4 + self.f[name][0]

def records(b, at, end=None):
    end = len(b) if end is None else end
    out = []
    while at + 8 <= end:
        hl = u32(b, at)
        if at + 8 + hl > end or at + 8 + hl + u32(b, at + 4 + hl) > end:
            break
        r = Rec(b, at)
        out.append(r)
        at = r.end
    return out

# ---- mutations ------------------------------------------------------------------

def put32(b, at, v):
    b[at:at + 4] = struct.pack('<I', v & 0xffffffff)

def relocate(b, recs, where):
    """Records moved (where(old pos) is the new one): fix the bag header's
    index_pos and the chunk infos' chunk_pos fields to match. recs are the
    records as they were before the edit."""
    for r in recs:
        name = {3: 'index_pos', 6: 'chunk_pos'}.get(r.op)
        if name not in r.f or where(r.pos) is None:
            continue
        at = where(r.pos) + 4 + r.f[name][0]
        v = where(struct.unpack_from('<Q', b, at)[0])
        if v is not None:
            b[at:at + 8] = struct.pack('<Q', v)

def shifted(edit_at, delta):
    """Positions after inserting delta bytes at edit_at (negative: removing)."""
    return lambda p: p + delta if p >= edit_at else p

def mutants_of(name, orig, rng):
    """Yield (category, description, bytes) for one fixture."""
    recs = records(orig, 13)
    top = recs[1:]                           # after the bag header
    by_op = defaultdict(list)
    for r in top:
        by_op[r.op].append(r)
    chunks = by_op[5]

    def pick(lst, n):
        return rng.sample(lst, min(n, len(lst)))

    # truncations at record boundaries
    for r in pick(top[:-1], 4):
        yield 'truncate-boundary', 'cut after the op-%d record at %d' % (r.op, r.pos), bytes(orig[:r.end])
    # truncations inside chunks
    for r in pick(chunks, 4):
        cut = rng.randrange(r.data_pos + 1, max(r.data_pos + 2, r.end))
        yield 'truncate-chunk', 'cut inside the chunk at %d, at %d' % (r.pos, cut), bytes(orig[:cut])
    # bad lengths
    for r in pick(top, 5):
        b = bytearray(orig)
        which = rng.choice(['header_len', 'data_len'])
        at = r.pos if which == 'header_len' else r.data_pos - 4
        old = u32(b, at)
        new = rng.choice([old + rng.randrange(1, 9), max(0, old - rng.randrange(1, 9)), 0, 0xffffffff,
                          rng.randrange(len(b), 1 << 31)])
        put32(b, at, new)
        yield 'bad-length', '%s of the op-%d record at %d: %d -> %d' % (which, r.op, r.pos, old, new), bytes(b)
    # flipped op codes
    for r in pick(top, 4):
        b = bytearray(orig)
        at = r.field_at('op') if 'op' in r.f else None
        if at is None:
            continue
        if rng.random() < 0.25:
            b[at - 3] = ord('x')             # 'op=' -> 'xp=': a record without op
            yield 'flip-op', 'op field of the record at %d renamed' % r.pos, bytes(b)
        else:
            new = rng.choice([v for v in (0, 1, 2, 3, 4, 5, 6, 7, 0x42) if v != r.op])
            b[at] = new
            yield 'flip-op', 'op %d -> %d at %d' % (r.op, new, r.pos), bytes(b)
    # damaged index data
    for r in pick(by_op[4], 5):
        b = bytearray(orig)
        kind = rng.choice(['count', 'entry-offset', 'entry-time', 'conn', 'duplicate', 'drop'])
        if kind == 'count':
            put32(b, r.field_at('count'), u32(orig, r.field_at('count')) + rng.choice([-1, 1, 5]))
        elif kind == 'entry-offset' and r.dlen >= 12:
            k = rng.randrange(r.dlen // 12)
            put32(b, r.data_pos + 12 * k + 8, rng.randrange(0, 1 << 20))
        elif kind == 'entry-time' and r.dlen >= 12:
            k = rng.randrange(r.dlen // 12)
            put32(b, r.data_pos + 12 * k, u32(orig, r.data_pos + 12 * k) + rng.choice([-100, 7]))
        elif kind == 'conn':
            put32(b, r.field_at('conn'), rng.choice([u32(orig, r.field_at('conn')) + 1, 4242]))
        elif kind == 'duplicate':
            b[r.end:r.end] = orig[r.pos:r.end]
            relocate(b, recs, shifted(r.end, r.end - r.pos))
        elif kind == 'drop':
            del b[r.pos:r.end]
            relocate(b, recs, shifted(r.end, r.pos - r.end))
        else:
            continue
        yield 'index-data', '%s of the index data at %d' % (kind, r.pos), bytes(b)
    # chunk infos that disagree with the chunks
    for r in pick(by_op[6], 3):
        b = bytearray(orig)
        kind = rng.choice(['conn-count', 'header-count', 'chunk_pos'])
        if kind == 'conn-count' and r.dlen >= 8:
            k = rng.randrange(r.dlen // 8)
            at = r.data_pos + 8 * k + 4
            put32(b, at, max(0, u32(orig, at) + rng.choice([-3, -1, 1, 2])))
        elif kind == 'header-count':
            put32(b, r.field_at('count'), u32(orig, r.field_at('count')) + 1)
        elif kind == 'chunk_pos':
            at = r.field_at('chunk_pos')
            b[at:at + 8] = struct.pack('<Q', struct.unpack_from('<Q', orig, at)[0] + rng.choice([1, 17, 4096]))
        else:
            continue
        yield 'chunk-info', '%s of the chunk info at %d' % (kind, r.pos), bytes(b)
    # swapped records: two neighbours at the top level, or two messages in an
    # uncompressed chunk (the index then points at the wrong ones)
    for i in pick(list(range(len(top) - 1)), 3):
        x, y = top[i], top[i + 1]
        b = bytearray(orig)
        b[x.pos:y.end] = orig[y.pos:y.end] + orig[x.pos:x.end]
        ylen = y.end - y.pos
        relocate(b, recs, lambda p: p + ylen if p == x.pos else x.pos if p == y.pos else p)
        yield 'swap', 'op-%d record at %d swapped with the op-%d after it' % (x.op, x.pos, y.op), bytes(b)
    for r in pick([c for c in chunks if c.f['compression'][1] == b'none'], 2):
        inner = [m for m in records(orig, r.data_pos, r.end) if m.op == 2]
        if len(inner) < 2:
            continue
        i = rng.randrange(len(inner) - 1)
        x, y = inner[i], inner[i + 1]
        b = bytearray(orig)
        b[x.pos:y.end] = orig[y.pos:y.end] + orig[x.pos:x.end]
        yield 'swap', 'messages at %d and %d of the chunk at %d swapped' % (x.pos, y.pos, r.pos), bytes(b)
    # corrupted compressed bytes
    for r in pick([c for c in chunks if c.f['compression'][1] != b'none' and c.dlen > 32], 4):
        b = bytearray(orig)
        at = rng.randrange(r.data_pos, r.end - 1)
        n = rng.choice([1, 4, 32])
        for k in range(at, min(at + n, r.end)):
            b[k] ^= rng.randrange(1, 256)
        yield 'compressed', '%d bytes at %d in the chunk at %d' % (n, at, r.pos), bytes(b)
    # the bag header
    hdr = recs[0]
    b = bytearray(orig)
    put32(b, hdr.data_pos - 4, len(orig) + 100)
    yield 'file-header', 'padding length past the end of the file', bytes(b)
    b = bytearray(orig)
    at = hdr.field_at('index_pos')
    b[at:at + 8] = struct.pack('<Q', rng.randrange(13, len(orig)))
    yield 'file-header', 'index_pos points at a random byte', bytes(b)

def all_mutants():
    rng = random.Random(SEED)
    out = []
    for rel in BAGS:
        orig = open(os.path.join(FIX, rel), 'rb').read()
        for cat, what, data in mutants_of(rel, orig, rng):
            out.append({'bag': rel, 'category': cat, 'what': what, 'data': data,
                        'sha1': hashlib.sha1(data).hexdigest()})
    return out

# ---- running the tools --------------------------------------------------------

def reindexed(path):
    """(topic, time_ns) of every message rosbag reads after `rosbag reindex`."""
    work = path + '.reindex.bag'
    shutil.copyfile(path, work)
    subprocess.run(['rosbag', 'reindex', '-q', work], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
    got = []
    try:
        import rosbag
        with rosbag.Bag(work) as bag:
            for topic, _, t in bag.read_messages(raw=True):
                got.append([topic, t.to_nsec()])
    except Exception:
        pass                                  # what was read before the failure counts
    return got

try:
    from orjson import loads as fast_loads    # about 4x json's speed on the long byte arrays
except ImportError:
    fast_loads = json.loads

def json_line(line):
    """The object on one line, as json.loads reads it (orjson first: stricter, never laxer)."""
    try:
        return fast_loads(line)
    except ValueError:
        return json.loads(line)

def bagscope_lists(bagscope, path):
    p = subprocess.run([bagscope, 'cat', '--format', 'json', path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    got = []
    for line in p.stdout.decode('utf-8', 'replace').splitlines():
        try:
            m = json_line(line)
            got.append((m['topic'], m['time_ns']))
        except ValueError:
            pass
    return got, p.returncode, p.stderr.decode('utf-8', 'replace').count('\n')

def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    bagscope = os.path.abspath(args[0])
    refresh, verbose = '--refresh' in args, '--verbose' in args
    keep = args[args.index('--keep') + 1] if '--keep' in args else None
    cache = {}
    if os.path.exists(CACHE) and not refresh:
        cache = json.load(open(CACHE))
    mutants = all_mutants()
    tmp = tempfile.mkdtemp(prefix='bagscope-mutants-')
    totals = defaultdict(lambda: [0, 0, 0, 0, 0])  # mutants, reindex msgs, bagscope's of them, fewer, bagscope's all
    failures, stale, stderr_lines = [], 0, 0
    try:
        for i, m in enumerate(mutants):
            path = os.path.join(tmp, '%03d.bag' % i)
            with open(path, 'wb') as f:
                f.write(m['data'])
            if refresh:
                cache[m['sha1']] = {'bag': m['bag'], 'what': m['what'], 'messages': reindexed(path)}
            if m['sha1'] not in cache:
                stale += 1
                continue
            ref = Counter(tuple(x) for x in cache[m['sha1']]['messages'])
            got, rc, nerr = bagscope_lists(bagscope, path)
            stderr_lines += nerr
            have = Counter(got)
            found = sum(min(n, have[k]) for k, n in ref.items())
            t = totals[m['category']]
            t[0] += 1
            t[1] += sum(ref.values())
            t[2] += found
            t[4] += len(got)
            if found < sum(ref.values()):
                t[3] += 1
                failures.append('%03d %s: %s: reindex %d, bagscope %d of them (exit %d)' %
                                (i, m['bag'], m['what'], sum(ref.values()), found, rc))
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    shutil.copyfile(path, os.path.join(keep, '%03d.bag' % i))
            elif verbose:
                print('ok %03d %s: %s: reindex %d, bagscope %d (%d listed)' %
                      (i, m['bag'], m['what'], sum(ref.values()), found, len(got)))
            os.unlink(path)
    finally:
        shutil.rmtree(tmp)
    if refresh:
        os.makedirs(os.path.dirname(CACHE), exist_ok=True)
        with open(CACHE, 'w') as f:
            json.dump(cache, f, indent=0, sort_keys=True)
            f.write('\n')
    print('%-18s %7s %13s %17s %15s %6s' % ('category', 'mutants', 'reindex msgs', 'bagscope of them',
                                             'bagscope lists', 'fewer'))
    for cat in sorted(totals):
        t = totals[cat]
        print('%-18s %7d %13d %17d %15d %6d' % (cat, t[0], t[1], t[2], t[4], t[3]))
    all_t = [sum(t[k] for t in totals.values()) for k in range(5)]
    print('%-18s %7d %13d %17d %15d %6d' % ('all', all_t[0], all_t[1], all_t[2], all_t[4], all_t[3]))
    print('%d stderr lines from bagscope' % stderr_lines)
    for f in failures:
        print('FAIL ' + f)
    if stale:
        print('FAIL %d mutants are not in %s: run with --refresh' % (stale, os.path.relpath(CACHE)))
    sys.exit(1 if failures or stale else 0)

if __name__ == '__main__':
    main()
