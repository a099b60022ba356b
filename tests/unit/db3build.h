/*
 * db3build.h - rosbag2 .db3 files written by SQLite itself, with the
 * Foxy..Humble schema (no message_definitions) and no metadata.yaml: a lone
 * file, opened from the messages table's indexes. For the unit tests.
 */
#ifndef BAGSCOPE_TEST_DB3BUILD_H
#define BAGSCOPE_TEST_DB3BUILD_H

#include <stdint.h>
#include <unistd.h>
#include <sqlite3.h>

/*
 * path: n 8-byte std_msgs/msg/Int32 messages 1 ms apart from 1500000000 s,
 * on /a and /b (row i on /b when i % every == every - 1), then the SQL of
 * extra (NULL: none), in one transaction.
 */
static void db3_write(const char *path, int n, int every, const char *extra)
{
	static const unsigned char data[8] = { 0, 1, 0, 0, 7, 0, 0, 0 };
	sqlite3 *db;
	sqlite3_stmt *s;

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, "
	                              "serialization_format TEXT, offered_qos_profiles TEXT);"
	                              "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, "
	                              "data BLOB); CREATE INDEX timestamp_idx ON messages (timestamp ASC);"
	                              "INSERT INTO topics VALUES (1, '/a', 'std_msgs/msg/Int32', 'cdr', '');"
	                              "INSERT INTO topics VALUES (2, '/b', 'std_msgs/msg/Int32', 'cdr', '');"
	                              "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO messages (topic_id, timestamp, data) VALUES (?1, ?2, ?3)",
	                                    -1, &s, NULL), SQLITE_OK);
	for (int i = 0; i < n; i++) {
		sqlite3_bind_int(s, 1, i % every == every - 1 ? 2 : 1);
		sqlite3_bind_int64(s, 2, 1500000000000000000LL + (int64_t)i * 1000000);
		sqlite3_bind_blob(s, 3, data, sizeof data, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	if (extra != NULL)
		assert_int_equal(sqlite3_exec(db, extra, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

#endif
