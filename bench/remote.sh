#!/bin/sh
# Remote reading figures (issue 22) over loopback nginx, on the bench bags
# (4M messages, 1.39 GB uncompressed; none, lz4, bz2), against the local
# files where a ratio is asked:
#   info              bytes fetched (% of the file) and requests
#   first screen      requests until the browser's first full screen, every
#                     row of the list in (BAGSCOPE_TIMING's first-screen; nginx's
#                     $msec against the browser's own first-screen time; the
#                     topic rates' pass reads index data after it), and
#                     its time through tests/tools/faultproxy.py at 50 ms
#                     per request
#   cat --count       throughput over the whole bag, remote / local, in
#                     PAIRS (default 5; bz2: PAIRS_BZ2, default 2, a local
#                     pass being a minute of CPU) paired runs (local, remote, local,
#                     remote, ...): each pair's ratio of elapsed times, the
#                     best, median and worst printed with the load; the CPU
#                     time of the first pair, nginx's worker's too
#   export 10 %       bytes transferred for a 10 % time window
#   peak memory       of cat --count, remote and local (block cache 256 MiB)
# Bags: $BENCHBAGS (default /work/benchbags), made with bench/mkbag if absent,
# never deleted; BAGS="none lz4" measures those only (default: none lz4 bz2). Run from the build tree: bench/remote.sh
set -e
BB=${BENCHBAGS:-/work/benchbags}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
bin=$(pwd)/src/bagscope
. "$SRCDIR/tests/tools/nginx.sh"
command -v tmux >/dev/null || { echo "bench/remote.sh needs tmux"; exit 1; }
W=$(mktemp -d) && chmod 755 "$W"
sock=bagscope-remote-$$
PROXY=
trap 'set +e; tmux -L $sock kill-server 2>/dev/null; [ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null; nginx_stop; rm -rf "$W"' EXIT
mkdir -p "$BB"
for c in none lz4 bz2; do
	if [ ! -f "$BB/bench-$c.bag" ]; then
		make -s bench/mkbag >/dev/null
		bench/mkbag -c $c -d "$SRCDIR/bench/defs" "$BB/bench-$c.bag.tmp$$" && mv "$BB/bench-$c.bag.tmp$$" "$BB/bench-$c.bag"
	fi
done
# sendfile on, as Debian's stock nginx.conf has it (tests/tools/nginx.sh leaves it off)
nginx_start "$BB" "$W/nginx" "sendfile on;"
PAIRS=${PAIRS:-5}
# CPU ticks (1/100 s) nginx's worker has used
nginx_ticks() { awk '{print $14 + $15}' /proc/"$(pgrep -P "$NGINX_PID" nginx | head -1)"/stat; }
U=http://127.0.0.1:$NGINX_PORT
# requests and bytes logged for NAME since the last reset
reqs() { sleep 0.3; grep -c "/$1" "$NGINX_LOG" || true; }
bytes() { awk -v n="/$1" 'index($2, n) {s += $4} END {print s + 0}' "$NGINX_LOG"; }
secs() { /usr/bin/time -f '%e %M %U %S' "$@" 2>&1 >/dev/null | tail -1; }
# first screen of the browser on URL: prints its time in ms
first_screen() {
	rm -f "$W/timing"
	tmux -L $sock -f /dev/null new-session -d -s b -x 120 -y 40 \
		"env TERM=screen-256color LC_ALL=C.UTF-8 BAGSCOPE_TIMING='$W/timing' '$bin' '$1'"
	i=0
	# the timing file is written when the browser quits: wait for the status line
	while [ $i -lt 1200 ] && ! tmux -L $sock capture-pane -p -t b | grep -q 'row 1/'; do i=$((i + 1)); sleep 0.05; done
	sleep 1
	tmux -L $sock send-keys -t b q
	sleep 0.5
	tmux -L $sock kill-server 2>/dev/null || true
	awk '/first-screen/ {print $2}' "$W/timing"
}
# requests and bytes nginx logged for NAME up to FIRST_SCREEN_MS after T0 (its $msec field)
until_screen() {
	awk -v n="/$1" -v t="$2" -v ms="$3" 'index($2, n) && $NF <= t + ms / 1000 + 0.02 {r++; s += $4}
		END {printf "%d requests, %d bytes", r, s}' "$NGINX_LOG"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-28s %s\n' bag measure figure
for c in ${BAGS:-none lz4 bz2}; do
	f=bench-$c.bag
	size=$(wc -c <"$BB/$f")
	: >"$NGINX_LOG"
	"$bin" info "$U/$f" >/dev/null
	printf '%-5s %-28s %d requests, %d bytes = %.3f %% of %d\n' $c info "$(reqs $f)" "$(bytes $f)" \
		"$(echo "$(bytes $f) $size" | awk '{print 100 * $1 / $2}')" "$size"
	: >"$NGINX_LOG"
	t0=$(date +%s.%N)
	ms=$(first_screen "$U/$f")
	printf '%-5s %-28s %s until it, %s ms; %d requests, %d bytes in all (topic rates after it)\n' $c "first screen" \
		"$(until_screen $f "$t0" "$ms")" "$ms" "$(reqs $f)" "$(bytes $f)"
	rm -f "$W/port"
	python3 "$SRCDIR/tests/tools/faultproxy.py" "$U" "$W/port" --delay 50 2>/dev/null &
	PROXY=$!
	while [ ! -f "$W/port" ]; do sleep 0.05; done
	ms=$(first_screen "http://127.0.0.1:$(cat "$W/port")/$f")
	kill "$PROXY"; PROXY=
	printf '%-5s %-28s %s ms\n' $c "first screen, 50 ms/request" "$ms"
	: >"$W/pairs"
	pairs=$PAIRS
	[ $c = bz2 ] && pairs=${PAIRS_BZ2:-2}
	for i in $(seq "$pairs"); do
		n0=$(nginx_ticks)
		l=$(secs "$bin" cat --count "$BB/$f"); : >"$NGINX_LOG"; r=$(secs "$bin" cat --count "$U/$f")
		echo "$l $r $(($(nginx_ticks) - n0)) $(cut -d' ' -f1 /proc/loadavg)" >>"$W/pairs"
	done
	awk -v c=$c -v s="$size" '{ratio[NR] = $1 / $5; line[NR] = $0} NR == 1 {first = $0}
		END {
			n = NR
			for (i = 1; i <= n; i++) sorted[i] = ratio[i]
			for (i = 2; i <= n; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
				t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t }
			split(first, f, " ")
			for (i = 1; i <= NR; i++) loads = loads (i > 1 ? " " : "") line_load(line[i])
			printf "%-5s %-28s %d pairs at load %s: best %.2f x, median %.2f x, worst %.2f x\n", c, "cat --count remote/local",
			       n, loads, sorted[n], sorted[int((n + 1) / 2)], sorted[1]
			printf "%-5s %-28s local %.2f s (%.0f MB/s), remote %.2f s (%.0f MB/s) (first pair)\n", c, "cat --count", f[1],
			       s / f[1] / 1e6, f[5], s / f[5] / 1e6
			printf "%-5s %-28s local %.2f + %.2f s, remote %.2f + %.2f s and nginx %.2f s (user + sys, first pair)\n", c,
			       "cat --count CPU", f[3], f[4], f[7], f[8], f[9] / 100
			printf "%-5s %-28s local %d KB, remote %d KB\n", c, "peak memory (cat --count)", f[2], f[6] }
		function line_load(l,  a) { split(l, a, " "); return a[10] }' "$W/pairs"
	printf '%-5s %-28s %d bytes fetched of %d (%.2f %%)\n' $c "cat --count transfer" "$(bytes $f)" "$size" \
		"$(echo "$(bytes $f) $size" | awk '{print 100 * $1 / $2}')"
	: >"$NGINX_LOG"
	"$bin" export --start +4500 --end +5500 --force -o "$W/out.bag" "$U/$f" 2>/dev/null
	printf '%-5s %-28s %d requests, %d bytes = %.2f %%\n' $c "export 10 % window" "$(reqs $f)" "$(bytes $f)" \
		"$(echo "$(bytes $f) $size" | awk '{print 100 * $1 / $2}')"
	rm -f "$W/out.bag"
done
