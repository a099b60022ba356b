#!/bin/sh
# Browser search speed: the browser in tmux searches for "bagscope-needle",
# which one /rosout message at 99.99 % of the bench bag holds (bench/mkbag.c),
# from the first row; the binary reports the time from Enter to the match
# (BAGSCOPE_TIMING: search-found). For comparison, the single-core time to
# read and decompress the chunks the search reads (cat on one core).
#   bench/tui-search.sh [BAG...]   (run from the build tree; default: the
#   bench bags in $BENCHDATA, /work/benchdata)
set -e
bin=$(pwd)/src/bagscope
dir=${BENCHDATA:-/work/benchdata}
[ $# -gt 0 ] || set -- "$dir/bench-none.bag" "$dir/bench-bz2.bag"
command -v tmux >/dev/null || { echo "bench/tui-search.sh needs tmux"; exit 1; }
sock=bagscope-bench-$$
T="tmux -L $sock"
log=${TMPDIR:-/tmp}/bagscope-search-timing-$$.txt
trap '$T kill-server 2>/dev/null || true; rm -f "$log"' EXIT
for bag in "$@"; do
	rm -f "$log"
	$T -f /dev/null new-session -d -s b -x 120 -y 40 \
		"env TERM=screen-256color LC_ALL=C.UTF-8 BAGSCOPE_TIMING='$log' '$bin' '$bag'"
	i=0
	while [ $i -lt 600 ] && ! $T capture-pane -p -t b | grep -q "row 1/"; do i=$((i + 1)); sleep 0.05; done
	$T send-keys -t b / bagscope-needle Enter
	i=0
	while [ $i -lt 3000 ] && ! grep -q search-found "$log" 2>/dev/null; do i=$((i + 1)); sleep 0.05; done
	found=$(awk '/^search-found/ { print $2 }' "$log")
	$T send-keys -t b q
	sleep 0.2
	$T kill-server 2>/dev/null || true
	start=$(date +%s.%N)
	taskset -c 0 "$bin" cat --count --filter 'msg =~ "bagscope-needle"' "$bag" >/dev/null
	one=$(echo "$(date +%s.%N) - $start" | bc)
	echo "== $(basename "$bag"): $(du -h "$bag" | cut -f1)"
	echo "  search lands in            ${found:-(no match)} ms"
	echo "  one core reads all chunks  $(printf '%.0f' "$(echo "$one * 1000" | bc)") ms (cat --filter pinned to one core)"
done
