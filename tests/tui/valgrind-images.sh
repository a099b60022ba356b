#!/bin/sh
# Screen test under valgrind (run by tests/run-valgrind.sh): the browser over
# made/images.bag with /wave hidden, stepping onto each of the 42 frames so
# that every picture, damaged frame and point cloud is decoded and drawn.
# Any memory error or definite leak that valgrind reports fails it.
# Environment (from run-valgrind.sh): VG, its valgrind command and flags;
# BAGSCOPE, the program itself (src/.libs/bagscope, which finds the library
# through LD_LIBRARY_PATH); VG_ORIGINS=yes adds --track-origins=yes (twice
# the CPU), for the run again that run-valgrind.sh makes when this one fails.
# Skipped (77) without tmux or valgrind.
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found: skipped"; exit 77; }
: "${VG:?is run by tests/tools/run-valgrind.sh, which sets VG}"
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/made/images.bag
cat > "$tmp/vg" <<EOS
#!/bin/sh
LD_LIBRARY_PATH='$LD_LIBRARY_PATH' exec $VG --track-origins=${VG_ORIGINS:-no} --log-file="$tmp/vg.log" "$bin" "\$@"
EOS
chmod +x "$tmp/vg"
bin=$tmp/vg
start 120 40 "$bag"
wait_for "opens under valgrind" "row 1/1042"
# hide /wave (the last topic by name) from the connections pane, back to the list
keys BTab G x Tab
wait_for "only the frames are listed" "row 1/42 "
# (lib.sh's wait_for uses $i)
row=1
while [ $row -lt 42 ]; do
	keys j
	row=$((row + 1))
	wait_for "frame $row drawn" "row $row/42 " || break
done
check "stepped onto every frame" [ $row -eq 42 ]
keys q
wait_for "quits" "BROWSER-EXITED 0"
check "valgrind reports nothing" sh -c "! grep -q '^==[0-9]*== ' '$tmp/vg.log'"
grep '^==[0-9]*==' "$tmp/vg.log" | head -n 40
finish
