# Shared by the screen tests: start the real browser in tmux at a fixed
# size, send keys, poll the screen for a state (never a fixed sleep).
# TERM, LC_ALL=C.UTF-8, TZ=UTC and a private XDG_STATE_HOME are pinned.
command -v tmux >/dev/null 2>&1 || { echo "tmux not installed: skipped"; exit 77; }
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BAGSCOPE:-$top/src/bagscope}
# the test tools that make builds (write-tool ...): in BUILDDIR, which is not
# the sources' tree in a VPATH build (make distcheck)
tools=${BUILDDIR:-$top}/tests/tools
tmp=$(mktemp -d)
sock=bagscope-test-$$
T="tmux -L $sock"
passed=0 failed=0 starts=0
# how long a state may take to appear before it is a failure: generous, for
# a loaded machine, ASan and valgrind; a test that passes never waits it out
WAIT_SECONDS=${WAIT_SECONDS:-90}
trap '$T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

# screen [-e]: the pane's text (with its colours' escapes when -e)
screen() { $T capture-pane -p $1 -t main; }
keys() { $T send-keys -t main "$@"; }

# pause N: the wait after the Nth look at a screen that is not there yet:
# 50 ms twice, then 100 ms, then 200 ms, added to $waited (ms). A look (a
# tmux client and a grep) costs a few ms of CPU; looking every 50 ms while a
# slow state came took the other tests' CPU (the screen tests: 28-30 s of
# CPU, then 23-25). The deadline is counted in these waits, not read from
# `date` at each look: the looks themselves add a few ms each.
pause() {
	case $1 in
	1|2) sleep 0.05; waited=$((waited + 50)) ;;
	3) sleep 0.1; waited=$((waited + 100)) ;;
	*) sleep 0.2; waited=$((waited + 200)) ;;
	esac
}

# wait_for NAME PATTERN [-e]: poll the screen (with colours when -e) for an
# extended regex, until it appears, the browser exits or WAIT_SECONDS pass.
wait_for() {
	looks=0 waited=0
	while :; do
		shot=$(screen "$3")
		if printf '%s\n' "$shot" | grep -Eq -- "$2"; then
			passed=$((passed + 1)); printf 'ok    %s\n' "$1"; return 0
		fi
		# the browser has gone (a crash, a sanitizer's report): no use waiting
		case $shot in
		*BROWSER-EXITED*) break ;;
		"") $T has-session -t main 2>/dev/null || break ;;
		esac
		[ "$waited" -lt $((WAIT_SECONDS * 1000)) ] || break
		looks=$((looks + 1)); pause $looks
	done
	failed=$((failed + 1)); printf 'FAIL  %s: /%s/ never appeared; the screen was:\n' "$1" "$2"
	screen | sed 's/^/      | /'
	return 1
}

# wait_until NAME COMMAND...: poll a shell test (of the screen, say) until it
# holds or WAIT_SECONDS pass; counted as a check.
wait_until() {
	name=$1; shift
	looks=0 waited=0
	until "$@"; do
		if [ "$waited" -ge $((WAIT_SECONDS * 1000)) ]; then
			failed=$((failed + 1)); printf 'FAIL  %s; the screen was:\n' "$name"
			screen | sed 's/^/      | /'
			return 1
		fi
		looks=$((looks + 1)); pause $looks
	done
	passed=$((passed + 1)); printf 'ok    %s\n' "$name"
}

# check NAME COMMAND...: a shell test that must hold.
check() {
	name=$1; shift
	if "$@"; then passed=$((passed + 1)); printf 'ok    %s\n' "$name"
	else failed=$((failed + 1)); printf 'FAIL  %s\n' "$name"; fi
}

# start W H BAG...: the browser in a new session (ended first if one runs),
# with the environment assignments of START_ENV (unset: NO_COLOR=1).
start() {
	w=$1 h=$2; shift 2
	# a new server each time: a new session on a server still exiting races it
	$T kill-server 2>/dev/null
	starts=$((starts + 1))
	T="tmux -L $sock-$starts"
	args=
	for a in "$@"; do args="$args '$a'"; done
	$T -f /dev/null new-session -d -s main -x "$w" -y "$h" \
		"env TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC XDG_STATE_HOME='$tmp/state' ${START_ENV-NO_COLOR=1} '$bin' $args; echo BROWSER-EXITED \$?; sleep 60"
}

# mouse BUTTON X Y M|m: an SGR mouse report (0-based x, y).
mouse() { $T send-keys -t main -l "$(printf '\033[<%d;%d;%d%s' "$1" $(($2 + 1)) $(($3 + 1)) "$4")"; }

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
