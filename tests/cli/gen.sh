#!/bin/sh
# gen.sh - `bagscope gen` on every fixture bag (tests/data/fixtures/bags/*.bag,
# rosbag.js's example.bag) and on two bags written here: hostile.bag
# (tests/tools/write-hostile: names and text a terminal or a compiler would obey)
# and versions.bag (tests/tools/write-gen: two definitions of one type, keyword
# names, constants of every kind). For each bag and each language:
#  - gen twice gives byte-identical trees;
#  - the tree builds with its own Makefile (pkg-config finds the build tree
#    through a bagscope.pc made here) with gcc and clang, C11 / C++17,
#    -Wall -Wextra -Werror -pedantic; dump prints, line for line, what
#    `bagscope cat --format json` prints;
#  - tests/tools/gen-trunc.c, built with the generated code under ASan + UBSan,
#    finds every message printed as cat prints it and every truncation
#    refused.
# The matrix is built once: as built, each tree with gcc and clang; against
# a sanitized library (./configure --enable-asan, ./test.sh's second phase),
# gen-trunc only, since it runs the same generated code and the library
# under the sanitizers on every bag, and the compilers' checks do not change.
# Then: the names and comments of versions.bag's code; a definition that
# does not parse is left out (exit 1); the CMakeLists.txt builds (if cmake
# is installed).
# Environment: BAGSCOPE, SRCDIR, BUILDDIR, BAGSCOPE_VERSION.
# The builds and runs of the matrix (each tree with each compiler, each
# tree's gen-trunc, the CMakeLists.txt) are the jobs of one Makefile, run
# with make -j; each job is this script called again with --tree, --trunc
# or --cmake, and prints its ok/FAIL lines into a file read in a fixed order.
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$(pwd)}
B=${BAGSCOPE:-$BUILDDIR/src/bagscope}
FIX=$SRCDIR/tests/data/fixtures
fails=0

fail() {
	echo "FAIL  $*"
	fails=$((fails + 1))
}

compilers="gcc"
command -v clang >/dev/null 2>&1 && command -v clang++ >/dev/null 2>&1 && compilers="gcc clang"
# -g1 -Og: line tables for the sanitizers' reports; half the compile time of -g -O1.
# UBSan traps, as in the library's ASan build (configure.ac), and ASan reports the trap
SAN="-fsanitize=address,undefined -fsanitize-undefined-trap-on-error -fno-sanitize-recover=all -g1 -Og"
WARN="-Wall -Wextra -Werror -pedantic"

# tree OUT CC BAG WANT: a copy of the generated tree OUT built with its own
# Makefile by CC, and its dump's output against cat's (the file WANT). gcc
# at -O1, where its flow-based warnings (-Wmaybe-uninitialized ...) work;
# clang at -O0, since its front end gives all its warnings at any level (the
# C++ tree builds in half the time, the C tree in a quarter)
tree() {
	t=$(basename "$1" | tr - ' ')
	cxx=g++ opt=-O1
	[ "$2" = clang ] && cxx=clang++ opt=-O0
	rm -rf "$1.$2" && cp -r "$1" "$1.$2" || { echo "FAIL  $t: cannot copy the tree"; return; }
	if ! make -s -C "$1.$2" CC="$2" CXX=$cxx CFLAGS="-std=c11 $WARN $opt" \
	     CXXFLAGS="-std=c++17 $WARN $opt" > "$1.$2.build" 2>&1; then
		echo "FAIL  $t: build with $2"
		head -n 20 "$1.$2.build"
		return
	fi
	"$1.$2/dump" "$3" > "$1.$2.got" 2>"$1.$2.err" || echo "FAIL  $t $2: dump exits $?: $(head -n 1 "$1.$2.err")"
	if ! cmp -s "$4" "$1.$2.got"; then
		echo "FAIL  $t $2: dump differs from cat --format json"
		diff "$4" "$1.$2.got" | head -n 6
	fi
}

# trunc OUT LANG BAG: tests/tools/gen-trunc.c with the code of OUT, under
# ASan + UBSan (objects in OUT.san, the tree itself untouched)
trunc() {
	t=$(basename "$1" | tr - ' ')
	o=$1.san
	mkdir -p "$o"
	if [ "$2" = c ]; then
		gcc -std=c11 $WARN $SAN -I"$SRCDIR/include" -I"$BUILDDIR/include" -c "$1/msgs.c" -o "$o/msgs.o"
		link=gcc
	else
		g++ -std=c++17 $WARN $SAN -I"$SRCDIR/include" -I"$BUILDDIR/include" -c "$1/msgs.cpp" -o "$o/msgs.o"
		link=g++
	fi
	if gcc -std=c11 $WARN $SAN -I"$SRCDIR/include" -I"$BUILDDIR/include" -I"$1" \
	       -c "$SRCDIR/tests/tools/gen-trunc.c" -o "$o/trunc.o" &&
	   $link $SAN -o "$o/trunc" "$o/trunc.o" "$o/msgs.o" -L"$BUILDDIR/.libs" -lbagscope \
	       -Wl,-rpath,"$BUILDDIR/.libs"; then
		"$o/trunc" "$3" > "$o/out" 2>&1 || { echo "FAIL  $t: truncations"; head -n 8 "$o/out"; }
		echo "ok    $t: $(tail -n 1 "$o/out")"
	else
		echo "FAIL  $t: building gen-trunc under the sanitizers"
	fi
}

# cmake_build LANG: nested_bz2's tree built with its CMakeLists.txt; its dump prints what cat does
cmake_build() {
	src=$tmp/nested_bz2-$1
	if cmake -S "$src" -B "$src.cmake" > "$src.cmake.log" 2>&1 &&
	   cmake --build "$src.cmake" >> "$src.cmake.log" 2>&1 &&
	   "$src.cmake/dump" "$FIX/bags/nested_bz2.bag" > "$src.cmake.got" 2>/dev/null; then
		cmp -s "$tmp/nested_bz2.want" "$src.cmake.got" || echo "FAIL  cmake $1: dump differs from cat"
	else
		echo "FAIL  cmake $1: build"
		tail -n 15 "$src.cmake.log"
	fi
}

case ${1:-} in
--tree) shift; tree "$@"; exit 0 ;;
--trunc) shift; trunc "$@"; exit 0 ;;
--cmake) shift; cmake_build "$@"; exit 0 ;;
esac

# a sanitized library (./configure --enable-asan): only gen-trunc, built with
# the same sanitizers by gcc, so that their runtime comes first (asked here,
# once, not by each job of the matrix)
sanitized=
ldd "$BUILDDIR/.libs/libbagscope.so" 2>/dev/null | grep -q libasan && sanitized=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/pc" "$tmp/bags"
cat > "$tmp/pc/bagscope.pc" <<EOF
Name: bagscope
Description: libbagscope in the build tree
Version: ${BAGSCOPE_VERSION:-0}
Cflags: -I$SRCDIR/include -I$BUILDDIR/include
Libs: -L$BUILDDIR/.libs -lbagscope -Wl,-rpath,$BUILDDIR/.libs
EOF
PKG_CONFIG_PATH=$tmp/pc
export PKG_CONFIG_PATH SRCDIR BUILDDIR tmp
"$BUILDDIR/tests/tools/write-hostile" "$tmp/bags" || fail "write-hostile"
"$BUILDDIR/tests/tools/write-gen" "$tmp/bags" || fail "write-gen"

# job TARGET ARGS...: a rule of the matrix's Makefile running this script with ARGS
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
jobs=
job() {
	printf '%s:\n\t@sh %s %s > $@\n' "$1" "$self" "$2" >> "$tmp/Makefile"
	jobs="$jobs $1"
}
: > "$tmp/Makefile"
for bag in "$FIX"/bags/*.bag "$FIX"/foreign/rosbag.js/example.bag "$tmp/bags/hostile.bag" "$tmp/bags/versions.bag"; do
	name=$(basename "$bag" .bag)
	"$B" cat --format json "$bag" > "$tmp/$name.want" 2>/dev/null
	for lang in c cpp; do
		t="$name $lang"
		out=$tmp/$name-$lang
		if ! "$B" gen --lang $lang -o "$out" "$bag" 2>"$tmp/err" ||
		   ! "$B" gen --lang $lang -o "$out.again" "$bag" 2>/dev/null; then
			fail "$t: gen: $(head -n 1 "$tmp/err")"
			continue
		fi
		diff -r "$out" "$out.again" >/dev/null || fail "$t: a second gen differs"
		if [ -z "$sanitized" ]; then
			for cc in $compilers; do
				job "$out.$cc.res" "--tree $out $cc $bag $tmp/$name.want"
			done
		else
			job "$out.trunc.res" "--trunc $out $lang $bag"
		fi
	done
done
if command -v cmake >/dev/null 2>&1 && [ -z "$sanitized" ]; then
	job "$tmp/cmake-c.res" "--cmake c"
	job "$tmp/cmake-cpp.res" "--cmake cpp"
fi
printf 'all:%s\n.DEFAULT_GOAL := all\n' "$jobs" >> "$tmp/Makefile"
MAKEFLAGS= make -s -k -j"$(nproc)" -f "$tmp/Makefile" || fail "a job of the build matrix's make"
for res in $jobs; do
	[ -f "$res" ] || { fail "no result from $res"; continue; }
	cat "$res"
	fails=$((fails + $(grep -c '^FAIL' "$res")))
done
command -v cmake >/dev/null 2>&1 || echo "no cmake: the CMakeLists.txt is not built"
[ -z "$sanitized" ] || echo "a sanitized library: gen-trunc on every tree (the compiler matrix and CMake run as built)"

# versions.bag: two definitions of one type, each once, named by md5; keyword
# members; constants; comments that cannot end early
v=$tmp/versions-c
expect() {
	grep -q -e "$2" "$1" || fail "$(basename "$1") lacks: $2"
}
expect "$v/msgs.h" 'struct fixture_pkg__Thing_cf8e9d1e {'
expect "$v/msgs.h" 'struct fixture_pkg__Thing_1600a3fb {'
expect "$v/msgs.h" 'one of several definitions of fixture_pkg/Thing in versions.bag'
expect "$v/msgs.h" 'struct fixture_pkg__Part_02226c4a part;'
expect "$v/msgs.h" 'struct bag_gen_string class_;'
expect "$v/msgs.h" 'uint32_t errno_;'
expect "$v/msgs.h" '#define fixture_pkg__Thing_cf8e9d1e_BIG UINT64_C(18446744073709551615)'
expect "$v/msgs.h" '#define fixture_pkg__Thing_cf8e9d1e_MIN (-INT64_C(9223372036854775807) - 1)'
expect "$v/msgs.h" '#define fixture_pkg__Thing_cf8e9d1e_S "a \\"quoted\\" \\\\ back\\?\\?/ slash"'
expect "$v/msgs.h" 'constant int8 BAD=300 is left out'
expect "$v/msgs.h" 'first version: \* / and / \* and ? ?/ in a comment, then a backslash \*/'
expect "$v/msgs.h" '/\* none: int32\[0\] holds nothing \*/'
expect "$v/thing.h" '#define thing_MD5SUM_2 "1600a3fb78365eb94a5742ec2b95656b"'
expect "$tmp/versions-cpp/msgs.hpp" 'int16_t Thing{};'
expect "$tmp/versions-cpp/msgs.hpp" 'static constexpr float HALF_ = static_cast<float>(0.5);'
expect "$tmp/versions-cpp/thing.hpp" 'using Msg_1 = ::fixture_pkg::Thing_cf8e9d1e;'
[ "$(grep -c '^struct std_msgs__Header {' "$tmp/nested_bz2-c/msgs.h")" = 1 ] ||
	fail "nested_bz2: std_msgs/Header, held by three topics' types, is not declared once"
expect "$tmp/nested_bz2-c/msgs.h" '/\* variable uint8\[\] -> array of integers \*/'

# a definition that does not parse: its connection is left out, the rest made, exit 1
"$B" gen -o "$tmp/header" "$tmp/bags/header.bag" > /dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q 'bad message definition, left out' "$tmp/err" || fail "header.bag: not refused as it should"
"$B" gen -o "$tmp/none" --topic /nothing "$FIX/bags/basic_none.bag" 2>/dev/null && fail "gen --topic of no topic succeeds"

echo "gen: $fails failed"
[ $fails -eq 0 ]
