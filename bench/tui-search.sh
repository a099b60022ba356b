#!/bin/sh
# Browser search speed on the 4M-message bench bags (bench/mkbag): one
# browser per bag in tmux, once it is idle, searches from the first row for
# each pattern below (RUNS times each); the
# binary reports (BAGSCOPE_TIMING) the time from Enter to the match or to
# "not found", and the CPU time the whole process spent meanwhile (all
# threads: on a loaded machine this is the honest figure; wall / cpu shows
# how many cores it got).
#   bagscope-needle      one /rosout message at 99.99 % (holds a 'b', which
#                        no field name, type or topic of the bag has)
#   loop step 199999     the last /rosout message; every letter occurs in
#                        field names, so each message's text is searched
#   zzznotthere          a miss (letters in field names too)
#   loop step 19999[0-9] a regex (required literal "loop step 19999")
#   3.14159265358        a miss made of float characters (a number: read
#                        as a literal; floats are ruled out by magnitude
#                        and fraction before any is written)
#   3\.1415926535[0-9]   the same as a regex (required literal
#                        "3.1415926535")
#   7e-77                a literal miss made of float characters (floats
#                        ruled out by their binary exponent)
#   199999               digits only (a hit: /rosout's "loop step 199999"
#                        and every message whose seq is 199999)
# PATTERNS='a|b|...' times those instead.
# Each pattern runs RUNS times (default 3); every run is printed, then the
# worst. For comparison, one core reading and decompressing every chunk
# (cat --filter pinned to one core): the bz2 target is half of that.
#   bench/tui-search.sh [BAG...]   (run from the build tree; default: the
#   bench bags in $BENCHDATA, /work/benchbags, made if absent)
set -e
bin=${BAGSCOPE_BIN:-$(pwd)/src/bagscope}   # a copy keeps a rebuild from changing it mid-run
dir=${BENCHDATA:-/work/benchbags}
if [ $# -eq 0 ]; then
	make -s bench/mkbag >/dev/null
	mkdir -p "$dir"
	for c in none lz4 bz2; do
		[ -f "$dir/bench-$c.bag" ] || bench/mkbag -d "$(dirname "$0")/defs" -c $c "$dir/bench-$c.bag"
	done
	set -- "$dir/bench-none.bag" "$dir/bench-lz4.bag" "$dir/bench-bz2.bag"
fi
command -v tmux >/dev/null || { echo "bench/tui-search.sh needs tmux"; exit 1; }
T="tmux -L bagscope-bench-$$"
log=${TMPDIR:-/tmp}/bagscope-search-timing-$$.txt
trap '$T kill-server 2>/dev/null || true; rm -f "$log" "$log.one"' EXIT
limit=${SEARCH_LIMIT:-600}

# cpu_ticks PID: the user + system time the process has used so far (clock ticks)
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# open BAG: the browser in a tmux session of its own; waits for the first
# screen, then until the browser is idle or SETTLE seconds (default 60)
# have passed. The background passes at open (the timeline's over /rosout
# and diagnostics, the chunk check, on bz2 a whole decompression at nice
# 19) wait while a search runs, so what is left of them does not share the
# cores with it. Prints how long the browser was busy (up to SETTLE).
open_bag() {
	rm -f "$log"
	$T kill-server 2>/dev/null || true
	$T -f /dev/null new-session -d -s b -x 120 -y 40 \
		"env TERM=screen-256color LC_ALL=C.UTF-8 BAGSCOPE_TIMING='$log' '$bin' '$1'"
	i=0
	while [ $i -lt 1200 ] && ! $T capture-pane -p -t b 2>/dev/null | grep -q "row 1/"; do i=$((i + 1)); sleep 0.05; done
	pid=$($T display -p -t b '#{pane_pid}')
	t0=$(date +%s)
	last=$(cpu_ticks "$pid")
	while sleep 1; do
		now=$(cpu_ticks "$pid")
		[ $((now - last)) -lt 5 ] && break
		[ $(($(date +%s) - t0)) -ge "${SETTLE:-60}" ] && break
		last=$now
	done
	echo "$(($(date +%s) - t0))"
}

# search PATTERN: from the first row; prints "found|missed WALL_MS CPU_MS" (or "timeout")
search() {
	before=$(grep -c "^search-" "$log" 2>/dev/null || true)
	$T send-keys -t b Escape g /
	$T send-keys -t b -l "$1"
	$T send-keys -t b Enter
	i=0
	while [ $i -lt $((limit * 10)) ] && [ "$(grep -c "^search-" "$log" 2>/dev/null || true)" -le "${before:-0}" ]; do
		i=$((i + 1)); sleep 0.1
	done
	grep "^search-" "$log" | awk -v n="${before:-0}" 'NR > n { sub("search-", "", $1); print $1, $2, $4; k++ } END { if (!k) print "timeout" }' | head -1
}

runs=${RUNS:-3}
for bag in "$@"; do
	echo "== $(basename "$bag"): $(du -h "$bag" | cut -f1); load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "  the browser was busy for $(open_bag "$bag") s after its first screen (the timeline's pass)"
	printf '  %-22s %-7s %s\n' pattern result "wall ms / cpu ms, each run; worst"
	[ -n "$PATTERNS" ] || PATTERNS='bagscope-needle|loop step 199999|zzznotthere|loop step 19999[0-9]|3.14159265358|3\.1415926535[0-9]|7e-77|199999'
	IFS='|'; set -f; set -- $PATTERNS; unset IFS; set +f
	for pat in "$@"; do
		all="" ww=0 wc=0 res=""
		r=0
		while [ $r -lt "$runs" ]; do
			set -- $(search "$pat")
			res=$1
			all="$all ${2%.*}/${3%.*}"
			[ "${2%.*}" -gt "$ww" ] 2>/dev/null && ww=${2%.*}
			[ "${3%.*}" -gt "$wc" ] 2>/dev/null && wc=${3%.*}
			r=$((r + 1))
		done
		printf '  %-22s %-7s %s; worst %s/%s\n' "$pat" "$res" "$all" "$ww" "$wc"
	done
	$T send-keys -t b Escape q
	sleep 0.5
	$T kill-server 2>/dev/null || true
	/usr/bin/time -f '%e %U %S' -o "$log.one" taskset -c 0 "$bin" cat --count --filter 'msg =~ "bagscope-needle"' "$bag" >/dev/null
	read -r one user sys < "$log.one"
	echo "  one core reads all chunks: ${one} s wall, ${user} s user + ${sys} s sys (cat --filter pinned to one core); load $(cut -d' ' -f1-3 /proc/loadavg)"
done
