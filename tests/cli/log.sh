#!/bin/sh
# make check entry: `bagscope log` and `bagscope diag` against python3-rosbag.
# Bags made by python3-rosbag (tests/tools/mk-robot-bags.py: /rosout with every
# level, multi-line texts, an ESC sequence, non-ASCII names, each message
# republished on /rosout_agg; diagnostics going OK -> WARN -> ERROR -> OK,
# STALE, on /diagnostics, /diagnostics_agg and /diagnostics_toplevel_state)
# are read by python3-rosbag, and the expected output is computed here: the
# same lines (text and JSON), the same filters, summaries and transitions.
# lnav must detect the text as a log, with every message and its level.
B=${BAGSCOPE:-src/bagscope}
SRC=${SRCDIR:-.}
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
[ -x "$PY" ] && "$PY" "$SRCDIR/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg 2>/dev/null || { echo "log.sh: needs python3-rosbag, python3-diagnostic-msgs"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SRCDIR=$SRC sh "$SRC/tests/tools/made-bags.sh" mk-robot-bags.py "$tmp" || exit 1
ko() { echo "FAIL: $*"; fail=1; }

# reference BAG DIR LEVEL NODE_RE GREP_RE: what `log` should print, in one
# process (one import of rosbag): DIR/want-text and DIR/want-summary of every
# message, DIR/want-json of those the filters pass
reference() {
	"$PY" - "$@" <<'PYEOF'
import contextlib, datetime, json, re, sys, rosbag
names = {1: 'DEBUG', 2: 'INFO', 4: 'WARN', 8: 'ERROR', 16: 'FATAL'}
def utc(ns):
    d = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
    return d.strftime('%Y-%m-%dT%H:%M:%S') + '.%09dZ' % (ns % 10**9)
def esc(s):
    return s.replace('\x1b', '\\e')
def reference(mode, path, minlevel=0, node_re=None, grep_re=None):
    seen, summary = {}, {}
    with rosbag.Bag(path) as bag:
        for topic, m, t, hdr in bag.read_messages(return_connection_header=True):
            if hdr['type'] != b'rosgraph_msgs/Log' and hdr['type'] != 'rosgraph_msgs/Log':
                continue
            stamp = m.header.stamp.to_nsec()
            if m.level < minlevel or (node_re and not node_re.search(m.name)) or (grep_re and not grep_re.search(m.msg)):
                continue
            key = (m.name, stamp, m.msg)
            if seen.setdefault(key, topic) != topic:
                continue
            level = names.get(m.level, 'LEVEL%d' % m.level)
            if mode == 'text':
                lines = m.msg.split('\n')
                body = '\n    '.join(esc(l) for l in lines)
                print('%s %s [%s] %s (%s:%d %s)' % (utc(stamp), level, m.name, body, m.file, m.line, m.function))
            elif mode == 'json':
                print(json.dumps({'time_ns': t.to_nsec(), 'stamp_ns': stamp, 'level': level, 'node': m.name, 'msg': m.msg,
                                  'file': m.file, 'function': m.function, 'line': m.line, 'topics': list(m.topics)}))
            else:
                r = summary.setdefault((m.name, m.level), [0, stamp, stamp])
                r[0] += 1
                r[1], r[2] = min(r[1], stamp), max(r[2], stamp)
    if mode == 'summary':
        for (node, level), (n, a, b) in sorted(summary.items()):
            print('%s %s %d %s %s' % (node, names.get(level, 'LEVEL%d' % level), n, utc(a), utc(b)))
path, out = sys.argv[1], sys.argv[2]
for mode, args in (('text', ()), ('summary', ()),
                   ('json', (int(sys.argv[3]), re.compile(sys.argv[4]), re.compile(sys.argv[5])))):
    with open('%s/want-%s' % (out, mode), 'w') as f, contextlib.redirect_stdout(f):
        reference(mode, path, *args)
PYEOF
}

L=$tmp/log.bag
reference "$L" "$tmp" 4 'plan|contr' 'step [0-9]*[02468]$' || ko "the reference outputs"
cp "$tmp/want-text" "$tmp/want"
NO_COLOR= "$B" log "$L" > "$tmp/got" || ko "log exit $?"
cmp -s "$tmp/want" "$tmp/got" || { ko "log text differs"; diff "$tmp/want" "$tmp/got" | head -5; }
[ "$(grep -c '^2020' "$tmp/got")" = 401 ] || ko "log: 401 messages (400 + one repeated on /rosout), the /rosout_agg copies left out"
grep -q 'evil \\e\[2J text' "$tmp/got" || ko "log: ESC escaped"

cp "$tmp/want-json" "$tmp/want"
"$B" log --format json --level warn --node 'plan|contr' --grep 'step [0-9]*[02468]$' "$L" > "$tmp/got" || ko "log json exit"
"$PY" - "$tmp/want" "$tmp/got" <<'PYEOF' || ko "log --format json with filters differs"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) > 20 and a == b, (len(a), len(b))
PYEOF

cp "$tmp/want-summary" "$tmp/want"
"$B" log --summary "$L" | tail -n +2 | sed 's/  */ /g' > "$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || { ko "log --summary differs"; diff "$tmp/want" "$tmp/got" | head -5; }

# colour on a terminal, by level; none with NO_COLOR
if command -v script > /dev/null; then
	script -qec "$B log --level fatal $L" /dev/null > "$tmp/tty" 2>&1
	grep -q "$(printf '\033\\[1;31m')2020.*FATAL" "$tmp/tty" || ko "log: FATAL lines red on a terminal"
	NO_COLOR=1 script -qec "$B log --level fatal $L" /dev/null > "$tmp/tty" 2>&1
	grep -q "$(printf '\033')" "$tmp/tty" && ko "log: colour despite NO_COLOR"
fi

# lnav detects the layout: every message, its level
if command -v lnav > /dev/null; then
	NO_COLOR=1 "$B" log "$L" > "$tmp/rosout.log"
	got=$(TERM=dumb timeout 60 lnav -n -c ';SELECT log_format || " " || count(*) FROM all_logs GROUP BY log_format' "$tmp/rosout.log" | tail -1 | tr -s ' ')
	[ "$got" = "generic_log 401 " ] || [ "$got" = "generic_log 401" ] || ko "lnav: $got"
	got=$(TERM=dumb timeout 60 lnav -n -c ';SELECT count(*) FROM all_logs WHERE log_level = "error"' "$tmp/rosout.log" | tail -1 | tr -d ' ')
	[ "$got" = 50 ] || ko "lnav: error lines $got"
else
	ko "log: lnav missing (scripts/setup.sh --test)"
fi
"$B" log --level loud "$L" > /dev/null 2>&1; [ $? = 2 ] || ko "log --level loud: exit 2"
"$B" log --node '(' "$L" > /dev/null 2> "$tmp/e"; [ $? = 2 ] && [ "$(wc -l < "$tmp/e")" = 1 ] || ko "log: bad regex: exit 2, one line"

# diag: transitions and time per level from python3-rosbag's reading
D=$tmp/diag.bag
"$B" diag --json "$D" > "$tmp/got" || ko "diag --json exit"
"$PY" - "$D" "$tmp/got" <<'PYEOF' || ko "diag --json differs from python3-rosbag"
import json, sys, rosbag
names = ['OK', 'WARN', 'ERROR', 'STALE']
want, order = {}, []
with rosbag.Bag(sys.argv[1]) as bag:
    for topic, m, t in bag.read_messages():
        for s in (m.status if hasattr(m, 'status') else [m]):
            key = (s.name, s.hardware_id)
            if key not in want:
                order.append(key)
                want[key] = {'topic': topic, 'reports': 0, 'tr': [], 'first': t.to_nsec()}
            w = want[key]
            w['reports'] += 1
            w['last'] = t.to_nsec()
            if not w['tr'] or w['tr'][-1]['level'] != names[s.level]:
                w['tr'].append({'time_ns': t.to_nsec(), 'level': names[s.level], 'message': s.message,
                                'values': [[v.key, v.value] for v in s.values]})
got = json.load(open(sys.argv[2]))['statuses']
assert [(g['name'], g['hardware_id']) for g in got] == order
for g in got:
    w = want[(g['name'], g['hardware_id'])]
    assert g['transitions'] == w['tr'] and g['reports'] == w['reports'] and g['topic'] == w['topic'], g['name']
    spent = dict.fromkeys(names, 0)
    for a, b in zip(w['tr'], w['tr'][1:] + [{'time_ns': w['last']}]):
        spent[a['level']] += b['time_ns'] - a['time_ns']
    assert g['time_in_level_ns'] == spent, (g['name'], spent)
    assert g['worst'] == max((tr['level'] for tr in w['tr']), key=names.index) and g['last'] == w['tr'][-1]['level']
assert {g['name'] for g in got} == {'motor: left', 'motor: right', 'battery', '/Robot/Motors', 'toplevel'}
PYEOF
"$B" diag --summary "$D" > "$tmp/sum" || ko "diag --summary"
grep -q '^motor: left  *motor_ctl_1  *ERROR  *4  OK$' "$tmp/sum" || ko "diag summary: left motor"
grep -q '^battery  *STALE  *3  OK$' "$tmp/sum" || ko "diag summary: battery"
"$B" diag --level error --name motor "$D" > "$tmp/o" || ko "diag --level --name"
[ "$(grep -c '^status ' "$tmp/o")" = 1 ] && grep -q '^status motor: left  hardware motor_ctl_1  /diagnostics  30 reports$' "$tmp/o" || ko "diag --level error --name motor"
grep -q '^  2020-09-13T12:26:55.000000500Z  ERROR  overheat  (temp=70.0, current=2.0)$' "$tmp/o" || ko "diag: transition line"
grep -q '^  time in level: OK 16.000 s, WARN 5.000 s, ERROR 8.000 s, STALE 0.000 s$' "$tmp/o" || ko "diag: time in level"
exit $fail
