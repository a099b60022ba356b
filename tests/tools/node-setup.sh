# node-setup.sh - sourced by the tests that check bagscope against npm's
# writers, readers and servers: installs the packages of NODE_SET, pinned -
# mcap (the default: the MCAP and ROS serializers of mcap-read.sh,
# rosbag2-sqlite.sh and export-mcap.sh) or s3 (the S3 server of remote-s3.sh)
# - once into $BAGSCOPE_MADE/node or node-s3 (test.sh gives both of its trees
# the same BAGSCOPE_MADE, by default the build tree's tests/made/, and
# installs both sets there beside its builds), one install at a time, under
# flock, as make check runs these tests in parallel; exports NODE_PATH; exits
# 77 (skipped) without node and npm, or without network for the first
# install. Needs BUILDDIR.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { echo "node or npm not installed: skipped"; exit 77; }
case ${NODE_SET:-mcap} in
s3)	NODEDIR=node-s3 PKGS=@20minutes/s3rver@4.0.4 ;;
*)	NODEDIR=node PKGS="@mcap/core@2.2.2 lz4js@0.2.0 @foxglove/rosmsg@5.0.5 @foxglove/rosmsg-serialization@2.0.4 @foxglove/rosmsg2-serialization@3.1.0 @foxglove/cdr@3.5.0" ;;
esac
NODEDIR=${BAGSCOPE_MADE:-$BUILDDIR/tests/made}/$NODEDIR
mkdir -p "$NODEDIR"
(
	flock 9
	for p in $PKGS; do
		[ -f "$NODEDIR/node_modules/${p%@*}/package.json" ] && continue
		# shellcheck disable=SC2086
		npm install --prefix "$NODEDIR" --no-audit --no-fund --no-save --loglevel=error $PKGS >/dev/null 2>&1 || exit 1
		break
	done
) 9>"$NODEDIR/.lock" || { echo "npm install $PKGS failed (offline?): skipped"; exit 77; }
NODE_PATH=$(cd "$NODEDIR" && pwd)/node_modules
export NODE_PATH
