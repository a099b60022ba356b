#!/bin/sh
# make check entry: bagscope never lists fewer messages than `rosbag reindex`
# recovers, over ~200 structure-aware mutants of the fixtures (tests/tools/mutate.py;
# reindex's results are cached in tests/data/mutants/reindex.json).
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
exec python3 "$(dirname "$0")/../tools/mutate.py" "${BAGSCOPE:-src/bagscope}"
