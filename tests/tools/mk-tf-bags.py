#!/usr/bin/python3
"""Write TF test bags with Debian's python3-rosbag (a writer we did not write).

usage: mk-tf-bags.py DIR

  tf_basic.bag     map->odom (10 Hz), odom->base_link (50 Hz, turning through
                   180 degrees, so slerp takes the long-angle branch),
                   latched /tf_static base_link->laser and ->camera; stamps
                   with odd nanoseconds; lz4 chunks
  tf_reparent.bag  base_link moves from odom to map and back; ids with a
                   leading '/'; a second, disconnected tree
  tf_cycle.bag     a->b->c->a, and x->y beside it
  tf_mixed.bag     a frame first static then dynamic and one the other way,
                   out-of-order and repeated stamps, refused transforms (NaN,
                   self, empty id, unnormalised quaternion), the old
                   tf/tfMessage type on /tf_old, stamps far from record time
"""
import math
import sys

import genpy
import rosbag
from geometry_msgs.msg import TransformStamped
from tf2_msgs.msg import TFMessage

T0 = 1500000000


def ts(parent, child, sec, nsec, xyz, q):
    t = TransformStamped()
    t.header.frame_id = parent
    t.child_frame_id = child
    t.header.stamp = genpy.Time(sec, nsec)
    t.transform.translation.x, t.transform.translation.y, t.transform.translation.z = xyz
    t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w = q
    return t


def yaw_q(yaw, roll=0.0):
    """A unit quaternion for yaw about z after roll about x."""
    cy, sy, cr, sr = math.cos(yaw / 2), math.sin(yaw / 2), math.cos(roll / 2), math.sin(roll / 2)
    return (sr * cy, sr * sy, cr * sy, cr * cy)


def stamp(k, period_ns, offset_ns=0):
    ns = k * period_ns + offset_ns
    return T0 + ns // 10**9, ns % 10**9


def write(bag, topic, transforms, rec_sec, rec_nsec, latched=False):
    hdr = {'topic': topic, 'type': TFMessage._type, 'md5sum': TFMessage._md5sum,
           'message_definition': TFMessage._full_text, 'callerid': '/pub' + topic.replace('/', '_')}
    if latched:
        hdr['latching'] = '1'
    bag.write(topic, TFMessage(transforms=transforms), genpy.Time(rec_sec, rec_nsec), connection_header=hdr)


def basic(path):
    with rosbag.Bag(path, 'w', compression='lz4', chunk_threshold=4096) as bag:
        write(bag, '/tf_static', [ts('base_link', 'laser', T0, 0, (0.2, 0.0, 0.3), (0, 0, 0, 1)),
                                  ts('base_link', 'camera', T0, 0, (0.1, -0.05, 0.5), yaw_q(0.1, -math.pi / 2))],
              T0, 1, latched=True)
        for k in range(250):
            sec, nsec = stamp(k, 20000000, 123457)
            ts_list = [ts('odom', 'base_link', sec, nsec, (0.01 * k, 0.002 * k * k / 100, 0.0),
                          yaw_q(k * 0.0251327 - 2.9, 0.02 * math.sin(k / 7)))]
            if k % 5 == 0:
                ts_list.append(ts('map', 'odom', sec, nsec + 7, (1.0 + 0.001 * k, -2.0, 0.0), yaw_q(0.3 + k * 1e-4)))
            write(bag, '/tf', ts_list, sec, nsec + 1000)


def reparent(path):
    with rosbag.Bag(path, 'w') as bag:
        for k in range(60):
            sec, nsec = stamp(k, 100000000, 999999999 - 17)
            parent = 'map' if 20 <= k < 40 else '/odom'
            write(bag, '/tf', [ts('/map', 'odom', sec, nsec, (1.0, 2.0, 0.0), yaw_q(0.5 + k * 0.01)),
                               ts(parent, 'base_link', sec, nsec, (0.1 * k, 0.0, 0.0), yaw_q(k * 0.05)),
                               ts('world', 'other', sec, nsec, (0.0, 0.0, 1.0), (0, 0, 0, 1))], sec, nsec)


def cycle(path):
    with rosbag.Bag(path, 'w') as bag:
        for k in range(10):
            sec, nsec = stamp(k, 100000000)
            write(bag, '/tf', [ts('a', 'b', sec, nsec, (1, 0, 0), (0, 0, 0, 1)),
                               ts('b', 'c', sec, nsec, (0, 1, 0), yaw_q(0.2)),
                               ts('c', 'a', sec, nsec, (0, 0, 1), (0, 0, 0, 1)),
                               ts('x', 'y', sec, nsec, (k, 0, 0), (0, 0, 0, 1))], sec, nsec)


def old_tf(bag, transforms, sec, nsec):
    """A message on /tf_old typed tf/tfMessage (same layout and md5 as TFMessage)."""
    msg = TFMessage(transforms=transforms)
    from io import BytesIO
    buf = BytesIO()
    msg.serialize(buf)

    class Old(TFMessage):
        _type = 'tf/tfMessage'
    bag.write('/tf_old', ('tf/tfMessage', buf.getvalue(), TFMessage._md5sum, None, Old),
              genpy.Time(sec, nsec), raw=True)


def mixed(path):
    with rosbag.Bag(path, 'w') as bag:
        write(bag, '/tf_static', [ts('map', 'st_then_dyn', T0, 0, (1, 1, 1), (0, 0, 0, 1))], T0, 0)
        order = [0, 1, 2, 4, 3, 5, 5, 6, 9, 8, 7, 10, 11, 11, 12]
        for i, k in enumerate(order):
            sec, nsec = stamp(k, 50000000, 3)
            rec = stamp(i, 50000000, 5)
            tr = [ts('map', 'odom', sec, nsec, (k * 0.5, 0, 0), yaw_q(k * 0.3) if i != 6 else yaw_q(2.0)),
                  ts('map', 'st_then_dyn', sec, nsec, (k, 0, 0), (0, 0, 0, 1)),
                  ts('odom', 'dyn_then_st', sec, nsec, (0, k, 0), (0, 0, 0, 1))]
            if i == 3:
                tr += [ts('odom', 'odom', sec, nsec, (0, 0, 0), (0, 0, 0, 1)),
                       ts('odom', 'bad', sec, nsec, (float('nan'), 0, 0), (0, 0, 0, 1)),
                       ts('', 'bad', sec, nsec, (0, 0, 0), (0, 0, 0, 1)),
                       ts('odom', 'bad', sec, nsec, (0, 0, 0), (0, 0, 0, 1.02)),
                       ts('odom', 'slightly', sec, nsec, (0, 0, 0), (0, 0, 0, 1.004))]
            write(bag, '/tf', tr, rec[0], rec[1])
            if i == 5:
                write(bag, '/tf_static', [ts('odom', 'dyn_then_st', T0, 0, (9, 9, 9), yaw_q(1.0))], rec[0], rec[1])
            old_tf(bag, [ts('odom', 'old_frame', sec, nsec, (0, 0, k), yaw_q(-k * 0.2))], rec[0], rec[1] + 1)
        write(bag, '/tf', [ts('map', 'late', T0 - 100, 0, (1, 2, 3), (0, 0, 0, 1)),
                           ts('map', 'late', T0 - 99, 0, (2, 2, 3), (0, 0, 0, 1))], T0 + 1, 0)


if __name__ == '__main__':
    d = sys.argv[1]
    basic(d + '/tf_basic.bag')
    reparent(d + '/tf_reparent.bag')
    cycle(d + '/tf_cycle.bag')
    mixed(d + '/tf_mixed.bag')
