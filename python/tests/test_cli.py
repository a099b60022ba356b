"""bagscope in Python agrees with the bagscope command: old formats, damaged bags,
refused files and expressions (the same one line)."""
import glob
import json
import os
import subprocess

import pytest

import bagscope
from conftest import DATA, FIX, bagscope_cli

OLD = sorted(glob.glob(os.path.join(DATA, 'oldbags', '*.bag')))
DAMAGED = [os.path.join(FIX, 'broken', b) for b in ('crashed_none.bag', 'truncated_bz2.bag')]
# MCAP files @mcap/core wrote: ros1 and ros2 (CDR) profiles, with and without a summary
MCAP = sorted(glob.glob(os.path.join(DATA, 'mcap', '*.mcap')))


def cli(*args):
    return subprocess.run([bagscope_cli()] + list(args), capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL='C.UTF-8'))


def plain(v):
    """Python values as the CLI's JSON gives them (times as {secs, nsecs}, bytes as int lists)."""
    if isinstance(v, (bagscope.Time, bagscope.Duration)):
        return {'secs': v.secs, 'nsecs': v.nsecs}
    if isinstance(v, bytes):
        return list(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, float) and v != v:
        return 'nan'                      # the JSON contract's spelling (fixtures README)
    if isinstance(v, float) and v in (float('inf'), float('-inf')):
        return 'inf' if v > 0 else '-inf'
    return v


@pytest.mark.parametrize('path', OLD + DAMAGED + MCAP, ids=os.path.basename)
def test_messages_match_cli(path):
    out = cli('cat', '--format', 'json', path)
    lines = [json.loads(l) for l in out.stdout.splitlines()]
    with bagscope.open(path) as bag:
        ours = list(bag.messages())
    assert len(ours) == len(lines)
    for m, ref in zip(ours, lines):
        assert (m.topic, m.type, m.time_ns) == (ref['topic'], ref['type'], ref['time_ns'])
        assert (plain(m.msg) if m.msg is not None else None) == ref['msg']


def test_recovered_bag_says_so():
    with bagscope.open(DAMAGED[0]) as bag:
        assert 'index_pos is 0' in bag.files[0]['recovered']


def test_not_a_bag_raises_the_cli_line():
    path = os.path.join(FIX, 'broken', 'not_a_bag.bag')
    with pytest.raises(bagscope.FormatError) as e:
        bagscope.open(path)
    assert str(e.value) in cli('info', path).stderr
    assert e.value.offset == 0


@pytest.mark.parametrize('expr', ['data >', 'nosuch > 1', 'data =~ "("'])
def test_filter_errors_are_the_cli_line(expr):
    path = os.path.join(FIX, 'bags', 'basic_none.bag')
    with bagscope.open(path) as bag, pytest.raises(bagscope.ExpressionError) as e:
        list(bag.messages(filter=expr))
    assert str(e.value) in cli('cat', '--filter', expr, path).stderr


def test_filter_and_window_match_cli():
    path = os.path.join(FIX, 'bags', 'nested_bz2.bag')
    expr = 'header.seq > 2'
    out = cli('cat', '--format', 'json', '--filter', expr, '--start', '1500000101', path)
    ref = [json.loads(l) for l in out.stdout.splitlines()]
    with bagscope.open(path) as bag:
        ours = list(bag.messages(filter=expr, start=1500000101 * 10**9))
    assert [(m.topic, m.time_ns) for m in ours] == [(r['topic'], r['time_ns']) for r in ref]
    assert ref


def test_export_and_check_like_cli(tmp_path):
    path = os.path.join(FIX, 'bags', 'tf_lz4.bag')
    with bagscope.open(path) as bag:
        res = bag.export(tmp_path / 'out.bag', topics=['/tf'])
        assert res['messages'] == bag.topics['/tf'].message_count
        (checked, findings, stats), = bag.check()
        assert findings == [] and checked == path
    with bagscope.open(tmp_path / 'out.bag') as out:
        assert list(out.topics) == ['/tf']
    assert cli('check', str(tmp_path / 'out.bag')).returncode == 0


def test_read_tf_paths_match_tf_lookup():
    """A tf(TARGET, SOURCE) path in read() is `bagscope tf --lookup` at each message's time."""
    path = os.path.join(FIX, 'bags', 'tf_lz4.bag')
    with bagscope.open(path) as bag:
        topic = next(t for t, v in bag.topics.items() if 'TFMessage' in v.type)
        cols = bag.read([topic + '.transforms[0].header.seq', 'tf(odom, base_0).translation.x',
                         'tf(odom, base_0).yaw'])
    times = list(cols['time_ns'])
    assert times
    at = []
    for t in times:
        at += ['--at', '%d.%09d' % divmod(t, 10**9)]
    out = cli('tf', '--json', '--lookup', 'odom', 'base_0', *at, path)
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    ref = json.loads(out.stdout) if out.stdout.lstrip().startswith('[') else [json.loads(l) for l in lines]
    assert len(ref) == len(times)
    for k, r in enumerate(ref):
        x = cols['tf(odom, base_0).translation.x'][k]
        if r.get('error'):
            assert x != x       # a failed lookup is a missing value: NaN
        else:
            assert x == pytest.approx(r['translation'][0], abs=1e-9)
            assert cols['tf(odom, base_0).yaw'][k] == pytest.approx(r['rpy'][2], abs=1e-9)


def test_read_tf_path_first_is_refused():
    with bagscope.open(os.path.join(FIX, 'bags', 'tf_lz4.bag')) as bag, pytest.raises(ValueError):
        bag.read(['tf(odom, base_0).translation.x'])


@pytest.mark.parametrize('bag', [os.path.join(FIX, 'made', 'freq_times.bag'),
                                 os.path.join(FIX, 'foreign', 'rosbag.js', 'example.bag')])
def test_stats_rate_is_the_commands(bag):
    """Bag.stats()'s rate_hz is `bagscope stats --json`'s (one definition: n - 1 periods over the span)."""
    got = json.loads(cli('stats', '--index', '--json', bag).stdout)
    with bagscope.open(bag) as b:
        ours = b.stats()
    for t in got['topics']:
        o = ours[t['topic']]
        span = o['last_ns'] - o['first_ns']
        assert o['rate_hz'] == pytest.approx(t['rate_hz'], rel=1e-12)
        assert o['rate_hz'] == pytest.approx((o['messages'] - 1) * 1e9 / span if span > 0 else 0.0, rel=1e-12)
