#!/bin/sh
# Bag strings and file names that hold what a terminal obeys (ESC sequences,
# BEL, C1 CSI as UTF-8 and as a raw byte, newline, tab, DEL; see
# write-hostile.c) never reach stdout or stderr raw: every subcommand on
# such bags, and on files whose names hold them, writes no byte below 0x20
# but '\n', no DEL, no C1 control and no invalid UTF-8; and the escapes
# show where the strings were (the scheme is in bagscope.1, ESCAPED TEXT).
B=${BAGSCOPE:-src/bagscope}
W=${WRITE_HOSTILE:-tests/tools/write-hostile}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s\n' "$1"; }

"$W" "$dir" || { echo "FAIL  write-hostile"; exit 1; }

# raw.py DIR: for each line 'N<tab>NAME' of DIR/runs, the first byte of
# DIR/N.out and DIR/N.err a terminal would obey: 'ok    NAME' or
# 'FAIL  NAME: out|err: why' (one Python for every run)
cat > "$dir/raw.py" <<'EOF'
import os, sys


def raw(data):
    for i, b in enumerate(data):
        if (b < 0x20 and b != 0x0A) or b == 0x7F:
            return 'byte 0x%02x at %d: %r' % (b, i, data[max(0, i - 20):i + 20])
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        return 'invalid UTF-8 at %d: %r' % (e.start, data[max(0, e.start - 20):e.start + 20])
    for i, c in enumerate(text):
        if 0x80 <= ord(c) < 0xA0:
            return 'C1 control U+%04X at character %d: %r' % (ord(c), i, text[max(0, i - 20):i + 20])
    return None


d = sys.argv[1]
for line in open(os.path.join(d, 'runs'), encoding='utf-8'):
    n, what = line.rstrip('\n').split('\t', 1)
    why = None
    for s in ('out', 'err'):
        r = raw(open(os.path.join(d, '%s.%s' % (n, s)), 'rb').read())
        if r is not None:
            why = '%s: %s' % (s, r)
            break
    print('FAIL  %s: %s' % (what, why) if why else 'ok    %s' % what)
EOF

# clean NAME ARGS...: run bagscope (run N: stdout in DIR/N.out, stderr in
# DIR/N.err); an exit above 2 fails now, raw bytes are judged by raw.py at the end
n=0
clean() {
	what=$1
	shift
	n=$((n + 1))
	"$B" "$@" >"$dir/$n.out" 2>"$dir/$n.err"
	rc=$?
	if [ $rc -gt 2 ]; then
		fail "$what: exit $rc"
		return
	fi
	printf '%s\t%s\n' "$n" "$what" >> "$dir/runs"
}

# shows NAME out|err TEXT: the escaped form appears (fixed string) in the last run's out or err
shows() {
	if grep -qF -- "$3" "$dir/$n.$2"; then ok "$1"; else fail "$1: $2 lacks '$3':"; sed 's/^/      | /' "$dir/$n.$2"; fi
}

evil='\e]0;PWNED\a\u009b2J\x9b\x7f'
for bag in hostile header; do
	for cmd in "info" "info --json" "info --freq" "defs" "defs --tree" "check" "check --quick" \
	           "cat --format yaml" "cat --format json" "cat --format csv" "cat --format hex"; do
		# shellcheck disable=SC2086
		clean "$bag: $cmd" $cmd "$dir/$bag.bag"
	done
done

clean "info shows the topic escaped" info "$dir/hostile.bag"
shows "  topic and type in the table" out "/evil$evil\\n\\ttopic   2 msgs    : evil_msgs/Str\\e[2Jing"
clean "defs shows every field escaped" defs "$dir/hostile.bag"
shows "  callerid" out 'callerid: /node\e[31m\x9b\a'
shows "  the definition's comment, line by line" out "  # comment $evil end"
shows "  a string constant" out '  string NOTE=\e[5mblink\x9b'
clean "defs shows a hostile header field escaped" defs "$dir/header.bag"
shows "  its name and value" out "x-$evil\\n\\tname: value$evil\\n\\tend"
shows "  a field name is refused, naming the line" out "line 2: 'bad${evil}name' is not a legal field name"
clean "csv rows stay one line each" cat --format csv "$dir/hostile.bag"
[ "$(wc -l <"$dir/$n.out")" -eq 3 ] && ok "  header and two rows" || fail "  header and two rows: $(cat "$dir/$n.out")"
shows "  a value escaped, CSV quoting kept" out "\"value$evil\\n\\tend\","
clean "json keeps the value, C1 and DEL as \\u escapes" cat --format json "$dir/hostile.bag"
if python3 -c '
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])]
assert m[0]["topic"] == "/evil\x1b]0;PWNED\x07\x9b2J\ufffd\x7f\n\ttopic", m[0]["topic"]
assert m[0]["msg"]["more"] == ["item\x1b[1m", "nel\x85csi\x9b"], m[0]["msg"]["more"]
' "$dir/$n.out"; then ok "  same values after json.loads"; else fail "  same values after json.loads"; fi
clean "yaml double-quotes values" cat --format yaml "$dir/hostile.bag"
shows "  escaped by YAML's rules" out 'data: "value\e]0;PWNED\a\x9B2J\uFFFD\x7F\n\tend"'
clean "hex heading escaped" cat --format hex "$dir/hostile.bag"
shows "  bytes as dots" out '|....value.]0;PWN|'

# file names holding a newline and escapes: in info's path, in error lines
fname=$(printf 'evil\n\033]0;PWNED\007\302\233name')
cp "$dir/hostile.bag" "$dir/$fname.bag"
printf 'not a bag at all\n' >"$dir/$fname.txt"
clean "info's path" info "$dir/$fname.bag"
shows "  escaped" out 'evil\n\e]0;PWNED\a\u009bname.bag'
clean "info --json's path" info --json "$dir/$fname.bag"
for cmd in "info" "info --json" "cat" "defs" "check"; do
	# shellcheck disable=SC2086
	clean "error line of $cmd on a file that is no bag" $cmd "$dir/$fname.txt"
	# shellcheck disable=SC2086
	clean "error line of $cmd on a missing file" $cmd "$dir/missing$fname.bag"
done
clean "cat's error line" cat "$dir/missing$fname.bag"
shows "  names the file, escaped" err 'missingevil\n\e]0;PWNED\a\u009bname.bag'
[ "$(wc -l <"$dir/$n.err")" -eq 1 ] && ok "  one line" || fail "  one line: $(cat "$dir/$n.err")"
clean "an unknown option" cat "--x$(printf '\033')[2J" "$dir/hostile.bag"
shows "  named, escaped" err 'cat: unknown option or missing argument: --x\e[2J'
clean "a --topic that is not found" defs "$dir/hostile.bag" "$(printf '/no\033[2J')"
shows "  escaped" err 'no connection on topic /no\e[2J'

# every run's stdout and stderr, judged at once
python3 "$dir/raw.py" "$dir" > "$dir/raw.out" 2>&1
cat "$dir/raw.out"
passed=$((passed + $(grep -c '^ok' "$dir/raw.out")))
failed=$((failed + $(grep -c '^FAIL' "$dir/raw.out")))
[ "$(grep -c '^ok\|^FAIL' "$dir/raw.out")" -eq "$(wc -l < "$dir/runs")" ] || fail "raw.py: $(tail -n 3 "$dir/raw.out")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
