#!/bin/sh
# Browser speed: time to the first full screen and the time each keypress
# takes (handling plus drawing), on bags of MESSAGES messages (default 4
# million) written uncompressed, with lz4 and with bz2. Drives the real
# binary in tmux; the binary reports its own timings (BAGSCOPE_TIMING).
#   bench/tui.sh [MESSAGES]      (run from the build tree)
set -e
n=${1:-4000000}
dir=${TMPDIR:-/tmp}
bin=$(pwd)/src/bagscope
make -s bench/bench >/dev/null
command -v tmux >/dev/null || { echo "bench/tui.sh needs tmux"; exit 1; }
sock=bagscope-bench-$$
T="tmux -L $sock"
trap '$T kill-server 2>/dev/null || true' EXIT
wait_screen() {   # pattern
	i=0
	while [ $i -lt 600 ] && ! $T capture-pane -p -t b | grep -Eq -- "$1"; do i=$((i + 1)); sleep 0.05; done
}
keys() { $T send-keys -t b "$@"; sleep 0.15; }
for comp in none lz4 bz2; do
	bench/bench -n "$n" -c $comp -o "$dir" -b "$bin" -k >/dev/null
	bag="$dir/bagscope-bench-$n-$comp.bag"
	log="$dir/bagscope-timing-$comp.txt"
	$T -f /dev/null new-session -d -s b -x 120 -y 40 \
		"env TERM=screen-256color LC_ALL=C.UTF-8 BAGSCOPE_TIMING='$log' '$bin' '$bag'"
	wait_screen "row 1/$n"
	for i in 1 2 3 4 5 6 7 8 9 10; do keys j; done
	for i in 1 2 3 4 5 6 7 8 9 10; do keys NPage; done
	keys t; $T send-keys -t b "50%"; keys Enter
	keys t; $T send-keys -t b "+1m"; keys Enter
	keys End
	keys Home
	keys Tab; keys Tab; keys x; keys x; keys Tab
	keys q
	sleep 0.3
	$T kill-server 2>/dev/null || true
	echo "== $comp: $(du -h "$bag" | cut -f1) bag, $n messages"
	awk '
		/^first-screen/ { printf "  first screen        %8.2f ms\n", $2 }
		/^first-decoded/ { printf "  first decoded row   %8.2f ms (worker)\n", $2 }
		/^key/ { name = $2; t = $3
		         if (name == "j") k = "row down (j)"; else if (name == "KEY_NPAGE") k = "page down";
		         else if (name == "^M" || name == "^J") k = "jump to time (Enter)"; else if (name == "KEY_END") k = "End";
		         else if (name == "KEY_HOME") k = "Home"; else if (name == "x") k = "topic toggle (x)"; else next
		         n[k]++; s[k] += t; if (t > m[k]) m[k] = t }
		END { for (k in n) printf "  %-20s mean %6.2f ms  max %6.2f ms  (%d keys)\n", k, s[k] / n[k], m[k], n[k] }
	' "$log"
	rm -f "$bag" "$log"
done
