#!/bin/sh
# Screen test: the plot prompt edits as every prompt does. After a plot,
# p opens it empty (not pre-filled with the last plot, which new text was
# appended to); Ctrl-W deletes the last word, Ctrl-U the line; Up recalls
# the last plot from the history.
. "$(dirname "$0")/lib.sh"
start 120 40 "$top/tests/data/fixtures/made/images.bag"
wait_for "opens" "row 1/1042"
keys p
keys -l "/wave.data"
keys Enter
wait_for "the plot" "Plot +/wave\\.data = "
keys p
wait_for "p opens the prompt empty" "Tab completes\\):$"
keys -l "/wave.data more words"
keys C-w
wait_for "Ctrl-W deletes the last word" "Tab completes\\): /wave\\.data more$"
keys C-u
wait_for "Ctrl-U deletes the line" "Tab completes\\):$"
keys Up
wait_for "Up recalls the last plot" "Tab completes\\): /wave\\.data$"
keys Escape q
wait_for "quits" "BROWSER-EXITED 0"
finish
