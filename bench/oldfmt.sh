#!/bin/sh
# The open cost of a 1.2 bag: a generated indexed 1.2 file of SIZE_MB MiB
# (bench/gen-v12.py: 4 KiB messages, 4 topics), opened from its index, then
# the same file with index_pos set to 0 (a crashed recording: a scan of
# record headers). `bagscope defs` is bag_open() and the connection headers;
# `cat --count` reads every message. Warm page cache: the file was just
# written. Prints wall seconds and peak RSS per run.
#   bench/oldfmt.sh [SIZE_MB] [DIR]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${BAGSCOPE:-$top/src/bagscope}
size=${1:-1024}
dir=${2:-${TMPDIR:-/tmp}}
bag=$dir/bagscope-bench-v12-$$.bag
trap 'rm -f "$bag"' EXIT
python3 "$top/bench/gen-v12.py" "$bag" "$size"
measure() {
	/usr/bin/time -f "%e s, %M KiB peak" -o "$bag.time" "$@" > /dev/null 2>&1 || true
	printf '%-46s %s\n' "$label" "$(cat "$bag.time")"
	rm -f "$bag.time"
}
label="open, from the index (defs)";      measure "$bin" defs "$bag"
label="open, from the index (info)";      measure "$bin" info "$bag"
label="every message (cat --count)";      measure "$bin" cat --count "$bag"
# index_pos (after "#ROSRECORD V1.2\n", header_len, the field's length, "index_pos=") to 0
printf '\0\0\0\0\0\0\0\0' | dd of="$bag" bs=1 seek=34 conv=notrunc status=none
label="open, scan of record headers (defs)"; measure "$bin" defs "$bag"
label="every message, scanned (cat --count)"; measure "$bin" cat --count "$bag"
