#!/bin/sh
# make check entry: the man page has a section (.SS under COMMANDS) for every
# command `bagscope --help` lists, and the browser's; every option a
# command's --help names appears in that command's section, and the options
# `bagscope --help` names (given anywhere) in the browse section.
B=${BAGSCOPE:-src/bagscope}
M=$(dirname "$0")/../../doc/bagscope.1
fail=0 checked=0

# one section's text, groff escapes undone (\- is -, fonts dropped)
section() {
	sed -n "/^\.SS $1\$/,/^\.S[SH] /p" "$M" | sed '1d;$d' | sed 's/\\-/-/g; s/\\f[BIRP]//g'
}
# the options a --help text names: --long and -x
options() {
	grep -oE -- '(^|[^a-z-])--?[a-zA-Z][a-z-]*' | sed 's/^[^-]*//' | sort -u
}
cmds=$("$B" --help | sed -n '/^commands:/,$p' | sed 1d | awk '{print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 12 ] || { echo "FAIL: bagscope --help lists too few commands: $cmds"; fail=1; }
for c in $cmds; do
	text=$(section "$c")
	[ -n "$text" ] || { echo "FAIL: no '.SS $c' section in the man page"; fail=1; continue; }
	for o in $("$B" "$c" --help | options); do
		[ "$o" = "--help" ] && continue
		checked=$((checked + 1))
		printf '%s\n' "$text" | grep -qe "$o\([^a-z-]\|\$\)" || { echo "FAIL: $c --help names $o, its section does not"; fail=1; }
	done
done
text=$(section browse)
[ -n "$text" ] || { echo "FAIL: no '.SS browse' section"; fail=1; }
for o in $("$B" --help | sed '/^commands:/,$d' | options); do
	[ "$o" = "--help" ] || [ "$o" = "--version" ] && continue
	checked=$((checked + 1))
	printf '%s\n' "$text" | grep -qe "$o" || { echo "FAIL: bagscope --help names $o, the browse section does not"; fail=1; }
done
# the sections are under COMMANDS: one per command, and browse
got=$(sed -n '/^\.SH COMMANDS/,/^\.SH EXPRESSIONS/p' "$M" | sed -n 's/^\.SS //p' | sort | tr '\n' ' ')
want=$(printf '%s\n' $cmds browse | sort | tr '\n' ' ')
[ "$got" = "$want" ] || { echo "FAIL: COMMANDS sections '$got', want '$want'"; fail=1; }
# nothing describes a command inside the browser's sections any more
sed -n '/^\.SH BROWSER/,/^\.SH BOUNDS/p' "$M" | grep -qE '^\.B (gen|plot|frames|export)$' &&
	{ echo "FAIL: a command is still described in the browser's sections"; fail=1; }
[ $fail -eq 0 ] && echo "man-commands.sh: ok ($checked options)"
exit $fail
