# measure.sh - sourced by the bench scripts (mcap.sh, rosbag2.sh): timing
# helpers over /usr/bin/time and the browser's first screen in tmux. Needs
# dir (scratch), runs (repetitions) and bin (the bagscope program); pick
# says which run measure reports: median (default) or worst.

# run CMD...: one run's "wall user peak_kB" appended to $dir/.t
run() {
	/usr/bin/time -f "%e %U %M" -o "$dir/.one" "$@" >/dev/null 2>"$dir/.err" || { cat "$dir/.err" >&2; exit 1; }
	cat "$dir/.one" >> "$dir/.t"
}
# median of the runs in $dir/.t: "wall user peak"
median() { sort -n -k2 "$dir/.t" | awk '{ w[NR] = $1; u[NR] = $2; m = $3 > m ? $3 : m }
	END { k = int((NR + 1) / 2); printf "%.3f %.3f %d", w[k], u[k], m }'; }
# worst of the runs in $dir/.t: "wall user peak", each its largest
worst() { awk '{ w = $1 > w ? $1 : w; u = $2 > u ? $2 : u; m = $3 > m ? $3 : m }
	END { printf "%.3f %.3f %d", w, u, m }' "$dir/.t"; }
# measure LABEL CMD...: the median (or, pick=worst, the worst) of RUNS; prints a row, leaves "wall user peak" in $last
measure() {
	label=$1
	shift
	: > "$dir/.t"
	i=0
	while [ $i -lt "$runs" ]; do run "$@"; i=$((i + 1)); done
	last=$(${pick:-median})
	echo "$label $last" | awk '{ printf "  %-34s %8.3f s wall %8.3f s user %7d MB\n", $1, $2, $3, $4 / 1024 }'
}
# first_screen FILE: ms to the first full screen of the browser (tmux, 120x40)
first_screen() {
	command -v tmux >/dev/null || { echo "-"; return; }
	log=$dir/.timing
	rm -f "$log"
	# a server of its own each time (called in $(...): a name by the clock): a new one under
	# the last one's name could meet it exiting ("server exited unexpectedly", and set -e)
	sock=bagscope-bench-$$-$(date +%s%N)
	tmux -L $sock -f /dev/null new-session -d -s b -x 120 -y 40 \
		"env TERM=screen-256color LC_ALL=C.UTF-8 BAGSCOPE_TIMING='$log' '$bin' '$1'"
	i=0
	while [ $i -lt 600 ] && ! grep -q '^first-screen' "$log" 2>/dev/null; do i=$((i + 1)); sleep 0.05; done
	tmux -L $sock send-keys -t b q 2>/dev/null || true
	sleep 0.3
	tmux -L $sock kill-server 2>/dev/null || true
	awk '/^first-screen/ { printf "%.1f", $2 }' "$log"
}
