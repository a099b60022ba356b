#!/bin/sh
# screen.sh - drive the real browser in tmux at a fixed size and read the
# screen back: panes drawn, a topic filtered, a time jumped to, hex toggled,
# search, help, resize (too small, then larger), merged bags, quit.
#
# Polls capture-pane for each expected text (bounded, no fixed sleeps).
# Skips (77) without tmux. BAGSCOPE is the binary; srcdir the source tree.

command -v tmux >/dev/null 2>&1 || { echo "tmux not found: skipped"; exit 77; }
srcdir=${srcdir:-.}
BAGSCOPE=${BAGSCOPE:-src/bagscope}
case $BAGSCOPE in /*) ;; *) BAGSCOPE=$(pwd)/$BAGSCOPE ;; esac
data=$(cd "$srcdir/tests/data/fixtures" && pwd)
sock=bagscope-test-$$
tmp=${TMPDIR:-/tmp}/bagscope-screen-$$
mkdir -p "$tmp"
fails=0

T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

# wait_for TEXT [SECONDS]: poll the screen until TEXT shows (fixed string)
wait_for() {
	limit=$(( ${2:-10} * 50 ))
	i=0
	while [ $i -lt $limit ]; do
		T capture-pane -p -t bs > "$tmp/screen" 2>/dev/null
		grep -qF -- "$1" "$tmp/screen" && return 0
		i=$((i + 1))
		sleep 0.02
	done
	echo "FAIL: '$1' never appeared; screen was:"
	sed 's/^/  | /' "$tmp/screen"
	fails=$((fails + 1))
	return 1
}

# wait_gone TEXT: poll until TEXT is no longer shown
wait_gone() {
	i=0
	while [ $i -lt 500 ]; do
		T capture-pane -p -t bs > "$tmp/screen" 2>/dev/null
		grep -qF -- "$1" "$tmp/screen" || return 0
		i=$((i + 1))
		sleep 0.02
	done
	echo "FAIL: '$1' did not go away"
	sed 's/^/  | /' "$tmp/screen"
	fails=$((fails + 1))
	return 1
}

keys() { T send-keys -t bs "$@"; }

start() {
	T new-session -d -s bs -x 100 -y 30 \
		"env TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC NO_COLOR= $*; echo EXITED \$?; sleep 30"
}

# ---- one bag: panes ------------------------------------------------------------
start "$BAGSCOPE $data/bags/basic_none.bag"
wait_for "23 messages"
wait_for "data=\"hello\""                 # summaries filled in by the worker
wait_for "row 1/23  1500000000.000000000  2017-07-14 02:40:00.000 UTC"
wait_for "/counter      std_msgs/Int64             7      0.86     1"
wait_for "Message  /greeting  std_msgs/String  9 bytes"
wait_for "data: \"hello\""                # decoded tree
wait_for "Timeline  02:40:00"
wait_for "ready"

# ---- moving -------------------------------------------------------------------
keys j j
wait_for "row 3/23"
keys G
wait_for "row 23/23"
wait_for "data=99"
keys g
wait_for "row 1/23"

# ---- jump to a time ---------------------------------------------------------------
keys t
wait_for "jump to"
keys "+3.5" Enter
wait_for "row 13/23  1500000004.000000400"
keys : "#20" Enter
wait_for "row 20/23"
keys t "1500000002" Enter
wait_for "row 7/23  1500000002.000000200"
keys t "nonsense" Enter
wait_for "cannot read 'nonsense'"

# ---- hex ---------------------------------------------------------------------
keys x
wait_for "Hex  /greeting  std_msgs/String  15 bytes"
wait_for "00000000  0b 00 00 00 67 72 c3 bc  c3 9f 20 64 69 63 68     |....gr.... dich|"
keys x
wait_for "data: \"grüß dich\""

# ---- relative times -------------------------------------------------------------
keys r
wait_for "Time (s from start)"
wait_for "2.000000200  /greeting"
keys r
wait_gone "Time (s from start)"

# ---- filter a topic: hide /greeting from the list, then only /counter ---------------
keys f
wait_for "16 messages"
wait_for "5/6 shown"
keys BTab
keys F                                     # conns pane, cursor on /greeting: solo
wait_for "7 messages"
wait_for "only /greeting shown"
keys g F                                   # /counter: solo
wait_for "only /counter shown"
wait_for "1/6 shown"
keys F                                     # again: all back
wait_for "23 messages"
wait_for "6/6 shown"
keys s
wait_for "▼Messages"
keys s s
keys Tab

# ---- connection info ---------------------------------------------------------------
keys c
wait_for "Connection  /greeting  std_msgs/String"
wait_for "md5sum       992ce8a1687cec8c8bd883ec73ca41d1"
keys c

# ---- search ----------------------------------------------------------------------
keys g / tie Enter
wait_for "/tie: row 22"
keys N
wait_for "no earlier match"

# ---- next on the same topic ---------------------------------------------------------
keys g ]
wait_for "row 4/23"

# ---- help --------------------------------------------------------------------------
keys "?"
wait_for "bagscope keys"
wait_for "jump to a time, offset, 50% or #row"
keys Escape
wait_gone "bagscope keys"

# ---- resize ------------------------------------------------------------------------
T resize-window -t bs -x 50 -y 12
wait_for "terminal too small: 50x12"
T resize-window -t bs -x 160 -y 40
wait_for "row 4/23"
wait_for "Message  /greeting"
T resize-window -t bs -x 100 -y 30

# ---- quit -------------------------------------------------------------------------
keys q
wait_for "EXITED 0"
T kill-session -t bs

# ---- two bags merged ------------------------------------------------------------------
start "$BAGSCOPE $data/bags/basic_none.bag $data/bags/tf_lz4.bag"
wait_for "34 messages"
wait_for "basic_none.bag +1"
keys G
wait_for "row 34/34  1500000210"
wait_for "/tf "
keys q
wait_for "EXITED 0"
T kill-session -t bs

# ---- a bag that cannot be opened: a plain error, status 1 ------------------------------
start "$BAGSCOPE $data/bags/no-such.bag"
wait_for "EXITED 1"
wait_for "no-such.bag"
T kill-session -t bs

[ $fails -eq 0 ] && echo "screen tests passed"
exit $((fails > 0))
