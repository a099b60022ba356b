#!/usr/bin/python3
"""Check a bag written by `bagscope export` with rosbag's own Python reader.

  export-check.py OUT IN... [--topic T]... [--type TYPE]... [--start NS] [--end NS]
                  [--py-filter EXPR] [--keep-latched] [--superset-of REF]...

The expected messages are computed from the inputs with rosbag.Bag as the
issue defines the selection: connections whose topic is one of --topic or
whose type is one of --type (all when neither is given), times in
[--start, --end] (nanoseconds, inclusive), --py-filter a Python expression
on the deserialized message `m` and its time `t` (ns); with --keep-latched,
each selected latched connection's last message before --start too,
unfiltered. OUT must hold exactly these messages - topic, time, bytes and
the whole connection header, fields in order - in time order, and exactly
the connections that carry them. With --superset-of (for damaged inputs,
which rosbag cannot read), OUT must instead hold every message of each REF
(e.g. a `rosbag reindex` of a copy), and IN is not read.

With --info, `rosbag info OUT` (its code, run in this process) must succeed;
--compression C: the compression it reports must be C; --compression-of IN:
the one it reports for IN; --min-chunks N: at least N chunks; --only-info: these
and no comparison of the messages. --info-fails: `rosbag info OUT` must fail
(an unindexed bag), and nothing else is checked. --appended-to IN --appended N:
OUT is IN after write-tool's append (tests/tools/write-tool.c): IN's messages
twice on IN's connections, and N new ones on one new connection, /appended,
whose data are the int64s 0 .. N-1.

  export-check.py --batch FILE

runs the checks of each line of FILE (a name, then the arguments above,
shell-quoted) in this one process, printing 'ok    NAME' or 'FAIL  NAME' and
the problems for each: one Python start and one import of rosbag for all.
"""
import argparse
import collections
import contextlib
import io
import re
import shlex
import sys

import rosbag


def header_items(h):
    return tuple((k, v if isinstance(v, bytes) else str(v).encode('latin1', 'replace')) for k, v in h.items())


def messages(path):
    """(topic, time_ns, bytes, header items) of every message, in the reader's order."""
    out = []
    with rosbag.Bag(path) as bag:
        for topic, raw, t, hdr in bag.read_messages(raw=True, return_connection_header=True):
            out.append((topic, t.to_nsec(), bytes(raw[1]), header_items(hdr), raw[4]))
    return out


def connections(path):
    with rosbag.Bag(path) as bag:
        return collections.Counter((c.topic, header_items(c.header)) for c in bag._get_connections())


def rosbag_info(path):
    """What `rosbag info PATH` prints, or None when it fails (its own code: rosbag_main.info_cmd)."""
    from rosbag import rosbag_main
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rosbag_main.info_cmd([path])
    except SystemExit as e:
        if e.code:
            return None
    except Exception:  # the command would die with a traceback
        return None
    return out.getvalue()


def info_problems(a):
    """--info, --compression, --compression-of, --min-chunks."""
    info = rosbag_info(a.out)
    if info is None:
        return ['rosbag info fails']
    comp = lambda text: re.search(r'^compression: *([a-z0-9]*)(?: \[(\d+)/)?', text, re.M)
    m, problems = comp(info), []
    if a.compression and (m is None or m.group(1) != a.compression):
        problems.append('compression %s, not %s' % (m and m.group(1), a.compression))
    if a.compression_of:
        other = comp(rosbag_info(a.compression_of) or '')
        if other is None or m is None or other.group(1) != m.group(1):
            problems.append('compression %s, %s has %s' % (m and m.group(1), a.compression_of, other and other.group(1)))
    if a.min_chunks and (m is None or m.group(2) is None or int(m.group(2)) < a.min_chunks):
        problems.append('fewer than %d chunks: %s' % (a.min_chunks, m and m.group(0)))
    return problems


def appended_problems(out, orig_path, n):
    """--appended-to: OUT holds ORIG's messages twice and N new ones on one new connection."""
    got, orig = messages(out), messages(orig_path)
    key = lambda m: m[:4]
    new = [m for m in got if m[0] == '/appended']
    rest = collections.Counter(key(m) for m in got if m[0] != '/appended')
    problems = []
    if rest != collections.Counter([key(m) for m in orig] * 2):
        problems.append('old messages and their copies')
    if [int.from_bytes(m[2], 'little', signed=True) for m in new] != list(range(n)):
        problems.append('new messages')
    with rosbag.Bag(out) as a, rosbag.Bag(orig_path) as o:
        if len(a._connections) != len(o._connections) + 1:
            problems.append('connections reused')
    return ['%s: %s' % (out, p) for p in problems]


def check(argv):
    """The problems of one check (the arguments of the usage above)."""
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('inputs', nargs='*')
    ap.add_argument('--topic', action='append', default=[])
    ap.add_argument('--type', action='append', default=[])
    ap.add_argument('--start', type=int)
    ap.add_argument('--end', type=int)
    ap.add_argument('--py-filter')
    ap.add_argument('--keep-latched', action='store_true')
    ap.add_argument('--superset-of', action='append', default=[])
    ap.add_argument('--info', action='store_true')
    ap.add_argument('--compression')
    ap.add_argument('--compression-of')
    ap.add_argument('--min-chunks', type=int)
    ap.add_argument('--only-info', action='store_true')
    ap.add_argument('--info-fails', action='store_true')
    ap.add_argument('--appended-to')
    ap.add_argument('--appended', type=int)
    a = ap.parse_args(argv)

    if a.info_fails:
        return [] if rosbag_info(a.out) is None else ['%s: rosbag info reads it' % a.out]

    if a.info or a.compression or a.compression_of or a.min_chunks:
        problems = info_problems(a)
        if problems or a.only_info:
            return problems
    if a.appended_to:
        return appended_problems(a.out, a.appended_to, a.appended)
    got = messages(a.out)
    problems = []
    times = [m[1] for m in got]
    if times != sorted(times):
        problems.append('messages are not in time order')
    key = lambda m: m[:4]
    if a.superset_of:
        have = collections.Counter(key(m) for m in got)
        for ref in a.superset_of:
            missing = collections.Counter(key(m) for m in messages(ref)) - have
            if missing:
                problems.append('%d messages of %s missing' % (sum(missing.values()), ref))
    else:
        exp, latched = [], {}
        for i, path in enumerate(a.inputs):
            for topic, t, data, hdr, pytype in messages(path):
                d = dict(hdr)
                typ = d.get('type', b'').decode()
                if (a.topic or a.type) and topic not in a.topic and typ not in a.type:
                    continue
                if a.start is not None and t < a.start:
                    if a.keep_latched and d.get('latching') == b'1':
                        latched[(i, topic, hdr)] = (topic, t, data, hdr)
                    continue
                if a.end is not None and t > a.end:
                    continue
                if a.py_filter:
                    m = pytype()
                    m.deserialize(data)
                    if not eval(a.py_filter, {'m': m, 't': t}):
                        continue
                exp.append((topic, t, data, hdr))
        exp += latched.values()
        want, have = collections.Counter(exp), collections.Counter(key(m) for m in got)
        if want != have:
            problems.append('%d messages missing, %d unexpected (of %d expected, %d written)' % (
                sum((want - have).values()), sum((have - want).values()), len(exp), len(got)))
            for m in list((want - have).elements())[:3]:
                problems.append('  missing %s at %d (%d bytes)' % (m[0], m[1], len(m[2])))
            for m in list((have - want).elements())[:3]:
                problems.append('  unexpected %s at %d (%d bytes)' % (m[0], m[1], len(m[2])))
        want_conns = set((m[0], m[3]) for m in exp)
        got_conns = set(connections(a.out))
        if want_conns != got_conns:
            problems.append('connections differ: %d expected, %d written, %d in common' % (
                len(want_conns), len(got_conns), len(want_conns & got_conns)))
    return ['%s: %s' % (a.out, p) for p in problems]


def main():
    if sys.argv[1:2] == ['--batch']:
        failed = 0
        with open(sys.argv[2]) as f:
            for line in f:
                name, *argv = shlex.split(line)
                try:
                    problems = check(argv)
                except Exception as e:  # rosbag cannot read it: a failure of this check, not of the others
                    problems = ['%s: %s' % (type(e).__name__, e)]
                print('%s  %s' % ('FAIL' if problems else 'ok  ', name))
                for p in problems:
                    print('      export-check: %s' % p)
                failed += bool(problems)
        return 1 if failed else 0
    problems = check(sys.argv[1:])
    for p in problems:
        print('export-check: %s' % p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
