// tf2-ref.cpp - the yardstick for bagscope's transform buffer: Debian's
// libtf2 BufferCore, fed transforms and asked lookups from stdin, in the
// line format of tests/tools/tf-dump.py (fields separated by tabs):
//   T <static 0|1> <parent> <child> <sec> <nsec> <tx> <ty> <tz> <qx> <qy> <qz> <qw>
//   Q <target> <source> <sec> <nsec>
// For each Q it prints "OK sec nsec tx ty tz qx qy qz qw" (%.17g) or
// "ERR <exception>". The cache is ~3 years long, so that nothing a test bag
// holds is pruned (a bag is a whole recording, not a live window).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <tf2/buffer_core.h>
#include <tf2/exceptions.h>

static std::vector<std::string> split(const std::string &line)
{
	std::vector<std::string> f;
	size_t start = 0;
	for (;;) {
		size_t tab = line.find('\t', start);
		f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
		if (tab == std::string::npos)
			return f;
		start = tab + 1;
	}
}

static void lookup(tf2::BufferCore &buf, const std::vector<std::string> &f)
{
	ros::Time t((uint32_t)std::stoul(f[3]), (uint32_t)std::stoul(f[4]));
	try {
		geometry_msgs::TransformStamped r = buf.lookupTransform(f[1], f[2], t);
		const geometry_msgs::Transform &x = r.transform;
		std::printf("OK %u %u %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", r.header.stamp.sec, r.header.stamp.nsec,
		            x.translation.x, x.translation.y, x.translation.z, x.rotation.x, x.rotation.y, x.rotation.z,
		            x.rotation.w);
	} catch (const tf2::ConnectivityException &) {
		std::puts("ERR ConnectivityException");
	} catch (const tf2::ExtrapolationException &) {
		std::puts("ERR ExtrapolationException");
	} catch (const tf2::LookupException &) {
		std::puts("ERR LookupException");
	} catch (const tf2::InvalidArgumentException &) {
		std::puts("ERR InvalidArgumentException");
	}
}

int main()
{
	tf2::BufferCore buf(ros::Duration(100000000.0));
	std::string line;

	while (std::getline(std::cin, line)) {
		std::vector<std::string> f = split(line);
		if (f[0] == "Q" && f.size() == 5) {
			lookup(buf, f);
		} else if (f[0] == "T" && f.size() == 13) {
			geometry_msgs::TransformStamped t;
			t.header.frame_id = f[2];
			t.child_frame_id = f[3];
			t.header.stamp = ros::Time((uint32_t)std::stoul(f[4]), (uint32_t)std::stoul(f[5]));
			t.transform.translation.x = std::strtod(f[6].c_str(), nullptr);
			t.transform.translation.y = std::strtod(f[7].c_str(), nullptr);
			t.transform.translation.z = std::strtod(f[8].c_str(), nullptr);
			t.transform.rotation.x = std::strtod(f[9].c_str(), nullptr);
			t.transform.rotation.y = std::strtod(f[10].c_str(), nullptr);
			t.transform.rotation.z = std::strtod(f[11].c_str(), nullptr);
			t.transform.rotation.w = std::strtod(f[12].c_str(), nullptr);
			buf.setTransform(t, "bag", f[1] == "1");
		} else {
			std::fprintf(stderr, "tf2-ref: bad line: %s\n", line.c_str());
			return 2;
		}
	}
	return 0;
}
