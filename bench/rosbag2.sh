#!/bin/sh
# rosbag2 sqlite3 storage figures (issue 20), on .db3 files of 1M messages
# that Python's own sqlite3 module writes (tests/tools/db3-write.py --many;
# rosbag2's Iron schema, 4 topics, definitions in message_definitions):
#   small.db3   std_msgs/msg/Int32 (8-byte CDR messages)
#   blob.db3    int32 + uint8[1024] (1 KiB messages: the table is 1 GiB)
# each opened two ways: the lone .db3 (no metadata.yaml: the open reads no
# row, only index seeks, and leaves the topics' counts estimated; info, as
# every command, counts them in one pass over the table's topic_id column;
# the browser shows them pending and counts them in the background) and
# dsmall/, dblob/ (the same file beside the metadata.yaml
# tests/tools/db3-write.py --metadata writes as rosbag2 does: the counts are
# its, no pass anywhere). Before the lone file's open made that pass itself,
# the browser's first screen waiting for it.
# Measures, each the median of RUNS (default 3) with user CPU and peak RSS
# from /usr/bin/time (a loaded machine: compare the CPU seconds):
#   info                  (open)
#   first browser screen  (tmux, BAGSCOPE_TIMING)
#   check                 (every span read, every message decoded)
#   bench/rosbag2.sh [DIR]     (run from the build tree; DIR keeps the inputs)
set -e
dir=${1:-${TMPDIR:-/tmp}/bagscope-rosbag2-bench}
runs=${RUNS:-3}
n=${MESSAGES:-1000000}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(pwd)/src/bagscope
if [ -x "$(pwd)/src/.libs/bagscope" ]; then
	bin=$(pwd)/src/.libs/bagscope
	LD_LIBRARY_PATH=$(pwd)/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
mkdir -p "$dir"
[ -f "$dir/small.db3" ] || python3 "$src/tests/tools/db3-write.py" --many "$dir/small.db3" "$n"
[ -f "$dir/blob.db3" ] || python3 "$src/tests/tools/db3-write.py" --many "$dir/blob.db3" "$n" --bytes 1024
for f in small blob; do
	mkdir -p "$dir/d$f"
	ln -sf "$dir/$f.db3" "$dir/d$f/$f.db3"
	[ -f "$dir/d$f/metadata.yaml" ] || python3 "$src/tests/tools/db3-write.py" --metadata "$dir/d$f" "$dir/d$f/$f.db3"
done
. "$(dirname "$0")/measure.sh"

echo "== files (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
for f in small.db3 blob.db3; do
	echo "  $f: $(du -h "$dir/$f" | cut -f1), $("$bin" cat --count "$dir/$f") messages"
done
echo "== info (target <= 0.05 s)"
for f in small.db3 dsmall blob.db3 dblob; do measure "info-$f" "$bin" info "$dir/$f"; done
echo "== first browser screen (target <= 0.1 s)"
for f in small.db3 dsmall blob.db3 dblob; do
	s=""
	for i in 1 2 3; do s="$s $(first_screen "$dir/$f")"; done
	echo "  $f: first screen$s ms"
done
echo "== decode every message (check)"
for f in small.db3 dsmall blob.db3 dblob; do measure "check-$f" "$bin" check "$dir/$f"; done
