#!/bin/sh
# No function over 80 lines (STYLE.md) anywhere in src/: the library, the
# CLI, src/common, the generator and the browser, and the Python extension.
# The checker is shown to work on a function made long on purpose.
top=${SRCDIR:-$(dirname "$0")/../..}
list=$top/tests/tools/long-functions.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
{
	printf 'static int long_one(int x)\n{\n'
	i=0; while [ $i -lt 80 ]; do printf '\tx++;\n'; i=$((i + 1)); done
	printf '\treturn x;\n}\n'
} >"$tmp/long.c"
if ! "$list" "$tmp" | grep -q '^84 .*long_one$'; then
	echo "FAIL  the checker misses an 84-line function"; exit 1
fi
dirs="src/lib src/cli src/common src/gen src/tui python"
if (cd "$top" && "$list" $dirs); then
	echo "ok    no function over 80 lines in:" $dirs
else
	echo "FAIL  functions over 80 lines (above)"; exit 1
fi
