/*
 * Unit tests for the request framer (host/http-framer.c): heads are held
 * until whole and parsed, bodies counted through by Content-Length or
 * chunks the way libevent 2.1 counts them, and broken or oversized
 * requests named with the status the door answers.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "check-helpers.h"
#include "http-framer.h"

#define MAX_HEADERS	1024
#define MAX_BODY	100

/* A framer, the bytes it is fed, and what it let through. */
struct feed {
	struct http_framer	*framer;
	struct evbuffer		*src;
	struct evbuffer		*dst;
};

static void
feed_open(struct feed *f)
{
	f->framer = http_framer_new(MAX_HEADERS, MAX_BODY);
	f->src = evbuffer_new();
	f->dst = evbuffer_new();
}

static void
feed_close(struct feed *f)
{
	http_framer_free(f->framer);
	evbuffer_free(f->src);
	evbuffer_free(f->dst);
}

/* Feeds text; passes every whole head; returns the last result. */
static enum http_framer_result
feed_text(struct feed *f, const char *text, size_t len)
{
	enum http_framer_result	r;

	evbuffer_add(f->src, text, len);
	while ((r = http_framer_feed(f->framer, f->src, f->dst)) ==
	    HTTP_FRAMER_HEAD)
		http_framer_pass(f->framer, f->dst);
	return r;
}

/* What went through, as a string (the caller frees it). */
static char *
feed_passed(struct feed *f)
{
	size_t	 len = evbuffer_get_length(f->dst);
	char	*s = malloc(len + 1);

	evbuffer_remove(f->dst, s, len);
	s[len] = '\0';
	return s;
}

START_TEST(test_framer_holds_a_head_until_whole_then_parses_it)
{
	static const char	head[] = "POST /mcp?x=1 HTTP/1.1\r\n"
	    "Host: 127.0.0.1:9333\r\nAuthorization:  Bearer abc \r\n"
	    "X-Folded: one\r\n\ttwo\r\nContent-Length: 4\r\n\r\n";
	struct feed		 f;
	const struct http_head	*h;
	size_t			 i;

	feed_open(&f);
	/* Byte by byte: nothing passes before the empty line. */
	for (i = 0; i + 1 < sizeof head - 1; i++) {
		evbuffer_add(f.src, head + i, 1);
		ck_assert_int_eq(http_framer_feed(f.framer, f.src, f.dst),
		    HTTP_FRAMER_MORE);
		ck_assert_uint_eq(evbuffer_get_length(f.dst), 0);
	}
	evbuffer_add(f.src, head + i, 1);
	evbuffer_add(f.src, "bodyGET", 7);
	ck_assert_int_eq(http_framer_feed(f.framer, f.src, f.dst),
	    HTTP_FRAMER_HEAD);
	h = http_framer_head(f.framer);
	ck_assert_str_eq(h->method, "POST");
	ck_assert_str_eq(h->target, "/mcp?x=1");
	ck_assert_str_eq(evhttp_find_header(&h->headers, "host"),
	    "127.0.0.1:9333");
	ck_assert_str_eq(evhttp_find_header(&h->headers, "Authorization"),
	    "Bearer abc");
	ck_assert_str_eq(evhttp_find_header(&h->headers, "X-Folded"),
	    "one two");
	ck_assert(!h->chunked);
	ck_assert_uint_eq(h->body_length, 4);
	/* Judging holds everything back, the next request's bytes too. */
	ck_assert_uint_eq(evbuffer_get_length(f.dst), 0);
	ck_assert_uint_eq(evbuffer_get_length(f.src), 7);
	http_framer_pass(f.framer, f.dst);
	ck_assert_uint_eq(evbuffer_get_length(f.dst), sizeof head - 1);
	ck_assert(http_framer_in_body(f.framer));
	/* The body goes through; the next head is held again. */
	ck_assert_int_eq(http_framer_feed(f.framer, f.src, f.dst),
	    HTTP_FRAMER_MORE);
	ck_assert_uint_eq(evbuffer_get_length(f.dst), sizeof head - 1 + 4);
	ck_assert(!http_framer_in_body(f.framer));
	ck_assert(!http_framer_between(f.framer));
	feed_close(&f);
}
END_TEST

START_TEST(test_framer_counts_chunks_and_trailers_to_the_next_head)
{
	static const char	text[] = "POST /mcp HTTP/1.1\r\nHost: a\r\n"
	    "Transfer-Encoding: Chunked\r\n\r\n"
	    "5\r\nhello\r\n1a ext\r\nabcdefghijklmnopqrstuvwxyz\r\n"
	    "0\r\nX-Trailer: t\r\n\r\n"
	    "GET /health HTTP/1.0\r\n\r\n";
	struct feed		 f;
	char			*passed;

	feed_open(&f);
	ck_assert_int_eq(feed_text(&f, text, sizeof text - 1),
	    HTTP_FRAMER_MORE);
	passed = feed_passed(&f);
	ck_assert_str_eq(passed, text);
	ck_assert(http_framer_between(f.framer));
	free(passed);
	feed_close(&f);
}
END_TEST

START_TEST(test_framer_bodies_follow_libevent)
{
	/* HEAD and TRACE have no body; a GET with a length has one. */
	static const struct {
		const char	*head;
		bool		 chunked;
		uint64_t	 length;
	} cases[] = {
		{ "HEAD / HTTP/1.1\r\nContent-Length: 9\r\n\r\n", false, 0 },
		{ "TRACE / HTTP/1.1\r\nContent-Length: 9\r\n\r\n", false, 0 },
		{ "GET / HTTP/1.1\r\nContent-Length: 9\r\n\r\n", false, 9 },
		{ "DELETE / HTTP/1.1\r\n\r\n", false, 0 },
		{ "POST / HTTP/1.1\r\nContent-Length: +7\r\n\r\n", false, 7 },
		/* Only exactly "chunked" is chunked; then the length counts. */
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n"
		  "Content-Length: 3\r\n\r\n", false, 3 },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
		  "Content-Length: 3\r\n\r\n", true, 0 },
		/* The first of two lengths, as evhttp_find_header reads. */
		{ "POST / HTTP/1.1\r\nContent-Length: 2\r\n"
		  "Content-Length: 50\r\n\r\n", false, 2 },
		/* Empty lines before a head are skipped; "\n" ends lines. */
		{ "\r\n\nPUT / HTTP/1.1\nContent-Length: 1\n\n", false, 1 },
	};
	const struct http_head	*h;
	struct feed		 f;
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		feed_open(&f);
		evbuffer_add(f.src, cases[i].head, strlen(cases[i].head));
		ck_assert_msg(http_framer_feed(f.framer, f.src, f.dst) ==
		    HTTP_FRAMER_HEAD, "case %zu", i);
		h = http_framer_head(f.framer);
		ck_assert_msg(h->chunked == cases[i].chunked, "case %zu", i);
		ck_assert_msg(h->body_length == cases[i].length, "case %zu", i);
		feed_close(&f);
	}
}
END_TEST

START_TEST(test_framer_names_broken_requests)
{
	static const struct {
		const char	*text;
		int		 status;
	} cases[] = {
		{ "BREW /pot HTTP/1.1\r\n\r\n", 400 },
		{ "GET /\r\n\r\n", 400 },
		{ "GET / HTTP/2.0\r\n\r\n", 400 },
		{ "GET / HTTP/1.1\r\nno colon\r\n\r\n", 400 },
		{ "GET / HTTP/1.1\r\n folded first\r\n\r\n", 400 },
		{ "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400 },
		{ "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400 },
		{ "POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 413 },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "zz\r\n", 400 },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "65\r\n", 413 },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "32\r\n" "01234567890123456789012345678901234567890123456789"
		  "\r\n33\r\n", 413 },
	};
	static const char	 nul[] = "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n";
	struct feed		 f;
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		feed_open(&f);
		ck_assert_msg(feed_text(&f, cases[i].text,
		    strlen(cases[i].text)) == HTTP_FRAMER_ERROR, "case %zu", i);
		ck_assert_msg(http_framer_error(f.framer)->status ==
		    cases[i].status, "case %zu: %d", i,
		    http_framer_error(f.framer)->status);
		/* Broken stays broken, and swallows what comes. */
		evbuffer_add(f.src, "GET / HTTP/1.1\r\n\r\n", 18);
		ck_assert_int_eq(http_framer_feed(f.framer, f.src, f.dst),
		    HTTP_FRAMER_ERROR);
		ck_assert_uint_eq(evbuffer_get_length(f.src), 0);
		feed_close(&f);
	}
	/* A NUL in a head: the host would read a shorter name or value. */
	feed_open(&f);
	ck_assert_int_eq(feed_text(&f, nul, sizeof nul - 1), HTTP_FRAMER_ERROR);
	ck_assert_int_eq(http_framer_error(f.framer)->status, 400);
	feed_close(&f);
}
END_TEST

START_TEST(test_framer_refuses_a_head_over_the_limit_before_its_end)
{
	struct feed	 f;
	char		 line[MAX_HEADERS + 2];

	feed_open(&f);
	memset(line, 'a', sizeof line);
	ck_assert_int_eq(feed_text(&f, "GET / HTTP/1.1\r\nX: ", 19),
	    HTTP_FRAMER_MORE);
	ck_assert_int_eq(feed_text(&f, line, sizeof line), HTTP_FRAMER_ERROR);
	ck_assert_int_eq(http_framer_error(f.framer)->status, 431);
	feed_close(&f);
}
END_TEST

/*
 * Feeds a chunked request whose trailer is lines of 128 characters (the
 * last one extra longer), then the empty line and the next head; returns
 * the last result.
 */
static enum http_framer_result
feed_trailer(struct feed *f, size_t lines, size_t extra)
{
	static const char	 start[] = "POST / HTTP/1.1\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n";
	static const char	 next[] = "\r\nGET / HTTP/1.1\r\n\r\n";
	char			 line[128 + 16];
	enum http_framer_result	 r;
	size_t			 i;

	ck_assert_uint_lt(extra, 16);
	ck_assert_int_eq(feed_text(f, start, sizeof start - 1),
	    HTTP_FRAMER_MORE);
	for (i = 0; i < lines; i++) {
		memset(line, 'a', sizeof line);
		memcpy(line, "X: ", 3);
		memcpy(line + 128 + (i + 1 == lines ? extra : 0), "\r\n", 2);
		r = feed_text(f, line, 128 + (i + 1 == lines ? extra : 0) + 2);
		if (r != HTTP_FRAMER_MORE)
			return r;
	}
	evbuffer_add(f->src, next, sizeof next - 1);
	return http_framer_feed(f->framer, f->src, f->dst);
}

START_TEST(test_framer_refuses_a_trailer_over_the_head_limit)
{
	struct feed	 f;

	/*
	 * Trailer lines count as libevent counts a head's: their text,
	 * without the line ends. Up to MAX_HEADERS passes, and the next
	 * head follows.
	 */
	feed_open(&f);
	ck_assert_int_eq(feed_trailer(&f, MAX_HEADERS / 128, 0),
	    HTTP_FRAMER_HEAD);
	ck_assert_str_eq(http_framer_head(f.framer)->method, "GET");
	feed_close(&f);
	/* One byte more, or many lines more, and the stream breaks. */
	feed_open(&f);
	ck_assert_int_eq(feed_trailer(&f, MAX_HEADERS / 128, 1),
	    HTTP_FRAMER_ERROR);
	ck_assert_int_eq(http_framer_error(f.framer)->status, 431);
	ck_assert_str_eq(http_framer_error(f.framer)->message,
	    "Request trailer too large");
	feed_close(&f);
	feed_open(&f);
	ck_assert_int_eq(feed_trailer(&f, 4 * MAX_HEADERS / 128, 0),
	    HTTP_FRAMER_ERROR);
	ck_assert_int_eq(http_framer_error(f.framer)->status, 431);
	feed_close(&f);
}
END_TEST

START_TEST(test_framer_counts_requests_passed_whole)
{
	static const char	text[] = "GET /a HTTP/1.1\r\n\r\n"
	    "POST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
	    "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "1\r\nx\r\n0\r\n\r\n"
	    "POST /d HTTP/1.1\r\nContent-Length: 3\r\n\r\nab";
	struct feed		f;

	feed_open(&f);
	ck_assert_uint_eq(http_framer_whole(f.framer), 0);
	ck_assert_int_eq(feed_text(&f, text, sizeof text - 1),
	    HTTP_FRAMER_MORE);
	/* The last body lacks a byte: its request is not whole yet. */
	ck_assert_uint_eq(http_framer_whole(f.framer), 3);
	ck_assert_int_eq(feed_text(&f, "c", 1), HTTP_FRAMER_MORE);
	ck_assert_uint_eq(http_framer_whole(f.framer), 4);
	/* A head held for judging is no request passed. */
	ck_assert_int_eq(http_framer_feed(f.framer, f.src, f.dst),
	    HTTP_FRAMER_MORE);
	evbuffer_add(f.src, "GET / HTTP/1.1\r\n\r\n", 18);
	ck_assert_int_eq(http_framer_feed(f.framer, f.src, f.dst),
	    HTTP_FRAMER_HEAD);
	ck_assert_uint_eq(http_framer_whole(f.framer), 4);
	feed_close(&f);
}
END_TEST

/* Builds the suite. */
static Suite *
framer_suite(void)
{
	Suite	*suite = suite_create("framer");
	TCase	*tc = tcase_create("framer");

	tcase_add_test(tc, test_framer_holds_a_head_until_whole_then_parses_it);
	tcase_add_test(tc, test_framer_counts_chunks_and_trailers_to_the_next_head);
	tcase_add_test(tc, test_framer_bodies_follow_libevent);
	tcase_add_test(tc, test_framer_names_broken_requests);
	tcase_add_test(tc, test_framer_refuses_a_head_over_the_limit_before_its_end);
	tcase_add_test(tc, test_framer_refuses_a_trailer_over_the_head_limit);
	tcase_add_test(tc, test_framer_counts_requests_passed_whole);
	suite_add_tcase(suite, tc);
	return suite;
}

int
main(void)
{
	return check_run_suite(framer_suite());
}
