#!/bin/sh
# make check entry: the CLI on damaged bags made from the fixtures - one fault
# is one line, and info prints what the index knows around a bad chunk.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0

# patch IN OUT OLD NEW: OUT is IN with the one occurrence of OLD replaced
patch() {
	python3 -c 'import sys
b = open(sys.argv[1], "rb").read()
old, new = (s.encode("latin1").decode("unicode_escape").encode("latin1") for s in sys.argv[3:5])
assert b.count(old) == 1 and len(old) == len(new), "pattern"
open(sys.argv[2], "wb").write(b.replace(old, new))' "$@" || { echo "FAIL cannot make $2"; exit 1; }
}

# one chunk of unknown compression: rosbag info prints the bag; so does info, with a warning
patch "$D"/bags/basic_none.bag "$T"/zstd.bag 'compression=none' 'compression=zstd'
out=$("$B" info "$T"/zstd.bag 2>"$T"/err); rc=$?
[ $rc -eq 0 ] || { echo "FAIL info zstd: exit $rc"; fail=1; }
echo "$out" | grep -q '^messages: *23$' || { echo "FAIL info zstd: $out"; fail=1; }
[ "$(grep -c "warning: .*unknown chunk compression 'zstd'" "$T"/err)" -eq 1 ] ||
	{ echo "FAIL info zstd stderr: $(cat "$T"/err)"; fail=1; }

# a chunk record without op: cat says so once, not once per message (23)
patch "$D"/bags/basic_none.bag "$T"/noop.bag 'op=\x05' 'xp=\x05'
"$B" cat --format json "$T"/noop.bag >/dev/null 2>"$T"/err; rc=$?
[ $rc -eq 1 ] || { echo "FAIL cat noop: exit $rc"; fail=1; }
[ "$(wc -l < "$T"/err)" -eq 1 ] || { echo "FAIL cat noop, one line wanted: $(cat "$T"/err)"; fail=1; }

# a chunk info count one short: every message listed, one warning
python3 - "$D"/bags/basic_none.bag "$T"/count.bag <<'PY' || { echo "FAIL cannot make count.bag"; exit 1; }
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = 13
while i < len(b):                           # walk the records to the chunk info
    h = struct.unpack_from('<I', b, i)[0]
    d = struct.unpack_from('<I', b, i + 4 + h)[0]
    if b'op=\x06' in b[i + 4:i + 4 + h]:
        c = struct.unpack_from('<I', b, i + 8 + h + 4)[0]
        struct.pack_into('<I', b, i + 8 + h + 4, c - 1)
        break
    i += 8 + h + d
open(sys.argv[2], 'wb').write(b)
PY
n=$("$B" cat --format json "$T"/count.bag 2>"$T"/err | wc -l); rc=$?
[ "$n" -eq 23 ] || { echo "FAIL count: $n messages, 23 wanted"; fail=1; }
[ "$(wc -l < "$T"/err)" -eq 1 ] && grep -q "indexed from its data" "$T"/err ||
	{ echo "FAIL count stderr: $(cat "$T"/err)"; fail=1; }

[ $fail -eq 0 ] && echo "damaged.sh: ok"
exit $fail
