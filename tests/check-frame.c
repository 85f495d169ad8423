/* Tests for native-messaging frame parsing, decoding and chunking. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "check-helpers.h"
#include "nm-chunk.h"
#include "nm-frame.h"
#include "test-base64.h"
#include "xmalloc.h"

/* Builds a frame (header + payload) in a heap buffer. */
static uint8_t *
frame_make(const char *payload, size_t len, size_t *frame_len)
{
	uint8_t	*frame = xmalloc(NM_FRAME_HEADER_SIZE + len);

	nm_frame_header_encode(frame, (uint32_t)len);
	memcpy(frame + NM_FRAME_HEADER_SIZE, payload, len);
	*frame_len = NM_FRAME_HEADER_SIZE + len;
	return frame;
}

/* Parses buf, filling the outputs with a marker first to see what is set. */
static enum nm_frame_status
frame_parse(const uint8_t *buf, size_t len, size_t max,
    const uint8_t **payload, size_t *payload_len, size_t *consumed,
    uint32_t *declared)
{
	*payload = NULL;
	*payload_len = *consumed = (size_t)-1;
	*declared = 0xdeadbeef;
	return nm_frame_parse(buf, len, max, payload, payload_len, consumed,
	    declared);
}

START_TEST(test_parse_whole_frame)
{
	const uint8_t	*payload;
	uint8_t		*frame;
	size_t		 frame_len, payload_len, consumed;
	uint32_t	 declared;

	frame = frame_make("{\"a\":1}", 7, &frame_len);
	ck_assert_int_eq(frame_parse(frame, frame_len, 100, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_OK);
	ck_assert_ptr_eq(payload, frame + 4);
	ck_assert_uint_eq(payload_len, 7);
	ck_assert_uint_eq(consumed, 11);
	ck_assert_mem_eq(payload, "{\"a\":1}", 7);
	free(frame);
}
END_TEST

START_TEST(test_parse_header_is_native_order)
{
	uint8_t		header[4];
	uint32_t	length = 0x01020304;

	nm_frame_header_encode(header, length);
	ck_assert_mem_eq(header, &length, 4);
}
END_TEST

START_TEST(test_parse_partial_header)
{
	const uint8_t	*payload;
	uint8_t		*frame;
	size_t		 frame_len, payload_len, consumed, n;
	uint32_t	 declared;

	frame = frame_make("{}", 2, &frame_len);
	for (n = 0; n < NM_FRAME_HEADER_SIZE; n++) {
		ck_assert_int_eq(frame_parse(frame, n, 100, &payload,
		    &payload_len, &consumed, &declared), NM_FRAME_NEED_MORE);
	}
	free(frame);
}
END_TEST

START_TEST(test_parse_partial_payload)
{
	const uint8_t	*payload;
	uint8_t		*frame;
	size_t		 frame_len, payload_len, consumed, n;
	uint32_t	 declared;

	frame = frame_make("{\"key\":\"value\"}", 15, &frame_len);
	for (n = NM_FRAME_HEADER_SIZE; n < frame_len; n++) {
		ck_assert_int_eq(frame_parse(frame, n, 100, &payload,
		    &payload_len, &consumed, &declared), NM_FRAME_NEED_MORE);
	}
	ck_assert_int_eq(frame_parse(frame, frame_len, 100, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_OK);
	free(frame);
}
END_TEST

START_TEST(test_parse_two_frames_in_one_buffer)
{
	const uint8_t	*payload;
	uint8_t		*one, *two, buf[64];
	size_t		 one_len, two_len, payload_len, consumed;
	uint32_t	 declared;

	one = frame_make("{\"n\":1}", 7, &one_len);
	two = frame_make("{\"n\":22}", 8, &two_len);
	memcpy(buf, one, one_len);
	memcpy(buf + one_len, two, two_len);

	ck_assert_int_eq(frame_parse(buf, one_len + two_len, 100, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_OK);
	ck_assert_uint_eq(consumed, one_len);
	ck_assert_mem_eq(payload, "{\"n\":1}", payload_len);

	ck_assert_int_eq(frame_parse(buf + consumed, two_len, 100, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_OK);
	ck_assert_uint_eq(consumed, two_len);
	ck_assert_uint_eq(payload_len, 8);
	ck_assert_mem_eq(payload, "{\"n\":22}", payload_len);
	free(one);
	free(two);
}
END_TEST

START_TEST(test_parse_zero_length)
{
	const uint8_t	*payload;
	uint8_t		 frame[4];
	size_t		 payload_len, consumed;
	uint32_t	 declared;

	nm_frame_header_encode(frame, 0);
	ck_assert_int_eq(frame_parse(frame, 4, 100, &payload, &payload_len,
	    &consumed, &declared), NM_FRAME_EMPTY);
	ck_assert_uint_eq(consumed, 4);
}
END_TEST

START_TEST(test_parse_oversized)
{
	const uint8_t	*payload;
	uint8_t		 frame[4];
	size_t		 payload_len, consumed;
	uint32_t	 declared;

	/* Only the header is there: the payload is never waited for. */
	nm_frame_header_encode(frame, 5000);
	ck_assert_int_eq(frame_parse(frame, 4, 100, &payload, &payload_len,
	    &consumed, &declared), NM_FRAME_TOO_LARGE);
	ck_assert_uint_eq(declared, 5000);
	ck_assert_uint_eq(consumed, 4);

	nm_frame_header_encode(frame, NM_FRAME_MAX_SKIP);
	ck_assert_int_eq(frame_parse(frame, 4, 100, &payload, &payload_len,
	    &consumed, &declared), NM_FRAME_TOO_LARGE);
	ck_assert_uint_eq(declared, NM_FRAME_MAX_SKIP);
}
END_TEST

START_TEST(test_parse_corrupt)
{
	const uint8_t	*payload;
	uint8_t		 frame[4];
	size_t		 payload_len, consumed;
	uint32_t	 declared;

	nm_frame_header_encode(frame, NM_FRAME_MAX_SKIP + 1);
	ck_assert_int_eq(frame_parse(frame, 4, NM_FRAME_DEFAULT_MAX, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_CORRUPT);
	nm_frame_header_encode(frame, UINT32_MAX);
	ck_assert_int_eq(frame_parse(frame, 4, NM_FRAME_DEFAULT_MAX, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_CORRUPT);
}
END_TEST

START_TEST(test_parse_max_boundary)
{
	const uint8_t	*payload;
	char		 text[65];
	uint8_t		*frame;
	size_t		 frame_len, payload_len, consumed;
	uint32_t	 declared;

	memset(text, ' ', sizeof text);
	frame = frame_make(text, 64, &frame_len);
	ck_assert_int_eq(frame_parse(frame, frame_len, 64, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_OK);
	ck_assert_uint_eq(payload_len, 64);
	free(frame);

	frame = frame_make(text, 65, &frame_len);
	ck_assert_int_eq(frame_parse(frame, frame_len, 64, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_TOO_LARGE);
	ck_assert_uint_eq(declared, 65);
	ck_assert_uint_eq(consumed, 4);
	free(frame);
}
END_TEST

/* Decodes a payload expected to fail and checks the cause mentions want. */
static void
decode_fails(const char *payload, size_t len, const char *want)
{
	json_t	*value;
	char	*cause = NULL;

	value = nm_frame_decode((const uint8_t *)payload, len, &cause);
	ck_assert_ptr_null(value);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, want) != NULL,
	    "cause \"%s\" lacks \"%s\"", cause, want);
	free(cause);
}

START_TEST(test_decode_object)
{
	const char	*text = "{\"a\":[1,\"\xc3\xa9\"]}";
	json_t		*value, *expected;
	char		*cause = NULL;

	value = nm_frame_decode((const uint8_t *)text, strlen(text), &cause);
	expected = check_json("{\"a\":[1,\"\\u00e9\"]}");
	ck_assert_json_eq(value, expected);
	ck_assert_ptr_null(cause);
	json_decref(value);
	json_decref(expected);
}
END_TEST

START_TEST(test_decode_invalid_utf8)
{
	decode_fails("{\"a\":\"\xff\"}", 9, "not valid UTF-8");
	/* An overlong encoding of '/' and a lone surrogate. */
	decode_fails("{\"a\":\"\xc0\xaf\"}", 10, "not valid UTF-8");
	decode_fails("{\"a\":\"\xed\xa0\x80\"}", 11, "not valid UTF-8");
}
END_TEST

START_TEST(test_decode_broken_json)
{
	decode_fails("{\"a\":", 5, "invalid JSON");
	decode_fails("{\"a\":1", 6, "column");
	decode_fails("{\"a\":1}x", 8, "invalid JSON");
	decode_fails("{'a':1}", 7, "invalid JSON");
}
END_TEST

START_TEST(test_decode_rejects_nul)
{
	decode_fails("{\"a\":1}\0", 8, "invalid JSON");
	decode_fails("{\"a\":\"x\0y\"}", 11, "invalid JSON");
	decode_fails("{\"a\":\"\\u0000\"}", 14, "invalid JSON");
}
END_TEST

START_TEST(test_decode_not_object)
{
	decode_fails("[1,2]", 5, "a JSON array, expected an object");
	decode_fails("\"text\"", 6, "a JSON string, expected an object");
	decode_fails("42", 2, "a JSON number, expected an object");
	decode_fails("4.5", 3, "a JSON number, expected an object");
	decode_fails("true", 4, "a JSON boolean, expected an object");
	decode_fails("null", 4, "JSON null, expected an object");
}
END_TEST

/* Collects the chunks one split emits. */
struct chunks {
	size_t	 limit;
	json_t	*list;
	size_t	 longest;
};

/* Records one chunk and checks its serialised size against the limit. */
static void
chunks_emit(const json_t *chunk, void *arg)
{
	struct chunks	*chunks = arg;
	char		*text = json_dumps(chunk, JSON_COMPACT);
	size_t		 len = strlen(text);

	ck_assert_msg(len <= chunks->limit, "chunk of %zu > limit %zu", len,
	    chunks->limit);
	if (len > chunks->longest)
		chunks->longest = len;
	json_array_append_new(chunks->list, json_deep_copy(chunk));
	free(text);
}

/*
 * Splits text with the given limit, checks every envelope field and that
 * the decoded data joins back to exactly the text; returns the count.
 */
static size_t
chunks_roundtrip(const char *text, size_t len, uint64_t id, size_t limit)
{
	struct chunks	 chunks = { limit, json_array(), 0 };
	size_t		 count, size, i, got_len, piece_len = 0;
	uint8_t		*got, *piece;
	json_t		*chunk;

	size = nm_chunk_payload_size(limit);
	ck_assert_uint_gt(size, 0);
	count = nm_chunk_split(text, len, id, limit, chunks_emit, &chunks);
	ck_assert_uint_eq(count, len == 0 ? 1 : (len + size - 1) / size);
	ck_assert_uint_eq(json_array_size(chunks.list), count);

	got = xmalloc(len + 1);
	got_len = 0;
	json_array_foreach(chunks.list, i, chunk) {
		ck_assert_uint_eq(json_object_size(chunk), 5);
		ck_assert_str_eq(json_string_value(json_object_get(chunk,
		    "type")), "chunk");
		ck_assert_int_eq(json_integer_value(json_object_get(chunk,
		    "id")), (json_int_t)id);
		ck_assert_int_eq(json_integer_value(json_object_get(chunk,
		    "index")), (json_int_t)i);
		ck_assert_int_eq(json_integer_value(json_object_get(chunk,
		    "count")), (json_int_t)count);
		piece = test_base64_decode(json_string_value(json_object_get(chunk,
		    "data")), &piece_len);
		ck_assert_ptr_nonnull(piece);
		/* Every chunk but the last is full. */
		if (i + 1 < count)
			ck_assert_uint_eq(piece_len, size);
		ck_assert_uint_le(got_len + piece_len, len);
		memcpy(got + got_len, piece, piece_len);
		got_len += piece_len;
		free(piece);
	}
	ck_assert_uint_eq(got_len, len);
	ck_assert_mem_eq(got, text, len);
	free(got);
	json_decref(chunks.list);
	return count;
}

/* Makes len bytes of text that repeat a pattern. */
static char *
text_make(const char *pattern, size_t len)
{
	char	*text = xmalloc(len + 1);
	size_t	 plen = strlen(pattern), i;

	for (i = 0; i < len; i++)
		text[i] = pattern[i % plen];
	text[len] = '\0';
	return text;
}

START_TEST(test_chunk_base64_vectors)
{
	static const char *const vectors[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
		{ "\xff\xfe\xfd", "//79" }, { "\xfb\xef", "++8=" },
	};
	struct chunks	 chunks;
	size_t		 i;

	for (i = 0; i < sizeof vectors / sizeof *vectors; i++) {
		chunks.limit = 1000;
		chunks.list = json_array();
		chunks.longest = 0;
		ck_assert_uint_eq(nm_chunk_split(vectors[i][0],
		    strlen(vectors[i][0]), 1, 1000, chunks_emit, &chunks), 1);
		ck_assert_str_eq(json_string_value(json_object_get(
		    json_array_get(chunks.list, 0), "data")), vectors[i][1]);
		json_decref(chunks.list);
	}
}
END_TEST

START_TEST(test_chunk_payload_size)
{
	size_t	size = nm_chunk_payload_size(NM_FRAME_OUTBOUND_MAX);

	/* Base64 costs a third; the envelope costs a few dozen bytes more. */
	ck_assert_uint_le(size, NM_FRAME_OUTBOUND_MAX / 4 * 3);
	ck_assert_uint_ge(size, (NM_FRAME_OUTBOUND_MAX - 200) / 4 * 3);
	ck_assert_uint_eq(size % 3, 0);
	ck_assert_uint_eq(nm_chunk_payload_size(0), 0);
	ck_assert_uint_eq(nm_chunk_payload_size(60), 0);
	ck_assert_uint_le(nm_chunk_payload_size(200), 200 / 4 * 3);
	ck_assert_uint_gt(nm_chunk_payload_size(200), 0);
}
END_TEST

/* Serialised length of an envelope with 20-character numbers and data. */
static size_t
worst_envelope_len(size_t data_len)
{
	json_int_t	 wide = -1000000000000000000LL;	/* 20 characters */
	char		*data = xmalloc(data_len + 1), *text;
	json_t		*chunk;
	size_t		 len;

	memset(data, 'A', data_len);
	data[data_len] = '\0';
	chunk = json_pack("{s:s, s:I, s:I, s:I, s:s}", "type", "chunk",
	    "id", wide, "index", wide, "count", wide, "data", data);
	text = json_dumps(chunk, JSON_COMPACT);
	len = strlen(text);
	free(text);
	json_decref(chunk);
	free(data);
	return len;
}

START_TEST(test_chunk_payload_size_fits_twenty_digit_numbers)
{
	size_t	limit, size;

	for (limit = 100; limit < 400; limit++) {
		size = nm_chunk_payload_size(limit);
		if (size == 0) {
			ck_assert_uint_gt(worst_envelope_len(4), limit);
			continue;
		}
		/* Fits with the widest numbers; one more group would not. */
		ck_assert_uint_le(worst_envelope_len(size / 3 * 4), limit);
		ck_assert_uint_gt(worst_envelope_len(size / 3 * 4 + 4), limit);
	}
	size = nm_chunk_payload_size(NM_FRAME_OUTBOUND_MAX);
	ck_assert_uint_le(worst_envelope_len(size / 3 * 4),
	    NM_FRAME_OUTBOUND_MAX);
}
END_TEST

START_TEST(test_chunk_too_small_limit_emits_nothing)
{
	struct chunks	chunks = { 60, json_array(), 0 };

	ck_assert_uint_eq(nm_chunk_split("abc", 3, 1, 60, chunks_emit,
	    &chunks), 0);
	ck_assert_uint_eq(json_array_size(chunks.list), 0);
	json_decref(chunks.list);
}
END_TEST

START_TEST(test_chunk_outbound_max)
{
	size_t	 size = nm_chunk_payload_size(NM_FRAME_OUTBOUND_MAX);
	char	*text;

	/* 2.5 chunks of plain text, then exactly three full chunks. */
	text = text_make("{\"k\":\"some text\"}", size * 5 / 2);
	ck_assert_uint_eq(chunks_roundtrip(text, size * 5 / 2, 7,
	    NM_FRAME_OUTBOUND_MAX), 3);
	free(text);

	text = text_make("0123456789abcdef", size * 3);
	ck_assert_uint_eq(chunks_roundtrip(text, size * 3, INT64_MAX,
	    NM_FRAME_OUTBOUND_MAX), 3);
	free(text);
}
END_TEST

START_TEST(test_chunk_small_limits)
{
	size_t	 limit, len, size;
	char	*text;

	text = text_make("abcdefghijklmnopqrstuvwxyz", 1000);
	for (limit = 120; limit < 140; limit++) {
		size = nm_chunk_payload_size(limit);
		for (len = 0; len < 5 * size + 2; len++)
			chunks_roundtrip(text, len, limit, limit);
	}
	free(text);
}
END_TEST

START_TEST(test_chunk_exact_multiples)
{
	size_t	 size = nm_chunk_payload_size(200), n;
	char	*text;

	text = text_make("xyz", size * 4);
	for (n = 1; n <= 4; n++)
		ck_assert_uint_eq(chunks_roundtrip(text, size * n, 1, 200), n);
	ck_assert_uint_eq(chunks_roundtrip(text, size * 2 + 1, 1, 200), 3);
	ck_assert_uint_eq(chunks_roundtrip(text, size * 2 - 1, 1, 200), 2);
	free(text);
}
END_TEST

START_TEST(test_chunk_splits_multibyte_utf8)
{
	/* 2-, 3- and 4-byte characters: a 9-byte pattern. */
	const char	*pattern = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	size_t		 size, limit;
	char		*text;

	text = text_make(pattern, 9 * 100);
	for (limit = 100; limit < 130; limit++) {
		size = nm_chunk_payload_size(limit);
		if (size == 0 || size % 9 == 0)
			continue;
		/* This limit cuts characters in half: must still join back. */
		chunks_roundtrip(text, 9 * 100, 3, limit);
	}
	chunks_roundtrip(text, 9 * 100, 3, 2000);
	free(text);
}
END_TEST

START_TEST(test_chunk_empty_text_is_one_chunk)
{
	ck_assert_uint_eq(chunks_roundtrip("", 0, 9, 200), 1);
}
END_TEST

/* Builds the frame suite. */
static Suite *
frame_suite(void)
{
	Suite	*s = suite_create("frame");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_whole_frame);
	tcase_add_test(tc, test_parse_header_is_native_order);
	tcase_add_test(tc, test_parse_partial_header);
	tcase_add_test(tc, test_parse_partial_payload);
	tcase_add_test(tc, test_parse_two_frames_in_one_buffer);
	tcase_add_test(tc, test_parse_zero_length);
	tcase_add_test(tc, test_parse_oversized);
	tcase_add_test(tc, test_parse_corrupt);
	tcase_add_test(tc, test_parse_max_boundary);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_test(tc, test_decode_object);
	tcase_add_test(tc, test_decode_invalid_utf8);
	tcase_add_test(tc, test_decode_broken_json);
	tcase_add_test(tc, test_decode_rejects_nul);
	tcase_add_test(tc, test_decode_not_object);
	suite_add_tcase(s, tc);

	tc = tcase_create("chunk");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_chunk_base64_vectors);
	tcase_add_test(tc, test_chunk_payload_size);
	tcase_add_test(tc, test_chunk_payload_size_fits_twenty_digit_numbers);
	tcase_add_test(tc, test_chunk_too_small_limit_emits_nothing);
	tcase_add_test(tc, test_chunk_outbound_max);
	tcase_add_test(tc, test_chunk_small_limits);
	tcase_add_test(tc, test_chunk_exact_multiples);
	tcase_add_test(tc, test_chunk_splits_multibyte_utf8);
	tcase_add_test(tc, test_chunk_empty_text_is_one_chunk);
	suite_add_tcase(s, tc);
	return s;
}

/* Runs the frame suite. */
int
main(void)
{
	return check_run_suite(frame_suite());
}
