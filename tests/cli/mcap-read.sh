#!/bin/sh
# Reading MCAP files that npm's @mcap/core wrote (tests/tools/mcap-write.cjs,
# messages serialized by @foxglove/rosmsg-serialization and
# @foxglove/rosmsg2-serialization): every chunk compression, with and without
# a summary, message indexes, chunk indexes or chunks, ros1 and ros2 profiles,
# big-endian CDR. `bagscope cat --format json` must print exactly the values
# the writers were given. Then exports: MCAP -> bag -> MCAP byte for byte,
# ROS 2 -> MCAP (ros2 profile) read back by @mcap/core and the @foxglove
# deserializer, ROS 2 -> bag refused with one line.
# Skipped (77) without node and npm or without network for the first install.
# Environment: BAGSCOPE, SRCDIR, BUILDDIR.
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-.}
W=$SRCDIR/tests/tools/mcap-write.cjs
command -v zstd >/dev/null 2>&1 || { echo "zstd (Debian's zstd program) not installed: skipped"; exit 77; }
. "$SRCDIR/tests/tools/node-setup.sh"
. "$SRCDIR/tests/tools/compare-batch.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/err" | head -8; }

# case NAME WRITER-ARGS...: a file for @mcap/core to write (all in one node
# process), for bagscope to cat, and for one more node process to compare
n=0
: >"$T/cases"
: >"$T/compare"
: >"$T/names"
case_() {
	n=$((n + 1))
	name=$1
	shift
	echo "$T/want$n.jsonl $T/in$n.mcap $*" >>"$T/cases"
	printf '%s\t%s\n' "$n" "$name" >>"$T/names"
}
for prof in ros1 ros2; do
	for comp in none lz4 zstd; do
		case_ "$prof $comp" --profile $prof --compression $comp --messages 300
		case_ "$prof $comp no summary" --profile $prof --compression $comp --no-summary
		case_ "$prof $comp no message index" --profile $prof --compression $comp --no-message-index
		case_ "$prof $comp no summary, no message index" --profile $prof --compression $comp --no-summary --no-message-index
		case_ "$prof $comp no chunk index" --profile $prof --compression $comp --no-chunk-index
	done
	case_ "$prof no chunks" --profile $prof --no-chunks --messages 300
	case_ "$prof no chunks, no summary" --profile $prof --no-chunks --no-summary
done
# chunks and runs of loose messages over 256 KiB: read mapped from the page cache, not copied
big=""
for comp in none lz4 zstd; do
	case_ "ros1 $comp, 1 MB chunks" --profile ros1 --compression $comp --messages 8000 --chunk-size 1000000
	big="$big $n:$comp"
done
case_ "ros1 no chunks, 8000 messages" --profile ros1 --no-chunks --messages 8000
# in the same process, the files of the sections below: info's, a split rosbag2
# recording's two (MCAP storage) and the ROS 2 file exported to MCAP
mkdir -p "$T/rec"
{
	echo "$T/info.jsonl $T/info.mcap --profile ros2 --compression zstd"
	echo "$T/rec_0.jsonl $T/rec/rec_0.mcap --profile ros2 --compression zstd --messages 50"
	echo "$T/rec_1.jsonl $T/rec/rec_1.mcap --profile ros2 --compression zstd --messages 30 --start 1700000001000000000"
	echo "$T/ros2.jsonl $T/ros2.mcap --profile ros2 --compression lz4 --messages 200"
} >>"$T/cases"
if node "$W" --batch "$T/cases" 2>"$T/err"; then
	# big-endian CDR patches the writer for its whole process: one process each
	for be in "--compression lz4" "--no-chunks"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		node "$W" "$T/in$n.mcap" --profile ros2 --big-endian $be >"$T/want$n.jsonl" 2>>"$T/err"
		printf '%s\tros2 big-endian CDR %s\n' "$n" "$be" >>"$T/names"
	done
	i=0
	while [ $i -lt $n ]; do
		i=$((i + 1))
		"$B" cat --format json "$T/in$i.mcap" >"$T/got$i.jsonl" 2>"$T/cat$i.err" ||
			echo "cat exits $?: $(head -n 1 "$T/cat$i.err")" >>"$T/got$i.jsonl"
	done
	while IFS='	' read -r i name; do
		compare_add "$name" "$T/want$i.jsonl" "$T/got$i.jsonl"
	done <"$T/names"
	compare_run
else
	bad "@mcap/core could not write the files"
fi
for b in $big; do
	i=${b%%:*}
	if [ "$(stat -c %s "$T/in$i.mcap" 2>/dev/null || echo 0)" -gt 600000 ] && "$B" check "$T/in$i.mcap" >"$T/err" 2>&1; then
		ok "ros1 ${b#*:}, 1 MB chunks: check"
	else
		bad "ros1 ${b#*:}, 1 MB chunks: check (or the file is too small to map)"
	fi
done

# info: format, profile, library, attachments and metadata, from the summary
if "$B" info "$T/info.mcap" >"$T/info" 2>"$T/err" && grep -q "^profile: *ros2" "$T/info" &&
   grep -q "mcap-write.cjs" "$T/info" && grep -q "calib.yaml.*application/yaml" "$T/info" && grep -q "run" "$T/info"; then
	ok "info: profile, library, attachment, metadata"
else
	cp "$T/info" "$T/err" 2>/dev/null; bad "info"
fi
if "$B" info --json "$T/info.mcap" >"$T/info" 2>"$T/err" && grep -q '"format":"mcap"' "$T/info" &&
   grep -q '"profile":"ros2"' "$T/info"; then ok "info --json: format, profile"; else cp "$T/info" "$T/err"; bad "info --json"; fi

# a split rosbag2 recording (MCAP storage): DIR and DIR/metadata.yaml read as one timeline
# (compared, with the exports' below, by one node process at the end)
cat "$T/rec_0.jsonl" "$T/rec_1.jsonl" >"$T/rec.jsonl"
printf 'rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: mcap\n  relative_file_paths:\n    - rec_0.mcap\n    - "rec_1.mcap"\n' >"$T/rec/metadata.yaml"
for arg in "$T/rec" "$T/rec/metadata.yaml"; do
	if "$B" cat --format json "$arg" >"$T/got-${arg##*/}.jsonl" 2>"$T/err"; then
		compare_add "split rosbag2: $(basename "$arg")" "$T/rec.jsonl" "$T/got-${arg##*/}.jsonl"
	else
		bad "split rosbag2: $arg"
	fi
done
rm "$T/rec/metadata.yaml"
if "$B" cat --format json "$T/rec" >"$T/got-nometa.jsonl" 2>"$T/err"; then
	compare_add "rosbag2 directory without metadata.yaml" "$T/rec.jsonl" "$T/got-nometa.jsonl"
else
	bad "rosbag2 directory without metadata.yaml"
fi

# exports
F=$SRCDIR/tests/data/fixtures/bags/nested_bz2.bag
for comp in none lz4 zstd; do
	if "$B" export --format mcap --compression $comp -o "$T/a.mcap" "$F" 2>"$T/err" &&
	   "$B" export -o "$T/b.bag" "$T/a.mcap" 2>"$T/err" &&
	   "$B" export --format mcap --compression $comp -o "$T/c.mcap" "$T/b.bag" 2>"$T/err" &&
	   cmp "$T/a.mcap" "$T/c.mcap" >"$T/err" 2>&1; then ok "MCAP ($comp) -> bag -> MCAP byte for byte"; else bad "MCAP ($comp) -> bag -> MCAP"; fi
	rm -f "$T/a.mcap" "$T/b.bag" "$T/c.mcap"
done
for comp in none lz4 zstd; do
	rm -f "$T/out.mcap"
	if "$B" export --format mcap --compression $comp -o "$T/out.mcap" "$T/ros2.mcap" 2>"$T/err" &&
	   node "$W" --read "$T/out.mcap" >"$T/got-$comp.jsonl" 2>"$T/err"; then
		compare_add "ROS 2 -> MCAP ($comp), read by @mcap/core and @foxglove/rosmsg2-serialization" \
			"$T/ros2.jsonl" "$T/got-$comp.jsonl"
	else
		bad "ROS 2 -> MCAP ($comp)"
	fi
done
compare_run
"$B" export -o "$T/out.bag" "$T/ros2.mcap" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "type systems differ" "$T/err" && [ ! -e "$T/out.bag" ]; then
	ok "ROS 2 -> bag refused in one line"
else
	bad "ROS 2 -> bag refused (status $rc)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
