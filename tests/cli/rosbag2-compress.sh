#!/bin/sh
# rosbag2 metadata.yaml and compression (issue 20), on .db3 files that
# Python's own sqlite3 module writes (tests/tools/db3-write.py) and zstd
# frames that Debian's `zstd` command writes:
#   - compression_mode FILE: NAME.db3.zstd decompressed under $TMPDIR, one
#     line saying so, the copy removed at exit, the input untouched;
#   - compression_mode MESSAGE: each message's data one zstd frame, with and
#     without metadata.yaml (then recognised by its magic);
#   - every decoded value equal to what the writer was given;
#   - cut or damaged frames and streams: one line naming the file (and the
#     message's topic and time), never a crash;
#   - metadata.yaml's counts: used without reading the table (info shows
#     them), checked against the database by `check`, a wrong total warned
#     about in one line and the database's counts used.
# Skipped (77) without python3 or zstd. Environment: BAGSCOPE, SRCDIR.
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
P="python3 $SRCDIR/tests/tools/db3-write.py"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
command -v zstd >/dev/null 2>&1 || { echo "zstd not installed: skipped"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tmp"
TMPDIR=$T/tmp
export TMPDIR
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/err" | head -8; }
# same NAME WANT ARGS...: cat --format json ARGS gives WANT's topics, types, times and values (its
# stderr in note). An output byte for byte equal to WANT, or to an output already found equal to
# WANT's values (WANT.ok), passes without parsing: the 200,000-message ones cost seconds each.
same() {
	name=$1 want=$2
	shift 2
	if ! "$B" cat --format json "$@" >"$T/got.jsonl" 2>"$T/note"; then cp "$T/note" "$T/err"; bad "$name: cat"; return; fi
	if cmp -s "$want" "$T/got.jsonl" || { [ -f "$want.ok" ] && cmp -s "$want.ok" "$T/got.jsonl"; }; then ok "$name"; return; fi
	if python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
key = lambda r: (r["topic"], r["type"], int(r["time_ns"]), r["msg"])
assert len(a) == len(b), (len(a), len(b))
for x, y in zip(a, b):
    assert key(x) == key(y), (key(x), key(y))' "$want" "$T/got.jsonl" >"$T/err" 2>&1; then
		cp "$T/got.jsonl" "$want.ok"; ok "$name"
	else bad "$name"; fi
}
# one_line NAME STATUS FILE PATTERN: status 1..125, exactly one line, matching PATTERN
one_line() {
	if [ "$2" -ge 1 ] && [ "$2" -lt 126 ] && [ "$(grep -c . "$3")" -eq 1 ] && grep -q "$4" "$3"; then ok "$1"
	else cp "$3" "$T/err"; echo "status $2" >>"$T/err"; bad "$1"; fi
}
# meta DIR MODE FILE...: metadata.yaml as rosbag2 writes it, compression_format zstd and MODE
meta() {
	d=$1 mode=$2
	shift 2
	$P --metadata "$d" "$@" || exit 1
	sed -i "s/^  compression_format: \"\"/  compression_format: zstd/; s/^  compression_mode: \"\"/  compression_mode: $mode/" "$d/metadata.yaml"
}

# ---- FILE mode: the whole .db3 one zstd stream
$P --many "$T/m.db3" 200000 --want >"$T/want.jsonl" || exit 1
mkdir "$T/F"
zstd -q "$T/m.db3" -o "$T/F/m.db3.zstd" || exit 1
meta "$T/F" FILE "$T/m.db3"
sed -i 's/^    - m.db3$/    - m.db3.zstd/' "$T/F/metadata.yaml"
sum_before=$(cksum <"$T/F/m.db3.zstd")
same "FILE mode: 200000 messages across spans" "$T/want.jsonl" "$T/F"
if [ "$(grep -c "m.db3.zstd: zstd-compressed file decompressed to $T/tmp/bagscope-.* (9465856 bytes), removed at close" "$T/note")" -eq 1 ] &&
   [ -z "$(ls "$T/tmp")" ] && [ "$sum_before" = "$(cksum <"$T/F/m.db3.zstd")" ] && [ "$(ls "$T/F" | wc -l)" -eq 2 ]; then
	ok "FILE mode: one line, the copy removed, the input untouched"
else
	ls "$T/tmp" "$T/F" | cat "$T/note" - >"$T/err"; bad "FILE mode: log line and cleanup"
fi
same "FILE mode: the .zstd file named alone" "$T/want.jsonl" "$T/F/m.db3.zstd"
"$B" info "$T/F" >"$T/info" 2>/dev/null
if grep -q "^messages: *200000" "$T/info" && grep -q "/t3 *50000 msgs" "$T/info"; then ok "FILE mode: info"; else cp "$T/info" "$T/err"; bad "FILE mode: info"; fi

size=$(stat -c %s "$T/F/m.db3.zstd")
head -c $((size / 2)) "$T/F/m.db3.zstd" >"$T/cut.db3.zstd"
"$B" info "$T/cut.db3.zstd" >/dev/null 2>"$T/out"
one_line "FILE mode: a cut stream, one line" $? "$T/out" "cut.db3.zstd: a zstd-compressed file: its zstd stream is cut off"
python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(len(b) // 3, len(b) // 3 + 64): b[i] ^= 0x5a
open(sys.argv[2], "wb").write(b)' "$T/F/m.db3.zstd" "$T/bad.db3.zstd"
"$B" info "$T/bad.db3.zstd" >/dev/null 2>"$T/out"
one_line "FILE mode: damaged data, one line" $? "$T/out" "bad.db3.zstd: a zstd-compressed file: zstd data is corrupt"
if [ -z "$(ls "$T/tmp")" ]; then ok "FILE mode: no copy left after a failure"; else ls "$T/tmp" >"$T/err"; bad "copies left"; fi

# FILE mode over MCAP storage: an MCAP that @mcap/core writes (tests/tools/mcap-write.cjs), whole-file zstd
(
	BUILDDIR=${BUILDDIR:-.}
	. "$SRCDIR/tests/tools/node-setup.sh" >/dev/null
	W=$SRCDIR/tests/tools/mcap-write.cjs
	mkdir "$T/X"
	node "$W" "$T/x.mcap" --compression lz4 >"$T/wantx.jsonl" 2>"$T/err" && zstd -q "$T/x.mcap" -o "$T/X/x.mcap.zstd" || exit 1
	"$B" cat --format json "$T/X" >"$T/gotx.jsonl" 2>"$T/notex" && node "$W" --compare "$T/wantx.jsonl" "$T/gotx.jsonl" &&
		grep -q "x.mcap.zstd: zstd-compressed file decompressed to" "$T/notex" && [ -z "$(ls "$T/tmp")" ]
) >"$T/err" 2>&1
case $? in
0) ok "FILE mode: .mcap.zstd, every message as @mcap/core wrote it" ;;
77) echo "skip  FILE mode .mcap.zstd (no node/npm)" ;;
*) bad "FILE mode: .mcap.zstd" ;;
esac

# ---- MESSAGE mode: each message's data one zstd frame (the zstd command, one file per message)
mkdir "$T/M" "$T/frames"
python3 -c '
import json, os, sqlite3, sys
out, frames = sys.argv[1], sys.argv[2]
n, size = 600, 16384
rnd = open("/dev/urandom", "rb")
db = sqlite3.connect(out)
db.executescript("""
CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,
  serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,type_description_hash TEXT NOT NULL);
CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,encoding TEXT NOT NULL,
  encoded_message_definition TEXT NOT NULL,type_description_hash TEXT NOT NULL);
CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL,data BLOB NOT NULL);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);""")
for k in range(2):
    db.execute("INSERT INTO topics VALUES (?,?,?,\"cdr\",\"\",\"\")", (k + 1, "/b%d" % k, "bench_msgs/msg/Blob"))
db.execute("INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) "
           "VALUES (\"bench_msgs/msg/Blob\", \"ros2msg\", \"int32 data\nuint8[] pad\n\", \"\")")
want = open(sys.argv[3], "w")
for i in range(n):
    pad = rnd.read(size if i % 7 else 3)
    cdr = b"\0\1\0\0" + i.to_bytes(4, "little") + len(pad).to_bytes(4, "little") + pad
    open(os.path.join(frames, "%06d" % i), "wb").write(cdr)
    t = 1700000000000000000 + i * 1000000
    db.execute("INSERT INTO messages (topic_id, timestamp, data) VALUES (?,?,?)", (i % 2 + 1, t, b""))
    want.write(json.dumps({"topic": "/b%d" % (i % 2), "type": "bench_msgs/msg/Blob", "time_ns": t,
                           "msg": {"data": i, "pad": list(pad)}}, separators=(",", ":")) + "\n")
db.commit()' "$T/M/z.db3" "$T/frames" "$T/wantz.jsonl" || exit 1
(cd "$T/frames" && zstd -q --rm -- *) || exit 1
python3 -c '
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for i in range(600):
    db.execute("UPDATE messages SET data = ? WHERE id = ?", (open(os.path.join(sys.argv[2], "%06d.zst" % i), "rb").read(), i + 1))
db.commit()' "$T/M/z.db3" "$T/frames" || exit 1
meta "$T/M" MESSAGE "$T/M/z.db3"
same "MESSAGE mode: 600 messages (16 KiB random), every value" "$T/wantz.jsonl" "$T/M"
"$B" info "$T/M" >"$T/info" 2>"$T/err"
if grep -q "^compression: *zstd" "$T/info" && grep -q "^messages: *600" "$T/info"; then ok "MESSAGE mode: info says zstd"; else cp "$T/info" "$T/err"; bad "MESSAGE mode: info"; fi
"$B" check "$T/M" >"$T/out" 2>"$T/err"
if grep -q "600 messages read and decoded: 0 problems" "$T/out"; then ok "MESSAGE mode: check"; else cat "$T/out" >>"$T/err"; bad "MESSAGE mode: check"; fi
mkdir "$T/lone"
cp "$T/M/z.db3" "$T/lone/z.db3"
same "MESSAGE mode without metadata.yaml (frames known by their magic)" "$T/wantz.jsonl" "$T/lone/z.db3"

# a cut frame and a damaged frame: one line naming the file, the topic and the time
for how in cut flip; do
	rm -rf "$T/D"; mkdir "$T/D"
	cp "$T/M/z.db3" "$T/M/metadata.yaml" "$T/D/"
	python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d = bytearray(db.execute("SELECT data FROM messages WHERE id = 301").fetchone()[0])
if sys.argv[2] == "cut": d = d[:len(d) // 2]
else:
    for i in range(20, 60): d[i] ^= 0xa5
db.execute("UPDATE messages SET data = ? WHERE id = 301", (bytes(d),))
db.commit()' "$T/D/z.db3" $how
	"$B" cat --format json "$T/D" >/dev/null 2>"$T/out"
	one_line "MESSAGE mode: a $how frame, one line" $? "$T/out" \
		"D/z.db3: .*message id 301 on /b0 at 1700000000300000000 ns: its data ([0-9]* bytes): .*zstd"
done

# ---- metadata.yaml's counts
mkdir "$T/C"
$P --many "$T/C/c.db3" 1000 || exit 1
$P --metadata "$T/C" "$T/C/c.db3"
python3 -c '
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("name: /t0\n        type: std_msgs/msg/Int32\n        serialization_format: cdr\n        offered_qos_profiles: \"\"\n      message_count: 250",
              "name: /t0\n        type: std_msgs/msg/Int32\n        serialization_format: cdr\n        offered_qos_profiles: \"\"\n      message_count: 251")
s = s.replace("name: /t1\n        type: std_msgs/msg/Int32\n        serialization_format: cdr\n        offered_qos_profiles: \"\"\n      message_count: 250",
              "name: /t1\n        type: std_msgs/msg/Int32\n        serialization_format: cdr\n        offered_qos_profiles: \"\"\n      message_count: 249")
open(p, "w").write(s)' "$T/C/metadata.yaml"
"$B" info "$T/C" >"$T/info" 2>"$T/err"
if grep -q "/t0 *251 msgs" "$T/info" && grep -q "/t1 *249 msgs" "$T/info"; then ok "metadata.yaml's topic counts used (the table not read)"
else cp "$T/info" "$T/err"; bad "metadata.yaml's counts"; fi
"$B" check "$T/C" >"$T/out" 2>&1
if [ "$(grep -c "metadata.yaml counts" "$T/out")" -eq 2 ] &&
   grep -q "metadata.yaml counts 251 messages on topic /t0, the database holds 250" "$T/out"; then ok "check: metadata.yaml's counts against the database"
else cp "$T/out" "$T/err"; bad "check: metadata.yaml's counts"; fi
"$B" cat --count "$T/C" >"$T/out" 2>"$T/err"
if [ "$(cat "$T/out")" = 1000 ]; then ok "cat: the database's rows"; else cat "$T/out" >>"$T/err"; bad "cat --count"; fi
$P --metadata "$T/C" "$T/C/c.db3"
sed -i 's/^  message_count: 1000$/  message_count: 1200/' "$T/C/metadata.yaml"
"$B" info "$T/C" >"$T/info" 2>"$T/err"
if [ "$(grep -c "metadata.yaml counts 1200 messages in this file, its database holds 1000: the database is read" "$T/err")" -eq 1 ] &&
   grep -q "^messages: *1000" "$T/info" && grep -q "/t0 *250 msgs" "$T/info"; then ok "a wrong total: one line, the database's counts"
else cat "$T/info" >>"$T/err"; bad "a wrong total"; fi

# metadata.yaml as Jazzy writes it (QoS profiles as a block list, a files: section, custom_data),
# its topic counts off by one (as above) so that info shows whether they were used
mkdir "$T/J"
$P --many "$T/J/j_0.db3" 1000 || exit 1
cat >"$T/J/metadata.yaml" <<'YAML'
rosbag2_bagfile_information:
  version: 9
  storage_identifier: sqlite3
  duration:
    nanoseconds: 999000000
  starting_time:
    nanoseconds_since_epoch: 1700000000000000000
  message_count: 1000
  topics_with_message_count:
    - topic_metadata:
        name: "/t0"
        type: std_msgs/msg/Int32
        serialization_format: cdr
        offered_qos_profiles:
          - history: keep_last
            depth: 10
            reliability: reliable
            durability: volatile
            message_count: 7
        type_description_hash: RIHS01_b6a2
      message_count: 251
    - topic_metadata:
        name: /t1
        type: std_msgs/msg/Int32
        serialization_format: cdr
        offered_qos_profiles:
          - history: keep_last
            depth: 10
        type_description_hash: RIHS01_b6a2
      message_count: 249
    - topic_metadata:
        name: /t2
        type: std_msgs/msg/Int32
        serialization_format: cdr
        offered_qos_profiles: []
        type_description_hash: RIHS01_b6a2
      message_count: 250
    - topic_metadata:
        name: /t3
        type: std_msgs/msg/Int32
        serialization_format: cdr
        offered_qos_profiles: []
        type_description_hash: RIHS01_b6a2
      message_count: 250
  compression_format: ""
  compression_mode: ""
  relative_file_paths:
    - j_0.db3
  files:
    - path: j_0.db3
      starting_time:
        nanoseconds_since_epoch: 1700000000000000000
      duration:
        nanoseconds: 999000000
      message_count: 1000
  custom_data:
    name: value
  ros_distro: jazzy
YAML
"$B" info "$T/J" >"$T/info" 2>"$T/err"
if grep -q "/t0 *251 msgs" "$T/info" && grep -q "/t1 *249 msgs" "$T/info" && grep -q "^messages: *1000" "$T/info" &&
   [ ! -s "$T/err" ]; then ok "Jazzy's metadata.yaml layout: its counts used"
else cat "$T/info" >>"$T/err"; bad "Jazzy's metadata.yaml layout"; fi
# a split recording: files: gives each file's count, the topics are counted in each file
$P --many "$T/J/j_1.db3" 600 || exit 1
python3 -c '
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("    - j_0.db3\n", "    - j_0.db3\n    - j_1.db3\n")
s = s.replace("  custom_data:", "    - path: j_1.db3\n      starting_time:\n        nanoseconds_since_epoch: 1700000000000000000\n"
              "      duration:\n        nanoseconds: 599000000\n      message_count: 600\n  custom_data:")
open(p, "w").write(s)' "$T/J/metadata.yaml"
"$B" info "$T/J" >"$T/info" 2>"$T/err"
if [ ! -s "$T/err" ] && grep -q "/t0 *250 msgs" "$T/info" && grep -q "/t0 *150 msgs" "$T/info" && "$B" cat --count "$T/J" 2>>"$T/err" | grep -qx 1600 &&
   [ "$("$B" cat --count --topic /t0 "$T/J" 2>>"$T/err")" = 400 ]; then ok "split recording with files: 1600 messages, /t0 250 + 150"
else cat "$T/info" >>"$T/err"; bad "split recording with files:"; fi

# a hostile metadata.yaml: 10^12 messages over ids 1..10^12 that hold 2 rows: counted, no hang
mkdir "$T/H"
python3 -c '
import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
d.executescript("""CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT,
  offered_qos_profiles TEXT);
CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);
INSERT INTO topics VALUES (1, "/t0", "std_msgs/msg/Int32", "cdr", "");
INSERT INTO messages VALUES (1, 1, 5, x'"'"'0001000007000000'"'"');
INSERT INTO messages VALUES (1000000000000, 1, 6, x'"'"'0001000008000000'"'"');""")
d.commit()' "$T/H/h.db3"
$P --metadata "$T/H" "$T/H/h.db3"
sed -i 's/^  message_count: 2$/  message_count: 1000000000000/; s/^      message_count: 2$/      message_count: 1000000000000/' "$T/H/metadata.yaml"
timeout 60 "$B" cat --format json "$T/H" >"$T/got.jsonl" 2>"$T/out"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '"data":' "$T/got.jsonl")" -eq 2 ] &&
   grep -q "metadata.yaml counts 1000000000000 messages in this file, its database holds 2" "$T/out"; then ok "metadata.yaml claiming 10^12 messages: one line, the 2 read"
else cat "$T/out" >"$T/err"; echo "status $rc" >>"$T/err"; bad "metadata.yaml claiming 10^12 messages"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
