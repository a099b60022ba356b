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
"""
import argparse
import collections
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


def main():
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
    a = ap.parse_args()

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
    for p in problems:
        print('export-check: %s: %s' % (a.out, p))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
