# Sourced by the remote tests: start Debian's nginx on 127.0.0.1 serving a
# directory, with an access log that counts requests and bytes.
#   nginx_start ROOT WORKDIR [EXTRA_SERVER_DIRECTIVES]   sets NGINX_PORT, NGINX_LOG
#   nginx_stop
# Exits 77 (skip) when nginx is not installed.
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx not installed (scripts/setup.sh --test): skipped"; exit 77; }

nginx_start() {
	_root=$1 _dir=$2 _extra=$3
	mkdir -p "$_dir/tmp"
	NGINX_LOG=$_dir/access.log
	for _try in 1 2 3 4 5 6 7 8; do
		NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		cat >"$_dir/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $_dir/nginx.pid;
error_log $_dir/error.log;
events { worker_connections 256; }
http {
	log_format counts '\$request_method \$uri \$status \$body_bytes_sent "\$http_range" \$msec';
	access_log $NGINX_LOG counts;
	client_body_temp_path $_dir/tmp;
	proxy_temp_path $_dir/tmp;
	fastcgi_temp_path $_dir/tmp;
	uwsgi_temp_path $_dir/tmp;
	scgi_temp_path $_dir/tmp;
	# multi-range requests for every chunk header of a bag in one Range header
	large_client_header_buffers 4 64k;
	server {
		listen 127.0.0.1:$NGINX_PORT;
		root $_root;
		$_extra
	}
}
CONF
		"$NGINX" -c "$_dir/nginx.conf" -p "$_dir" >"$_dir/nginx.out" 2>&1 &
		NGINX_PID=$!
		if python3 - "$NGINX_PORT" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.2).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
PY
		then
			return 0
		fi
		kill "$NGINX_PID" 2>/dev/null
		wait "$NGINX_PID" 2>/dev/null
	done
	echo "nginx did not start:"; cat "$_dir/error.log" "$_dir/nginx.out"
	exit 1
}

nginx_stop() {
	[ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
	NGINX_PID=
}
