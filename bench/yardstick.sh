# bench/yardstick.sh - sourced by the benchmarks that compare with the C++
# rosbag library: builds ../shared/bench/cpp_rosbag.cpp (as its README says)
# into DIR once, and sets cpp to the program, or to nothing (with a note) when
# g++ or Debian's librosbag-storage-dev is missing. Needs dir set; CPP_ROSBAG
# names a program built elsewhere.
yard=$(cd "$(dirname "$0")/.." && pwd)/../shared/bench/cpp_rosbag.cpp
cpp=${CPP_ROSBAG:-$dir/cpp_rosbag}
if [ ! -x "$cpp" ] && [ -f "$yard" ]; then
	g++ -O2 -o "$cpp" "$yard" -I/usr/include/pluginlib -I/usr/include/class_loader \
		-I/usr/include/rcpputils -I/usr/include/rcutils -I/usr/include/ament_index_cpp \
		-lrosbag_storage -lroslz4 -lrostime -lcpp_common -lroscpp_serialization \
		-lconsole_bridge -lboost_filesystem 2>/dev/null || cpp=
fi
[ -x "$cpp" ] || { echo "(no cpp_rosbag: C++ figures left out)"; cpp=; }
