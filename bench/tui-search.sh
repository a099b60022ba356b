#!/bin/sh
# Browser search speed on the 4M-message bench bags (bench/mkbag): the
# browser in tmux searches from the first row for each pattern below; the
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
#   3.14159265358        a miss made of float characters (a regex: its
#                        literal "14159265358" is all digits, so every
#                        float's text is written: the worst case)
#   7e-77                a literal miss made of float characters (only
#                        floats written in scientific form are written)
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
n=0
T="tmux -L bagscope-bench-$$-$n"
log=${TMPDIR:-/tmp}/bagscope-search-timing-$$.txt
trap '$T kill-server 2>/dev/null || true; rm -f "$log" "$log.one"' EXIT
limit=${SEARCH_LIMIT:-600}

# search BAG PATTERN: prints "found|missed WALL_MS CPU_MS" (or "timeout")
search() {
	n=$((n + 1))
	T="tmux -L bagscope-bench-$$-$n"   # a server of its own: the last one may still be going away
	rm -f "$log"
	$T -f /dev/null new-session -d -s b -x 120 -y 40 \
		"env TERM=screen-256color LC_ALL=C.UTF-8 BAGSCOPE_TIMING='$log' '$bin' '$1'"
	i=0
	while [ $i -lt 600 ] && ! $T capture-pane -p -t b 2>/dev/null | grep -q "row 1/"; do i=$((i + 1)); sleep 0.05; done
	$T send-keys -t b /
	$T send-keys -t b -l "$2"
	$T send-keys -t b Enter
	i=0
	while [ $i -lt $((limit * 10)) ] && ! grep -q "^search-" "$log" 2>/dev/null; do i=$((i + 1)); sleep 0.1; done
	awk '/^search-/ { sub("search-", "", $1); print $1, $2, $4; n++ } END { if (!n) print "timeout" }' "$log"
	$T send-keys -t b Escape q
	sleep 0.2
	$T kill-server 2>/dev/null || true
}

runs=${RUNS:-3}
for bag in "$@"; do
	echo "== $(basename "$bag"): $(du -h "$bag" | cut -f1); load $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '  %-22s %-7s %s\n' pattern result "wall ms / cpu ms, each run; worst"
	for pat in bagscope-needle "loop step 199999" zzznotthere "loop step 19999[0-9]" 3.14159265358 7e-77; do
		all="" ww=0 wc=0 res=""
		r=0
		while [ $r -lt "$runs" ]; do
			set -- $(search "$bag" "$pat")
			res=$1
			all="$all ${2%.*}/${3%.*}"
			[ "${2%.*}" -gt "$ww" ] 2>/dev/null && ww=${2%.*}
			[ "${3%.*}" -gt "$wc" ] 2>/dev/null && wc=${3%.*}
			r=$((r + 1))
		done
		printf '  %-22s %-7s %s; worst %s/%s\n' "$pat" "$res" "$all" "$ww" "$wc"
	done
	/usr/bin/time -f '%e %U %S' -o "$log.one" taskset -c 0 "$bin" cat --count --filter 'msg =~ "bagscope-needle"' "$bag" >/dev/null
	read -r one user sys < "$log.one"
	echo "  one core reads all chunks: ${one} s wall, ${user} s user + ${sys} s sys (cat --filter pinned to one core); load $(cut -d' ' -f1-3 /proc/loadavg)"
done
