#!/bin/sh
# Screen test: the plot pane without colour (NO_COLOR) tells its series apart
# by marker (the first braille, the second '+', in the chart and the title);
# zoomed in past a second, the time axis gives its left end to the
# nanoseconds the window needs and the right end and the cursor as offsets
# from it, so no two labels read the same (not "+0.037 s" three times).
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/made/images.bag
start 160 45 "$bag"
wait_for "opens" "row 1/1042"
keys p
wait_for "the plot prompt" "plot \\(up to 4 paths"
keys -l "/wave.data, /wave.data * 2"
keys Enter
wait_for "each series named with its marker" "Plot +⣿ /wave\\.data = 0 +\\+ /wave\\.data \\* 2 = 0 "
wait_for "the whole wave reduced" "1000 samples +\\[\\+ -\\] zoom"
check "the second series is drawn with '+'" sh -c "$T capture-pane -p -t main | grep -Eq '^ +[0-9.-]* *[┤│].*\\+'"
keys j j j j j
i=0; while [ $i -lt 14 ]; do keys +; i=$((i + 1)); done
wait_for "deep zoom: a base to the needed decimals, the right end an offset" "^ +\\+0\\.[0-9]{4,9} s +\\+[0-9.]+ (ms|us|ns)\$"
check "the two ends read differently" sh -c "$T capture-pane -p -t main | grep -Eq '^ +\\+0\\.[0-9]{4,9} s +\\+[1-9][0-9.]* (ms|us|ns)\$'"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
