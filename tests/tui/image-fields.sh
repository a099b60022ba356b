#!/bin/sh
# Screen test: an image in the detail shows its fields (header stamp,
# frame_id, encoding or format, width x height, step) on the row under the
# title, as python3-rosbag reads them, above the picture; a frame that cannot
# be drawn shows the reason over the decoded tree (the fields, the data).
. "$(dirname "$0")/lib.sh"
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
"$PY" "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "needs python3-rosbag: skipped"; exit 77; }
bag=$top/tests/data/fixtures/made/images.bag
# $tmp/TOPIC_NAME (the name's last part) for each topic: its index in name
# order, then its first frame's fields as the row shows them; one read of the bag
"$PY" - "$bag" "$tmp" /cam/rgb8 /cam/jpeg /cam/badjpeg <<'PYEOF' || exit 1
import sys, rosbag
b = rosbag.Bag(sys.argv[1])
names = sorted(b.get_type_and_topic_info().topics)
for topic in sys.argv[3:]:
    m = next(m for _, m, _ in b.read_messages(topics=[topic]))
    h = m.header
    f = 'stamp %d.%09d  frame_id "%s"  ' % (h.stamp.secs, h.stamp.nsecs, h.frame_id)
    f += 'encoding %s  %dx%d  step %d' % (m.encoding, m.width, m.height, m.step) if hasattr(m, 'encoding') else 'format ' + m.format
    with open('%s/%s' % (sys.argv[2], topic.split('/')[-1]), 'w') as out:
        out.write('%d\n%s\n' % (names.index(topic), f))
PYEOF
# show_only N: solo the N-th topic (0-based, name order) and focus the list
show_only() {
	keys g BTab g
	i=0; while [ $i -lt "$1" ]; do keys j; i=$((i + 1)); done
	keys o Tab
}
START_ENV="NO_COLOR=1" start 160 45 "$bag"
wait_for "opens" "row 1/1042"
for topic in /cam/rgb8 /cam/jpeg; do
	facts=$tmp/${topic##*/}
	show_only "$(sed -n 1p "$facts")"
	wait_for "$topic: a picture" "Detail: image 16x8"
	# the row under the title (and the next, when the pane is narrow) is the fields rosbag reads
	screen > "$tmp/screen"
	check "$topic: its fields under the title, as rosbag reads them" "$PY" - "$tmp/screen" "$(sed -n 2p "$facts")" <<'PYEOF'
import sys
rows, want = open(sys.argv[1], encoding='utf-8').read().split('\n'), sys.argv[2]
at = next(k for k, r in enumerate(rows) if 'Detail: image' in r)
col = rows[at].index('Detail: image') - 1
a, b = rows[at + 1][col:].strip(), rows[at + 2][col:].strip()
print('fields rows: %r, %r' % (a, b))
sys.exit(0 if a == want or a + '  ' + b == want else 1)
PYEOF
done
show_only "$(sed -n 1p "$tmp/badjpeg")"
keys j
wait_for "a damaged jpeg: the reason" "cannot show this image: "
wait_for "... over the decoded tree" "^ .* +format: \"jpeg\""
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
