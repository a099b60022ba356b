# compare-batch.sh - sourced by CLI tests that check bagscope's JSON lines
# against what a writer was given, through tests/tools/mcap-write.cjs
# --compare-batch: one node process for every comparison of the script (a
# node start costs more than comparing a small file). Needs T (a scratch
# directory), W (mcap-write.cjs) and the script's ok NAME / bad NAME (which
# prints $T/err).
#   compare_add NAME WANT GOT   queue a comparison; GOT equal to WANT byte for
#                               byte passes at once
#   compare_run                 run the queued ones: ok or bad for each, in order
compare_n=0
compare_add() {
	if cmp -s "$2" "$3"; then ok "$1"; return; fi
	compare_n=$((compare_n + 1))
	echo "c$compare_n $2 $3" >>"$T/compare"
	printf 'c%s\t%s\n' "$compare_n" "$1" >>"$T/compare-names"
}
compare_run() {
	[ -f "$T/compare" ] || return 0
	node "$W" --compare-batch "$T/compare" >"$T/compared" 2>&1
	while IFS='	' read -r id name; do
		if grep -q "^ok $id\$" "$T/compared"; then
			ok "$name"
		else
			awk -v id="$id" '$0 == "FAIL " id { on = 1; next } on && /^  / { print; next } { on = 0 }' \
				"$T/compared" >"$T/err"
			[ -s "$T/err" ] || head -n 5 "$T/compared" >"$T/err"
			bad "$name"
		fi
	done <"$T/compare-names"
	rm -f "$T/compare" "$T/compare-names"
}
