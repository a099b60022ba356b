#!/bin/sh
# MCAP figures (issue 20), on:
#   - the 4M-message bench bag (bench/mkbag) exported by bagscope to MCAP
#     with lz4 and with zstd chunks (ros1 profile),
#   - a 4M-message ROS 2 MCAP (Imu, TF, JointState, Odometry, LaserScan;
#     zstd) written by bench/mkros2.
# Measures, each the worst of RUNS (default 3): wall and user CPU seconds
# (each its worst run) and peak RSS from /usr/bin/time (a loaded machine:
# compare the CPU seconds too):
#   info                       target <= 0.05 s
#   first browser screen       target <= 0.1 s (tmux, BAGSCOPE_TIMING)
#   check (decodes every message), ros1 profile, against the C++ rosbag
#     read-all of the same bag (cpp_rosbag read, lz4)      target <= 0.3 x
#   the same file read message by message by @mcap/core in node, each
#     message decoded by @foxglove/rosmsg-serialization from its schema, as
#     check decodes each (lz4; its zstd needs a decompressor npm does not
#     give without native code)                            target >= 10 x faster
#   check of the ROS 2 file against the ros1-profile zstd file  target <= 1.5 x
#   peak memory of check: bounded by the cache, not the file
#   bench/mcap.sh [DIR]     (run from the build tree; DIR keeps the inputs)
set -e
dir=${1:-${TMPDIR:-/tmp}/bagscope-mcap-bench}
runs=${RUNS:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(pwd)/src/bagscope
if [ -x "$(pwd)/src/.libs/bagscope" ]; then
	bin=$(pwd)/src/.libs/bagscope
	LD_LIBRARY_PATH=$(pwd)/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
mkdir -p "$dir"
make -s bench/mkbag bench/mkros2 >/dev/null
[ -f "$dir/bench-lz4.bag" ] || bench/mkbag -d "$src/bench/defs" -c lz4 "$dir/bench-lz4.bag"
for c in lz4 zstd; do
	[ -f "$dir/bench-$c.mcap" ] || "$bin" export --format mcap --compression $c -o "$dir/bench-$c.mcap" "$dir/bench-lz4.bag"
done
[ -f "$dir/ros2-zstd.mcap" ] || bench/mkros2 -c zstd "$dir/ros2-zstd.mcap"
. "$(dirname "$0")/yardstick.sh"
nodedir=$dir/node
if command -v node >/dev/null && [ ! -f "$nodedir/node_modules/@mcap/core/package.json" ]; then
	npm install --prefix "$nodedir" --no-audit --no-fund --no-save --loglevel=error @mcap/core@2.2.2 lz4js@0.2.0 \
		@foxglove/rosmsg@5.0.5 @foxglove/rosmsg-serialization@2.0.4 \
		>/dev/null 2>&1 || true
fi
cat > "$dir/readall.cjs" <<'EOF'
// every message of an MCAP file through @mcap/core's indexed reader (lz4 chunks
// by lz4js), decoded by @foxglove/rosmsg-serialization from its channel's schema
const { McapIndexedReader } = require("@mcap/core");
const { parse } = require("@foxglove/rosmsg");
const { MessageReader } = require("@foxglove/rosmsg-serialization");
const lz4 = require("lz4js");
const fs = require("fs");
(async () => {
  const fd = fs.openSync(process.argv[2], "r");
  const size = fs.fstatSync(fd).size;
  const readable = { size: async () => BigInt(size), read: async (o, n) => {
    const b = Buffer.alloc(Number(n)); fs.readSync(fd, b, 0, Number(n), Number(o)); return b; } };
  const r = await McapIndexedReader.Initialize({ readable,
    decompressHandlers: { lz4: (d, n) => lz4.decompress(d, Number(n)) } });
  const readers = new Map();
  for (const [id, ch] of r.channelsById)
    readers.set(id, new MessageReader(parse(new TextDecoder().decode(r.schemasById.get(ch.schemaId).data))));
  let n = 0, bytes = 0, fields = 0;
  for await (const m of r.readMessages()) {
    const msg = readers.get(m.channelId).readMessage(m.data);
    n++;
    bytes += m.data.byteLength;
    fields += Object.keys(msg).length;
  }
  console.log(n, bytes, fields);
})();
EOF

pick=worst
. "$(dirname "$0")/measure.sh"

echo "== files"
for f in bench-lz4.mcap bench-zstd.mcap ros2-zstd.mcap; do
	echo "  $f: $(du -hL "$dir/$f" | cut -f1), $("$bin" cat --count "$dir/$f") messages"
done
echo "== info (target <= 0.05 s)"
for f in bench-lz4.mcap bench-zstd.mcap ros2-zstd.mcap; do measure "info-$f" "$bin" info "$dir/$f"; done
echo "== first browser screen (target <= 0.1 s)"
for f in bench-lz4.mcap bench-zstd.mcap ros2-zstd.mcap; do
	s=""
	i=0
	while [ $i -lt "$runs" ]; do s="$s $(first_screen "$dir/$f")"; i=$((i + 1)); done
	echo "  $f: first screen$s ms (worst $(echo $s | tr ' ' '\n' | sort -n | tail -1))"
done
echo "== decode every message (check)"
measure check-ros1-lz4.mcap "$bin" check "$dir/bench-lz4.mcap"
ours_lz4=$last
measure check-ros1-zstd.mcap "$bin" check "$dir/bench-zstd.mcap"
ours_zstd=$last
measure check-ros2-zstd.mcap "$bin" check "$dir/ros2-zstd.mcap"
ours_ros2=$last
if [ -n "$cpp" ]; then
	measure cpp_rosbag-read-lz4.bag "$cpp" read "$dir/bench-lz4.bag"
	echo "$ours_lz4 $last" | awk '{ printf "  ros1 lz4 check / C++ read-all: %.2f wall, %.2f user (target <= 0.3)\n", $1 / $4, $2 / $5 }'
fi
if [ -f "$nodedir/node_modules/@mcap/core/package.json" ]; then
	NODE_PATH=$nodedir/node_modules measure node-mcap-core-read-lz4.mcap node "$dir/readall.cjs" "$dir/bench-lz4.mcap"
	echo "$ours_lz4 $last" | awk '{ printf "  @mcap/core read-all / ros1 lz4 check: %.1f x wall, %.1f x user (target >= 10)\n", $4 / $1, $5 / $2 }'
fi
echo "$ours_ros2 $ours_zstd" | awk '{ printf "  ros2 check / ros1 zstd check: %.2f wall, %.2f user (target <= 1.5)\n", $1 / $4, $2 / $5 }'
echo "== peak memory of check: $(echo "$ours_lz4" | awk '{ print int($3 / 1024) }') MB (lz4), $(echo "$ours_zstd" | awk '{ print int($3 / 1024) }') MB (zstd), $(echo "$ours_ros2" | awk '{ print int($3 / 1024) }') MB (ros2); files $(du -hL "$dir/bench-lz4.mcap" | cut -f1), $(du -hL "$dir/ros2-zstd.mcap" | cut -f1)"
