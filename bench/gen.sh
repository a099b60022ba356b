#!/bin/sh
# gen.sh - code from `bagscope gen` against the runtime decoder, one thread:
# generate C and C++ for /imu/data and /odom of a bag, build bench/gen.c
# with each (-O2), and print ns per message for decoding and for JSON.
#   bench/gen.sh [BAG] [N]     (run from the build tree; N messages per topic)
BAG=${1:-/work/benchdata/bench-none.bag}
N=${2:-100000}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
I="-I$SRCDIR/include -I$BUILDDIR/include"
L="-L$BUILDDIR/.libs -lbagscope -Wl,-rpath,$BUILDDIR/.libs"
for lang in c cpp; do
	"$BUILDDIR/src/bagscope" gen --lang $lang --topic /imu/data --topic /odom -o "$tmp/$lang" "$BAG" || exit 1
	if [ $lang = c ]; then
		cc -std=c11 -O2 $I -c "$tmp/c/msgs.c" -o "$tmp/c/msgs.o" && link=cc
	else
		c++ -std=c++17 -O2 $I -c "$tmp/cpp/msgs.cpp" -o "$tmp/cpp/msgs.o" && link=c++
	fi
	cc -std=c11 -O2 $I -I"$tmp/$lang" -c "$SRCDIR/bench/gen.c" -o "$tmp/$lang/bench.o" &&
	$link -o "$tmp/$lang/bench-gen" "$tmp/$lang/bench.o" "$tmp/$lang/msgs.o" $L || exit 1
	echo "== generated $lang"
	"$tmp/$lang/bench-gen" "$BAG" "$N" || exit 1
done
