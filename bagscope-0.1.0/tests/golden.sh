#!/bin/sh
# make check entry: the golden tests against the reference ROS outputs.
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
exec python3 "$(dirname "$0")/golden.py" "${BAGSCOPE:-src/bagscope}"
