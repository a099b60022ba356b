#!/bin/sh
# Set bagscope up on a Debian machine: install the packages it needs (only the
# missing ones), bootstrap autotools, configure and build.
#   scripts/setup.sh          what building and browsing need
#   scripts/setup.sh --test   also what the test suite needs
# It runs in parts, which test.sh runs apart: --bootstrap installs what the
# build needs (with --test, also what the test programs' build needs) and
# bootstraps; --test-packages installs what only running the tests needs
# (test.sh installs them beside the builds: on a fresh machine, a minute of
# download and unpacking); --build only configures and builds.
set -e
cd "$(dirname "$0")/.."
test= half=
for a in "$@"; do
	case $a in
	--test) test=1 ;;
	--bootstrap|--test-packages|--build) half=$a ;;
	*) echo "usage: scripts/setup.sh [--test] [--bootstrap | --test-packages | --build]" >&2; exit 2 ;;
	esac
done
# apt_install PKG...: the ones not installed yet
apt_install() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	echo "setup: installing$missing"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -q
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
}

# bootstrap: the build's packages installed, autotools bootstrapped
bootstrap() {
	pkgs="gcc make autoconf automake libtool pkg-config libbz2-dev liblz4-dev libzstd-dev libsqlite3-dev libmd-dev libturbojpeg0-dev libspng-dev libcurl4-openssl-dev libncurses-dev libcmocka-dev"
	# for the tests: the test programs (cxx-link is C++; zlib's crc32() is what test-crc32
	# checks the library's CRC-32 against) and /usr/bin/time, which times test.sh's phases
	[ -z "$test" ] || pkgs="$pkgs g++ zlib1g-dev time"
	apt_install $pkgs
	[ -x configure ] || autoreconf -fi
}

# test_packages: what running the tests needs
test_packages() {
	pkgs="tmux python3 python3-rosbag python3-rostopic python3-pil valgrind locales-all ros-std-msgs zstd nginx-light libtf2-dev python3-tf2 python3-tf2-msgs python3-geometry-msgs python3-diagnostic-msgs lnav"
	# the Python package: built against Debian's CPython and numpy (PyPI is out of reach), tested with
	# pytest against python3-rosbag, pandas and a dask.distributed cluster
	pkgs="$pkgs python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-numpy python3-pytest python3-pandas python3-dask python3-distributed"
	# node and npm (the MCAP test's reader): Debian's, unless a node with its npm is there
	# already (NodeSource's nodejs ships npm and conflicts with Debian's npm package)
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
	apt_install $pkgs
}

# build: configured (once) and built
build() {
	[ -f Makefile ] || ./configure
	make -j"$(nproc)"
}

case $half in
--bootstrap) bootstrap ;;
--test-packages) test_packages ;;
--build) build ;;
*)	bootstrap
	if [ -n "$test" ]; then test_packages; fi
	build ;;
esac
