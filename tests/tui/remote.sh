#!/bin/sh
# Screen test: the browser on a bag at an http:// URL, served by Debian's
# nginx on 127.0.0.1. It opens in a few requests, its status line says what
# was fetched, and a mark set on the URL is there when the local copy opens
# (marks are kept by content). A URL's password never shows: not in the
# title, the log pane nor the marks store.
. "$(dirname "$0")/lib.sh"
SRCDIR=$top
. "$top/tests/tools/nginx.sh"
trap 'nginx_stop; $T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"   # nginx workers run as another user
mkdir -p "$tmp/www"
cp "$top/tests/data/fixtures/foreign/rosbag.js/example.bag" "$tmp/www/"
nginx_start "$tmp/www" "$tmp/nginx"
url=http://127.0.0.1:$NGINX_PORT/example.bag
start 100 30 "$url"
wait_for "opens a URL" "row 1/8647"
wait_for "the status line counts what was fetched" "MB fetched in [0-9]+ requests"
n=$(grep -c example.bag "$NGINX_LOG")
check "opened in at most 6 requests ($n)" [ "$n" -le 6 ]
keys G
wait_for "the end" "row 8647/8647"
keys m
wait_for "m marks" "marked \\(1 mark[;)]"
keys q
wait_for "quits" "BROWSER-EXITED 0"
start 100 30 "$tmp/www/example.bag"
wait_for "the local copy opens" "row 1/8647"
keys u
wait_for "the URL's mark is the local copy's (kept by content)" "row 8647/8647"
keys q
wait_for "quits again" "BROWSER-EXITED 0"

# a password in the URL (user:password@) is never shown: title, log pane, marks
pw=pw-$$-never-shown
start 160 30 "http://rover:$pw@127.0.0.1:$NGINX_PORT/example.bag" "http://rover:$pw@127.0.0.1:$NGINX_PORT/missing.bag"
wait_for "opens a URL with a password, the missing one skipped" "row 1/8647"
wait_for "the title names it with the password as ***" "bagscope +http://rover:\*\*\*@127"
keys L
wait_for "the log pane names the skipped one, the password as ***" "skipped: http://rover:\*\*\*@127"
check "the password is on no screen" sh -c "! $T capture-pane -p -t main | grep -q '$pw'"
keys Escape m
wait_for "m marks (the first run's mark is there too: same content)" "marked \\(2 marks"
keys q
wait_for "quits" "BROWSER-EXITED 0"
check "nor in the marks store" sh -c "! grep -rq '$pw' '$tmp/state'"
finish
