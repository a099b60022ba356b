// cxx-link.cpp - a C++ program using libbagscope through the umbrella header:
// every public header must compile as C++ and every call must link (the
// extern "C" guards), and the version compiled against must be the one
// linked. Opens a fixture bag and reads, decodes and prints one message.
#include <cstdio>
#include <cstring>
#include <string>

#include <bagscope/bagscope.h>

#define FAIL(...) do { std::fprintf(stderr, "cxx-link: " __VA_ARGS__); std::fputc('\n', stderr); return 1; } while (0)

int main()
{
	if (std::string(bag_version_string()) != BAG_VERSION_STRING || bag_lib_version() != BAG_VERSION_NUMBER)
		FAIL("compiled against %s, linked with %s", BAG_VERSION_STRING, bag_version_string());
	bag_open_opts opts = BAG_OPEN_OPTS_INIT;
	bag_t *bag = nullptr;
	if (bag_open(&bag, TEST_DATA_DIR "/fixtures/bags/basic_none.bag", &opts) != BAG_OK) {
		std::string why = bag_last_error(bag)->message;
		bag_close(bag);
		FAIL("%s", why.c_str());
	}
	bag_timeline_t *tl = nullptr;
	bag_view_t *view = nullptr;
	bag_msgdef_t *def = nullptr;
	bag_text text = {};
	bag_message m;
	struct bag_error err;
	int rc = bag_timeline_open(&tl, &bag, 1);
	if (rc == BAG_OK)
		rc = bag_view_open(&view, tl, nullptr);
	if (rc == BAG_OK)
		rc = bag_view_read(view, 0, &m);
	if (rc == BAG_OK)
		rc = bag_msgdef_parse(&def, m.conn->type, m.conn->definition, std::strlen(m.conn->definition));
	if (rc == BAG_OK)
		rc = bag_print_json(&text, def, m.data, m.size, &err);
	if (rc == BAG_OK)
		std::printf("%s %s %.*s\n", m.conn->topic, bag_strerror(rc), (int)text.len, text.p);
	bag_text_free(&text);
	bag_msgdef_free(def);
	bag_view_free(view);
	bag_timeline_free(tl);
	bag_close(bag);
	if (rc != BAG_OK)
		FAIL("%s", bag_strerror(rc));
	return 0;
}
