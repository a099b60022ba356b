#!/usr/bin/env python3
"""Bags older than 2.0 through the CLI (make check: tests/cli/oldbags.sh).

    oldbags.py BIN   -> 'ok    ...' / 'FAIL  ...' lines, then 'N passed, N failed'

1. The checks of shared/oldbags/check_oldbags.py (tests/tools/check_oldbags.py, run on
   the copies in tests/data/oldbags): `info --json` and `cat --format json` of every
   sample against expected/NAME.expect.json (written from the generator's message
   stream, and for monster.bag from a byte walk), definitions of 1.1 and older from
   Debian's ros-std-msgs through ROS_PACKAGE_PATH=/usr/share.
2. Golden `info` against Debian's rosbag for 1.2: `rosbag info` of the indexed file,
   and for the unindexed one what rosbag prints after Bag.reindex() (plain `rosbag
   info` prints only path, version and size for it). rosbag cannot read 1.1 and older
   at all ("unsupported bag version 101"; 1.0 is misparsed as 1.2): no golden there.
3. `version:` lines, relative times, --msg-path and its notes, refused versions.
4. Truncation through the CLI: of every generated file, at the first, middle and
   last record boundary (and 3 bytes into those records): exactly the whole
   messages before the cut, in order, exit 0; a cut inside the header (its first,
   middle and last byte) is one error line, never a crash or a hang. Every other
   cut is read in one process by tests/unit/test-truncate.c, which asserts the
   same of each through the library.
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'data', 'oldbags')
passed = failed = 0


def result(name, why):
    global passed, failed
    if why:
        failed += 1
        print('FAIL  %s: %s' % (name, why))
    else:
        passed += 1
        print('ok    %s' % name)


class Run:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err


def run(binary, args, env=None, timeout=30, cwd=None):
    e = dict(os.environ)
    e.pop('BAGSCOPE_MSG_PATH', None)
    e.pop('ROS_PACKAGE_PATH', None)
    e['TZ'] = 'UTC'
    e.update(env or {})
    p = subprocess.Popen([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, env=e, cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return Run(None, out, err)
    return Run(p.returncode, out, err)


def died(r):
    if r.rc is None:
        return 'timed out'
    if r.rc < 0 or r.rc > 2:
        return 'exit %d: %s' % (r.rc, r.err.decode('utf-8', 'replace')[:300])
    return None


def jsonl(r):
    return [json.loads(l) for l in r.out.decode('utf-8').split('\n') if l.strip()]


# ---- 1. check_oldbags.py --------------------------------------------------------
def check_oldbags(binary):
    r = subprocess.run([sys.executable, os.path.join(HERE, 'check_oldbags.py'), binary],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    lines = r.stdout.decode().splitlines()
    for l in lines[:-1]:
        if l.startswith('ok'):
            result(l.split(None, 1)[1], None)
        else:
            result(l.split(None, 1)[1], 'see above' if not l.startswith('FAIL') else l[6:])
    if r.returncode != 0 and not any(l.startswith('FAIL') for l in lines):
        result('check_oldbags.py', 'exit %d: %s' % (r.returncode, r.stderr.decode()[-300:]))


# ---- 2. golden info against rosbag ------------------------------------------------
def golden(binary):
    for name, ref in (('gen_v12_indexed', 'rosbag-info'), ('gen_v12_unindexed', 'rosbag-reindex')):
        with open(os.path.join(DATA, '%s.%s.txt' % (name, ref))) as f:
            want = f.read()
        r = run(binary, ['info', name + '.bag'], cwd=DATA)
        got = r.out.decode()
        why = died(r) or (None if got == want else 'differs from rosbag:\n%s\n--- rosbag:\n%s' % (got, want))
        result('golden/info/%s (rosbag %s)' % (name, ref), why)


# ---- 3. notes, versions, --msg-path -------------------------------------------------
def expect(name, r, rc=0, out=(), err=(), no_err=()):
    why = died(r)
    o, e = r.out.decode('utf-8', 'replace'), r.err.decode('utf-8', 'replace')
    if not why and r.rc != rc:
        why = 'exit %d, expected %d: %s' % (r.rc, rc, e[:300])
    for s in out:
        if not why and s not in o:
            why = 'stdout lacks %r: %s' % (s, o[:400])
    for s in err:
        if not why and s not in e:
            why = 'stderr lacks %r: %s' % (s, e[:400])
    for s in no_err:
        if not why and s in e:
            why = 'stderr has %r: %s' % (s, e[:400])
    result(name, why)


def notes(binary, tmp):
    bag = lambda n: os.path.join(DATA, n + '.bag')
    usr = {'ROS_PACKAGE_PATH': '/usr/share'}
    for n, v in (('gen_v0', '0'), ('gen_v10', '1.0'), ('gen_v11_roslog', '1.1'), ('gen_v11_rosrecord', '1.1'),
                 ('gen_v12_indexed', '1.2'), ('gen_v12_unindexed', '1.2 (unindexed)'),
                 ('gen_v12_indexed_truncated', '1.2 (unindexed)'), ('monster', '1.0')):
        expect('info/version/%s' % n, run(binary, ['info', bag(n)], usr), out=['version:     %s\n' % v])
        r = run(binary, ['info', '--json', bag(n)], usr)
        j = json.loads(r.out.decode()) if r.rc == 0 else {}
        rel = n in ('gen_v0', 'gen_v10', 'monster')
        why = None if (j.get('bag_format') == v and j.get('format') == 'bag' and j.get('relative_times') == rel and
                       j.get('indexed') == (n != 'gen_v12_unindexed' and n != 'gen_v12_indexed_truncated')) \
            else 'format/relative_times/indexed: %r' % {k: j.get(k) for k in ('format', 'bag_format', 'relative_times', 'indexed')}
        result('info/json/%s' % n, died(r) or why)
    expect('info/relative times are offsets', run(binary, ['info', bag('monster')]),
           out=['start:       +4.49s (times are durations since the recording started)', 'end:         +4.49s'])
    expect('info/epoch times of #ROSLOG 1.1 stay dates', run(binary, ['info', bag('gen_v11_roslog')], usr),
           out=['start:       Jan 01 2010 00:00:00.00 (1262304000.00)'])
    expect('note/a type recorded as *', run(binary, ['cat', '--format', 'json', bag('monster')]),
           out=['"size":675911,"msg":null'], err=["recorded without a type ('*')"])
    expect('cat/a message without a definition in hex', run(binary, ['cat', bag('monster')]),
           out=['world_3d_map 4.490867000 * 675911 bytes\n00000000  '])
    # --msg-path first: a String.msg of another md5 is refused, with the md5s named
    d = os.path.join(tmp, 'msgs')
    os.makedirs(os.path.join(d, 'std_msgs', 'msg'))
    with open(os.path.join(d, 'std_msgs', 'msg', 'String.msg'), 'w') as f:
        f.write('string text\nint32 extra\n')
    expect('--msg-path/md5 checked', run(binary, ['--msg-path', d, 'cat', '--format', 'json', bag('gen_v0')]),
           out=['"size":17,"msg":null'], err=['the definition of std_msgs/String in %s/std_msgs/msg/String.msg has '
                                                'md5' % d, 'the bag records 992ce8a1687cec8c8bd883ec73ca41d1'])
    # a package directory itself, and a type of two files (nested, Header resolved to std_msgs)
    pkg = os.path.join(tmp, 'demo_msgs')
    os.makedirs(os.path.join(pkg, 'msg'))
    with open(os.path.join(pkg, 'msg', 'Outer.msg'), 'w') as f:
        f.write('# a comment\nuint8 KIND=3\nHeader header\nInner[] items\n')
    with open(os.path.join(pkg, 'msg', 'Inner.msg'), 'w') as f:
        f.write('float64 x\nstring name\n')
    v0 = os.path.join(tmp, 'outer.bag')
    payload = struct.pack('<III', 7, 1, 2) + struct.pack('<I', 1) + b'f' + struct.pack('<I', 1) + \
        struct.pack('<d', 1.5) + struct.pack('<I', 2) + b'ab'
    with open(v0, 'wb') as f:
        f.write(b'outer\ndemo_msgs/Outer\n*\n' + struct.pack('<III', 3, 0, len(payload)) + payload)
    expect('--msg-path=PKGDIR/nested types', run(binary, ['--msg-path=' + pkg, 'cat', '--format', 'json', v0], usr),
           out=['"msg":{"header":{"seq":7,"stamp":{"secs":1,"nsecs":2},"frame_id":"f"},'
                '"items":[{"x":1.5,"name":"ab"}]}'], no_err=['warning'])
    expect('BAGSCOPE_MSG_PATH', run(binary, ['cat', '--format', 'json', v0], {'BAGSCOPE_MSG_PATH': '/nowhere:' + tmp}),
           out=['"items":[{"x":1.5,"name":"ab"}]'])
    expect('note/type not found: where bagscope looked', run(binary, ['cat', '--format', 'json', v0]),
           out=['"size":%d,"msg":null' % len(payload)],
           err=['no definition of demo_msgs/Outer', 'looked in /usr/share'])
    bad = os.path.join(tmp, 'bad.bag')
    with open(bad, 'wb') as f:
        f.write(b'#ROSFOO V3.0\n' + b'\0' * 32)
    expect('a version bagscope cannot read', run(binary, ['info', bad]), rc=1,
           err=["version line '#ROSFOO V3.0' names a bag format bagscope cannot read"])
    empty = os.path.join(tmp, 'empty_v0.bag')
    with open(empty, 'wb') as f:
        f.write(b'chatter\nstd_msgs/String\n992ce8a1687cec8c8bd883ec73ca41d1\n')
    expect('a version-0 file of its header alone', run(binary, ['info', empty]), out=['version: 0', 'size:    0.1 KB'])


# ---- 4. truncations ---------------------------------------------------------------
def boundaries(data):
    """(offset where the message section starts, [(record end, messages so far)])."""
    if data.startswith(b'#ROSRECORD V1.2\n'):
        at, ends, n = 16, [], 0
        while at + 8 <= len(data):
            hl = struct.unpack_from('<I', data, at)[0]
            dl = struct.unpack_from('<I', data, at + 4 + hl)[0]
            hdr = data[at + 4:at + 4 + hl]
            op = hdr[hdr.index(b'op=') + 3]
            at += 8 + hl + dl
            n += op == 2
            ends.append((at, n))
        return ends[0][0] if data[16:].find(b'op=\x03') < 64 and data[16:].find(b'op=\x03') >= 0 else 16, ends
    lines = 3
    if data.startswith(b'#ROS'):
        v10 = data.startswith(b'#ROSLOG V1.0')
        at = data.index(b'\n') + 1
        if v10:
            count = int(data[at:data.index(b'\n', at)])
            at = data.index(b'\n', at) + 1
            for _ in range(3 * count):
                at = data.index(b'\n', at) + 1
            lines = 1
    else:
        at = 0
        for _ in range(3):
            at = data.index(b'\n', at) + 1
        lines = 0
    start, ends, n = at, [], 0
    while at < len(data):
        for _ in range(lines):
            at = data.index(b'\n', at) + 1
        ln = struct.unpack_from('<I', data, at + 8)[0]
        at += 12 + ln
        n += 1
        ends.append((at, n))
    return start, ends


def index_records(data):
    """An indexed 1.2 file's index: [index_pos, (record end, topic)...]; [] for others."""
    if not data.startswith(b'#ROSRECORD V1.2\n') or b'index_pos=' not in data[16:64]:
        return []
    at = struct.unpack_from('<Q', data, data.index(b'index_pos=') + 10)[0]
    out = [at]
    while 0 < at < len(data):
        hl = struct.unpack_from('<I', data, at)[0]
        hdr = data[at + 4:at + 4 + hl]
        i = hdr.index(b'topic=')
        n = struct.unpack_from('<I', hdr, i - 4)[0]
        at += 8 + hl + struct.unpack_from('<I', data, at + 4 + hl)[0]
        out.append((at, hdr[i + 6:i - 4 + 4 + n].decode()))
    return out


def truncations(binary, tmp):
    usr = {'ROS_PACKAGE_PATH': '/usr/share'}
    for name in sorted(os.listdir(os.path.join(DATA, 'expected'))):
        name = name[:-len('.expect.json')]
        if name == 'monster' or name.endswith('truncated'):
            continue
        with open(os.path.join(DATA, name + '.bag'), 'rb') as f:
            data = f.read()
        with open(os.path.join(DATA, 'expected', name + '.expect.json')) as f:
            exp = json.load(f)['cat']
        start, ends = boundaries(data)
        cuts = [(start, 0)] + ends
        cuts = [cuts[0], cuts[len(cuts) // 2], cuts[-1]]
        index = index_records(data)
        bad = []
        for end, n in cuts:
            for extra in (0, 3):
                cut = end + extra
                if cut >= len(data) and extra:
                    continue
                p = os.path.join(tmp, 'cut.bag')
                with open(p, 'wb') as f:
                    f.write(data[:cut])
                r = run(binary, ['cat', '--format', 'json', p], usr)
                why = died(r)
                if not why and r.rc != 0:
                    why = 'exit %d: %s' % (r.rc, r.err.decode()[:200])
                if not why:
                    got = [(m['topic'], m['time_ns'], m['msg']) for m in jsonl(r)]
                    want = [(m['topic'], m['time_ns'], m['msg']) for m in exp[:n]]
                    if index and index[0] < cut < len(data) and extra == 0:
                        # cut exactly between 1.2 index records: the topics of the whole
                        # ones are read, as rosbag and rosbag_storage read them
                        want = [w for w in want if w[0] in [t for e, t in index[1:] if e <= cut]]
                    if got != want:
                        why = '%d messages, expected the first %d' % (len(got), n)
                if not why and extra and b'at byte %d' % end not in r.err and b'bytes %d-' % end not in r.err:
                    why = 'no line naming byte %d: %s' % (end, r.err.decode()[:300])
                if why:
                    bad.append('cut at %d: %s' % (cut, why))
        result('truncate/%s at record boundaries %s and inside those records' % (name, [c for c, _ in cuts]),
               '; '.join(bad[:3]) if bad else None)
        # inside the header: one error line (or an empty bag), never a crash
        worst = None
        for cut in sorted({1, start // 2, start - 1}):
            p = os.path.join(tmp, 'cut.bag')
            with open(p, 'wb') as f:
                f.write(data[:cut])
            r = run(binary, ['info', p], usr)
            why = died(r)
            if not why and r.rc == 1 and len(r.err.decode().strip().split('\n')) != 1:
                why = 'not one error line: %s' % r.err.decode()[:300]
            if why and worst is None:
                worst = 'cut at %d: %s' % (cut, why)
        result('truncate/%s inside its %d header bytes (first, middle, last)' % (name, start), worst)


def main():
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix='bagscope-oldbags-')
    try:
        check_oldbags(binary)
        golden(binary)
        notes(binary, tmp)
        truncations(binary, tmp)
    finally:
        shutil.rmtree(tmp)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
