"""bagscope against Debian's python3-rosbag on every fixture bag it reads: the same
messages in the same order, bytes, decoded values (under the JSON contract's rules),
topics, counts and times."""
import math

import pytest

import bagscope

rosbag = pytest.importorskip('rosbag')
genpy = pytest.importorskip('genpy')


def plain(v):
    """A genpy value as bagscope gives it: dicts, lists, bytes, (secs, nsecs)."""
    if isinstance(v, genpy.Message):
        return {s: plain(getattr(v, s)) for s in v.__slots__}
    if isinstance(v, (genpy.Time, genpy.Duration)):
        return (v.secs, v.nsecs)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def same(a, b, where):
    """Equal as values: NaN equals NaN, bools equal 0/1 as genpy gives them."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for k in a:
            same(a[k], b[k], where + '.' + k)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, '%s[%d]' % (where, i))
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert a == b, '%s: %r != %r' % (where, a, b)


# rosbag merges each connection's index in file order, so a bag whose chunks are not in time
# order comes out of it unsorted (and its start time is its first chunk's); bagscope gives time
# order and the true start. There the comparison is of the same messages, in time order.
UNSORTED = 'example-unsorted-chunks.bag'


def test_messages_equal_rosbag(good_bag):
    with rosbag.Bag(good_bag) as ref, bagscope.open(good_bag) as bag:
        theirs = list(ref.read_messages(raw=True))
        ours = list(bag.messages())
        if good_bag.endswith(UNSORTED):
            theirs.sort(key=lambda r: r[2].to_nsec())
            assert [m.time_ns for m in ours] == sorted(m.time_ns for m in ours)
        assert len(ours) == len(theirs) == bag.message_count
        for k, (m, r) in enumerate(zip(ours, theirs)):
            topic, (mtype, data, md5, pos, pytype), t = r
            assert (m.topic, m.type, m.time_ns, m.data) == (topic, mtype, t.to_nsec(), data), k
            msg = pytype()
            msg.deserialize(data)
            same(plain(msg), {k2: _tuples(v) for k2, v in m.msg.items()}, '%s#%d' % (topic, k))


def _tuples(v):
    """bagscope's Time/Duration as plain tuples, lists kept, for comparing with plain()."""
    if isinstance(v, (bagscope.Time, bagscope.Duration)):
        return (v.secs, v.nsecs)
    if isinstance(v, dict):
        return {k: _tuples(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_tuples(x) for x in v]
    return v


def test_topics_counts_times_equal_rosbag(good_bag):
    with rosbag.Bag(good_bag) as ref, bagscope.open(good_bag) as bag:
        info = ref.get_type_and_topic_info()
        assert sorted(bag.topics) == sorted(info.topics)
        for name, t in info.topics.items():
            ours = bag.topics[name]
            assert (ours.type, ours.message_count, ours.connections) == (t.msg_type, t.message_count, t.connections)
            if t.frequency is not None:
                assert ours.frequency == pytest.approx(t.frequency, rel=1e-9)
        if ref.get_message_count() and not good_bag.endswith(UNSORTED):
            assert bag.start_ns == round(ref.get_start_time() * 1e9) or \
                abs(bag.start_ns - ref.get_start_time() * 1e9) < 1e3
            assert abs(bag.end_ns - ref.get_end_time() * 1e9) < 1e3


def test_read_columns_equal_rosbag_values():
    path = [p for p in __import__('conftest').GOOD_BAGS if p.endswith('nested_bz2.bag')][0]
    with rosbag.Bag(path) as ref, bagscope.open(path) as bag:
        topic = next(t for t, v in bag.topics.items() if v.type.endswith('Widget'))
        msgs = [(m, t) for _, m, t in ref.read_messages(topics=[topic])]
        cols = bag.read([topic + '.header.seq', 'header.frame_id', 'header.stamp'])
        assert list(cols['time_ns']) == [t.to_nsec() for _, t in msgs]
        assert cols[topic + '.header.seq'].dtype.kind in 'iu'
        assert list(cols[topic + '.header.seq']) == [m.header.seq for m, _ in msgs]
        assert list(cols['header.frame_id']) == [m.header.frame_id for m, _ in msgs]
        assert list(cols['header.stamp']) == [m.header.stamp.to_nsec() for m, _ in msgs]
