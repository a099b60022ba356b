#!/bin/sh
# make check entry: bags older than 2.0 (1.2, 1.1, 1.0, 0) through the CLI -
# shared/oldbags' checks (tests/tools/check_oldbags.py), golden info against rosbag
# for 1.2, the notes, --msg-path, and truncation at record boundaries
# (tests/tools/oldbags.py). Definitions of 1.1 and older come from Debian's
# ros-std-msgs (scripts/setup.sh --test installs it).
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
if [ ! -f /usr/share/std_msgs/msg/String.msg ]; then
	echo "FAIL  /usr/share/std_msgs/msg missing: scripts/setup.sh --test installs ros-std-msgs"
	exit 1
fi
exec python3 "$(dirname "$0")/../tools/oldbags.py" "${BAGSCOPE:-src/bagscope}"
