"""Many bags on a Dask cluster: bagscope.dask.read() and bagscope.dask.stats().

    import bagscope.dask
    from distributed import Client
    client = Client("tcp://scheduler:8786")            # or LocalCluster()
    df = bagscope.dask.read(paths, ["/imu/data.linear_acceleration.x", "header.stamp"])
    df.resample("1s").mean().compute()

One partition per bag (or per time slice of a bag, slices=N); each worker
opens its bag itself (paths or URLs the workers can reach) and fills the
partition with Bag.read(). The graph and its metadata come from the bags'
indexes and definitions alone: building it reads no chunk.
"""
import re

import numpy as np

import bagscope

_INTS = {'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'byte', 'char', 'bool'}
_SIMPLE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*(\[-?[0-9]+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[-?[0-9]+\])?)*$')


def _types(definition, root):
    """{type name: {field: element type}} of a message definition's text (ros1msg / ros2msg)."""
    out, cur = {}, root
    out[cur] = {}
    for line in definition.splitlines():
        line = line.split('#', 1)[0].strip()
        if line.startswith('MSG:'):
            cur = line[4:].strip()
            out.setdefault(cur, {})
        elif line and not line.startswith('='):
            parts = line.split()
            if len(parts) >= 2 and '=' not in parts[1] and '=' not in parts[0]:
                out[cur][parts[1]] = re.sub(r'\[.*\]$', '', parts[0]).split('<=')[0]
    return out


def _resolve(types, root, t):
    """The full name of type t as used inside root's package."""
    if t in types:
        return t
    short = t.split('/')[-1]
    pkg = root.split('/')[0]
    for cand in (t.replace('/msg/', '/'), pkg + '/' + short, 'std_msgs/' + short if t == 'Header' else None):
        if cand in types:
            return cand
    for name in types:
        if name.split('/')[-1] == short:
            return name
    return t


def _dtype(conn, path):
    """The dtype Bag.read() gives path on conn's messages, from its definition alone."""
    if not _SIMPLE.match(path):
        return np.float64                  # an expression: a number
    types = _types(conn['definition'], conn['type'])
    t = conn['type']
    for name in re.sub(r'\[-?[0-9]+\]', '', path).split('.'):
        fields = types.get(_resolve(types, conn['type'], t))
        if fields is None or name not in fields:
            if t in ('time', 'duration') and name in ('secs', 'nsecs', 'sec', 'nanosec'):
                return np.int64
            return np.float64
        t = fields[name]
    if t in _INTS:
        return bool if t == 'bool' else np.int64
    if t == 'uint64':
        return np.uint64
    if t in ('int64', 'time', 'duration'):
        return np.int64
    if t in ('string', 'wstring'):
        return object
    return np.float64


def _meta(bag, paths):
    """An empty DataFrame with read()'s columns and dtypes, indexed by time."""
    import pandas as pd
    topic = next(t for t in sorted(bag.topics, key=len, reverse=True) if paths[0].startswith(t + '.'))
    conn = next(c for c in bag.connections if c['topic'] == topic)
    cols = {}
    for p in paths:
        rel = p[len(topic) + 1:] if p.startswith(topic + '.') else p
        cols[p] = pd.Series(np.empty(0, dtype=_dtype(conn, rel)))
    return pd.DataFrame(cols, index=pd.DatetimeIndex([], tz='UTC', name='time'))


def _part(path, paths, start, end, filter, msg_path):
    """One partition: Bag.read() of one bag's [start, end] as a DataFrame."""
    with bagscope.open(path, msg_path=msg_path) as bag:
        df = bag.to_pandas(paths, start=start, end=end, filter=filter)
    df.index.name = 'time'
    return df


def _windows(path, slices, msg_path):
    """[start, end] of each of a bag's slices (from its index)."""
    with bagscope.open(path, msg_path=msg_path) as bag:
        s, e = bag.start_ns, bag.end_ns
    if slices <= 1 or e <= s:
        return [(None, None)]
    cuts = [s + (e - s) * k // slices for k in range(slices + 1)]
    return [(cuts[k] if k else None, cuts[k + 1] - 1 if k + 1 < slices else None) for k in range(slices)]


def read(bags, paths, start=None, end=None, filter=None, slices=1, msg_path=None):
    """A dask DataFrame of Bag.read(paths) over many bags, one partition per bag or slice.

    bags: paths (or URLs) the workers can open; paths: message paths as Bag.read() takes
    them; start/end: ns bounds for every bag; slices: partitions per bag, by time.
    """
    import dask
    import dask.dataframe as dd
    if isinstance(bags, str):
        bags = [bags]
    if isinstance(paths, str):
        paths = [paths]
    with bagscope.open(bags[0], msg_path=msg_path) as first:
        meta = _meta(first, list(paths))
    parts = []
    for b in bags:
        for lo, hi in _windows(b, slices, msg_path):
            lo = lo if start is None or (lo is not None and lo > start) else start
            hi = hi if end is None or (hi is not None and hi < end) else end
            parts.append(dask.delayed(_part)(b, list(paths), lo, hi, filter, msg_path))
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def _stats(path, msg_path):
    with bagscope.open(path, msg_path=msg_path) as bag:
        return path, bag.stats()


def stats(bags, msg_path=None):
    """Per-topic figures over many bags (a pandas DataFrame, computed on the cluster):
    messages, first and last time, the median rate over the bags and the largest gap."""
    import dask
    import pandas as pd
    if isinstance(bags, str):
        bags = [bags]
    rows = []
    for path, st in dask.compute(*[dask.delayed(_stats)(b, msg_path) for b in bags]):
        for topic, s in st.items():
            rows.append(dict(bag=path, topic=topic, **s))
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    return df.groupby('topic').agg(messages=('messages', 'sum'), bags=('bag', 'nunique'),
                                   first_ns=('first_ns', 'min'), last_ns=('last_ns', 'max'),
                                   rate_hz=('rate_hz', 'median'), max_gap_s=('max_gap_s', 'max'))
