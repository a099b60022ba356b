#!/bin/sh
# make check entry: what `check` and `check --quick` count, against python3-rosbag
# and an independent walk of the file's records, over the fixture bags (sound
# and damaged): a full check's records are the top-level records after the
# bag header, its chunks rosbag's chunk infos, its messages rosbag's message
# count; --quick's chunk headers and index entries are the same chunks and
# messages (the same numbers as the full check), and each line says what it
# counted. A damaged bag's records are walked as check repairs them (a
# recovered chunk ends where its data does), so those are compared on sound bags.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
[ -x "$PY" ] && "$PY" "$(dirname "$0")/../tools/has-modules.py" rosbag 2>/dev/null || { echo "check-counts.sh: needs python3-rosbag"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ls "$D"/bags/*.bag "$D"/foreign/rosbag.js/example*.bag "$D"/made/*.bag "$D"/broken/crashed_none.bag \
   "$D"/broken/truncated_bz2.bag > "$tmp/bags"
# rosbag's view and a walk of the records, one python for all the bags
"$PY" - "$tmp/bags" > "$tmp/want" <<'PYEOF'
import sys, struct, rosbag
for path in open(sys.argv[1]).read().split('\n'):
    if not path:
        continue
    data = open(path, 'rb').read()
    pos = data.index(b'\n') + 1
    n = -1                        # the bag header is not counted
    while pos + 4 <= len(data):
        hl = struct.unpack_from('<I', data, pos)[0]
        if pos + 4 + hl + 4 > len(data):
            break
        dl = struct.unpack_from('<I', data, pos + 4 + hl)[0]
        if pos + 8 + hl + dl > len(data):
            break
        n += 1
        pos += 8 + hl + dl
    try:
        b = rosbag.Bag(path)
        chunks, msgs = len(b._chunks), b.get_message_count()
    except Exception:
        chunks, msgs = '-', '-'
    print(path, n, chunks, msgs)
PYEOF
while read -r f want; do
	full=$("$B" check "$f" 2>/dev/null | tail -n 1)
	quick=$("$B" check --quick "$f" 2>/dev/null | tail -n 1)
	set -- $want
	records=$1 chunks=$2 msgs=$3
	# (a damaged bag's records are walked as check repairs them: compared on sound bags)
	case "$full" in
	*": $records record"*" walked, "*|*[1-9]" problem"*) ;;
	*) echo "FAIL $f: full check's records, want $records: $full"; fail=1 ;;
	esac
	fchunks=$(echo "$full" | sed -n 's/.* \([0-9]*\) chunks\{0,1\} decompressed.*/\1/p')
	fmsgs=$(echo "$full" | sed -n 's/.* \([0-9]*\) messages\{0,1\} read and decoded.*/\1/p')
	qchunks=$(echo "$quick" | sed -n 's/.* \([0-9]*\) chunk headers\{0,1\},.*/\1/p')
	qmsgs=$(echo "$quick" | sed -n 's/.* \([0-9]*\) index entr[yies]*:.*/\1/p')
	echo "$quick" | grep -q "quick check (no chunk data read)" || { echo "FAIL $f: quick line unlabelled: $quick"; fail=1; }
	[ -n "$fchunks" ] && [ "$fchunks" = "$qchunks" ] && [ -n "$fmsgs" ] && [ "$fmsgs" = "$qmsgs" ] ||
		{ echo "FAIL $f: full and quick disagree: '$full' / '$quick'"; fail=1; }
	if [ "$chunks" != - ]; then
		[ "$fchunks" = "$chunks" ] && [ "$fmsgs" = "$msgs" ] ||
			{ echo "FAIL $f: rosbag has $chunks chunks, $msgs messages: $full"; fail=1; }
	fi
done < "$tmp/want"
[ "$(wc -l < "$tmp/want")" -ge 10 ] || { echo "FAIL: only $(wc -l < "$tmp/want") bags compared"; fail=1; }
# an older format: its records were walked by its reader, and the line says so
O=$(dirname "$0")/../data/oldbags
"$B" check "$O/gen_v12_indexed.bag" | tail -n 1 | grep -q "records walked at open (a bag of version 1.2), 1 chunk decompressed, 23 messages read" ||
	{ echo "FAIL 1.2: $("$B" check "$O/gen_v12_indexed.bag" | tail -n 1)"; fail=1; }
[ $fail -eq 0 ] && echo "check-counts.sh: ok"
exit $fail
