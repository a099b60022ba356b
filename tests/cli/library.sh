#!/bin/sh
# The library as others see it: `bagscope --version` names the configured
# version for the program and the library it runs with, and the shared
# library exports exactly the functions the public headers declare (BAG_API),
# no internal one.
# Environment: BAGSCOPE, BUILDDIR (for .libs), SRCDIR, BAGSCOPE_VERSION.
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-.}
B=${BAGSCOPE:-src/bagscope}
fails=0

got=$("$B" --version)
want="bagscope $BAGSCOPE_VERSION (libbagscope $BAGSCOPE_VERSION)"
if [ "$got" != "$want" ]; then
	echo "FAIL --version: '$got', expected '$want'"
	fails=$((fails + 1))
fi

so=$(ls "$BUILDDIR"/.libs/libbagscope.so 2>/dev/null)
if [ -n "$so" ] && command -v nm >/dev/null 2>&1; then
	exported=$(mktemp) declared=$(mktemp)
	nm -D --defined-only "$so" | awk '{ print $3 }' | sort > "$exported"
	cat "$SRCDIR"/include/bagscope/*.h | tr '\n' ' ' | sed 's/;/;\n/g' | grep 'BAG_API' |
		sed -n 's/.*[ *]\(bag_[a-z0-9_]*\) *(.*/\1/p' | sort -u > "$declared"
	if ! cmp -s "$exported" "$declared"; then
		echo "FAIL exports: < exported only, > declared only"
		diff "$exported" "$declared" | grep '^[<>]'
		fails=$((fails + 1))
	fi
	rm -f "$exported" "$declared"
else
	echo "no shared library or nm: export check skipped"
fi
echo "library: $fails failed"
[ $fails -eq 0 ]
