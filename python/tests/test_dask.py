"""bagscope.dask on a distributed.LocalCluster of several worker processes over 20 bags:
the same rows as the serial read, row for row."""
import os

import numpy as np
import pytest

import bagscope
import bagscope.dask
from conftest import FIX

dd = pytest.importorskip('dask.dataframe')
distributed = pytest.importorskip('distributed')
pd = pytest.importorskip('pandas')


@pytest.fixture(scope='module')
def twenty_bags(tmp_path_factory):
    """20 bags of geometry_msgs/PointStamped written by python3-rosbag (half of them lz4)."""
    rosbag = pytest.importorskip('rosbag')
    geometry_msgs = pytest.importorskip('geometry_msgs.msg')
    genpy = pytest.importorskip('genpy')
    d = tmp_path_factory.mktemp('many')
    out = []
    for k in range(20):
        p = str(d / ('part%02d.bag' % k))
        with rosbag.Bag(p, 'w', compression='lz4' if k % 2 else 'none') as bag:
            for i in range(500):
                t = genpy.Time(1600000000 + k * 100, i * 1000000)
                m = geometry_msgs.PointStamped()
                m.header.seq, m.header.stamp, m.header.frame_id = i, t, 'frame%d' % (i % 3)
                m.point.x, m.point.y, m.point.z = k + i / 7.0, -i, 0.5
                bag.write('/point', m, t)
        out.append(p)
    return out


def serial(bags, paths):
    frames = []
    for b in bags:
        with bagscope.open(b) as bag:
            frames.append(bag.to_pandas(paths))
    return pd.concat(frames)


def test_cluster_read_equals_serial(twenty_bags):
    paths = ['/point.point.x', 'header.seq', 'header.frame_id', 'header.stamp']
    df = bagscope.dask.read(twenty_bags, paths, slices=2)
    assert df.npartitions == 40
    want = serial(twenty_bags, paths)
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        got = df.compute()
    assert len(got) == len(want) > 0
    assert list(got.columns) == paths
    assert (got.index.values == want.index.values).all()
    for p in paths:
        assert got[p].dtype == want[p].dtype
        assert list(got[p]) == list(want[p])


def test_meta_from_the_definitions(twenty_bags):
    df = bagscope.dask.read(twenty_bags, ['/point.point.y', 'header.seq', 'header.frame_id'])
    assert list(df.dtypes) == [np.float64, np.int64, object] and df.npartitions == 20


def test_stats_over_bags(twenty_bags):
    st = bagscope.dask.stats(twenty_bags)
    total = {}
    for b in twenty_bags:
        with bagscope.open(b) as bag:
            for t, v in bag.topics.items():
                total[t] = total.get(t, 0) + v.message_count
    assert st['messages'].to_dict() == total
