#!/bin/sh
# long-functions.sh [-n MAX] [FILE|DIR]... - list the C functions longer than
# MAX lines (default 80), longest first: "LINES FILE:LINE NAME". A function
# runs from the first line of its signature (a line starting in column 0)
# to its closing "}" in column 0, as STYLE.md lays functions out. Exits 1
# when it lists any, so `make check-function-size` can fail on one.
max=80
if [ "$1" = "-n" ]; then max=$2; shift 2; fi
[ $# -gt 0 ] || set -- src
find "$@" -name '*.c' | sort | xargs awk -v max="$max" '
FNR == 1 { sig = 0; body = 0 }
!body && /^[A-Za-z_]/ && !/^(typedef|struct [A-Za-z_0-9]+ *\{|enum|union|#)/ && !/;[ \t]*$/ { if (!sig) { sig = FNR; head = $0 } }
!body && /^[ \t]*$/ { sig = 0 }
!body && /;[ \t]*$/ && !/^[ \t]/ { sig = 0 }
!body && /^\{/ && sig { body = 1; next }
body && /^\}/ {
	n = FNR - sig + 1
	name = head; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
	if (n > max) printf "%d %s:%d %s\n", n, FILENAME, sig, name
	body = 0; sig = 0
}' | sort -rn | awk '{ print } END { exit NR > 0 }'
