#!/bin/sh
# Screen test: a 1.1 bag whose type's .msg file cannot be found (the sample
# gen_v11_rosrecord.bag with std_msgs/Int32 renamed my_msgs/Int32a, same
# length). The connection detail says there is no definition and what to do
# (--msg-path), never an md5 of nothing; the log says the bag has no index
# and names the type without a definition.
. "$(dirname "$0")/lib.sh"
LC_ALL=C sed 's|std_msgs/Int32|my_msgs/Int32a|g' "$top/tests/data/oldbags/gen_v11_rosrecord.bag" > "$tmp/v11.bag"
start 120 40 "$tmp/v11.bag"
wait_for "opens" "row 1/23 "
keys g j v v
wait_for "the connection detail" "Detail: connection"
wait_for "says there is no definition" "- no definition:"
wait_for "... and what to do" "bagscope --msg-path DIR"
check "no md5 of an empty definition" sh -c "! $T capture-pane -p -t main | grep -q 'd41d8cd9\\|MISMATCH'"
keys L
wait_for "the log: no index, one pass over the records" "a 1\\.1 bag, which has no index: 23"
wait_for "the log names the type without a definition" "no definition of my_msgs/Int32a"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
