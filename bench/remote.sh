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
#   cat --count       throughput over the whole bag, remote / local
#                     (elapsed, paired: local, remote, local, remote; best),
#                     and the CPU time of the first pair (nginx's not counted)
#   export 10 %       bytes transferred for a 10 % time window
#   peak memory       of cat --count, remote and local (block cache 256 MiB)
# Bags: $BENCHBAGS (default /work/benchbags), made with bench/mkbag if absent,
# never deleted. Run from the build tree: bench/remote.sh
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
nginx_start "$BB" "$W/nginx"
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
for c in none lz4 bz2; do
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
	l1=$(secs "$bin" cat --count "$BB/$f"); r1=$(secs "$bin" cat --count "$U/$f")
	l2=$(secs "$bin" cat --count "$BB/$f"); : >"$NGINX_LOG"; r2=$(secs "$bin" cat --count "$U/$f")
	echo "$l1 $r1 $l2 $r2" | awk -v c=$c -v s="$size" '{
		l = $1 < $9 ? $1 : $9; r = $5 < $13 ? $5 : $13
		printf "%-5s %-28s local %.2f s (%.0f MB/s), remote %.2f s (%.0f MB/s): %.2f x\n", c, "cat --count", l, s / l / 1e6, r, s / r / 1e6, l / r
		printf "%-5s %-28s local %.2f + %.2f s, remote %.2f + %.2f s (user + sys, first pair)\n", c, "cat --count CPU", $3, $4, $7, $8
		printf "%-5s %-28s local %d KB, remote %d KB\n", c, "peak memory (cat --count)", $10, $14 }'
	printf '%-5s %-28s %d bytes fetched of %d (%.2f %%)\n' $c "cat --count transfer" "$(bytes $f)" "$size" \
		"$(echo "$(bytes $f) $size" | awk '{print 100 * $1 / $2}')"
	: >"$NGINX_LOG"
	"$bin" export --start +4500 --end +5500 --force -o "$W/out.bag" "$U/$f" 2>/dev/null
	printf '%-5s %-28s %d requests, %d bytes = %.2f %%\n' $c "export 10 % window" "$(reqs $f)" "$(bytes $f)" \
		"$(echo "$(bytes $f) $size" | awk '{print 100 * $1 / $2}')"
	rm -f "$W/out.bag"
done
