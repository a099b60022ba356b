#!/bin/sh
# s3:// bags from an S3 server that verifies SigV4 signatures: npm's
# @20minutes/s3rver (tests/tools/s3server.cjs), installed with npm at the
# first run (tests/tools/node-setup.sh, into $BAGSCOPE_MADE/node-s3), on 127.0.0.1 through
# AWS_ENDPOINT_URL (path-style). Checks: a key with spaces and UTF-8, a
# session token, AWS_PROFILE with ~/.aws/credentials and config, anonymous
# --no-sign-request, s3://bucket/prefix/*.bag expanded by ListObjectsV2, a
# wrong secret (403, one line, exit 1), a missing object (404); outputs
# identical to the local files'; the secret and the token never printed.
# Skipped (77) without node and npm or without network for the first install.
# Environment: BAGSCOPE, SRCDIR, BUILDDIR.
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-.}
NODE_SET=s3
. "$SRCDIR/tests/tools/node-setup.sh"
T=$(mktemp -d) || exit 1
SRV= PROXY=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; [ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null; rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/why" 2>/dev/null | head -8; }
F=$SRCDIR/tests/data/fixtures/bags
KEY1="session 1/run é ü.bag"
# a bag of 200 chunks, 30 KB apart, written by Debian's python3-rosbag (when installed)
MANY=
if /usr/bin/python3 "$SRCDIR/tests/tools/has-modules.py" rosbag 2>/dev/null; then
	MANY=$T/many.bag
	"$SRCDIR/tests/tools/pyref.py" - "$MANY" <<'PY' || exit 1
import sys, rosbag, genpy
from std_msgs.msg import String
with rosbag.Bag(sys.argv[1], 'w', chunk_threshold=30000) as b:
    for i in range(600):
        b.write('/s', String('%05d' % i + 'x' * 10000), genpy.Time(1500000000 + i // 10, (i % 10) * 100000000))
PY
fi
node "$SRCDIR/tests/tools/s3server.cjs" "$T/data" "$T/port" "$KEY1=$F/basic_none.bag" \
	"session 1/tf.bag=$F/tf_lz4.bag" "session 1/notes.txt=$F/basic_none.bag" "other/nested.bag=$F/nested_bz2.bag" \
	${MANY:+"other/many.bag=$MANY"} 2>"$T/srv.err" &
SRV=$!
for _ in $(seq 200); do [ -f "$T/port" ] && break; kill -0 "$SRV" 2>/dev/null || break; sleep 0.05; done
[ -f "$T/port" ] || { cat "$T/srv.err"; echo "FAIL  s3rver did not start"; exit 1; }
SECRET=S3RVER
TOKEN=token-$$-never-printed
HOME=$T/home
export HOME
unset AWS_PROFILE AWS_REGION AWS_DEFAULT_REGION AWS_SESSION_TOKEN AWS_SHARED_CREDENTIALS_FILE AWS_CONFIG_FILE
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$T/port")
export AWS_ENDPOINT_URL
creds() { AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=$1 "$@"; }

# same NAME LOCAL URL ENV... -- ARGS: output identical to the local file's (path replaced)
same() {
	name=$1 lpath=$2 url=$3
	shift 3
	"$B" "$@" "$lpath" >"$T/l.out" 2>&1
	env $ENVS "$B" "$@" "$url" >"$T/r.out" 2>&1; rc=$?
	cat "$T/r.out" >>"$T/all.out"
	sed -i "s|$lpath|$url|g" "$T/l.out"
	if [ $rc -eq 0 ] && cmp -s "$T/l.out" "$T/r.out"; then ok "$name"; else { echo "exit $rc"; diff "$T/l.out" "$T/r.out"; } >"$T/why"; bad "$name"; fi
}
ENVS="AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=$SECRET"
same "key with spaces and UTF-8: info" "$F/basic_none.bag" "s3://bk/$KEY1" info
same "key with spaces and UTF-8: cat" "$F/basic_none.bag" "s3://bk/$KEY1" cat --format json
ENVS="AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=$SECRET AWS_SESSION_TOKEN=$TOKEN"
same "session token" "$F/tf_lz4.bag" "s3://bk/session 1/tf.bag" info --json
ENVS=""
same "--no-sign-request" "$F/nested_bz2.bag" "s3://bk/other/nested.bag" --no-sign-request cat --format json
mkdir -p "$HOME/.aws"
printf '[default]\naws_access_key_id = nobody\naws_secret_access_key = wrong\n[rover]\naws_access_key_id = S3RVER\naws_secret_access_key = %s\n' "$SECRET" >"$HOME/.aws/credentials"
printf '[profile rover]\nregion = eu-west-3\n' >"$HOME/.aws/config"
ENVS="AWS_PROFILE=rover"
same "AWS_PROFILE with ~/.aws/credentials and config" "$F/tf_lz4.bag" "s3://bk/session 1/tf.bag" stats

# a glob: ListObjectsV2 (a prefix with a space, parameters signed), sorted, the .txt left out
ENVS="AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=$SECRET"
"$B" info "$F/basic_none.bag" "$F/tf_lz4.bag" >"$T/l.out" 2>&1
env $ENVS "$B" info "s3://bk/session 1/*.bag" >"$T/r.out" 2>&1; rc=$?
sed -i "s|$F/basic_none.bag|s3://bk/$KEY1|; s|$F/tf_lz4.bag|s3://bk/session 1/tf.bag|" "$T/l.out"
if [ $rc -eq 0 ] && cmp -s "$T/l.out" "$T/r.out"; then ok "s3://bk/session 1/*.bag: both bags, in order"; else { echo "exit $rc"; diff "$T/l.out" "$T/r.out"; } >"$T/why"; bad "glob"; fi

# one clear line, exit 1, nothing on stdout
fails() {
	name=$1 want=$2 url=$3
	env $ENVS "$B" info "$url" >"$T/out" 2>"$T/err"; rc=$?
	cat "$T/out" "$T/err" >>"$T/all.out"
	if [ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "$want" "$T/err"; then
		ok "$name: $(cat "$T/err")"
	else
		{ echo "exit $rc"; cat "$T/out" "$T/err"; } >"$T/why"; bad "$name"
	fi
}
ENVS="AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=not-the-$SECRET-$$ AWS_SESSION_TOKEN=$TOKEN"
fails "wrong secret" "HTTP 403" "s3://bk/$KEY1"
fails "wrong secret, listing" "HTTP 403" "s3://bk/session 1/*.bag"
ENVS="AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=$SECRET"
fails "missing object" "HTTP 404" "s3://bk/session 1/missing.bag"
fails "no match" "no object matches" "s3://bk/session 1/*.mcap"
ENVS="AWS_PROFILE=nosuch"
fails "no credentials" "no AWS credentials" "s3://bk/$KEY1"

# S3 takes one range per request: info's 200 chunk headers go out as concurrent
# requests, through tests/tools/faultproxy.py at 100 ms each (signatures passed on)
if [ -n "$MANY" ]; then
	python3 "$SRCDIR/tests/tools/faultproxy.py" "$AWS_ENDPOINT_URL" "$T/pport" --delay 100 --pass-headers 2>"$T/proxy.log" &
	PROXY=$!
	for _ in $(seq 200); do [ -f "$T/pport" ] && break; sleep 0.05; done
	"$B" info "$MANY" >"$T/l.out" 2>&1
	t0=$(date +%s%N)
	AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$T/pport") AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=$SECRET \
		"$B" info s3://bk/other/many.bag >"$T/r.out" 2>&1; rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	sed -i "s|$MANY|s3://bk/other/many.bag|" "$T/l.out"
	n=$(grep -c inflight "$T/proxy.log")
	most=$(sed -n 's/.*inflight=//p' "$T/proxy.log" | sort -n | tail -1)
	if [ $rc -eq 0 ] && cmp -s "$T/l.out" "$T/r.out" && [ "${most:-0}" -ge 8 ] && [ "$ms" -lt 10000 ]; then
		ok "info on 200 chunks from S3: $n requests, up to $most at once, $ms ms (one by one: 20 s)"
	else
		{ echo "exit $rc, $n requests, at most ${most:-0} at once, $ms ms"; diff "$T/l.out" "$T/r.out"; tail -3 "$T/proxy.log"; } >"$T/why"
		bad "info on 200 chunks from S3: concurrent requests"
	fi
else
	echo "skip  concurrent requests: python3-rosbag not installed"
fi

if grep -q -e "not-the-$SECRET-$$" -e "$TOKEN" "$T/all.out"; then
	grep -e "not-the-" -e "$TOKEN" "$T/all.out" >"$T/why"; bad "a secret or token was printed"
else
	ok "no secret or token in any output"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
