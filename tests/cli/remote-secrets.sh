#!/bin/sh
# A URL's user:password@ never appears: bags behind HTTP basic auth on
# Debian's nginx (127.0.0.1, auth_basic with a {PLAIN} password file). With
# the right password every command works and prints the URL with the
# password as "***"; a wrong password is one clear 401 line, a missing
# object one 404 line, and neither shows it; nor does the browser's title,
# log pane or marks store (tests/tui/remote.sh).
# Environment: BAGSCOPE, SRCDIR.
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
. "$SRCDIR/tests/tools/nginx.sh"
T=$(mktemp -d) && chmod 755 "$T" || exit 1   # nginx workers run as another user
trap 'nginx_stop; rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/why" 2>/dev/null | head -8; }

PW=pw-$$-never-shown
mkdir -p "$T/www/private"
cp "$SRCDIR/tests/data/fixtures/bags/basic_none.bag" "$SRCDIR/tests/data/fixtures/bags/tf_lz4.bag" "$T/www/private/"
printf 'rover:{PLAIN}%s\n' "$PW" >"$T/htpasswd" && chmod 644 "$T/htpasswd"
nginx_start "$T/www" "$T/nginx" "location /private/ { auth_basic \"bags\"; auth_basic_user_file $T/htpasswd; }"
HOSTPORT=127.0.0.1:$NGINX_PORT
U=http://rover:$PW@$HOSTPORT/private
SHOWN=http://rover:***@$HOSTPORT/private
L=$T/www/private

# the right password: the local run's output, the local path replaced by the redacted URL
for cmd in "info" "info --json" "cat --count" "stats" "check" "defs"; do
	# shellcheck disable=SC2086
	"$B" $cmd "$L/basic_none.bag" "$L/tf_lz4.bag" >"$T/l.out" 2>&1; lrc=$?
	# shellcheck disable=SC2086
	"$B" $cmd "$U/basic_none.bag" "$U/tf_lz4.bag" >"$T/r.out" 2>&1; rrc=$?
	cat "$T/r.out" >>"$T/all"
	sed -i "s|$L|$SHOWN|g" "$T/l.out"
	if [ $lrc -eq $rrc ] && cmp -s "$T/l.out" "$T/r.out"; then
		ok "$cmd: as the local run, the password shown as ***"
	else
		{ echo "exit $lrc local, $rrc remote"; diff "$T/l.out" "$T/r.out"; } >"$T/why"; bad "$cmd"
	fi
done
grep -q "rover:\*\*\*@" "$T/all" && ok "the URL is named, its password redacted" || { cp "$T/all" "$T/why"; bad "the URL is not named"; }

# one line, exit 1, the password not in it
fails() {
	name=$1 want=$2 url=$3
	"$B" info "$url" >"$T/out" 2>"$T/err"; rc=$?
	cat "$T/out" "$T/err" >>"$T/all"
	if [ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "$want" "$T/err"; then
		ok "$name: $(cat "$T/err")"
	else
		{ echo "exit $rc"; cat "$T/out" "$T/err"; } >"$T/why"; bad "$name"
	fi
}
fails "wrong password" "^bagscope: http://rover:\*\*\*@.*HTTP 401" "http://rover:not-$PW@$HOSTPORT/private/basic_none.bag"
fails "missing object" "HTTP 404" "$U/missing.bag"
fails "a bare token before @" "^bagscope: http://\*\*\*@.*HTTP 401" "http://tok-$PW@$HOSTPORT/private/basic_none.bag"
"$B" export --start +0 --end +1 -o "$T/out.bag" "$U/basic_none.bag" "$U/missing.bag" >>"$T/all" 2>&1
"$B" cat --count "$U/basic_none.bag" "$L/../nonesuch.bag" >>"$T/all" 2>&1

if grep -q -e "$PW" "$T/all"; then
	grep -e "$PW" "$T/all" >"$T/why"; bad "a password was printed"
else
	ok "no password in any output ($(wc -l <"$T/all") lines checked)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
