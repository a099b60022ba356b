#!/bin/sh
# Set everything up on a fresh Debian machine and run the whole test suite:
# once as built, once more built with AddressSanitizer and UBSan (in a copy
# of the tree under build-asan/). Ends with one line 'N passed, N failed'.
cd "$(dirname "$0")"
scripts/setup.sh --test || exit 1
make -j"$(nproc)" check >/dev/null 2>&1
status=$?
asan=build-asan
if [ "${BAGSCOPE_NO_ASAN:-}" = "" ]; then
	rm -rf "$asan" && mkdir -p "$asan"
	git ls-files | tar -cf - -T - | tar -xf - -C "$asan"
	( cd "$asan" && autoreconf -fi >/dev/null 2>&1 && ./configure -q --enable-asan >/dev/null &&
	  make -j"$(nproc)" >/dev/null 2>&1 && make -j"$(nproc)" check >/dev/null 2>&1 ) || status=1
fi
for dir in . "$asan"; do
	[ -d "$dir/tests" ] || continue
	grep -h -E '^(FAIL|ERROR)' $(find "$dir/tests" -name '*.log') 2>/dev/null | sed "s|^|$dir: |" | head -30
done
scripts/count-tests.sh . "$asan" || status=1
exit $status
