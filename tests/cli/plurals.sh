#!/bin/sh
# make check entry: no "1 messages", "1 chunks", "1 bytes" ... in what the
# CLI prints (stdout and stderr) over every fixture: the fixture bags, the
# made and broken ones, the foreign ones, the old formats and the MCAP files,
# for info, info --freq, check, check --quick, stats, tf, log, diag and cat's
# messages. Counts come through one rule, BAG_S() (bagscope/common.h).
# A count of 1 before a plural word fails, so do singular counts above 1.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data
fail=0 ones=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

i=0
for f in "$D"/fixtures/bags/*.bag "$D"/fixtures/made/*.bag "$D"/fixtures/broken/*.bag \
         "$D"/fixtures/foreign/rosbag.js/*.bag "$D"/oldbags/*.bag "$D"/mcap/*.mcap; do
	for sub in "info" "info --freq" "check" "check --quick" "stats" "tf" "log" "diag" "cat --count"; do
		i=$((i + 1))
		printf '%s\t%s\t%s\n' "$i" "$sub" "$f"
	done
done > "$tmp/list"
runs=$(wc -l < "$tmp/list")
# each run's stdout and stderr in its own file, several at once
# shellcheck disable=SC2016
tr '\n' '\0' < "$tmp/list" | xargs -0 -n 1 -P 4 sh -c 'IFS="	"; set -- $1; IFS=" "; "$0" $2 "$3" > "'"$tmp"'/out.$1" 2>&1 < /dev/null' "$B"
# every run's output read by one Python process (grep and wc per run cost 6 processes each)
python3 - "$tmp" <<'PYEOF' || fail=1
import re, sys
tmp = sys.argv[1]
one = re.compile(rb'(^|[ ([])1 [a-z]+\b')                        # a 1 that counts (not 0.1, 1/1, 21), a word
plural = re.compile(rb'(^|[ ([])1 [a-z]+s\b')                    # ... a plural word after it
not_plural = re.compile(rb'1 (is|was|has|does|its|this|status|plus|class|less|process|bus)\b')
nouns = rb'(message|chunk|connection|record|byte|problem|topic)'
singular = re.compile(rb'(^|[ ([])([02-9]|[0-9]{2,}) ' + nouns + rb'\b[^_/]')   # "2 message," ...
compound = re.compile(rb'[0-9] ' + nouns + rb' [a-z]+s\b')        # ... not a compound: "2 chunk headers"
fail, ones, runs = 0, 0, 0
for entry in open(tmp + '/list', 'rb').read().splitlines():
    n, sub, f = entry.decode().split('\t')
    runs += 1
    try:
        lines = open('%s/out.%s' % (tmp, n), 'rb').read().split(b'\n')
    except OSError:
        print('FAIL %s %s: not run' % (sub, f)); fail = 1; continue
    counted = [l for l in lines if one.search(l)]
    ones += len(counted)
    bad = [l for l in counted if plural.search(l) and not not_plural.search(l)]
    if bad:
        print('FAIL %s %s:' % (sub, f)); print(b'\n'.join(bad).decode('utf-8', 'replace')); fail = 1
    bad = [l for l in lines if singular.search(l) and not compound.search(l)]
    if bad:
        print('FAIL %s %s (a singular after a count):' % (sub, f)); print(b'\n'.join(bad).decode('utf-8', 'replace')); fail = 1
# the scan saw counts of 1: it cannot pass by seeing none
if ones <= 10:
    print('FAIL: only %d lines with a count of 1 in %d runs' % (ones, runs)); fail = 1
open(tmp + '/ones', 'w').write(str(ones))
sys.exit(fail)
PYEOF
ones=$(cat "$tmp/ones" 2>/dev/null || echo 0)
[ $fail -eq 0 ] && echo "plurals.sh: ok ($runs runs, $ones lines with a count of 1)"
exit $fail
