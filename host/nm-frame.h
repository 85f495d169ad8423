/*
 * Native-messaging frames: a 32-bit length in native byte order, then that
 * many bytes of UTF-8 JSON. The parser only looks at bytes it is handed; it
 * never reads a file descriptor, so tests and fuzzers can feed it directly.
 */
#ifndef NM_FRAME_H
#define NM_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define NM_FRAME_HEADER_SIZE	4
/* Default cap on one inbound (browser to host) message. */
#define NM_FRAME_DEFAULT_MAX	(64u * 1024 * 1024)
/* Chrome drops the port when one host-to-browser message is larger. */
#define NM_FRAME_OUTBOUND_MAX	(1024u * 1024)
/*
 * An oversized frame up to this length is skipped, keeping the stream in
 * step; a longer declared length means the stream is corrupt.
 */
#define NM_FRAME_MAX_SKIP	(1024u * 1024 * 1024)

enum nm_frame_status {
	NM_FRAME_OK,		/* a whole frame: payload and consumed set */
	NM_FRAME_NEED_MORE,	/* not yet a whole header or payload */
	NM_FRAME_EMPTY,		/* a zero-length frame: consumed set, skip it */
	NM_FRAME_TOO_LARGE,	/* length > max: *declared set; skip it */
	NM_FRAME_CORRUPT,	/* length > NM_FRAME_MAX_SKIP: cannot resync */
};

enum nm_frame_status nm_frame_parse(const uint8_t *buf, size_t len,
		    size_t max, const uint8_t **payload, size_t *payload_len,
		    size_t *consumed, uint32_t *declared);
void		 nm_frame_header_encode(uint8_t header[NM_FRAME_HEADER_SIZE],
		    uint32_t length);
json_t		*nm_frame_decode(const uint8_t *payload, size_t len,
		    char **cause);

#endif
