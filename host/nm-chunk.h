/*
 * Outbound chunking. Chrome drops the port if one host-to-browser message
 * exceeds 1 MB, so a larger serialised message is sent as a run of chunk
 * messages the extension reassembles (envelope in docs/protocol.md):
 *
 *   {"type":"chunk","id":7,"index":0,"count":3,"data":"<base64>"}
 *
 * "id" numbers the chunked message, "index" runs from 0 to count-1, and the
 * base64 "data" of all chunks, decoded and joined in order, is the UTF-8
 * JSON text of the original message.
 */
#ifndef NM_CHUNK_H
#define NM_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Called once per chunk message, in order; the callee must not keep it. */
typedef void (*nm_chunk_emit_cb)(const json_t *chunk, void *arg);

size_t	 nm_chunk_payload_size(size_t limit);
size_t	 nm_chunk_split(const char *text, size_t len, uint64_t id,
	    size_t limit, nm_chunk_emit_cb emit, void *arg);

#endif
