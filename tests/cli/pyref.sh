#!/bin/sh
# tests/tools/pyref.py runs a script as /usr/bin/python3 does: the same
# stdout, stderr and exit status for the same arguments, directory,
# environment (TZ too), umask and stdin, whether the script is a file, -
# (stdin) or -c; and a script ends when its client is killed. The
# reference checks of the other tests depend on it: a status it lost would
# pass a failed check. Skipped (77) without python3-rosbag (pyref.py then
# runs python3 itself).
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
R=$SRCDIR/tests/tools/pyref.py
PY=/usr/bin/python3
"$PY" "$SRCDIR/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "python3-rosbag not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 n=0
cat >"$tmp/s.py" <<'PYEOF'
import atexit, os, sys
atexit.register(lambda: print('atexit', flush=True))
print(sys.argv[1:], os.path.basename(os.getcwd()), os.environ.get('PYREF_T'), sys.stdin.read().strip())
print('to stderr', file=sys.stderr)
import rosbag
print(__name__, sys.path[0] == os.path.dirname(os.path.abspath(__file__)), rosbag.Bag.__name__)
sys.exit(int(sys.argv[1]))
PYEOF
# same NAME ARGS...: pyref.py ARGS and python3 ARGS print and end alike, from $tmp/d
same() {
	name=$1; shift
	n=$((n + 1))
	(cd "$tmp/d" && echo "in $n" | PYREF_T="é $n" "$PY" "$@" >"$tmp/want.out" 2>"$tmp/want.err"; echo "exit $?" >>"$tmp/want.out")
	(cd "$tmp/d" && echo "in $n" | PYREF_T="é $n" "$R" "$@" >"$tmp/got.out" 2>"$tmp/got.err"; echo "exit $?" >>"$tmp/got.out")
	if cmp -s "$tmp/want.out" "$tmp/got.out" && cmp -s "$tmp/want.err" "$tmp/got.err"; then
		echo "ok    $name ($(tail -n 1 "$tmp/got.out"))"
	else
		echo "FAIL  $name"; diff "$tmp/want.out" "$tmp/got.out"; diff "$tmp/want.err" "$tmp/got.err"; failed=$((failed + 1))
	fi
}
mkdir "$tmp/d"
same "a script, exit 0" "$tmp/s.py" 0 "an argument"
same "a script, exit 3" "$tmp/s.py" 3
same "-c, exit 5" -c 'import sys; print(sys.argv, sys.stdin.read()); sys.exit(5)' x y
same "-c, an exception (exit 1)" -c 'import sys; print("partial"); sys.stdout.flush(); raise SystemExit("a message")'
same "-c, sys.exit(None)" -c 'import sys; sys.exit()'
same "- (a script on stdin that does not compile)" - a b
same "a script whose exception is raised in a function" -c 'def f():
    raise ValueError("x")
f()'
printf 'import sys\nprint(sys.argv)\nsys.exit(7)\n' >"$tmp/stdin.py"
n=$((n + 1))
"$R" - q <"$tmp/stdin.py" >"$tmp/got.out" 2>&1
rc=$?
if [ $rc = 7 ] && [ "$(cat "$tmp/got.out")" = "['-', 'q']" ]; then echo "ok    a script on stdin runs with its arguments (exit 7)"
else echo "FAIL  a script on stdin: exit $rc: $(cat "$tmp/got.out")"; failed=$((failed + 1)); fi
# TZ as the client has it (the server's C library applies it), and the umask
n=$((n + 1))
code='import os, time; print(time.strftime("%H %Z", time.localtime(0)), oct(os.umask(0)))'
want=$(umask 027; TZ=Asia/Tokyo "$PY" -c "$code") got=$(umask 027; TZ=Asia/Tokyo "$R" -c "$code")
if [ "$got" = "$want" ] && [ "$got" = "09 JST 0o27" ]; then echo "ok    TZ and umask ($got)"
else echo "FAIL  TZ and umask: '$got', python3 '$want'"; failed=$((failed + 1)); fi
# a client killed (a timeout) takes its script with it
n=$((n + 1))
timeout 0.5 "$R" -c "import time; time.sleep(2); open('$tmp/late', 'w').write('x')"
rc=$?
sleep 2
if [ $rc = 124 ] && [ ! -e "$tmp/late" ]; then echo "ok    a script whose client is killed ends with it"
else echo "FAIL  killed client: exit $rc, the script ran on: $(ls "$tmp/late" 2>&1)"; failed=$((failed + 1)); fi
echo "$n checks, $failed failed"
[ $failed -eq 0 ]
