#!/bin/sh
# Reading rosbag2's sqlite3 storage (.db3) that Python's own sqlite3 module
# wrote (tests/tools/db3-write.py, rosbag2's schema) with CDR payloads that
# npm's @foxglove/rosmsg2-serialization serialized (tests/tools/mcap-write.cjs
# --records): every ROS 2 primitive and array kind, little- and big-endian;
# wstring (which that writer refuses) from Python's UTF-16 codec.
# `bagscope cat --format json` must print exactly the values the writers were
# given: with message_definitions (Iron+), without them (.msg files found
# through AMENT_PREFIX_PATH or --msg-path), split recordings, reads across
# spans, a .db3 with an MCAP file. Then info, check, stats, export to MCAP
# (read back by @mcap/core), and the input never modified (no -wal/-shm).
# Damaged files: one line naming the file, no crash.
# Skipped (77) without node and npm or without network for the first install.
# Environment: BAGSCOPE, SRCDIR, BUILDDIR.
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-.}
W=$SRCDIR/tests/tools/mcap-write.cjs
P="python3 $SRCDIR/tests/tools/db3-write.py"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
. "$SRCDIR/tests/tools/node-setup.sh"
. "$SRCDIR/tests/tools/compare-batch.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/err" | head -8; }
# same NAME WANT ARGS...: bagscope cat --format json ARGS equals WANT (checked by compare_run, at the end)
same_n=0
same() {
	name=$1 want=$2
	shift 2
	same_n=$((same_n + 1))
	if ! "$B" cat --format json "$@" >"$T/same$same_n.jsonl" 2>"$T/err"; then bad "$name: cat"; return; fi
	compare_add "$name" "$want" "$T/same$same_n.jsonl"
}

node "$W" "$T/r.jsonl" --records --messages 300 >"$T/want.jsonl" 2>"$T/err" || { bad "write records"; exit 1; }
node "$W" "$T/rbe.jsonl" --records --messages 120 --big-endian >"$T/wantbe.jsonl" 2>"$T/err" || { bad "write records"; exit 1; }
mkdir -p "$T/in"
$P "$T/r.jsonl" "$T/in/iron.db3" && $P "$T/r.jsonl" "$T/in/foxy.db3" --no-definitions &&
	$P "$T/rbe.jsonl" "$T/in/be.db3" && $P "$T/r.jsonl" --msg-dir "$T/ament" || { bad "db3-write.py"; exit 1; }
ls -l --full-time "$T/in" >"$T/before"
sum_before=$(cat "$T"/in/* | cksum)

same "with message_definitions (Iron+)" "$T/want.jsonl" "$T/in/iron.db3"
same "big-endian CDR" "$T/wantbe.jsonl" "$T/in/be.db3"
AMENT_PREFIX_PATH=$T/nowhere:$T/ament same "no definitions: AMENT_PREFIX_PATH/share" "$T/want.jsonl" "$T/in/foxy.db3"
same "no definitions: --msg-path DIR/PKG/msg" "$T/want.jsonl" --msg-path "$T/ament/share" "$T/in/foxy.db3"
same "no definitions: --msg-path PREFIX (PREFIX/share/PKG/msg)" "$T/want.jsonl" --msg-path "$T/ament" "$T/in/foxy.db3"

# a type found nowhere: one note naming it, its messages as bytes (msg null), the rest decoded
"$B" cat --format json "$T/in/foxy.db3" >"$T/got.jsonl" 2>"$T/note"
n=$(grep -c '"topic":"/sample".*"msg":null' "$T/got.jsonl")
if [ "$(grep -c 'test_msgs/msg/Sample' "$T/note")" -eq 1 ] && grep -q "shown as bytes" "$T/note" &&
   [ "$n" -eq 300 ] && [ "$(wc -l <"$T/got.jsonl")" -eq "$(wc -l <"$T/want.jsonl")" ]; then
	ok "missing definition: one note, 300 messages as bytes"
else
	cp "$T/note" "$T/err"; bad "missing definition ($n as bytes)"
fi

# ros2idl definitions: refused in a line per type, messages as bytes
$P "$T/r.jsonl" "$T/idl.db3" --idl
"$B" cat --format json "$T/idl.db3" >"$T/got.jsonl" 2>"$T/note"
if [ "$(grep -c 'ros2idl' "$T/note")" -eq 2 ] && [ "$(grep -vc '"msg":null' "$T/got.jsonl")" -eq 0 ]; then
	ok "ros2idl definitions: one line per type, bytes"
else
	cp "$T/note" "$T/err"; bad "ros2idl"
fi

# an MCAP file whose schemas are ros2idl: one line per connection, its messages as bytes
node "$W" "$T/idl.mcap" --schema-encoding ros2idl --compression lz4 >/dev/null 2>"$T/err"
"$B" cat --format json "$T/idl.mcap" >"$T/got.jsonl" 2>"$T/note"
if [ "$(grep -c 'ros2idl' "$T/note")" -eq 2 ] && [ "$(wc -l <"$T/note")" -eq 2 ] && [ -s "$T/got.jsonl" ] &&
   [ "$(grep -vc '"msg":null' "$T/got.jsonl")" -eq 0 ]; then
	ok "MCAP with ros2idl schemas: one line per connection, bytes"
else
	cp "$T/note" "$T/err"; bad "MCAP ros2idl"
fi

# wstring as Fast-CDR 1 (4-byte units) and Fast-CDR 2 (2-byte units) write it, in both byte
# orders, units from Python's own UTF-16 codec: printed as UTF-8
python3 -c '
import json, sqlite3, struct, sys
d = sqlite3.connect(sys.argv[1])
d.executescript("""CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT,
  offered_qos_profiles TEXT);
CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT, encoding TEXT,
  encoded_message_definition TEXT, type_description_hash TEXT);
CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB);
INSERT INTO topics VALUES (1, "/w", "p/msg/W", "cdr", "");
INSERT INTO message_definitions VALUES (1, "p/msg/W", "ros2msg", "wstring w
wstring<=8 b
int32 after
", "");""")
words = ["", "a", "ok", "h\u00e9llo \u2603", "\U0001f600 x", "\u00e9t\u00e9\U0001f680\u00e9"]
out = open(sys.argv[2], "w")
t = 1700000000000000000
for k, w in enumerate(words):
    for width in (4, 2):
        for be in (False, True):
            e = ">" if be else "<"
            def wstr(s, at):
                u = s.encode("utf-16-be" if be else "utf-16-le")
                units = [int.from_bytes(u[i:i + 2], "big" if be else "little") for i in range(0, len(u), 2)]
                body = struct.pack(e + "I", len(units)) + b"".join(struct.pack(e + ("I" if width == 4 else "H"), c) for c in units)
                return body + b"\0" * ((-(at + len(body))) % 4)
            b = "b%d" % k
            body = wstr(w, 0)
            body += wstr(b, len(body))
            body += struct.pack(e + "i", -k)
            t += 1000
            d.execute("INSERT INTO messages (topic_id, timestamp, data) VALUES (1, ?, ?)",
                      (t, (b"\0\0" if be else b"\0\1") + b"\0\0" + body))
            out.write(json.dumps({"topic": "/w", "type": "p/msg/W", "time_ns": str(t), "msg": {"w": w, "b": b, "after": -k}}) + "\n")
d.commit()' "$T/wide.db3" "$T/wantw.jsonl"
same "wstring: 4- and 2-byte units, both byte orders" "$T/wantw.jsonl" "$T/wide.db3"

# reads across spans (65536 rows each): 150000 rows in order, every value
$P --many "$T/many.db3" 150000 --want >"$T/wantmany.jsonl"
same "150000 messages across spans" "$T/wantmany.jsonl" "$T/many.db3"

# a split recording: DIR and DIR/metadata.yaml as one timeline; a .db3 with an MCAP file
mkdir -p "$T/rec"
node "$W" "$T/r0.jsonl" --records --messages 50 >"$T/wants.jsonl" 2>"$T/err"
node "$W" "$T/r1.jsonl" --records --messages 30 --big-endian --start 1700000001000000000 >>"$T/wants.jsonl" 2>>"$T/err"
$P "$T/r0.jsonl" "$T/rec/rec_0.db3" && $P "$T/r1.jsonl" "$T/rec/rec_1.db3" --no-definitions &&
	$P --metadata "$T/rec" "$T/rec/rec_0.db3" "$T/rec/rec_1.db3"
AMENT_PREFIX_PATH=$T/ament same "split recording: DIR" "$T/wants.jsonl" "$T/rec"
AMENT_PREFIX_PATH=$T/ament same "split recording: DIR/metadata.yaml" "$T/wants.jsonl" "$T/rec/metadata.yaml"
node "$W" "$T/m.mcap" --messages 40 --compression lz4 --start 1700000005000000000 >"$T/wantm.jsonl" 2>"$T/err"
cat "$T/want.jsonl" "$T/wantm.jsonl" >"$T/wantmix.jsonl"
same ".db3 and .mcap as one timeline" "$T/wantmix.jsonl" "$T/in/iron.db3" "$T/m.mcap"

# info: format, storage, counts and times as the writer wrote them
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t = [int(r["time_ns"]) for r in rows]
per = {}
for r in rows: per[r["topic"]] = per.get(r["topic"], 0) + 1
print(len(rows), min(t), max(t), " ".join("%s=%d" % kv for kv in sorted(per.items())))' "$T/want.jsonl" >"$T/wantinfo"
"$B" info --json "$T/in/iron.db3" >"$T/info" 2>"$T/err" && python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))
assert i["format"] == "rosbag2" and i["bag_format"] == "rosbag2 sqlite3" and i["profile"] == "ros2", i
print(i["messages"], i["start_ns"], i["end_ns"], " ".join("%s=%d" % (t["topic"], t["messages"]) for t in sorted(i["topics"], key=lambda t: t["topic"])))' "$T/info" >"$T/gotinfo" 2>"$T/err"
if cmp -s "$T/wantinfo" "$T/gotinfo"; then ok "info --json: rosbag2, sqlite3, counts and times"; else diff "$T/wantinfo" "$T/gotinfo" >"$T/err"; bad "info --json"; fi
if "$B" info "$T/in/iron.db3" >"$T/info" 2>"$T/err" && grep -q "^version: *rosbag2 sqlite3" "$T/info" &&
   grep -q "^messages: *$(cut -d' ' -f1 "$T/wantinfo")" "$T/info"; then ok "info"; else cp "$T/info" "$T/err"; bad "info"; fi

# a damaged timestamp_idx page: the open reads that index (its seeks cut the spans), so it fails in one line
python3 -c '
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
d = sqlite3.connect(sys.argv[2])
root = d.execute("SELECT rootpage FROM sqlite_master WHERE name = \"timestamp_idx\"").fetchone()[0]
size = d.execute("PRAGMA page_size").fetchone()[0]
d.close()
b = bytearray(open(sys.argv[2], "rb").read())
b[(root - 1) * size + 8:(root - 1) * size + 10] = b"\xff\xf0"   # its first cell pointed past the page
open(sys.argv[2], "wb").write(b)' "$T/in/iron.db3" "$T/dmg.db3"
"$B" check "$T/dmg.db3" >"$T/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "dmg.db3: rosbag2 sqlite3 storage damaged or cut off, reading the messages table" "$T/out" &&
   [ "$(grep -c . "$T/out")" -le 2 ]; then ok "check: a damaged timestamp index, one line"
else cp "$T/out" "$T/err"; bad "check: damaged index page (status $rc)"; fi

# check, stats
if "$B" check "$T/in/iron.db3" >"$T/out" 2>"$T/err" && grep -q "400 records walked, 1 chunk decompressed, 400 messages read and decoded: 0 problems" "$T/out"; then
	ok "check"; else cat "$T/out" >>"$T/err"; bad "check"; fi
if "$B" check "$T/many.db3" >"$T/out" 2>"$T/err" && grep -q "150000 records walked, 3 chunks decompressed, 150000 messages read and decoded: 0 problems" "$T/out"; then
	ok "check across spans"; else cat "$T/out" >>"$T/err"; bad "check across spans"; fi
"$B" stats "$T/in/iron.db3" >"$T/out" 2>"$T/err"
if grep -A1 '^/sample' "$T/out" | grep -q 'messages *300,' && grep -A1 '^/counter' "$T/out" | grep -q 'messages *100,'; then
	ok "stats"; else cat "$T/out" >>"$T/err"; bad "stats"; fi

# export to MCAP (ros2 profile), read back by @mcap/core and @foxglove/rosmsg2-serialization
for comp in none zstd; do
	rm -f "$T/out.mcap"
	if "$B" export --format mcap --compression $comp -o "$T/out.mcap" "$T/in/iron.db3" 2>"$T/err" &&
	   node "$W" --read "$T/out.mcap" >"$T/got.jsonl" 2>"$T/err" &&
	   node "$W" --compare "$T/want.jsonl" "$T/got.jsonl" >"$T/err" 2>&1; then
		ok "export .db3 -> MCAP ($comp), read by @mcap/core"
	else
		bad "export .db3 -> MCAP ($comp)"
	fi
done

"$B" export -o "$T/out.bag" "$T/in/iron.db3" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "type systems differ" "$T/err" && [ ! -e "$T/out.bag" ]; then
	ok "export .db3 -> bag refused in one line"
else
	bad "export .db3 -> bag (status $rc)"
fi

# the input is never modified: same bytes, same times, no -wal/-shm/-journal beside it
ls -l --full-time "$T/in" >"$T/after"
if cmp -s "$T/before" "$T/after" && [ "$(cat "$T"/in/* | cksum)" = "$sum_before" ]; then
	ok "input untouched, no file created beside it"; else diff "$T/before" "$T/after" >"$T/err"; bad "input modified"; fi
mkdir -p "$T/wal"
python3 -c '
import sqlite3, sys, shutil
shutil.copy(sys.argv[1], sys.argv[2])
d = sqlite3.connect(sys.argv[2]); d.execute("PRAGMA journal_mode=WAL"); d.close()' "$T/in/iron.db3" "$T/wal/w.db3"
ls -l --full-time "$T/wal" >"$T/before"
same "WAL-mode database" "$T/want.jsonl" "$T/wal/w.db3"
ls -l --full-time "$T/wal" >"$T/after"
if cmp -s "$T/before" "$T/after"; then ok "WAL-mode database: no -wal/-shm created"; else diff "$T/before" "$T/after" >"$T/err"; bad "WAL: files created"; fi

# damaged: cut anywhere (or only unused bytes cut: all read), not a database, another schema: one line naming the file, exit 1, no crash
size=$(wc -c <"$T/in/iron.db3")
fails=0
for cut in 16 100 1024 4096 8192 $((size / 2)) $((size - 4096)) $((size - 1)); do
	head -c "$cut" "$T/in/iron.db3" >"$T/cut.db3"
	"$B" cat --format json "$T/cut.db3" >"$T/got.jsonl" 2>"$T/err"
	rc=$?
	# a cut that takes only unused bytes of the last page loses nothing: every message, as written
	[ $rc -eq 0 ] && node "$W" --compare "$T/want.jsonl" "$T/got.jsonl" >"$T/err" 2>&1 && continue
	if [ $rc -ne 1 ] || [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q "cut.db3.*cut off" "$T/err"; then
		fails=$((fails + 1)); echo "cut at $cut: status $rc" >>"$T/errs"; cat "$T/err" >>"$T/errs"
	fi
done
if [ $fails -eq 0 ]; then ok "cut files: one line each"; else cp "$T/errs" "$T/err"; bad "cut files"; fi
printf 'SQLite format 3\000' >"$T/junk.db3"
head -c 5000 /dev/urandom >>"$T/junk.db3"
python3 -c 'import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); d.execute("CREATE TABLE t(a)"); d.commit()' "$T/other.db3"
for f in junk other; do
	"$B" info "$T/$f.db3" >/dev/null 2>"$T/err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "$f.db3" "$T/err"; then ok "$f.db3: one line"; else bad "$f.db3 (status $rc)"; fi
done

# NULL data and unknown topic ids: left out with one warning each, the rest read
python3 -c '
import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
d.executescript("""CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT,
  offered_qos_profiles TEXT);
CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB);
INSERT INTO topics VALUES (1, "/a", "std_msgs/msg/Int32", "cdr", "");
INSERT INTO messages VALUES (1, 1, 5, x'"'"'0001000007000000'"'"');
INSERT INTO messages VALUES (2, 1, 6, NULL);
INSERT INTO messages VALUES (3, 9, 7, x'"'"'0001000008000000'"'"');
INSERT INTO messages VALUES (4, 1, -3, x'"'"'0001000009000000'"'"');
INSERT INTO messages VALUES (5, 1, 8, x'"'"'000100000a000000'"'"');""")
d.commit()' "$T/holes.db3"
"$B" cat --format json "$T/holes.db3" >"$T/got.jsonl" 2>"$T/err"
if [ "$(grep -c '"msg":{"data":' "$T/got.jsonl")" -eq 2 ] && grep -q '"data":7' "$T/got.jsonl" &&
   grep -q '"data":10' "$T/got.jsonl" && grep -q "2 messages with no data or a time" "$T/err" &&
   grep -q "1 message on topic ids" "$T/err"; then ok "NULL data, bad time, unknown topic: warned, left out"; else bad "NULL data"; fi

# a .db3 at a URL (Debian's nginx on 127.0.0.1): refused in one line
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
	(
		. "$SRCDIR/tests/tools/nginx.sh"
		mkdir -p "$T/www" && chmod 755 "$T" "$T/www" && cp "$T/in/iron.db3" "$T/www/" && chmod 644 "$T/www/iron.db3"
		nginx_start "$T/www" "$T/nginx"
		"$B" info "http://127.0.0.1:$NGINX_PORT/iron.db3" >/dev/null 2>"$T/err"
		rc=$?
		nginx_stop
		[ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "iron.db3.*local files only" "$T/err"
	) && ok ".db3 over http: one line" || bad ".db3 over http"
fi

compare_run
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
