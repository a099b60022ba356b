#!/bin/sh
# Bags read through HTTP from Debian's nginx on 127.0.0.1:
#  - the golden tests (golden.py) run again with every bag given as a URL;
#  - every command's output on every fixture and old-format bag is
#    byte-identical to the local run (stdout, stderr, exit status; the
#    path replaced by the URL);
#  - info reads few requests and bytes (nginx's access log counts them);
#  - 401, 403, 404 and a server that ignores Range each give one clear line
#    and exit 1, never output.
# Environment: BAGSCOPE, SRCDIR.
B=${BAGSCOPE:-src/bagscope}
export B
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
. "$SRCDIR/tests/tools/nginx.sh"
T=$(mktemp -d) && chmod 755 "$T" || exit 1   # nginx workers run as another user
trap 'nginx_stop; rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/why" 2>/dev/null | head -8; }

mkdir -p "$T/www/old" "$T/www/denied" "$T/www/closed" "$T/www/norange"
for d in bags foreign; do cp -r "$SRCDIR/tests/data/fixtures/$d" "$T/www/"; done
for f in "$SRCDIR"/tests/data/oldbags/*.bag; do [ -f "$f" ] && cp "$f" "$T/www/old/"; done
cp "$SRCDIR/tests/data/fixtures/bags/basic_none.bag" "$T/www/denied/"
cp "$SRCDIR/tests/data/fixtures/bags/basic_none.bag" "$T/www/closed/"
cp "$SRCDIR/tests/data/fixtures/bags/basic_none.bag" "$T/www/norange/"
nginx_start "$T/www" "$T/nginx" 'location /denied/ { return 403; }
		location /closed/ { return 401; }
		location /norange/ { max_ranges 0; }'
URL=http://127.0.0.1:$NGINX_PORT

# the golden tests, every bag through its URL
if GOLDEN_BASE_URL=$URL/ python3 "$SRCDIR/tests/tools/golden.py" "$B" >"$T/why" 2>&1 && tail -1 "$T/why" | grep -q ' 0 failed'; then
	ok "golden tests through HTTP ($(tail -1 "$T/why"))"
else
	grep FAIL "$T/why" >"$T/why2"; mv "$T/why2" "$T/why"; bad "golden tests through HTTP"
fi

# every command on every bag, locally and through its URL, several runs at
# once: identical stdout, stderr and status once the path reads as the URL
# (one Python process compares them all)
mkdir "$T/c"
i=0
for f in "$T"/www/bags/*.bag "$T"/www/foreign/*/*.bag "$T"/www/old/*.bag; do
	rel=${f#"$T"/www/}
	for cmd in "info" "info --json" "info --freq" "cat --format json" "cat --format csv" "cat --count" \
	           "stats" "stats --json" "check" "defs"; do
		i=$((i + 1))
		printf '%s\t%s\t%s\t%s\n' "$i" "$cmd" "$f" "$URL/$rel"
	done
done >"$T/cases"
# shellcheck disable=SC2016
tr '\n' '\0' <"$T/cases" | xargs -0 -n 1 -P 3 sh -c 'IFS="	"; set -- $1; IFS=" "; c=$0/c/$1
	"$B" $2 "$3" >"$c.lo" 2>"$c.le"; echo $? >"$c.lrc"
	"$B" $2 "$4" >"$c.ro" 2>"$c.re"; echo $? >"$c.rrc"' "$T"
python3 - "$T" <<'PYEOF' >"$T/same"
import sys
t = sys.argv[1]
for line in open(t + '/cases'):
    i, cmd, path, url = line.rstrip('\n').split('\t')
    name = '%s %s' % (cmd, path[len(t + '/www/'):])
    r = lambda ext: open('%s/c/%s.%s' % (t, i, ext), 'rb').read()
    lo, le = (r(e).replace(path.encode(), url.encode()) for e in ('lo', 'le'))
    if r('lrc') == r('rrc') and lo == r('ro') and le == r('re'):
        print('ok    ' + name)
    else:
        print('FAIL  %s\n      exit %s local, %s remote' % (name, r('lrc').strip().decode(), r('rrc').strip().decode()))
        print('      ' + ('stdout differs' if lo != r('ro') else 'stderr: %r / %r' % (le[:200], r('re')[:200])))
PYEOF
cat "$T/same"
passed=$((passed + $(grep -c '^ok' "$T/same")))
failed=$((failed + $(grep -c '^FAIL' "$T/same")))
[ "$(grep -c '^ok' "$T/same")" -eq "$i" ] && [ "$i" -gt 150 ] || { echo "FAIL  $i runs, $(grep -c '^ok' "$T/same") identical"; failed=$((failed + 1)); }

# export of a time window: the same bytes written from the URL as from the file
f=$T/www/bags/large_lz4.bag
if "$B" export --start +1 --end +3 -o "$T/l.bag" "$f" 2>"$T/why" &&
   "$B" export --start +1 --end +3 -o "$T/r.bag" "$URL/bags/large_lz4.bag" 2>"$T/why" && cmp "$T/l.bag" "$T/r.bag" >"$T/why" 2>&1; then
	ok "export of a window from a URL: byte-identical"
else
	bad "export of a window from a URL"
fi

# requests and bytes of info, from nginx's log
: >"$NGINX_LOG"
"$B" info "$URL/bags/large_lz4.bag" >/dev/null 2>"$T/why"
sleep 0.2   # nginx writes the log line after the response
n=$(grep -c 'large_lz4' "$NGINX_LOG")
bytes=$(awk '/large_lz4/ {s += $4} END {print s + 0}' "$NGINX_LOG")
size=$(wc -c <"$f")
if [ "$n" -ge 1 ] && [ "$n" -le 4 ]; then ok "info: $n requests, $bytes of $size bytes"; else cat "$NGINX_LOG" >"$T/why"; bad "info: $n requests (at most 4)"; fi

# one clear line and exit 1, nothing on stdout
clear_line() {
	name=$1 want=$2 url=$3
	"$B" info "$url" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "$want" "$T/err" && grep -q "^bagscope: $url" "$T/err"; then
		ok "$name: $(cat "$T/err")"
	else
		{ echo "exit $rc"; cat "$T/out" "$T/err"; } >"$T/why"; bad "$name"
	fi
}
: >"$NGINX_LOG"
clear_line "404" "HTTP 404" "$URL/bags/missing.bag"
clear_line "403" "HTTP 403" "$URL/denied/basic_none.bag"
clear_line "401" "HTTP 401" "$URL/closed/basic_none.bag"
clear_line "no Range support" "ignores Range" "$URL/norange/basic_none.bag"
sleep 0.2
got=$(awk '/norange/ {s += $4} END {print s + 0}' "$NGINX_LOG")
if [ "$got" -lt "$(wc -c <"$T/www/norange/basic_none.bag")" ] || [ "$(wc -c <"$T/www/norange/basic_none.bag")" -lt 65536 ]; then
	ok "no Range support: not downloaded whole ($got bytes sent)"
else
	echo "nginx sent $got bytes" >"$T/why"; bad "no Range support: downloaded whole"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
