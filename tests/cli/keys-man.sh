#!/bin/sh
# make check entry: the man page's BROWSER KEYS section is the key table
# (tests/tools/keys-table prints it from actions.h, as the help screen shows it),
# and so is README.md's key table (tests/tools/keys-table --markdown).
K=${KEYS_TABLE:-tests/tools/keys-table}
M=$(dirname "$0")/../../doc/bagscope.1
want=$("$K") || { echo "FAIL keys-table"; exit 1; }
got=$(sed -n '/^\.SH BROWSER KEYS/,/^\.SH /p' "$M" | sed -n '/^\.TP/,$p' | sed '/^\.SH /d;/^\.PP/,$d')
if [ "$want" != "$got" ]; then
	echo "FAIL doc/bagscope.1 BROWSER KEYS differs from the key table; run tests/tools/keys-table and paste:"
	printf '%s\n' "$want" > /tmp/keys-want.$$; printf '%s\n' "$got" > /tmp/keys-got.$$
	diff /tmp/keys-got.$$ /tmp/keys-want.$$; rm -f /tmp/keys-want.$$ /tmp/keys-got.$$
	exit 1
fi
echo "ok    the man page's BROWSER KEYS is the key table ($(printf '%s\n' "$want" | grep -c '^\.TP') keys)"
R=$(dirname "$0")/../../README.md
mwant=$("$K" --markdown) || { echo "FAIL keys-table --markdown"; exit 1; }
mgot=$(sed -n '/^<!-- keys: generated/,/^<!-- end of keys -->/p' "$R" | sed '1d;$d')
if [ "$mwant" != "$mgot" ]; then
	echo "FAIL README.md's key table differs from the key table; run tests/tools/keys-table --markdown and paste:"
	printf '%s\n' "$mwant" > /tmp/keys-mwant.$$; printf '%s\n' "$mgot" > /tmp/keys-mgot.$$
	diff /tmp/keys-mgot.$$ /tmp/keys-mwant.$$; rm -f /tmp/keys-mwant.$$ /tmp/keys-mgot.$$
	exit 1
fi
echo "ok    README.md's key table is the key table"
