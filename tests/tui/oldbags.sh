#!/bin/sh
# Screen test: the browser opens a bag of every format older than 2.0 (the
# samples of tests/data/oldbags) and shows its messages decoded: the status
# line's row count, the topics, a decoded detail, relative times as offsets
# and a message without a definition in hex. Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
old=$top/tests/data/oldbags
# browse NAME FILE: a new browser on FILE (definitions from Debian's /usr/share)
browse() { START_ENV="NO_COLOR=1 ROS_PACKAGE_PATH=/usr/share" start 110 30 "$old/$2"; }

for f in gen_v12_indexed gen_v12_unindexed gen_v12_indexed_truncated gen_v11_rosrecord gen_v11_roslog gen_v10 gen_v0; do
	n=23; [ $f = gen_v0 ] && n=10; [ $f = gen_v12_indexed_truncated ] && n=22
	browse $f $f.bag
	wait_for "$f: opens with its $n messages" "row 1/$n "
	wait_for "$f: the first message decoded" "data: \"?hello world 0"
	case $f in
	gen_v10|gen_v0) wait_for "$f: times are offsets" "\\+0\\.000s since the recording started" ;;
	gen_v12_indexed_truncated) wait_for "$f: says it was read by a scan" "row 1/22 .*\\| " ;;
	*) wait_for "$f: times are dates" "2010-01-01 00:00:00\\.000 UTC" ;;
	esac
	[ $f = gen_v0 ] || wait_for "$f: every topic listed" "numbers +std_msgs/Int32 +2 "
done
browse monster monster.bag
wait_for "monster (1.0, 2008): opens" "row 1/1 "
wait_for "monster: a message without a definition shown in hex" "00000000 +[0-9a-f]{2} [0-9a-f]{2}"
wait_for "monster: the row says why" "675911 \\(no definition: \\*\\)"
wait_for "monster: its time as an offset" "\\+4\\.490s since the recording started"
$T send-keys -t main q
wait_for "quits cleanly" "BROWSER-EXITED 0"
finish
