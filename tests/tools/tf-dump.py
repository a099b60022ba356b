#!/usr/bin/python3
"""Read a bag's TF messages with Debian's python3-rosbag and write, for
tests/tools/tf2-ref.cpp and tests/tools/tf-lookups.c, one T line per
transform (record-time order) and Q lines: lookups between every pair of
frames at time 0, at each edge's first and last stamps and one nanosecond
beyond, at stamps exactly, and at seeded random times over the bag's span
(exact nanoseconds), plus a few bad frame arguments.

usage: tf-dump.py BAG [RANDOM_TIMES_PER_PAIR]
       tf-dump.py --to DIR RANDOM_TIMES_PER_PAIR BAG...
The second form writes DIR/NAME.in for each BAG (rosbag's import is paid
once); a bag that cannot be read gets no file and a line on stderr.
"""
import os
import random
import sys

import rosbag

TYPES = ('tf2_msgs/TFMessage', 'tf/tfMessage')


def dump(path, per_pair, out):
    frames, stamps = set(), set()
    with rosbag.Bag(path) as bag:
        topics = [t for t, i in bag.get_type_and_topic_info().topics.items() if i.msg_type in TYPES]
        for topic, msg, _t, hdr in bag.read_messages(topics=topics, return_connection_header=True):
            static = hdr.get('latching', '0') == '1' or topic.endswith('_static')
            for tr in msg.transforms:
                s, r, v = tr.header.stamp, tr.transform.rotation, tr.transform.translation
                vals = [v.x, v.y, v.z, r.x, r.y, r.z, r.w]
                out.write('\t'.join(['T', '1' if static else '0', tr.header.frame_id, tr.child_frame_id,
                                     str(s.secs), str(s.nsecs)] + [repr(x) for x in vals]) + '\n')
                for name in (tr.header.frame_id, tr.child_frame_id):
                    if name.startswith('/'):
                        name = name[1:]
                    if name:
                        frames.add(name)
                stamps.add(s.secs * 10**9 + s.nsecs)
    rng = random.Random(21)
    frames = sorted(frames)
    st = sorted(stamps)
    lo, hi = (st[0], st[-1]) if st else (0, 0)
    special = [0] + st[:3] + st[-3:] + [st[0] - 1, st[-1] + 1] if st else [0]
    for target in frames:
        for source in frames:
            times = special + [rng.choice(st) for _ in range(per_pair // 2)] + \
                [rng.randint(lo - (hi - lo) // 10, hi + (hi - lo) // 10) for _ in range(per_pair)]
            for t in times:
                if t >= 0:
                    out.write('Q\t%s\t%s\t%d\t%d\n' % (target, source, t // 10**9, t % 10**9))
    if frames:
        for target, source in ((frames[0], 'no_such_frame'), ('/' + frames[0], frames[-1]), ('', frames[0]),
                               ('no_such_frame', 'no_such_frame')):
            out.write('Q\t%s\t%s\t0\t0\n' % (target, source))


def main():
    if sys.argv[1] != '--to':
        dump(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12, sys.stdout)
        return 0
    status = 0
    for path in sys.argv[4:]:
        name = os.path.join(sys.argv[2], os.path.basename(path)[:-len('.bag')] + '.in')
        try:
            with open(name + '.part', 'w') as out:
                dump(path, int(sys.argv[3]), out)
            os.rename(name + '.part', name)
        except Exception as e:
            print('tf-dump.py: %s: %s' % (path, e), file=sys.stderr)
            status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
