#!/bin/sh
# gen-names.sh - the code `bagscope gen` writes compiles for every legal ROS
# name (issue 18): a bag (tests/tools/write-bounds names) whose definitions
# use the issue's list (SEEK_SET, EINVAL, INT8_WIDTH, LC_ALL, uint8_t, errno,
# types FILE, size_t, std/string, pkg/decode, Name with a constant X beside a
# field Name_X, root types bag, main/T, __linux__/T, _IO_FILE, __FILE__; a
# topic, type, field and string constant of 5000 bytes, past ISO C's 4095) and
# every macro the headers of the generated code define, as the compilers
# here list them (cc -dM -E in c11 and gnu11, c++ in c++17): each a field
# (when a legal field name) and a constant. The C tree is built with its
# Makefile in -std=c11 and -std=gnu11 (-pedantic -Werror), the C++ tree with
# its Makefile's defaults, with -pedantic -Werror, and with CMake's defaults
# (when cmake is installed), the
# builds in parallel, each once (against an ASan library only c11 and cpp,
# whose dumps run under it, cpp with -pedantic -O0 instead of its Makefile's
# -O2: 3 s of CPU less); every dump prints what cat --format json prints;
# gen warns of the names it changed.
# Environment: BAGSCOPE, BUILDDIR, SRCDIR, BAGSCOPE_VERSION.
BUILDDIR=${BUILDDIR:-$(pwd)}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRCDIR/tests/tools/sanitized.sh"
B=${BAGSCOPE:-$BUILDDIR/src/bagscope}
W=$BUILDDIR/tests/tools/write-bounds
[ -x "$W" ] || { echo "write-bounds not built: skipped"; exit 77; }
command -v cc >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1 || { echo "no cc and c++: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s\n' "$1"; }

mkdir "$dir/pc"
cat > "$dir/pc/bagscope.pc" <<PC
Name: bagscope
Description: libbagscope in the build tree
Version: ${BAGSCOPE_VERSION:-0}
Cflags: -I$SRCDIR/include -I$BUILDDIR/include
Libs: -L$BUILDDIR/.libs -lbagscope -Wl,-rpath,$BUILDDIR/.libs
PC
PKG_CONFIG_PATH=$dir/pc
export PKG_CONFIG_PATH

# the macros of the headers the generated code includes
inc="-I$SRCDIR/include -I$BUILDDIR/include"
printf '#include <stdlib.h>\n#include <string.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <bagscope/bagscope.h>\n' >"$dir/h.c"
printf '#include <array>\n#include <cstddef>\n#include <cstdint>\n#include <string>\n#include <vector>\n#include <cstdlib>\n#include <cstring>\n#include <new>\n#include <bagscope/bagscope.h>\n' >"$dir/h.cpp"
# shellcheck disable=SC2086
{ cc -std=c11 -dM -E $inc "$dir/h.c" && cc -std=gnu11 -dM -E $inc "$dir/h.c" && c++ -std=c++17 -dM -E $inc "$dir/h.cpp"; } |
	awk '{ sub(/\(.*/, "", $2); print $2 }' | sort -u >"$dir/macros"
n=$(wc -l <"$dir/macros")
[ "$n" -gt 500 ] && ok "the headers define $n macros" || fail "only $n macros listed"
"$W" names "$dir/names.bag" "$dir/macros" || { echo "FAIL  write-bounds names"; exit 1; }
"$B" cat --format json "$dir/names.bag" >"$dir/want" || fail "cat --format json"

for lang in c cpp; do
	"$B" gen --lang $lang -o "$dir/$lang" "$dir/names.bag" 2>"$dir/warn-$lang"
	[ $? -eq 0 ] && ok "gen --lang $lang" || { fail "gen --lang $lang"; head "$dir/warn-$lang"; }
done
grep -q 'warning: names/Fields: field SEEK_SET is SEEK_SET_ in the code' "$dir/warn-c" &&
	grep -q 'warning: pkg/decode: type decode is decode_ in the code' "$dir/warn-cpp" &&
	grep -q 'warning: __linux__/T: package __linux__ is x_linux_ in the code' "$dir/warn-cpp" &&
	ok "gen warns of renamed names" || { fail "gen's warnings"; head -5 "$dir/warn-c"; }
grep -q "names/Fields: field K is" "$dir/warn-c" && fail "a warning for K, a name kept" || ok "  not for K, which is kept"

# the builds, in parallel, each once; against a sanitized library (the ASan
# phase) only c11 and cpp: the dump runs there under the sanitizers, and the
# other variants are the compilers' checks, which the as-built run makes
mv "$dir/c" "$dir/c11"
if [ -z "$SAN_PRELOAD" ]; then
	cp -r "$dir/c11" "$dir/gnu11" && cp -r "$dir/cpp" "$dir/cpp-pedantic"
	! command -v cmake >/dev/null 2>&1 || cp -r "$dir/cpp" "$dir/cmake"
fi
pedantic="-std=c++17 -O0 -Wall -Wextra -pedantic -Werror"
(cd "$dir/c11" && make -s CFLAGS="-std=c11 -O0 -Wall -Wextra -pedantic -Werror" >log 2>&1; echo $? >rc) &
(cd "$dir/cpp" && make -s ${SAN_PRELOAD:+"CXXFLAGS=$pedantic"} >log 2>&1; echo $? >rc) &
if [ -z "$SAN_PRELOAD" ]; then
	(cd "$dir/gnu11" && make -s CFLAGS="-std=gnu11 -O0 -Wall -Wextra -pedantic -Werror" >log 2>&1; echo $? >rc) &
	(cd "$dir/cpp-pedantic" && make -s CXXFLAGS="$pedantic" >log 2>&1; echo $? >rc) &
fi
if [ -d "$dir/cmake" ]; then
	(cd "$dir/cmake" && { cmake -S . -B build && cmake --build build; } >log 2>&1; echo $? >rc; ln -sf build/dump dump) &
fi
wait
for t in c11 gnu11 cpp cpp-pedantic cmake; do
	[ -d "$dir/$t" ] || continue
	if [ "$(cat "$dir/$t/rc")" != 0 ]; then
		fail "$t: build"
		grep -m 8 error "$dir/$t/log" | sed 's/^/      | /'
		continue
	fi
	LD_PRELOAD=$SAN_PRELOAD "$dir/$t/dump" "$dir/names.bag" | cmp -s - "$dir/want" && ok "$t: builds, dump prints what cat prints" ||
		fail "$t: dump differs from cat"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
