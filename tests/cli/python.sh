#!/bin/sh
# The Python package (python/) installed as a user would - `pip install
# --no-build-isolation ./python` into a venv made with --system-site-packages
# (Debian's numpy, pandas, dask, pytest; no PyPI) - then its pytest suite
# (python/tests): equality with Debian's python3-rosbag, agreement with the
# bagscope command, hostile input, growth, threads, and a dask LocalCluster.
# Against an ASan build of the library, the ASan runtime is preloaded.
# Skipped (77) only without Debian's python3-venv, numpy or pytest.
# Environment: BAGSCOPE, SRCDIR, BUILDDIR.
PY=/usr/bin/python3
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$SRCDIR}
BUILDDIR=$(cd "$BUILDDIR" && pwd)
$PY "$SRCDIR/tests/tools/has-modules.py" venv numpy pytest 2>/dev/null || { echo "python3-venv, numpy or pytest missing: skipped"; exit 77; }
V=$BUILDDIR/tests/python-venv
[ -x "$V/bin/python" ] || $PY -m venv --system-site-packages "$V" || exit 1
BAGSCOPE_BUILDDIR=$BUILDDIR "$V/bin/pip" install --quiet --no-build-isolation --no-index --no-deps \
	--force-reinstall "$SRCDIR/python" || { echo "pip install ./python failed"; exit 1; }
lib=$BUILDDIR/.libs/libbagscope.so
if ldd "$lib" 2>/dev/null | grep -q libasan; then
	LD_PRELOAD=$(gcc -print-file-name=libasan.so)
	ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:handle_sigill=1
	export LD_PRELOAD ASAN_OPTIONS
fi
cd "$BUILDDIR" || exit 1
SRCDIR=$SRCDIR BAGSCOPE=${BAGSCOPE:-$BUILDDIR/src/bagscope} \
	exec "$V/bin/python" -m pytest -q -p no:cacheprovider "$SRCDIR/python/tests"
