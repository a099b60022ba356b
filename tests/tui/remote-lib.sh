# Sourced (after lib.sh) by the screen tests of a bag at a URL: chunks.bag, 80,000
# std_msgs/Int64 in 4 KiB chunks written by Debian's python3-rosbag, served by
# Debian's nginx on 127.0.0.1 behind tests/tools/faultproxy.py.
#   remote_bag PROXY_OPTIONS...   writes the bag to $tmp/www, starts nginx and
#                                 the proxy (stopped on exit), sets P to its URL
# Skips the test (77) without python3-rosbag.
/usr/bin/python3 "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "python3-rosbag not installed: skipped"; exit 77; }
. "$top/tests/tools/nginx.sh"
PROXY=
trap 'nginx_stop; [ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null; $T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
remote_bag() {
	chmod 755 "$tmp"   # nginx workers run as another user
	mkdir -p "$tmp/www"
	SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-chunks-bag.py "$tmp/www" || exit 1
	nginx_start "$tmp/www" "$tmp/nginx"
	python3 "$top/tests/tools/faultproxy.py" "http://127.0.0.1:$NGINX_PORT" "$tmp/port" "$@" 2>"$tmp/proxy.log" &
	PROXY=$!
	while [ ! -f "$tmp/port" ]; do sleep 0.05; done
	P=http://127.0.0.1:$(cat "$tmp/port")
}
