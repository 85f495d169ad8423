/*
 * Fuzz target: the request framer. The input's first byte picks how the
 * rest is cut into pieces; the rest is fed whole to one framer and piece
 * by piece to another, every head let through. Invariants: both framers
 * let the same bytes through, meet the same heads and end the same way,
 * what goes through is never more than what came in, and the requests
 * counted whole are the heads let through, but for one whose body is
 * still coming (or broke).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "http-framer.h"

#define FUZZ_MAX_HEADERS	512
#define FUZZ_MAX_BODY		4096
#define FUZZ_HEADS_MAX		64

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a framer did with its input. */
struct fuzz_run {
	struct http_framer	*framer;
	struct evbuffer		*src;
	struct evbuffer		*dst;
	char			 heads[FUZZ_HEADS_MAX][64];
	size_t			 head_count;
	uint64_t		 passed;	/* heads let through */
	enum http_framer_result	 last;
};

/* Feeds bytes; records and passes every head; stops at an error. */
static void
fuzz_feed(struct fuzz_run *run, const uint8_t *data, size_t size)
{
	const struct http_head	*head;

	if (run->last == HTTP_FRAMER_ERROR)
		return;
	evbuffer_add(run->src, data, size);
	while ((run->last = http_framer_feed(run->framer, run->src,
	    run->dst)) == HTTP_FRAMER_HEAD) {
		head = http_framer_head(run->framer);
		if (run->head_count < FUZZ_HEADS_MAX)
			snprintf(run->heads[run->head_count++],
			    sizeof run->heads[0], "%s %s %d %llu",
			    head->method, head->target, head->chunked,
			    (unsigned long long)head->body_length);
		http_framer_pass(run->framer, run->dst);
		run->passed++;
	}
}

static void
fuzz_open(struct fuzz_run *run)
{
	memset(run, 0, sizeof *run);
	run->framer = http_framer_new(FUZZ_MAX_HEADERS, FUZZ_MAX_BODY);
	run->src = evbuffer_new();
	run->dst = evbuffer_new();
}

static void
fuzz_close(struct fuzz_run *run)
{
	http_framer_free(run->framer);
	evbuffer_free(run->src);
	evbuffer_free(run->dst);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_run	 whole, pieces;
	size_t		 step, at, n, len;
	uint64_t	 owed;		/* a passed request still in its body */
	unsigned char	*a, *b;

	if (size < 1)
		return 0;
	step = (size_t)data[0] % 17 + 1;
	data++;
	size--;
	fuzz_open(&whole);
	fuzz_open(&pieces);
	fuzz_feed(&whole, data, size);
	for (at = 0; at < size; at += n) {
		n = size - at < step ? size - at : step;
		fuzz_feed(&pieces, data + at, n);
	}
	if (whole.last != pieces.last || whole.head_count != pieces.head_count)
		abort();
	owed = whole.last != HTTP_FRAMER_ERROR &&
	    http_framer_in_body(whole.framer) ? 1 : 0;
	if (http_framer_whole(whole.framer) !=
	    http_framer_whole(pieces.framer) ||
	    http_framer_whole(whole.framer) + owed > whole.passed ||
	    (whole.last != HTTP_FRAMER_ERROR &&
	    http_framer_whole(whole.framer) + owed != whole.passed) ||
	    http_framer_whole(whole.framer) + 1 < whole.passed)
		abort();
	if (whole.head_count > 0 && memcmp(whole.heads, pieces.heads,
	    whole.head_count * sizeof whole.heads[0]) != 0)
		abort();
	len = evbuffer_get_length(whole.dst);
	if (len != evbuffer_get_length(pieces.dst) || len > size)
		abort();
	a = evbuffer_pullup(whole.dst, -1);
	b = evbuffer_pullup(pieces.dst, -1);
	if (len > 0 && memcmp(a, b, len) != 0)
		abort();
	fuzz_close(&whole);
	fuzz_close(&pieces);
	return 0;
}
