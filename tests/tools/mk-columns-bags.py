#!/usr/bin/python3
"""Write the browser's column test bags with Debian's python3-rosbag.

usage: mk-columns-bags.py DIR

  cols.bag   20 s at 1 Hz: DiagnosticStatus on a long-named topic (level
             cycling OK, WARN, ERROR, STALE: the message's constants), a
             /tf map -> base_link whose translation.x is the seconds since the
             start, and std_msgs/String on /chatter
  other.bag  /other (std_msgs/String) over the same span, a second file
"""
import sys

import genpy
import rosbag
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import TransformStamped
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

T0 = 1600000000
LONG = '/robot/diagnostics_toplevel_state'


def cols_bag(path):
    with rosbag.Bag(path, 'w') as bag:
        for k in range(20):
            at = genpy.Time(T0 + k, 500000000)
            s = DiagnosticStatus(level=k % 4, name='motor', message='step %d' % k, hardware_id='m1')
            bag.write(LONG, s, at)
            x = TransformStamped()
            x.header.stamp = genpy.Time(T0 + k, 0)
            x.header.frame_id = 'map'
            x.child_frame_id = 'base_link'
            x.transform.translation.x = float(k)
            x.transform.rotation.w = 1.0
            bag.write('/tf', TFMessage(transforms=[x]), genpy.Time(T0 + k, 0))
            bag.write('/chatter', String(data='hello %d' % k), genpy.Time(T0 + k, 700000000))


def other_bag(path):
    with rosbag.Bag(path, 'w') as bag:
        for k in range(20):
            bag.write('/other', String(data='other %d' % k), genpy.Time(T0 + k, 600000000))


cols_bag(sys.argv[1] + '/cols.bag')
other_bag(sys.argv[1] + '/other.bag')
