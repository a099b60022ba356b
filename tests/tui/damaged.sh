#!/bin/sh
# Screen test: damaged data is said, never blank. A chunk of unknown
# compression (which info and cat read around): the bag opens, its rows say
# the problem first with the byte offset and the file, the detail the whole
# error once (wrapped), the status line how many messages cannot be read. Among several
# files, one that is not a bag is skipped and said; the log (L) holds the
# recovery report of an unindexed bag as bagset writes it on stderr.
. "$(dirname "$0")/lib.sh"
D=$top/tests/data/fixtures
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
python3 -c 'import sys
b = open(sys.argv[1], "rb").read()
assert b.count(b"compression=none") == 1
open(sys.argv[2], "wb").write(b.replace(b"compression=none", b"compression=zstd"))' \
	"$D/bags/basic_none.bag" "$tmp/zstd.bag" || exit 1
check "info reads the damaged bag" sh -c "'$bin' info '$tmp/zstd.bag' >/dev/null 2>&1"
start 100 30 "$tmp/zstd.bag"
wait_for "it opens in the browser too" "row 1/23"
wait_for "its rows say what is wrong, problem first" "^ +1 cannot read the index here: unknown chunk compression 'zstd' \\(at byte 4117 of zstd\\.bag\\)"
wait_for "the detail says the error once, problem first" "^ +cannot read this message: unknown chunk compression 'zstd' \\(at byte 4117"
check "and only once: not again as the library said it" sh -c "! $T capture-pane -p -t main | grep -q 'at byte 4117: unknown'"
wait_for "the status line counts what cannot be read" "1 unreadable chunk, 23 messages lost \\(L: log\\)"
keys q
wait_for "quits" "BROWSER-EXITED 0"
start 80 24 "$tmp/zstd.bag"
wait_for "at 80 columns the sentence is cut at a space" "^   cannot read this message: unknown chunk compression 'zstd' \\(at byte 4117 of$"
wait_for "and goes on on the next line" "^   zstd\\.bag\\)\\. L shows the log; bagscope check names every damaged chunk\\.$"
keys q
wait_for "quits at 80 columns" "BROWSER-EXITED 0"

start 100 30 "$D/broken/not_a_bag.bag" "$D/broken/crashed_none.bag"
wait_for "one file that is not a bag is skipped, the other opens" "row 1/45"
wait_for "and the status line says which and why" "skipped not_a_bag\\.bag \\(L: the log\\): no '#ROSBAG V' version line"
"$bin" info "$D/broken/crashed_none.bag" 2>"$tmp/err" >/dev/null
want=$(sed -n 's/^bagscope: .*crashed_none\.bag: \(read without its index: .*\)$/\1/p' "$tmp/err")
keys L
wait_for "the log holds the recovery report, as on stderr" "$want"
wait_for "and the file skipped" "skipped: .*not_a_bag\\.bag"
keys L q
wait_for "quits again" "BROWSER-EXITED 0"
finish
