/*
 * conn.c - connection records (op 7): parsed into a struct bag_connection
 * whose strings all live in one allocation, freed, sorted by id and looked
 * up by id in O(log n). Used by bag.c (the index section) and recover.c (a
 * scan) alike.
 */
#include <stdlib.h>
#include <string.h>

#include <bagscope/record.h>
#include "lib/formats/bag-int.h"
#include "lib/common/util-int.h"

long bag_conn_lookup(const bag_t *bag, uint32_t conn_id)
{
	size_t lo = 0, hi = bag->nconns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bag->conns[mid].id < conn_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bag->nconns && bag->conns[lo].id == conn_id ? (long)lo : -1;
}

long bag_chunk_lookup(const bag_t *bag, uint64_t pos)
{
	size_t lo = 0, hi = bag->nchunks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bag->chunks[mid].pos < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bag->nchunks && bag->chunks[lo].pos == pos ? (long)lo : -1;
}

long bag_chunk_conn_slot(const bag_t *bag, size_t i, uint32_t conn)
{
	const struct chunk_conn *cc = &bag->chunk_conns[bag->chunks[i].conn_first];
	uint32_t lo = 0, hi = bag->chunks[i].conn_n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cc[mid].conn < conn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bag->chunks[i].conn_n && cc[lo].conn == conn ? (long)lo : -1;
}

/* The value of field name among c's fields, or "". */
static const char *conn_field(const struct bag_connection *c, const char *name)
{
	for (size_t i = 0; i < c->nfields; i++)
		if (strcmp(c->fields[i].name, name) == 0)
			return c->fields[i].value;
	return "";
}

/* Point c's named members at its fields of those names. */
static void conn_named_fields(struct bag_connection *c)
{
	c->type = conn_field(c, "type");
	c->md5sum = conn_field(c, "md5sum");
	c->definition = conn_field(c, "message_definition");
	c->callerid = conn_field(c, "callerid");
	c->latching = strcmp(conn_field(c, "latching"), "1") == 0;
}

/* Everything a connection owns is one block, starting with its fields array. */
void bag_conn_free(struct bag_connection *c)
{
	free((struct bag_kv *)c->fields);
	c->fields = NULL;
	c->nfields = 0;
}

/* Copy len bytes to *at as a NUL-terminated string; advance *at past it. */
static const char *put_str(char **at, const void *p, size_t len)
{
	char *s = *at;

	memcpy(s, p, len);
	s[len] = '\0';
	*at += len + 1;
	return s;
}

/*
 * One allocation per connection: the fields array, then the topic and every
 * field's name and value, each NUL-terminated (a million connections are a
 * million allocations, not fourteen million).
 */
int bag_parse_connection(bag_t *bag, const struct bag_record *rec, uint64_t off,
                         struct bag_connection *c)
{
	const uint8_t *topic;
	uint32_t topic_len, pos = 0, n = 0;
	size_t bytes;
	struct bag_field f;
	struct bag_kv *kv;
	char *at;
	int rc;

	memset(c, 0, sizeof *c);
	if (bag_header_u32(rec->header, rec->header_len, "conn", &c->id) != BAG_OK ||
	    bag_header_find(rec->header, rec->header_len, "topic", &topic, &topic_len) != BAG_OK)
		return bag_fail(bag, BAG_ECORRUPT, off, "connection record lacks conn or topic");
	bytes = (size_t)topic_len + 1;
	while ((rc = bag_header_next(rec->data, rec->data_len, &pos, &f)) == 1) {
		n++;
		bytes += (size_t)f.name_len + f.value_len + 2;
	}
	if (rc < 0)
		return bag_fail(bag, BAG_ECORRUPT, off + 8 + rec->header_len + pos,
		                "connection header field overruns its record");
	kv = malloc(n * sizeof *kv + bytes);
	if (kv == NULL)
		return bag_fail(bag, BAG_ENOMEM, UINT64_MAX, "out of memory");
	at = (char *)(kv + n);
	c->fields = kv;
	c->topic = put_str(&at, topic, topic_len);
	pos = 0;
	while (bag_header_next(rec->data, rec->data_len, &pos, &f) == 1) {
		kv[c->nfields].name = put_str(&at, f.name, f.name_len);
		kv[c->nfields].value = put_str(&at, f.value, f.value_len);
		kv[c->nfields].value_len = f.value_len;
		c->nfields++;
	}
	conn_named_fields(c);
	return BAG_OK;
}

int bag_conn_build(struct bag_connection *c, uint32_t id, const char *topic, const struct bag_kv *kv, size_t n)
{
	size_t bytes = strlen(topic) + 1;
	struct bag_kv *out;
	char *at;

	for (size_t i = 0; i < n; i++)
		bytes += strlen(kv[i].name) + kv[i].value_len + 2;
	if ((out = malloc(n * sizeof *out + bytes)) == NULL)
		return BAG_ENOMEM;
	memset(c, 0, sizeof *c);
	at = (char *)(out + n);
	c->id = id;
	c->fields = out;
	c->topic = put_str(&at, topic, strlen(topic));
	for (size_t i = 0; i < n; i++) {
		out[i].name = put_str(&at, kv[i].name, strlen(kv[i].name));
		out[i].value = put_str(&at, kv[i].value_len ? kv[i].value : "", kv[i].value_len);
		out[i].value_len = kv[i].value_len;
	}
	c->nfields = n;
	conn_named_fields(c);
	return BAG_OK;
}

BAG_API bool bag_conn_has_definition(const struct bag_connection *c)
{
	for (size_t i = 0; i < c->nfields; i++)
		if (strcmp(c->fields[i].name, "message_definition") == 0)
			return true;
	return false;
}

BAG_API int bag_conn_msgdef_parse(bag_msgdef_t **out, const struct bag_connection *c)
{
	return bag_msgdef_parse_as(out, c->type, c->definition, strlen(c->definition), c->encoding);
}

static int cmp_conn_id(const void *a, const void *b)
{
	const struct bag_connection *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

void bag_conns_sort(bag_t *bag)
{
	if (bag->nconns > 1)
		bag_sort(bag->conns, bag->nconns, sizeof *bag->conns, cmp_conn_id);
	for (size_t i = 0; i < bag->nconns; i++)
		bag->conns[i].index = (uint32_t)i;
}

void bag_reset_index(bag_t *bag)
{
	for (size_t i = 0; i < bag->nconns; i++)
		bag_conn_free(&bag->conns[i]);
	free(bag->conns);
	free(bag->chunks);
	free(bag->chunk_conns);
	bag->conns = NULL;
	bag->chunks = NULL;
	bag->chunk_conns = NULL;
	bag->nconns = bag->nchunks = bag->nchunk_conns = 0;
	bag->message_count = 0;
	bag->start_ns = bag->end_ns = 0;
}
