#!/bin/sh
# Set everything up on a fresh Debian machine and open bagscope on a sample bag.
set -e
cd "$(dirname "$0")"
scripts/setup.sh
exec src/bagscope "${@:-tests/data/fixtures/foreign/rosbag.js/example.bag}"
