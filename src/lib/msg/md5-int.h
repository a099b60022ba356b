/* md5-int.h - MD5 (RFC 1321, from libmd), for the ROS message md5sum. Never installed. */
#ifndef BAGSCOPE_MD5_INT_H
#define BAGSCOPE_MD5_INT_H

#include <stddef.h>
#include <stdint.h>

/* The digest of data[0..len) as 32 lower-case hex digits and a NUL. */
void md5_hex(const void *data, size_t len, char out[33]);

#endif
