#!/usr/bin/env python3
"""db3-write.py - a rosbag2 sqlite3 storage file (.db3) written by Python's
own sqlite3 module, with the schema rosbag2_storage_default_plugins creates,
from the records tests/tools/mcap-write.cjs --records prints (CDR bytes
serialized by npm's @foxglove/rosmsg2-serialization).

  db3-write.py RECORDS.jsonl OUT.db3 [--no-definitions] [--idl]
      topics in the order the records name them (ids 1, 2, ...), messages in
      record order. Without --no-definitions the Iron+ schema with its
      message_definitions table (ros2msg text, or a ros2idl text with --idl);
      with it, the Foxy..Humble schema that carries none.
  db3-write.py RECORDS.jsonl --msg-dir PREFIX
      writes each type's definition as PREFIX/share/PKG/msg/NAME.msg, cut at
      its "MSG: pkg/Name" sections, as an installed ROS 2 package has them.
  db3-write.py --metadata DIR FILE.db3...
      writes DIR/metadata.yaml naming the files (relative_file_paths) with
      their message counts, start and duration, as rosbag2 writes it.
  db3-write.py --many OUT.db3 N [--want] [--bytes K]
      N small messages (std_msgs/msg/Int32 on 4 topics, message i holds i;
      with --bytes, bench_msgs/msg/Blob: that int32 and a uint8[] of K bytes),
      for the bench and for reads across spans; --want prints them as
      `bagscope cat --format json` prints them, byte for byte.
"""
import base64
import json
import os
import sqlite3
import sys

SEP = "=" * 80 + "\n"
IRON = """
CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);
CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,metadata TEXT NOT NULL);
CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,
  serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,type_description_hash TEXT NOT NULL);
CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,encoding TEXT NOT NULL,
  encoded_message_definition TEXT NOT NULL,type_description_hash TEXT NOT NULL);
CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL,data BLOB NOT NULL);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);
"""
FOXY = """
CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,
  serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL);
CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL,data BLOB NOT NULL);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);
"""
QOS = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n"


def records(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write(recs, out, defs, idl):
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(IRON if defs else FOXY)
    ids = {}
    for r in recs:
        if "definition" not in r:
            continue
        ids[r["topic"]] = len(ids) + 1
        cols = (ids[r["topic"]], r["topic"], r["type"], "cdr", QOS)
        if defs:
            db.execute("INSERT INTO topics VALUES (?,?,?,?,?,'')", cols)
            enc, text = ("ros2idl", "module x { struct y { long data; }; };") if idl else ("ros2msg", r["definition"])
            db.execute("INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, "
                       "type_description_hash) VALUES (?,?,?,'')", (r["type"], enc, text))
        else:
            db.execute("INSERT INTO topics VALUES (?,?,?,?,?)", cols)
    if defs:
        db.execute("INSERT INTO schema VALUES (4, 'jazzy')")
    db.executemany("INSERT INTO messages (topic_id, timestamp, data) VALUES (?,?,?)",
                   ((ids[r["topic"]], int(r["time_ns"]), base64.b64decode(r["data"])) for r in recs if "data" in r))
    db.commit()
    db.close()


def msg_dir(recs, prefix):
    for r in recs:
        if "definition" not in r:
            continue
        parts = r["definition"].split(SEP)
        texts = [(r["type"], parts[0])]
        for p in parts[1:]:
            head, _, body = p.partition("\n")
            texts.append((head[len("MSG: "):], body))
        for name, body in texts:
            pkg, _, base = name.replace("/msg/", "/").partition("/")
            d = os.path.join(prefix, "share", pkg, "msg")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, base + ".msg"), "w", encoding="utf-8") as f:
                f.write(body)


def metadata(d, files):
    total, t0, t1, per = 0, None, None, {}
    for path in files:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        for name, typ, n in db.execute("SELECT name, type, (SELECT COUNT(*) FROM messages WHERE topic_id = "
                                       "topics.id) FROM topics"):
            per[(name, typ)] = per.get((name, typ), 0) + n
        n, a, b = db.execute("SELECT COUNT(*), MIN(timestamp), MAX(timestamp) FROM messages").fetchone()
        db.close()
        total += n
        t0 = a if t0 is None or (a is not None and a < t0) else t0
        t1 = b if t1 is None or (b is not None and b > t1) else t1
    lines = ["rosbag2_bagfile_information:", "  version: 5", "  storage_identifier: sqlite3",
             "  duration:", "    nanoseconds: %d" % (t1 - t0), "  starting_time:",
             "    nanoseconds_since_epoch: %d" % t0, "  message_count: %d" % total, "  topics_with_message_count:"]
    for (name, typ), n in per.items():
        lines += ["    - topic_metadata:", "        name: %s" % name, "        type: %s" % typ,
                  "        serialization_format: cdr", "        offered_qos_profiles: \"\"",
                  "      message_count: %d" % n]
    lines += ["  compression_format: \"\"", "  compression_mode: \"\"", "  relative_file_paths:"]
    lines += ["    - %s" % os.path.basename(f) for f in files]
    with open(os.path.join(d, "metadata.yaml"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def many(out, n, want, pad):
    if os.path.exists(out):
        os.remove(out)
    typ, text = ("bench_msgs/msg/Blob", "int32 data\nuint8[] pad\n") if pad else ("std_msgs/msg/Int32", "int32 data\n")
    db = sqlite3.connect(out)
    db.executescript(IRON)
    for k in range(4):
        db.execute("INSERT INTO topics VALUES (?,?,?,?,?,'')", (k + 1, "/t%d" % k, typ, "cdr", QOS))
    db.execute("INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, "
               "type_description_hash) VALUES (?, 'ros2msg', ?, '')", (typ, text))
    t0 = 1700000000000000000
    tail = (pad.to_bytes(4, "little") + bytes(range(256)) * (pad // 256) + bytes(pad % 256)) if pad else b""
    db.executemany("INSERT INTO messages (topic_id, timestamp, data) VALUES (?,?,?)",
                   ((i % 4 + 1, t0 + i * 1000000, b"\0\1\0\0" + (i % 2**31).to_bytes(4, "little") + tail)
                    for i in range(n)))
    db.commit()
    db.close()
    if want:
        out = sys.stdout
        for i in range(n):
            out.write('{"topic":"/t%d","type":"%s","time_ns":%d,"msg":{"data":%d}}\n'
                      % (i % 4, typ, t0 + i * 1000000, i % 2**31))


def main(a):
    if a[0] == "--metadata":
        metadata(a[1], a[2:])
    elif a[0] == "--many":
        many(a[1], int(a[2]), "--want" in a, int(a[a.index("--bytes") + 1]) if "--bytes" in a else 0)
    elif a[1] == "--msg-dir":
        msg_dir(records(a[0]), a[2])
    else:
        write(records(a[0]), a[1], "--no-definitions" not in a, "--idl" in a)


if __name__ == "__main__":
    main(sys.argv[1:])
