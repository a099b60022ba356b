#!/bin/sh
# made-bags.sh GEN DIR [LIBS...] - the bags that tests/tools/GEN makes,
# copied into DIR. The generators (mk-robot-bags.py, mk-tf-bags.py,
# mk-columns-bags.py, mk-window-bag.py, mk-chunks-bag.py) write with Debian's
# python3-rosbag, mk-lone-db3.py with Python's sqlite3. A dozen tests read
# their bags, and each run of one costs 0.6 s of CPU or more, most of it
# importing rosbag (1.8 s for the million-row .db3); they run through
# tests/tools/pyref.py, which has imported it already. A GEN that is C++
# (tf2-ref.cpp, the transforms' yardstick against Debian's libtf2) is built
# with g++ into DIR/NAME, linked with LIBS, at -O0: its work is in libtf2, and
# its build takes 3.2 s of CPU there, 4.3 s at -O1. So they
# are made once, under $BAGSCOPE_MADE (test.sh gives both of its trees the
# same one; default: the build tree's tests/made/), keyed by the generator's
# checksum, and a test that finds them there copies them. A test that comes
# while another makes them waits for that one (flock on DIR.lock), instead
# of making them again: the four remote screen tests start together.
# GEN write-tool-big is the built write-tool's big.bag (300,000 16-byte
# messages, bz2: 1.5 s of CPU), which two screen tests read; it is keyed by
# the binary, so each tree's write-tool writes its own.
# Environment: BUILDDIR, SRCDIR (default: the tree this script is in), BAGSCOPE_MADE.
gen=$1 dir=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
SRCDIR=${SRCDIR:-$top} BUILDDIR=${BUILDDIR:-$top}
export BUILDDIR   # pyref.py keys its server on the made-bags directory
case $gen in
write-tool-big) src=$BUILDDIR/tests/tools/write-tool ;;
*) src=$SRCDIR/tests/tools/$gen ;;
esac
made=${BAGSCOPE_MADE:-$BUILDDIR/tests/made}/$gen-$(cksum <"$src" | cut -d ' ' -f 1)
mkdir -p "${made%/*}" || exit 1
exec 9>"$made.lock"
flock 9
if [ ! -d "$made" ]; then
	tmp=$(mktemp -d "$made.XXXXXX") || exit 1
	case $gen in
	*.cpp) g++ -O0 -o "$tmp/${gen%.cpp}" "$src" "$@" ;;
	write-tool-big) "$src" big "$tmp/big.bag" 300000 16 bz2 ;;
	*) "${src%/*}/pyref.py" "$src" "$tmp" ;;   # /usr/bin/python3, rosbag imported once
	esac || { rm -rf "$tmp"; exit 1; }
	chmod 755 "$tmp"
	mv -T "$tmp" "$made"
fi
exec 9>&-
cp "$made"/* "$dir"/
