/* Native-messaging frames: parsing, header encoding and payload decoding. */
#include "nm-frame.h"

#include <string.h>

#include "xmalloc.h"

/* Looks at buf for one frame and says what it holds; reads nothing else. */
enum nm_frame_status
nm_frame_parse(const uint8_t *buf, size_t len, size_t max,
    const uint8_t **payload, size_t *payload_len, size_t *consumed,
    uint32_t *declared)
{
	uint32_t	length;

	if (len < NM_FRAME_HEADER_SIZE)
		return NM_FRAME_NEED_MORE;
	memcpy(&length, buf, sizeof length);
	*declared = length;

	if (length == 0) {
		*consumed = NM_FRAME_HEADER_SIZE;
		return NM_FRAME_EMPTY;
	}
	if (length > max) {
		if (length > NM_FRAME_MAX_SKIP)
			return NM_FRAME_CORRUPT;
		*consumed = NM_FRAME_HEADER_SIZE;
		return NM_FRAME_TOO_LARGE;
	}
	if (len - NM_FRAME_HEADER_SIZE < length)
		return NM_FRAME_NEED_MORE;

	*payload = buf + NM_FRAME_HEADER_SIZE;
	*payload_len = length;
	*consumed = NM_FRAME_HEADER_SIZE + (size_t)length;
	return NM_FRAME_OK;
}

/* Writes the 4-byte native-order length header of a frame. */
void
nm_frame_header_encode(uint8_t header[NM_FRAME_HEADER_SIZE], uint32_t length)
{
	memcpy(header, &length, sizeof length);
}

/* Names a JSON value's type for an error message ("a JSON array"). */
static const char *
nm_frame_type_name(const json_t *value)
{
	switch (json_typeof(value)) {
	case JSON_OBJECT:
		return "a JSON object";
	case JSON_ARRAY:
		return "a JSON array";
	case JSON_STRING:
		return "a JSON string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a JSON number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a JSON boolean";
	case JSON_NULL:
		return "JSON null";
	}
	return "an unknown JSON value";
}

/* Decodes a payload into a JSON object; NULL and a cause if it is not one. */
json_t *
nm_frame_decode(const uint8_t *payload, size_t len, char **cause)
{
	json_error_t	 error;
	json_t		*value;

	/* Default flags: a NUL byte, raw or as \u0000, is rejected. */
	value = json_loadb((const char *)payload, len, JSON_DECODE_ANY, &error);
	if (value == NULL) {
		if (json_error_code(&error) == json_error_invalid_utf8) {
			*cause = xasprintf("not valid UTF-8 (byte %d)",
			    error.position);
		} else {
			*cause = xasprintf("invalid JSON: %s at line %d, "
			    "column %d (byte %d)", error.text, error.line,
			    error.column, error.position);
		}
		return NULL;
	}
	if (!json_is_object(value)) {
		*cause = xasprintf("%s, expected an object",
		    nm_frame_type_name(value));
		json_decref(value);
		return NULL;
	}
	return value;
}
