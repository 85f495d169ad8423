/*
 * Fuzz target: outbound chunking. The input is a message's text; the first
 * two bytes choose the frame limit. Every chunk fits the limit, names the
 * same id, counts its index up, and the chunks' data, decoded and joined,
 * is the text again.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <jansson.h>

#include "nm-chunk.h"
#include "test-base64.h"

#define FUZZ_CHUNK_ID	42

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_join {
	size_t		 limit;
	size_t		 next_index;
	size_t		 count;
	struct evbuffer	*joined;
};

/* Checks one chunk and adds its data to the join. */
static void
fuzz_chunk(const json_t *chunk, void *arg)
{
	struct fuzz_join	*join = arg;
	char			*text = json_dumps(chunk, JSON_COMPACT);
	uint8_t			*piece;
	size_t			 len;

	if (strlen(text) > join->limit ||
	    json_integer_value(json_object_get(chunk, "id")) != FUZZ_CHUNK_ID ||
	    (size_t)json_integer_value(json_object_get(chunk, "index")) !=
	    join->next_index++)
		abort();
	join->count = (size_t)json_integer_value(json_object_get(chunk,
	    "count"));
	piece = test_base64_decode(json_string_value(json_object_get(chunk,
	    "data")), &len);
	if (piece == NULL)
		abort();
	evbuffer_add(join->joined, piece, len);
	free(piece);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_join	 join = { 0 };
	size_t			 count;

	if (size < 2)
		return 0;
	join.limit = 64 + ((size_t)data[0] << 8 | data[1]) % 4096;
	join.joined = evbuffer_new();
	count = nm_chunk_split((const char *)data + 2, size - 2, FUZZ_CHUNK_ID,
	    join.limit, fuzz_chunk, &join);
	if (count != 0 && (count != join.next_index || count != join.count ||
	    evbuffer_get_length(join.joined) != size - 2 || (size > 2 &&
	    memcmp(evbuffer_pullup(join.joined, -1), data + 2, size - 2) != 0)))
		abort();
	evbuffer_free(join.joined);
	return 0;
}
