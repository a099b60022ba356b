# Sourced by the tests that run programs of their own against the library, or
# limit its address space. When the library was built with ./configure
# --enable-asan, ASan's runtime must come first in such a program
# (SAN_PRELOAD, for LD_PRELOAD; empty otherwise), and no `ulimit -v` can hold
# it: it reserves terabytes of address space for its shadow (SAN_VLIMIT,
# the limit in KB to give `ulimit -v`: unlimited then, else the caller's).
#   . tests/tools/sanitized.sh; SAN_VLIMIT=${SAN_VLIMIT:-2000000}
# Needs BUILDDIR.
SAN_PRELOAD=
if ldd "$BUILDDIR/.libs/libbagscope.so" 2>/dev/null | grep -q libasan; then
	SAN_PRELOAD=$(ldd "$BUILDDIR/.libs/libbagscope.so" | sed -n 's/.*libasan[^ ]* => \([^ ]*\) .*/\1/p')
	SAN_VLIMIT=unlimited
fi
