#!/usr/bin/python3
"""Write log and diagnostics test bags with Debian's python3-rosbag.

usage: mk-robot-bags.py DIR

  log.bag   rosgraph_msgs/Log on /rosout from three nodes at every level
            (and an odd level 3), each message republished on /rosout_agg a
            little later (as rosout does), one message twice on /rosout
            itself, multi-line texts, a text with an ESC sequence, non-ASCII
            names; bz2 chunks
  diag.bag  DiagnosticArray on /diagnostics (two motors going OK -> WARN ->
            ERROR -> OK, a status with a hardware_id shared by two names, one
            going STALE), /diagnostics_agg with the analyser's names, and
            DiagnosticStatus on /diagnostics_toplevel_state
"""
import sys

import genpy
import rosbag
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rosgraph_msgs.msg import Log

T0 = 1600000000


def t(ms, extra_ns=0):
    ns = ms * 1000000 + extra_ns
    return genpy.Time(T0 + ns // 10**9, ns % 10**9)


def log_bag(path):
    nodes = ['/controller', '/planner', '/caméra_driver']
    levels = [1, 2, 4, 8, 16, 2, 2, 3]
    with rosbag.Bag(path, 'w', compression='bz2', chunk_threshold=8192) as bag:
        agg = []
        for k in range(400):
            m = Log()
            m.header.seq = k
            m.header.stamp = t(k * 25, 17)
            m.level = levels[k % len(levels)]
            m.name = nodes[k % 3]
            m.msg = 'step %d' % k
            if k % 37 == 0:
                m.msg = 'line one of %d\nline two\n  line three' % k
            if k == 101:
                m.msg = 'evil \x1b[2J text'
            m.file = 'src/node%d.cpp' % (k % 3)
            m.function = 'update'
            m.line = 100 + k % 9
            m.topics = ['/cmd_vel', '/rosout'] if k % 2 else []
            rec = t(k * 25, 1000)
            bag.write('/rosout', m, rec)
            if k == 200:
                bag.write('/rosout', m, t(k * 25, 2000))
            agg.append((t(k * 25 + 10), m))
            while agg and agg[0][0] <= rec:
                at, am = agg.pop(0)
                bag.write('/rosout_agg', am, at)
        for at, am in agg:
            bag.write('/rosout_agg', am, at)


def status(level, name, msg, hw, values):
    return DiagnosticStatus(level=level, name=name, message=msg, hardware_id=hw,
                            values=[KeyValue(key=k, value=v) for k, v in values])


def diag_bag(path):
    left = [0] * 10 + [1] * 5 + [2] * 8 + [0] * 7
    right = [0] * 30
    with rosbag.Bag(path, 'w') as bag:
        for k in range(30):
            arr = DiagnosticArray()
            arr.header.stamp = t(k * 1000)
            arr.status = [
                status(left[k], 'motor: left', ['running', 'warm', 'overheat', 'running'][left[k] + (k > 20)] if False
                       else {0: 'running', 1: 'warm', 2: 'overheat'}[left[k]], 'motor_ctl_1',
                       [('temp', '%.1f' % (40 + k * 2)), ('current', '2.0')]),
                status(right[k], 'motor: right', 'running', 'motor_ctl_1', [('temp', '41.0')]),
                status(3 if 12 <= k < 15 else 0, 'battery', 'stale' if 12 <= k < 15 else 'ok', '',
                       [('voltage', '%.2f' % (24 - k * 0.01))]),
            ]
            bag.write('/diagnostics', arr, t(k * 1000, 500))
            agg = DiagnosticArray()
            agg.header.stamp = t(k * 1000 + 200)
            agg.status = [status(max(left[k], right[k]), '/Robot/Motors', 'worst of motors', '', [])]
            bag.write('/diagnostics_agg', agg, t(k * 1000 + 200, 500))
            top = status(max(left[k], 1 if 12 <= k < 15 else 0), 'toplevel', '', '', [])
            bag.write('/diagnostics_toplevel_state', top, t(k * 1000 + 300))


if __name__ == '__main__':
    log_bag(sys.argv[1] + '/log.bag')
    diag_bag(sys.argv[1] + '/diag.bag')
