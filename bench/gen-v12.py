#!/usr/bin/env python3
"""Write an indexed 1.2 bag of about SIZE_MB MiB for bench/oldfmt.sh, as the rosrecord
C++ recorder laid it out (the layout of tests/data/oldbags/gen_oldbags.py): version line,
FILE_HEADER padded to 4096 with index_pos patched at the end, a MSG_DEF before each topic's
first message, MSG_DATA records of MSG_BYTES bytes on 4 topics at 100 Hz, one INDEX_DATA
(ver 0) per topic.

    gen-v12.py OUT [SIZE_MB [MSG_BYTES]]"""
import struct
import sys

out, size_mb = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1024
msg_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
MD5, TYPE, DEF = b'992ce8a1687cec8c8bd883ec73ca41d1', b'std_msgs/String', b'string data\n'


def record(fields, data=b''):
    h = b''.join(struct.pack('<I', len(k) + 1 + len(v)) + k + b'=' + v for k, v in sorted(fields.items()))
    return struct.pack('<I', len(h)) + h + struct.pack('<I', len(data)) + data


def file_header(index_pos):
    h = record({b'index_pos': struct.pack('<Q', index_pos), b'op': b'\x03'})[4:-4]
    return struct.pack('<I', len(h)) + h + struct.pack('<I', 4096 - len(h)) + b' ' * (4096 - len(h))


topics = [b'/t%d' % i for i in range(4)]
index = {t: [] for t in topics}
payload = struct.pack('<I', msg_bytes - 4) + b'x' * (msg_bytes - 4)
with open(out, 'wb') as f:
    f.write(b'#ROSRECORD V1.2\n' + file_header(0))
    pos, i, limit = 16 + 4104, 0, size_mb << 20
    while pos < limit:
        t = topics[i % 4]
        sec, nsec = 1262304000 + i // 400, (i % 400) * 2500000
        index[t].append(struct.pack('<IIQ', sec, nsec, pos))
        if i < 4:
            r = record({b'op': b'\x01', b'topic': t, b'md5': MD5, b'type': TYPE, b'def': DEF})
            f.write(r)
            pos += len(r)
        r = record({b'op': b'\x02', b'topic': t, b'md5': MD5, b'type': TYPE,
                    b'sec': struct.pack('<I', sec), b'nsec': struct.pack('<I', nsec)}, payload)
        f.write(r)
        pos += len(r)
        i += 1
    index_pos = pos
    for t in topics:
        f.write(record({b'op': b'\x04', b'ver': struct.pack('<I', 0), b'topic': t, b'type': TYPE,
                        b'count': struct.pack('<I', len(index[t]))}, b''.join(index[t])))
    f.seek(16)
    f.write(file_header(index_pos))
print('%s: %d messages, %d bytes' % (out, i, index_pos))
