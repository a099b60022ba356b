#!/bin/sh
# Set bagscope up on a Debian machine: install the packages it needs (only the
# missing ones), bootstrap autotools, configure and build.
#   scripts/setup.sh          what building and browsing need
#   scripts/setup.sh --test   also what the test suite needs
# It runs in two halves, which test.sh runs apart (the ASan copy starts
# between them): --bootstrap installs and bootstraps only, --build only
# configures and builds.
set -e
cd "$(dirname "$0")/.."
test= half=
for a in "$@"; do
	case $a in
	--test) test=1 ;;
	--bootstrap|--build) half=$a ;;
	*) echo "usage: scripts/setup.sh [--test] [--bootstrap | --build]" >&2; exit 2 ;;
	esac
done
# bootstrap: the missing packages installed, autotools bootstrapped
bootstrap() {
	pkgs="gcc make autoconf automake libtool pkg-config libbz2-dev liblz4-dev libzstd-dev libsqlite3-dev libmd-dev libturbojpeg0-dev libspng-dev libcurl4-openssl-dev libncurses-dev libcmocka-dev"
	if [ -n "$test" ]; then
		pkgs="$pkgs g++ tmux python3 python3-rosbag python3-rostopic python3-pil valgrind locales-all ros-std-msgs zstd nginx-light libtf2-dev python3-tf2 python3-tf2-msgs python3-geometry-msgs python3-diagnostic-msgs lnav time"
		# the Python package: built against Debian's CPython and numpy (PyPI is out of reach), tested with
		# pytest against python3-rosbag, pandas and a dask.distributed cluster
		pkgs="$pkgs python3-dev python3-venv python3-setuptools python3-wheel python3-numpy python3-pytest python3-pandas python3-dask python3-distributed"
		# zlib's crc32() is what test-crc32 checks the library's CRC-32 against
		pkgs="$pkgs zlib1g-dev"
		# node and npm (the MCAP test's reader): Debian's, unless a node with its npm is there
		# already (NodeSource's nodejs ships npm and conflicts with Debian's npm package)
		command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
	fi
	missing=
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "setup: installing$missing"
		sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		$sudo apt-get update -q
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
	fi
	[ -x configure ] || autoreconf -fi
}

# build: configured (once) and built
build() {
	[ -f Makefile ] || ./configure
	make -j"$(nproc)"
}

# (not `[ ... ] || bootstrap`: set -e does not act inside a function called on the right of ||)
if [ "$half" != --build ]; then bootstrap; fi
if [ "$half" != --bootstrap ]; then build; fi
