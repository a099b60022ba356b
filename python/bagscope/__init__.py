"""bagscope: read ROS bags at C speed, without ROS.

    import bagscope
    with bagscope.open("run.bag") as bag:
        print(bag.topics)
        for m in bag.messages(topics=["/imu/data"], filter="linear_acceleration.x > 0.5"):
            print(m.time_ns, m.msg["header"]["frame_id"])
        cols = bag.read(["/imu/data.linear_acceleration.x", "header.stamp"])

Messages decode into plain values (dicts in definition order, exact ints,
floats, uint8/char arrays as bytes, times as Time(secs, nsecs)); columns are
filled by libbagscope's scan engine on every core into numpy arrays. Errors
are bagscope.Error and its subclasses, carrying the one line the bagscope
command prints.
"""
from collections import namedtuple
import os

import numpy as np

from . import _core
from ._core import (Error, FormatError, ExpressionError, DecodeError, ReadError, NotFoundError, Time, Duration,
                    Message)

__all__ = ['open', 'Bag', 'Topic', 'Message', 'Time', 'Duration', 'Error', 'FormatError', 'ExpressionError',
           'DecodeError', 'ReadError', 'NotFoundError']
__version__ = _core.library_version

Topic = namedtuple('Topic', 'type message_count connections md5sum definition frequency')
Topic.__doc__ = """One topic: its type, messages, connection count, md5sum, definition and median rate (Hz)."""

_KIND_MISSING, _KIND_BOOL, _KIND_INT, _KIND_UINT, _KIND_FLOAT, _KIND_STRING, _KIND_TIME = range(7)


def _ns(t):
    """A time bound in ns: None, an int of ns, a float of seconds, or a Time."""
    if t is None or isinstance(t, int):
        return t
    if isinstance(t, tuple) and len(t) == 2:
        return int(t[0]) * 1000000000 + int(t[1])
    return int(round(float(t) * 1e9))


def _median_rate(times):
    """Median rate of int64 ns times (rosbag's: the inverse of the median period), 0 when unknown."""
    if len(times) < 2:
        return 0.0
    # each stamp as rosbag's Time.to_sec() gives it: secs + nsecs / 1e9
    periods = np.diff((times // 1000000000).astype(np.float64) + (times % 1000000000).astype(np.float64) / 1e9)
    med = float(np.median(periods))
    return 1.0 / med if med > 0 else 0.0


def _column(kinds, values, strings):
    """One column's numpy array from the kinds and 8-byte values the scan filled."""
    k = np.frombuffer(kinds, dtype=np.uint8)
    present = set(np.unique(k).tolist())
    if strings is not None or present - {_KIND_MISSING} == {_KIND_STRING}:
        return np.array(strings if strings is not None else [None] * len(k), dtype=object)
    missing = _KIND_MISSING in present
    present.discard(_KIND_MISSING)
    if present == {_KIND_BOOL} and not missing:
        return np.frombuffer(values, dtype=np.uint64).astype(bool)
    if present <= {_KIND_INT, _KIND_TIME} and not missing:
        return np.frombuffer(values, dtype=np.int64).copy()
    if present <= {_KIND_UINT, _KIND_INT} and not missing:
        i = np.frombuffer(values, dtype=np.int64)
        if not (i[k == _KIND_INT] < 0).any():
            return np.frombuffer(values, dtype=np.uint64).copy()
    out = np.full(len(k), np.nan)
    for kind, dtype in ((_KIND_FLOAT, np.float64), (_KIND_INT, np.int64), (_KIND_TIME, np.int64),
                        (_KIND_UINT, np.uint64), (_KIND_BOOL, np.uint64)):
        sel = k == kind
        if sel.any():
            v = np.frombuffer(values, dtype=dtype)[sel].astype(np.float64)
            out[sel] = v / 1e9 if kind == _KIND_TIME else v
    return out


class Bag:
    """One or more bags opened as one timeline (use bagscope.open)."""

    def __init__(self, paths, msg_path=None, cache_bytes=0):
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        self.paths = [os.fspath(p) for p in paths]
        self._bag = _core.Bag(self.paths, msg_path=[os.fspath(d) for d in msg_path or []],
                              cache_bytes=cache_bytes)
        self._summary = self._bag.summary()
        self._topics = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return '<bagscope.Bag %s: %d messages>' % (', '.join(self.paths), self.message_count)

    def close(self):
        """Close the bags; further calls raise ValueError."""
        self._bag.close()

    @property
    def start_ns(self):
        """The earliest message's time, ns since the epoch."""
        return self._summary['start_ns']

    @property
    def end_ns(self):
        """The latest message's time, ns since the epoch."""
        return self._summary['end_ns']

    @property
    def message_count(self):
        """Messages of every bag, from the index."""
        return self._summary['message_count']

    @property
    def files(self):
        """Each bag's facts: path, format, size, message count, times, recovery, warnings."""
        return self._summary['bags']

    @property
    def connections(self):
        """Every connection as a dict (topic, type, md5sum, definition, callerid, latching, header ...)."""
        return self._bag.connections()

    def topic_times(self):
        """{topic: numpy int64 array of its record times in order}, from the index alone."""
        return {t: np.frombuffer(b, dtype=np.int64) for t, b in self._bag.topic_times().items()}

    @property
    def topics(self):
        """{topic: Topic(type, message_count, connections, md5sum, definition, frequency)}."""
        if self._topics is None:
            times = self.topic_times()
            out = {}
            for c in self.connections:
                t = out.get(c['topic'])
                if t is None:
                    out[c['topic']] = [c['type'], c['message_count'], 1, c['md5sum'], c['definition']]
                else:
                    t[1] += c['message_count']
                    t[2] += 1
            self._topics = {k: Topic(*v, _median_rate(times.get(k, np.empty(0, np.int64))))
                            for k, v in sorted(out.items())}
        return self._topics

    def messages(self, topics=None, start=None, end=None, filter=None, raw=False):
        """Iterate Message(topic, type, time_ns, data, msg) in time order.

        topics: names (None: all); start/end: ns (int), seconds (float) or Time;
        filter: the expression language of `bagscope cat --filter`; raw: leave msg None.
        """
        if isinstance(topics, str):
            topics = [topics]
        return self._bag.messages(topics=topics, start=_ns(start), end=_ns(end), filter=filter, raw=raw)

    read_messages = messages

    def read(self, paths, start=None, end=None, filter=None, threads=0):
        """{path: numpy array, 'time_ns': int64 array} of one topic's messages.

        paths: message paths, the first naming its topic ("/imu/data.linear_acceleration.x"),
        the others either the same topic's or relative ("header.stamp"), or a transform
        sampled at that topic's messages ("tf(map, base_link).translation.x", .rotation.w, .yaw:
        tf2's lookup in the bag's TF topics; NaN where it fails). Integers stay exact
        (int64/uint64), floats float64, strings object arrays; a column with missing values is
        float64 with NaN. The scan engine fills them on every core (threads: 0 = all).
        """
        if isinstance(paths, str):
            paths = [paths]
        raw = self._bag.read(list(paths), start=_ns(start), end=_ns(end), filter=filter, threads=threads)
        out = {'time_ns': np.frombuffer(raw['time_ns'], dtype=np.int64).copy()}
        for k, p in enumerate(paths):
            out[p] = _column(*raw[k])
        failed, first = raw['failed']
        if failed:
            import warnings
            warnings.warn('%d messages could not be read: %s' % (failed, first), RuntimeWarning, stacklevel=2)
        return out

    def to_pandas(self, paths, start=None, end=None, filter=None, threads=0):
        """read() as a pandas DataFrame indexed by time (datetime64[ns], UTC)."""
        import pandas as pd
        cols = self.read(paths, start=start, end=end, filter=filter, threads=threads)
        index = pd.to_datetime(cols.pop('time_ns'), unit='ns', utc=True)
        return pd.DataFrame(cols, index=index)

    def export(self, out, topics=None, start=None, end=None, filter=None, format='bag', compression=None,
               force=False, keep_latched=False):
        """Write the selection to a bag (2.0) or MCAP file, as `bagscope export` does; what was written."""
        if isinstance(topics, str):
            topics = [topics]
        return self._bag.export(os.fspath(out), topics=topics, start=_ns(start), end=_ns(end), filter=filter,
                                format=format, compression=compression, force=force, keep_latched=keep_latched)

    def check(self, quick=False):
        """Every problem of every bag, as `bagscope check` finds them: [(path, findings, stats)]."""
        return self._bag.check(quick=quick)

    def stats(self):
        """{topic: dict(messages, first_ns, last_ns, rate_hz, median_period_s, max_gap_s)} from the index.

        rate_hz is bagscope's rate (as the browser and `bagscope stats` give it): the n - 1 periods over
        the time from the first message to the last, 0.0 when there are fewer than two times; Topic's
        frequency stays rosbag's (the inverse of the median period)."""
        out = {}
        for topic, t in self.topic_times().items():
            d = np.diff(t) if len(t) > 1 else np.empty(0, np.int64)
            out[topic] = {
                'messages': int(len(t)),
                'first_ns': int(t[0]) if len(t) else None,
                'last_ns': int(t[-1]) if len(t) else None,
                'rate_hz': _core.rate_hz(len(t), int(t[0]), int(t[-1])) if len(t) else 0.0,
                'median_period_s': float(np.median(d)) / 1e9 if len(d) else None,
                'max_gap_s': float(d.max()) / 1e9 if len(d) else None,
            }
        return out


def open(paths, msg_path=None, cache_bytes=0):  # noqa: A001 - the package's entry point, as rosbag.Bag
    """Open one bag, or several as one time-ordered timeline.

    msg_path: directories of .msg files for bags without definitions (before BAGSCOPE_MSG_PATH,
    ROS_PACKAGE_PATH and /usr/share, which are always searched); cache_bytes: the chunk cache.
    """
    return Bag(paths, msg_path=msg_path, cache_bytes=cache_bytes)
