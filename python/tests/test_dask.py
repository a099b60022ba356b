"""bagscope.dask on a distributed.LocalCluster of several worker processes over 20 bags:
the same rows as the serial read, row for row."""
import os
import shutil
import socket
import subprocess
import time

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


SANITIZED = 'libasan' in os.environ.get('LD_PRELOAD', '')


@pytest.fixture(scope='module')
def client():
    """One cluster of two worker processes for the module's tests (each start costs seconds).
    Against the ASan build, two worker threads in this process: worker processes with ASan's
    runtime preloaded took half a minute to import numpy and pandas, and the library's code is
    the same on a thread."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=not SANITIZED,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_cluster_read_equals_serial(twenty_bags, client):
    paths = ['/point.point.x', 'header.seq', 'header.frame_id', 'header.stamp']
    df = bagscope.dask.read(twenty_bags, paths, slices=2)
    assert df.npartitions == 40
    want = serial(twenty_bags, paths)
    got = df.compute()
    assert len(client.scheduler_info()['workers']) == 2
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


@pytest.fixture(scope='module')
def served(twenty_bags, tmp_path_factory):
    """The 20 bags served by Debian's nginx on 127.0.0.1 (Range requests): their base URL."""
    nginx = shutil.which('nginx') or '/usr/sbin/nginx'
    if not os.access(nginx, os.X_OK):
        pytest.skip('nginx not installed (scripts/setup.sh --test)')
    d = tmp_path_factory.mktemp('nginx')
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    (d / 'tmp').mkdir()
    (d / 'nginx.conf').write_text(
        # as root, nginx's workers would be nobody, who cannot enter pytest's private temp dirs
        ('user root;\n' if os.geteuid() == 0 else '') +
        'daemon off; worker_processes 1; pid %s/nginx.pid; error_log %s/error.log;\n'
        'events { worker_connections 64; }\n'
        'http { access_log off; client_body_temp_path %s/tmp; proxy_temp_path %s/tmp;\n'
        '  fastcgi_temp_path %s/tmp; uwsgi_temp_path %s/tmp; scgi_temp_path %s/tmp;\n'
        '  large_client_header_buffers 4 64k;\n'
        '  server { listen 127.0.0.1:%d; root %s; } }\n' % ((d,) * 7 + (port, os.path.dirname(twenty_bags[0]))))
    # (the ASan pass preloads its runtime for the library; nginx is not ours)
    env = {k: v for k, v in os.environ.items() if k not in ('LD_PRELOAD', 'ASAN_OPTIONS')}
    proc = subprocess.Popen([nginx, '-c', str(d / 'nginx.conf'), '-p', str(d)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while True:
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            break
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail('nginx did not start: %s' % (d / 'error.log').read_text())
            time.sleep(0.05)
    yield 'http://127.0.0.1:%d' % port
    proc.terminate()
    proc.wait(timeout=20)


def test_cluster_reads_urls(twenty_bags, served, client):
    """The same rows through HTTP range reads as from the local files."""
    paths = ['/point.point.x', 'header.seq', 'header.frame_id']
    urls = [served + '/' + os.path.basename(b) for b in twenty_bags]
    want = serial(twenty_bags, paths)
    got = bagscope.dask.read(urls, paths).compute()
    assert len(got) == len(want) > 0
    assert (got.index.values == want.index.values).all()
    for p in paths:
        assert list(got[p]) == list(want[p])
