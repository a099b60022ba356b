#!/bin/sh
# The Python package (python/) installed as a user would - `pip install
# --no-build-isolation ./python` into a venv made with --system-site-packages
# (Debian's numpy, pandas, dask, pytest; no PyPI) - then its pytest suite
# (python/tests): equality with Debian's python3-rosbag, agreement with the
# bagscope command, hostile input, growth, threads, and a dask LocalCluster.
# The venv is made --without-pip: Debian's python3-pip runs in it, the pip
# 23.0.1 the venv would copy in (copying it costs 3.3 s of CPU per tree).
# Against an ASan build of the library, the ASan runtime is preloaded.
# Skipped (77) only without Debian's python3-venv, python3-pip, numpy or pytest.
# Environment: BAGSCOPE, SRCDIR, BUILDDIR.
PY=/usr/bin/python3
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$SRCDIR}
BUILDDIR=$(cd "$BUILDDIR" && pwd)
$PY "$SRCDIR/tests/tools/has-modules.py" venv pip numpy pytest 2>/dev/null || { echo "python3-venv, pip, numpy or pytest missing: skipped"; exit 77; }
V=$BUILDDIR/tests/python-venv
[ -x "$V/bin/python" ] || $PY -m venv --system-site-packages --without-pip "$V" || exit 1
BAGSCOPE_BUILDDIR=$BUILDDIR "$V/bin/python" -m pip install --quiet --no-build-isolation --no-index --no-deps \
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
