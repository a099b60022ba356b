#!/bin/sh
# make check entry: the golden tests against the reference ROS outputs, twice:
# in the environment's locale, then under de_DE.UTF-8, whose decimal comma
# must not reach any number (JSON, YAML, CSV, info's figures).
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
golden=$(dirname "$0")/../tools/golden.py
bin=${BAGSCOPE:-src/bagscope}
python3 "$golden" "$bin" || exit 1
if ! locale -a 2>/dev/null | grep -qix 'de_DE\.utf-\?8'; then
	echo "FAIL  locale de_DE.UTF-8 missing: scripts/setup.sh --test installs locales-all"
	exit 1
fi
echo "== again under LC_ALL=de_DE.UTF-8"
LC_ALL=de_DE.UTF-8 python3 "$golden" "$bin"
