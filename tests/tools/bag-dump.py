#!/usr/bin/python3
"""Every message of the bags given, read with rosbag's Python reader, as JSON
lines for mcap-check.cjs: topic, time_ns (a string), data (base64) and the
connection's type, definition, md5sum, callerid and latching (null when the
connection header lacks them).

    bag-dump.py BAG...           to stdout
    bag-dump.py --batch LIST     for each line of LIST (OUT, then BAGs, tab-separated)
                                 into OUT: one Python start and rosbag import for all
"""
import base64
import json
import sys

import rosbag



def dump(paths, out):
    for path in paths:
        with rosbag.Bag(path) as bag:
            for topic, raw, t, hdr in bag.read_messages(raw=True, return_connection_header=True):
                get = lambda k: hdr[k].decode('utf-8', 'replace') if k in hdr else None
                print(json.dumps({'topic': topic, 'time_ns': str(t.to_nsec()),
                                  'data': base64.b64encode(bytes(raw[1])).decode(), 'type': get('type') or '',
                                  'definition': get('message_definition') or '', 'md5sum': get('md5sum'),
                                  'callerid': get('callerid'), 'latching': get('latching')}), file=out)


if sys.argv[1:2] == ['--batch']:
    with open(sys.argv[2]) as f:
        for line in f:
            out, *paths = line.rstrip('\n').split('\t')
            with open(out, 'w') as o:
                dump(paths, o)
else:
    dump(sys.argv[1:], sys.stdout)
