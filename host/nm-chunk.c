/* Outbound chunking: splits a long message into base64 chunk messages. */
#include "nm-chunk.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* Room for any id, index or count: 20 digits holds every uint64_t. */
#define NM_CHUNK_NUMBER_WIDTH	20

/* Encodes len bytes as standard base64 with padding; the caller frees it. */
static char *
nm_chunk_base64(const uint8_t *in, size_t len, size_t *out_len)
{
	static const char	 alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char			*out, *p;
	size_t			 i;
	uint32_t		 v;

	out = p = xmalloc(4 * ((len + 2) / 3) + 1);
	for (i = 0; len - i >= 3; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
		    in[i + 2];
		*p++ = alphabet[v >> 18 & 63];
		*p++ = alphabet[v >> 12 & 63];
		*p++ = alphabet[v >> 6 & 63];
		*p++ = alphabet[v & 63];
	}
	if (i < len) {
		v = (uint32_t)in[i] << 16;
		if (len - i == 2)
			v |= (uint32_t)in[i + 1] << 8;
		*p++ = alphabet[v >> 18 & 63];
		*p++ = alphabet[v >> 12 & 63];
		*p++ = len - i == 2 ? alphabet[v >> 6 & 63] : '=';
		*p++ = '=';
	}
	*p = '\0';
	*out_len = p - out;
	return out;
}

/* Builds one chunk envelope around already encoded data. */
static json_t *
nm_chunk_envelope(uint64_t id, size_t index, size_t count, const char *data,
    size_t data_len)
{
	return json_pack("{s:s, s:I, s:I, s:I, s:s%}", "type", "chunk",
	    "id", (json_int_t)id, "index", (json_int_t)index,
	    "count", (json_int_t)count, "data", data, data_len);
}

/* Returns the most raw bytes one chunk can carry within limit, or 0. */
size_t
nm_chunk_payload_size(size_t limit)
{
	json_t	*empty;
	char	*text;
	size_t	 overhead;

	/* The serialised envelope with no data and 1-digit numbers... */
	empty = nm_chunk_envelope(0, 0, 0, "", 0);
	text = json_dumps(empty, JSON_COMPACT);
	overhead = strlen(text);
	free(text);
	json_decref(empty);
	/* ...grows by up to 19 characters for each of its three numbers. */
	overhead += 3 * (NM_CHUNK_NUMBER_WIDTH - 1);

	/* Every 3 raw bytes take 4 base64 characters. */
	if (limit < overhead + 4)
		return 0;
	return (limit - overhead) / 4 * 3;
}

/*
 * Splits text into chunks of at most limit bytes serialised and calls emit
 * for each in order; returns the count (0 if limit cannot hold a chunk).
 * Empty text is one chunk with empty data, so the message still arrives.
 */
size_t
nm_chunk_split(const char *text, size_t len, uint64_t id, size_t limit,
    nm_chunk_emit_cb emit, void *arg)
{
	json_t	*chunk;
	char	*data;
	size_t	 size, count, index, offset, piece, data_len;

	size = nm_chunk_payload_size(limit);
	if (size == 0)
		return 0;
	count = len == 0 ? 1 : (len + size - 1) / size;

	for (index = 0; index < count; index++) {
		offset = index * size;
		piece = len - offset < size ? len - offset : size;
		data = nm_chunk_base64((const uint8_t *)text + offset, piece,
		    &data_len);
		chunk = nm_chunk_envelope(id, index, count, data, data_len);
		emit(chunk, arg);
		json_decref(chunk);
		free(data);
	}
	return count;
}
