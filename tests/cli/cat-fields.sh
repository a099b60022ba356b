#!/bin/sh
# make check entry: `cat --fields` and `cat --count` against the real ROS
# reader (python3-rosbag): the same values, message for message, in csv and
# json, over several topics at once; counts of filtered messages equal the
# manifest's reference counts.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
[ -x "$PY" ] && "$PY" "$(dirname "$0")/../tools/has-modules.py" rosbag 2>/dev/null || { echo "cat-fields.sh: needs python3-rosbag"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bagscope's outputs first, then python3-rosbag's view of them in one process
# (one import of rosbag): it writes want.csv and want-topics.csv, compared
# below, and compares the JSON itself.
# csv: tf_lz4's /tf, two fields, one of them a string
"$B" cat --topic /tf --fields 'transforms[0].transform.translation.x,transforms[-1].child_frame_id' \
	"$D/bags/tf_lz4.bag" > "$tmp/got.csv" || fail=1
# json over every topic of nested_bz2 at once: a field some types lack is null
"$B" cat --format json --fields 'header.stamp,kind,len(parts)' "$D/bags/nested_bz2.bag" > "$tmp/got.jsonl" || fail=1
# /topic.path fields (as the browser's C and plot take them) over several
# topics: only the topics named are printed, a cell of another topic is empty
"$B" cat --fields '/path.header.stamp,/widgets.kind,/path.poses[0].pose.position.x' \
	"$D/bags/nested_bz2.bag" > "$tmp/got-topics.csv" || fail=1
"$PY" - "$D/bags/tf_lz4.bag" "$D/bags/nested_bz2.bag" "$tmp" <<'PYEOF' || fail=1
import sys, json, rosbag
tf, nested, tmp = sys.argv[1:4]

with open(tmp + '/want.csv', 'w') as out:
    print('%time,topic,transforms[0].transform.translation.x,transforms[-1].child_frame_id', file=out)
    for topic, m, t in rosbag.Bag(tf).read_messages(topics=['/tf']):
        print('%d,%s,%r,%s' % (t.to_nsec(), topic, m.transforms[0].transform.translation.x,
                               m.transforms[-1].child_frame_id), file=out)

with open(tmp + '/want-topics.csv', 'w') as out:
    print('%time,topic,/path.header.stamp,/widgets.kind,/path.poses[0].pose.position.x', file=out)
    for topic, m, t in rosbag.Bag(nested).read_messages(topics=['/path', '/widgets']):
        if topic == '/path':
            print('%d,%s,%d.%09d,,%r' % (t.to_nsec(), topic, m.header.stamp.secs, m.header.stamp.nsecs,
                                         m.poses[0].pose.position.x), file=out)
        else:
            print('%d,%s,,%d,' % (t.to_nsec(), topic, m.kind), file=out)

got = [json.loads(l) for l in open(tmp + '/got.jsonl')]
want = []
for topic, m, t in rosbag.Bag(nested).read_messages():
    h = getattr(m, 'header', None)
    f = {'header.stamp': '%d.%09d' % (h.stamp.secs, h.stamp.nsecs) if h is not None else None,
         'kind': getattr(m, 'kind', None),
         'len(parts)': len(m.parts) if hasattr(m, 'parts') else None}
    want.append({'topic': topic, 'type': m._type, 'time_ns': t.to_nsec(), 'msg': f})
# stamps come as exact decimals: compare their text
for g in got:
    s = g['msg']['header.stamp']
    g['msg']['header.stamp'] = None if s is None else '%.9f' % s if isinstance(s, float) else str(s)
for w in want:
    s = w['msg']['header.stamp']
    w['msg']['header.stamp'] = None if s is None else '%.9f' % float(s)
if got != want:
    print('FAIL --fields json:', got[:2], want[:2])
    sys.exit(1)
PYEOF
cmp -s "$tmp/got.csv" "$tmp/want.csv" || { echo "FAIL --fields csv"; diff "$tmp/got.csv" "$tmp/want.csv" | head; fail=1; }
cmp -s "$tmp/got-topics.csv" "$tmp/want-topics.csv" || { echo "FAIL --fields /topic.path csv"; diff "$tmp/got-topics.csv" "$tmp/want-topics.csv" | head; fail=1; }
# a topic field beside a plain one: every selected topic, the plain one on each
[ "$("$B" cat --format json --fields '/widgets.kind,header.frame_id' "$D/bags/nested_bz2.bag" | wc -l)" = 15 ] ||
	{ echo "FAIL --fields mixed: not every message"; fail=1; }
# an unknown topic, a topic with no field, a topic --topic leaves out: usage errors that say so
"$B" cat --fields '/nosuch.x' "$D/bags/tf_lz4.bag" 2> "$tmp/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "'/nosuch.x' starts with no topic of the bag (its topics: /tf" "$tmp/err" ||
	{ echo "FAIL --fields unknown topic: rc $rc"; cat "$tmp/err"; fail=1; }
"$B" cat --fields '/tf' "$D/bags/tf_lz4.bag" 2> "$tmp/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "name a field after the topic" "$tmp/err" || { echo "FAIL --fields topic alone"; fail=1; }
"$B" cat --topic /path --fields '/widgets.kind' "$D/bags/nested_bz2.bag" 2> "$tmp/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "/widgets is not among the topics selected" "$tmp/err" || { echo "FAIL --fields unselected topic"; fail=1; }
# the caret points into the path after the topic
"$B" cat --fields '/tf.nosuch' "$D/bags/tf_lz4.bag" 2> "$tmp/err" >/dev/null
[ "$(sed -n 2p "$tmp/err" | tr -d ' ')" = '^' ] && [ "$(sed -n 2p "$tmp/err" | awk '{print index($0, "^")}')" = \
	"$(sed -n 1p "$tmp/err" | awk '{print index($0, "/tf.nosuch") + 4}')" ] || { echo "FAIL --fields caret"; cat "$tmp/err"; fail=1; }

# --count: the manifest's filter cases, counted
"$PY" - "$D/expected/manifest.json" > "$tmp/cases" <<'PYEOF'
import sys, json
for b in json.load(open(sys.argv[1]))['bags']:
    for c in b.get('filter_cases', []):
        print('%s\t%s\t%d\t%s' % (b['bag'], c['filter'], c['messages'], ' '.join(c['args'])))
PYEOF
while IFS='	' read -r bag expr n args; do
	# shellcheck disable=SC2086
	got=$("$B" cat --count --filter "$expr" $args "$D/$bag")
	[ "$got" = "$n" ] || { echo "FAIL --count $bag '$expr': $got, expected $n"; fail=1; }
done < "$tmp/cases"
[ "$("$B" cat --count "$D/foreign/rosbag.js/example.bag")" = 8647 ] || { echo "FAIL --count all"; fail=1; }
"$B" cat --fields 'no_such_field' "$D/bags/tf_lz4.bag" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL --fields unknown"; fail=1; }
"$B" cat --fields 'x' --format yaml "$D/bags/tf_lz4.bag" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL --fields yaml"; fail=1; }
[ $fail -eq 0 ] && echo "cat-fields.sh: ok"
exit $fail
