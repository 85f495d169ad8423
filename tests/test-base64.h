/*
 * Strict base64 decoding for the tests and fuzz targets that join chunk
 * messages (the host only encodes).
 */
#ifndef TEST_BASE64_H
#define TEST_BASE64_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Decodes standard base64 with padding; NULL if it is malformed. */
static inline uint8_t *
test_base64_decode(const char *in, size_t *out_len)
{
	static const char	 alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t			 len = strlen(in), i, j, n = 0;
	uint8_t			*out;
	uint32_t		 v;
	const char		*p;

	if (len % 4 != 0)
		return NULL;
	if ((out = malloc(len / 4 * 3 + 1)) == NULL)
		abort();
	for (i = 0; i < len; i += 4) {
		v = 0;
		for (j = 0; j < 4; j++) {
			v <<= 6;
			if (in[i + j] == '=' && i + 4 == len && j >= 2)
				continue;
			p = strchr(alphabet, in[i + j]);
			if (in[i + j] == '\0' || p == NULL ||
			    (j == 3 && in[i + 2] == '=')) {
				free(out);
				return NULL;
			}
			v |= (uint32_t)(p - alphabet);
		}
		out[n++] = v >> 16;
		if (in[i + 2] != '=')
			out[n++] = v >> 8 & 0xff;
		if (in[i + 3] != '=')
			out[n++] = v & 0xff;
	}
	*out_len = n;
	return out;
}

#endif
