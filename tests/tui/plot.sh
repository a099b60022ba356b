#!/bin/sh
# Screen test: the plot pane and pictures in the detail, in the real browser
# in tmux (polling the screen, never a fixed sleep), over made/images.bag.
# - p opens a prompt; Tab completes the topic, then the field; Enter plots
#   /wave.data: its spike of 50 tops the y axis, the value under the cursor
#   follows the selection, + zooms (the axis narrows), } pans and the
#   selection follows, P closes.
# - an rgb8 image is drawn in half blocks with the pattern's colours: the
#   nearest of 256 colours through curses, and exact 24-bit colours written
#   past curses when COLORTERM=truecolor (capture-pane -e keeps colours);
#   a damaged frame says why in the pane; a PointCloud2 shows its fields.
# Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/made/images.bag
# show_only N: solo the N-th topic (0-based, name order) and focus the list
show_only() {
	keys g BTab g
	i=0; while [ $i -lt "$1" ]; do keys j; i=$((i + 1)); done
	keys o Tab
}
# open ENV: the browser on the bag, in colour, with ENV added
open_bag() {
	START_ENV="$1" start 160 45 "$bag"
	wait_for "opens" "row 1/1042"
}

open_bag ""
keys p
wait_for "p opens the plot prompt" "plot \\(up to 4 paths"
keys -l "/wa"
keys Tab
wait_for "Tab completes the topic" "Tab completes\\): /wave\\.$"
keys -l "da"
keys Tab
wait_for "Tab completes the field" "Tab completes\\): /wave\\.data$"
keys Enter
wait_for "the plot pane with the value under the cursor" "Plot +/wave\\.data = 0 "
wait_for "the whole wave reduced" "1000 samples +\\[\\+ -\\] zoom"
wait_for "the one-sample spike tops the axis" "^ +50┤"
wait_for "the time axis spans the bag" "^ +\\+0\\.000 s +\\+9\\.990 s$"
keys j j j j j
wait_for "the value follows the selection" "/wave\\.data = 0\\.124675 "
keys + +
wait_for "+ zooms around the cursor (kept in its place)" "^ +\\+0\\.037 s +\\+2\\.535 s$"
keys "}"
wait_for "} pans and the selection follows" "row 6[0-9]/1042"
keys P
wait_for "P closes the plot" "Messages +1042 shown"

show_only 19
wait_for "an rgb8 image in the detail" "Detail: image 16x8 rgb8 +61x16 cells +256 colours"
# pixel (0, 0) is (3, 22, 41): grey 233 of the 256; (1, 0) is (43, 62, 81): 237
wait_for "its colours, 256 of them" "\\[38;5;233m.\\[48;5;233m▀▀▀▀.\\[38;5;237m.\\[48;5;237m▀▀▀▀" -e
show_only 6
keys j
wait_for "a damaged frame says why" "cannot show this image: data holds 414 bytes, height 8 x"
wait_for "... wrapped to the pane" " step 53 needs 424 *$"
wait_for "... over the decoded tree" "^ .* +- data: uint8\\[414\\]"
keys j
wait_for "an unknown encoding says so" "cannot show this image: unknown image encoding 'rgb9'"
wait_for "... over the decoded tree" "^ .* +encoding: \"rgb9\""
show_only 22
wait_for "a point cloud's facts" "40 points \\(1 x 40\\) +little-endian +dense no"
wait_for "... and layout" "point_step 20 +row_step 800 +5 fields"
wait_for "its fields with extremes" "intensity +float32 +12 +1 +0\\.000 +39\\.000 +1"
wait_for "its top-down picture" "top-down: x right \\(10\\.000 m\\), y up \\(10\\.000 m\\)"
keys q
wait_for "q quits cleanly" "BROWSER-EXITED 0"
$T kill-session -t main

open_bag "COLORTERM=truecolor"
show_only 19
wait_for "24-bit where COLORTERM says so" "Detail: image 16x8 rgb8 +61x16 cells +24-bit"
wait_for "the pattern's exact colours" "\\[38;2;3;22;41m.\\[48;2;3;22;41m▀▀▀▀.\\[38;2;43;62;81m" -e
keys "?"
wait_for "help covers the picture" "bagscope keys"
keys x
wait_for "the picture comes back after the help" "\\[38;2;3;22;41m" -e
keys j
wait_for "the next frame's colours (pattern + 1)" "\\[38;2;4;23;42m" -e
keys q
wait_for "q quits cleanly" "BROWSER-EXITED 0"
finish
