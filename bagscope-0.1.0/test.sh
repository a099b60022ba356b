#!/bin/sh
# Set everything up on a fresh Debian machine and run the whole test suite.
# Ends with one line 'N passed, N failed'.
cd "$(dirname "$0")"
scripts/setup.sh --test || exit 1
make -j"$(nproc)" check >/dev/null 2>&1
status=$?
grep -h -E '^(FAIL|ERROR)' tests/*.log tests/*/*.log 2>/dev/null | head -50
scripts/count-tests.sh || status=1
exit $status
