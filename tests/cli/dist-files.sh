#!/bin/sh
# dist-files.sh - every file git tracks (but the dot files: .gitignore, .ci/)
# goes into the release tarball: it is in automake's DISTFILES, or under a
# directory there (tests/data). Test scripts were once added to TESTS and not
# to EXTRA_DIST, and `make distcheck` stopped at the first of 22 of them.
# Skipped (77) where the sources are not a git checkout's top: a tarball's
# own build, or test.sh's ASan copy (build-asan/, inside the checkout).
# Environment: SRCDIR, BUILDDIR.
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$(pwd)}
command -v git >/dev/null 2>&1 &&
	[ "$(git -C "$SRCDIR" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$SRCDIR" && pwd -P)" ] ||
	{ echo "not a git checkout's top: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
MAKEFLAGS= make -s -C "$BUILDDIR" -f Makefile -f - print-distfiles >"$tmp/dist" <<'EOF' || { echo "FAIL  make: DISTFILES"; exit 1; }
print-distfiles:
	@echo $(DISTFILES)
EOF
git -C "$SRCDIR" ls-files >"$tmp/git" || { echo "FAIL  git ls-files"; exit 1; }
# the tracked files that neither DISTFILES nor a directory of it holds
awk 'NR == FNR { for (i = 1; i <= NF; i++) { f = $i; sub(/^\.\//, "", f); dist[f] = 1 } next }
	/^\./ { next }
	{ d = $0; while (!(d in dist) && sub(/\/[^\/]*$/, "", d)) ; if (!(d in dist)) print }' "$tmp/dist" "$tmp/git" >"$tmp/missing"
# the files checked: the tracked ones but the dot files
n=$(grep -vc '^\.' "$tmp/git")
if [ -s "$tmp/missing" ]; then
	sed 's/^/FAIL  not in the tarball (EXTRA_DIST): /' "$tmp/missing"
	echo "$(wc -l <"$tmp/missing") of $n tracked files are not distributed"
	exit 1
fi
echo "ok    the $n files git tracks are all distributed"
