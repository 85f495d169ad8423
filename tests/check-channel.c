/* Tests for the native-messaging channel and the stdout guard, over pipes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <jansson.h>

#include "channel.h"
#include "check-helpers.h"
#include "log.h"
#include "nm-chunk.h"
#include "nm-frame.h"
#include "stdout-guard.h"
#include "test-base64.h"
#include "xmalloc.h"

/* What the channel handed the test. */
struct sink {
	json_t	*messages;
	int	 closed;
};

static struct event_base	*base;
static struct sink		 sink;
static struct channel		*channel;
static int			 in_pipe[2];	/* test writes, channel reads */
static int			 out_pipe[2];	/* channel writes, test reads */

/* Keeps a copy of each message. */
static void
sink_message(json_t *message, void *arg)
{
	struct sink	*s = arg;

	json_array_append(s->messages, message);
}

/* Counts on_close calls. */
static void
sink_close(void *arg)
{
	struct sink	*s = arg;

	s->closed++;
}

/* Closes a descriptor the test still holds. */
static void
fd_close(int *fd)
{
	if (*fd != -1) {
		close(*fd);
		*fd = -1;
	}
}

/* Creates the base and both pipes; the test creates the channel. */
static void
setup(void)
{
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	ck_assert_int_eq(pipe(in_pipe), 0);
	ck_assert_int_eq(pipe(out_pipe), 0);
	ck_assert_int_eq(fcntl(out_pipe[0], F_SETFL, O_NONBLOCK), 0);
	sink.messages = json_array();
	sink.closed = 0;
	channel = NULL;
}

/* Frees everything setup and the test made. */
static void
teardown(void)
{
	channel_free(channel);
	event_base_free(base);
	fd_close(&in_pipe[0]);
	fd_close(&in_pipe[1]);
	fd_close(&out_pipe[0]);
	fd_close(&out_pipe[1]);
	json_decref(sink.messages);
}

/* Opens the channel on the pipes with an inbound cap. */
static void
channel_open(size_t max_inbound, struct log *log)
{
	channel = channel_new(base, in_pipe[0], out_pipe[1], max_inbound, log,
	    sink_message, sink_close, &sink);
	ck_assert_ptr_nonnull(channel);
	ck_assert_int_eq(channel_is_open(channel), 1);
}

/* Runs a few non-blocking loop iterations: enough for ready events. */
static void
pump(void)
{
	int	i;

	for (i = 0; i < 4; i++)
		event_base_loop(base, EVLOOP_NONBLOCK);
}

/* Writes all of buf to a blocking descriptor. */
static void
write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		ck_assert_int_gt(n, 0);
		p += n;
		len -= n;
	}
}

/* Appends one frame holding len bytes of payload to an evbuffer. */
static void
frame_add(struct evbuffer *buf, const char *payload, size_t len)
{
	uint8_t	header[NM_FRAME_HEADER_SIZE];

	nm_frame_header_encode(header, (uint32_t)len);
	evbuffer_add(buf, header, sizeof header);
	evbuffer_add(buf, payload, len);
}

/* Appends one frame holding a string payload. */
static void
frame_add_str(struct evbuffer *buf, const char *payload)
{
	frame_add(buf, payload, strlen(payload));
}

/* Writes an evbuffer's bytes in one write and empties it. */
static void
buffer_write(int fd, struct evbuffer *buf)
{
	size_t	len = evbuffer_get_length(buf);

	write_all(fd, evbuffer_pullup(buf, -1), len);
	evbuffer_drain(buf, len);
}

/* Writes a large buffer into the channel, running the loop while it blocks. */
static void
buffer_write_pumped(int fd, struct evbuffer *buf)
{
	ssize_t	n;

	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	while (evbuffer_get_length(buf) != 0) {
		n = evbuffer_write(buf, fd);
		ck_assert_msg(n > 0 || errno == EAGAIN, "write: %s",
		    strerror(errno));
		pump();
	}
	pump();
}

/* Reads all the channel wrote so far into buf, running the loop meanwhile. */
static void
output_collect(struct evbuffer *buf)
{
	int	n;

	do {
		pump();
		while ((n = evbuffer_read(buf, out_pipe[0], 65536)) > 0)
			;
		ck_assert_msg(n == -1 && errno == EAGAIN, "read: %d %s", n,
		    strerror(errno));
	} while (channel_output_pending(channel) != 0);
}

/* Checks message number i equals the given JSON text. */
static void
assert_message(size_t i, const char *text)
{
	json_t	*expected = check_json(text);

	ck_assert_json_eq(json_array_get(sink.messages, i), expected);
	json_decref(expected);
}

START_TEST(test_read_frame_byte_by_byte)
{
	struct evbuffer	*buf = evbuffer_new();
	const uint8_t	*p;
	size_t		 len, i;

	channel_open(0, NULL);
	frame_add_str(buf, "{\"method\":\"ping\",\"id\":1}");
	len = evbuffer_get_length(buf);
	p = evbuffer_pullup(buf, -1);
	for (i = 0; i < len; i++) {
		ck_assert_uint_eq(json_array_size(sink.messages), 0);
		write_all(in_pipe[1], p + i, 1);
		pump();
	}
	ck_assert_uint_eq(json_array_size(sink.messages), 1);
	assert_message(0, "{\"method\":\"ping\",\"id\":1}");
	ck_assert_int_eq(channel_is_open(channel), 1);
	evbuffer_free(buf);
}
END_TEST

START_TEST(test_read_several_frames_in_one_write)
{
	struct evbuffer	*buf = evbuffer_new();

	channel_open(0, NULL);
	frame_add_str(buf, "{\"n\":1}");
	frame_add_str(buf, "{\"n\":2}");
	frame_add_str(buf, "{\"n\":3,\"s\":\"\xc3\xa9\"}");
	buffer_write(in_pipe[1], buf);
	pump();
	ck_assert_uint_eq(json_array_size(sink.messages), 3);
	assert_message(0, "{\"n\":1}");
	assert_message(1, "{\"n\":2}");
	assert_message(2, "{\"n\":3,\"s\":\"\\u00e9\"}");
	evbuffer_free(buf);
}
END_TEST

START_TEST(test_read_large_frame_over_many_reads)
{
	struct evbuffer	*buf = evbuffer_new();
	json_t		*message;
	char		*text, *big;
	size_t		 len = 5 * 1024 * 1024;

	channel_open(0, NULL);
	big = xmalloc(len + 1);
	memset(big, 'z', len);
	big[len] = '\0';
	message = json_pack("{s:s}", "big", big);
	text = json_dumps(message, JSON_COMPACT);
	frame_add_str(buf, text);
	frame_add_str(buf, "{\"after\":true}");
	buffer_write_pumped(in_pipe[1], buf);

	ck_assert_uint_eq(json_array_size(sink.messages), 2);
	ck_assert_json_eq(json_array_get(sink.messages, 0), message);
	assert_message(1, "{\"after\":true}");
	json_decref(message);
	free(text);
	free(big);
	evbuffer_free(buf);
}
END_TEST

/* Returns a file's contents as a heap string. */
static char *
file_read(const char *path)
{
	FILE	*f = fopen(path, "r");
	char	*text = xcalloc(1, 65536);

	ck_assert_ptr_nonnull(f);
	fread(text, 1, 65535, f);
	fclose(f);
	return text;
}

START_TEST(test_read_bad_frames_skipped)
{
	static const char *const reasons[] = {
		"not valid UTF-8", "invalid JSON",
		"a JSON array, expected an object",
		"a JSON string, expected an object", "empty frame",
	};
	struct evbuffer	*buf = evbuffer_new();
	struct log	*log;
	char		 path[] = "/tmp/check-channel-log.XXXXXX", *cause;
	char		*logged;
	size_t		 i;
	int		 fd;

	fd = mkstemp(path);
	ck_assert_int_ne(fd, -1);
	close(fd);
	log = log_open(LOG_LEVEL_WARN, path, &cause);
	ck_assert_ptr_nonnull(log);
	channel_open(0, log);

	frame_add_str(buf, "{\"a\":\"\xff\"}");
	frame_add_str(buf, "{\"n\":1}");
	frame_add_str(buf, "{\"a\":");
	frame_add_str(buf, "[1,2]");
	frame_add_str(buf, "\"text\"");
	frame_add(buf, "", 0);
	frame_add_str(buf, "{\"n\":2}");
	buffer_write(in_pipe[1], buf);
	pump();

	ck_assert_uint_eq(json_array_size(sink.messages), 2);
	assert_message(0, "{\"n\":1}");
	assert_message(1, "{\"n\":2}");
	ck_assert_int_eq(channel_is_open(channel), 1);
	ck_assert_int_eq(sink.closed, 0);

	logged = file_read(path);
	for (i = 0; i < sizeof reasons / sizeof *reasons; i++) {
		ck_assert_msg(strstr(logged, reasons[i]) != NULL,
		    "log lacks \"%s\":\n%s", reasons[i], logged);
	}
	free(logged);
	log_close(log);
	unlink(path);
	evbuffer_free(buf);
}
END_TEST

START_TEST(test_read_oversized_frame_discarded)
{
	struct evbuffer	*buf = evbuffer_new(), *inner = evbuffer_new();
	uint8_t		 header[NM_FRAME_HEADER_SIZE];
	size_t		 len;

	channel_open(32, NULL);
	/* The skipped payload is made of valid frames: none must show. */
	while (evbuffer_get_length(inner) < 100)
		frame_add_str(inner, "{\"inner\":1}");
	len = evbuffer_get_length(inner);

	nm_frame_header_encode(header, (uint32_t)len);
	evbuffer_add(buf, header, sizeof header);
	evbuffer_remove_buffer(inner, buf, 40);
	buffer_write(in_pipe[1], buf);
	pump();
	ck_assert_uint_eq(json_array_size(sink.messages), 0);

	evbuffer_add_buffer(buf, inner);
	frame_add_str(buf, "{\"next\":1}");
	buffer_write(in_pipe[1], buf);
	pump();
	ck_assert_uint_eq(json_array_size(sink.messages), 1);
	assert_message(0, "{\"next\":1}");
	ck_assert_int_eq(channel_is_open(channel), 1);

	/* Exactly the cap is still accepted. */
	frame_add_str(buf, "{\"s\":\"012345678901234567890123\"}");
	ck_assert_uint_eq(evbuffer_get_length(buf), 4 + 32);
	buffer_write(in_pipe[1], buf);
	pump();
	ck_assert_uint_eq(json_array_size(sink.messages), 2);
	evbuffer_free(buf);
	evbuffer_free(inner);
}
END_TEST

START_TEST(test_read_large_oversized_frame_discarded)
{
	struct evbuffer	*buf = evbuffer_new();
	char		*junk;
	size_t		 len = 3 * 1024 * 1024;

	channel_open(1024, NULL);
	junk = xmalloc(len);
	memset(junk, '{', len);
	frame_add(buf, junk, len);
	frame_add_str(buf, "{\"next\":2}");
	buffer_write_pumped(in_pipe[1], buf);
	ck_assert_uint_eq(json_array_size(sink.messages), 1);
	assert_message(0, "{\"next\":2}");
	free(junk);
	evbuffer_free(buf);
}
END_TEST

START_TEST(test_corrupt_length_closes)
{
	struct evbuffer	*buf = evbuffer_new();
	uint8_t		 header[NM_FRAME_HEADER_SIZE];

	channel_open(0, NULL);
	nm_frame_header_encode(header, UINT32_MAX);
	evbuffer_add(buf, header, sizeof header);
	frame_add_str(buf, "{\"n\":1}");
	buffer_write(in_pipe[1], buf);
	pump();
	ck_assert_int_eq(channel_is_open(channel), 0);
	ck_assert_int_eq(sink.closed, 1);
	ck_assert_uint_eq(json_array_size(sink.messages), 0);
	evbuffer_free(buf);
}
END_TEST

START_TEST(test_eof_calls_on_close_once)
{
	struct evbuffer	*buf = evbuffer_new();

	channel_open(0, NULL);
	frame_add_str(buf, "{\"last\":1}");
	buffer_write(in_pipe[1], buf);
	fd_close(&in_pipe[1]);
	ck_assert_int_eq(sink.closed, 0);
	pump();
	pump();
	ck_assert_uint_eq(json_array_size(sink.messages), 1);
	ck_assert_int_eq(channel_is_open(channel), 0);
	ck_assert_int_eq(sink.closed, 1);
	evbuffer_free(buf);
}
END_TEST

START_TEST(test_eof_inside_frame_closes)
{
	static const uint8_t	partial[] = { 50, 0, 0, 0, '{', '"' };

	channel_open(0, NULL);
	write_all(in_pipe[1], partial, sizeof partial);
	fd_close(&in_pipe[1]);
	pump();
	ck_assert_int_eq(sink.closed, 1);
	ck_assert_uint_eq(json_array_size(sink.messages), 0);
}
END_TEST

/* Opens a channel on an input that cannot be watched; expects a late close. */
static void
unwatchable_input_closes(int fd)
{
	json_t	*message;

	ck_assert_int_ne(fd, -1);
	channel = channel_new(base, fd, out_pipe[1], 0, NULL, sink_message,
	    sink_close, &sink);
	ck_assert_int_eq(sink.closed, 0);	/* never from channel_new */
	pump();
	ck_assert_int_eq(sink.closed, 1);
	ck_assert_int_eq(channel_is_open(channel), 0);
	message = json_object();
	ck_assert_int_eq(channel_send(channel, message), -1);
	json_decref(message);
	channel_free(channel);
	channel = NULL;
	close(fd);
}

START_TEST(test_unwatchable_input_closes_from_loop)
{
	FILE	*f;

	unwatchable_input_closes(open("/dev/null", O_RDONLY));
	sink.closed = 0;
	f = tmpfile();
	ck_assert_ptr_nonnull(f);
	unwatchable_input_closes(dup(fileno(f)));
	fclose(f);
}
END_TEST

START_TEST(test_free_with_close_pending_never_calls_on_close)
{
	int	fd = open("/dev/null", O_RDONLY);

	/* The close is already scheduled; freeing must cancel it. */
	channel = channel_new(base, fd, out_pipe[1], 0, NULL, sink_message,
	    sink_close, &sink);
	ck_assert_int_eq(channel_is_open(channel), 0);
	channel_free(channel);
	channel = NULL;
	pump();
	ck_assert_int_eq(sink.closed, 0);
	close(fd);
}
END_TEST

START_TEST(test_send_writes_one_frame)
{
	static const char text[] = "{\"hello\":\"w\xc3\xb6rld\",\"n\":[1]}";
	struct evbuffer	*out = evbuffer_new();
	json_t		*message;
	uint8_t		 header[NM_FRAME_HEADER_SIZE];

	message = check_json("{\"hello\":\"w\\u00f6rld\",\"n\":[1]}");

	channel_open(0, NULL);
	ck_assert_int_eq(channel_send(channel, message), 0);
	output_collect(out);
	ck_assert_uint_eq(channel_output_pending(channel), 0);
	nm_frame_header_encode(header, sizeof text - 1);
	ck_assert_uint_eq(evbuffer_get_length(out), 4 + sizeof text - 1);
	ck_assert_mem_eq(evbuffer_pullup(out, -1), header, 4);
	ck_assert_mem_eq(evbuffer_pullup(out, -1) + 4, text, sizeof text - 1);
	json_decref(message);
	evbuffer_free(out);
}
END_TEST

/* Decodes standard base64 with padding into buf; -1 if it is malformed. */
static int
base64_decode_add(struct evbuffer *buf, const char *in)
{
	uint8_t	*out;
	size_t	 len;

	if ((out = test_base64_decode(in, &len)) == NULL)
		return -1;
	evbuffer_add(buf, out, len);
	free(out);
	return 0;
}

/*
 * Splits collected output into frames, checks each is at most 1 MB and a
 * chunk of message id, and returns the joined data; sets *count.
 */
static struct evbuffer *
chunks_join(struct evbuffer *out, json_int_t id, size_t *count)
{
	struct evbuffer	*joined = evbuffer_new();
	const uint8_t	*payload;
	size_t		 payload_len, consumed, len, index = 0;
	uint32_t	 declared;
	json_t		*chunk;
	char		*cause;

	while ((len = evbuffer_get_length(out)) != 0) {
		ck_assert_int_eq(nm_frame_parse(evbuffer_pullup(out, -1), len,
		    NM_FRAME_OUTBOUND_MAX, &payload, &payload_len, &consumed,
		    &declared), NM_FRAME_OK);
		ck_assert_uint_le(payload_len, NM_FRAME_OUTBOUND_MAX);
		chunk = nm_frame_decode(payload, payload_len, &cause);
		ck_assert_ptr_nonnull(chunk);
		ck_assert_str_eq(json_string_value(json_object_get(chunk,
		    "type")), "chunk");
		ck_assert_int_eq(json_integer_value(json_object_get(chunk,
		    "id")), id);
		ck_assert_int_eq(json_integer_value(json_object_get(chunk,
		    "index")), (json_int_t)index);
		*count = json_integer_value(json_object_get(chunk, "count"));
		ck_assert_int_eq(base64_decode_add(joined, json_string_value(
		    json_object_get(chunk, "data"))), 0);
		json_decref(chunk);
		evbuffer_drain(out, consumed);
		index++;
	}
	ck_assert_uint_eq(index, *count);
	return joined;
}

START_TEST(test_send_large_message_is_chunked)
{
	struct evbuffer	*out = evbuffer_new(), *joined;
	json_t		*message;
	char		*big, *text;
	size_t		 len = 3 * 1024 * 1024, count, round, size;

	channel_open(0, NULL);
	big = xmalloc(len + 1);
	memset(big, 'q', len);
	big[len] = '\0';
	big[len / 2] = '"';	/* escaped, so the text is not just the input */
	message = json_pack("{s:s,s:s}", "big", big, "tail", "\xe2\x82\xac");
	text = json_dumps(message, JSON_COMPACT);
	size = nm_chunk_payload_size(NM_FRAME_OUTBOUND_MAX);

	/* Two sends: chunk ids count up from 1. */
	for (round = 1; round <= 2; round++) {
		ck_assert_int_eq(channel_send(channel, message), 0);
		/* More than a pipe holds: the rest waits in the queue. */
		ck_assert_uint_gt(channel_output_pending(channel), 0);
		output_collect(out);
		joined = chunks_join(out, round, &count);
		ck_assert_uint_eq(count, (strlen(text) + size - 1) / size);
		ck_assert_uint_ge(count, 4);
		ck_assert_uint_eq(evbuffer_get_length(joined), strlen(text));
		ck_assert_mem_eq(evbuffer_pullup(joined, -1), text,
		    strlen(text));
		evbuffer_free(joined);
	}
	free(text);
	free(big);
	json_decref(message);
	evbuffer_free(out);
}
END_TEST

START_TEST(test_send_exactly_outbound_max_is_one_frame)
{
	struct evbuffer	*out = evbuffer_new();
	json_t		*message;
	char		*pad;
	size_t		 len = NM_FRAME_OUTBOUND_MAX - strlen("{\"p\":\"\"}");
	uint32_t	 declared;
	const uint8_t	*payload;
	size_t		 payload_len, consumed;

	channel_open(0, NULL);
	pad = xmalloc(len + 1);
	memset(pad, 'p', len);
	pad[len] = '\0';
	message = json_pack("{s:s}", "p", pad);
	ck_assert_int_eq(channel_send(channel, message), 0);
	output_collect(out);
	ck_assert_int_eq(nm_frame_parse(evbuffer_pullup(out, -1),
	    evbuffer_get_length(out), NM_FRAME_OUTBOUND_MAX, &payload,
	    &payload_len, &consumed, &declared), NM_FRAME_OK);
	ck_assert_uint_eq(payload_len, NM_FRAME_OUTBOUND_MAX);
	ck_assert_uint_eq(consumed, evbuffer_get_length(out));
	json_decref(message);
	free(pad);
	evbuffer_free(out);
}
END_TEST

START_TEST(test_send_after_close_fails)
{
	json_t	*message = json_object();

	channel_open(0, NULL);
	fd_close(&in_pipe[1]);
	pump();
	ck_assert_int_eq(sink.closed, 1);
	ck_assert_int_eq(channel_send(channel, message), -1);
	ck_assert_uint_eq(channel_output_pending(channel), 0);
	json_decref(message);
}
END_TEST

START_TEST(test_send_to_closed_reader_closes)
{
	json_t	*message = check_json("{\"a\":1}");

	channel_open(0, NULL);
	fd_close(&out_pipe[0]);
	ck_assert_int_eq(channel_send(channel, message), -1);
	ck_assert_int_eq(channel_is_open(channel), 0);
	ck_assert_int_eq(sink.closed, 0);	/* not until the loop runs */
	pump();
	ck_assert_int_eq(sink.closed, 1);
	ck_assert_int_eq(channel_send(channel, message), -1);
	json_decref(message);
}
END_TEST

START_TEST(test_reader_gone_while_queued_closes)
{
	json_t	*message;
	char	*big;
	size_t	 len = 2 * 1024 * 1024;

	channel_open(0, NULL);
	big = xmalloc(len + 1);
	memset(big, 'x', len);
	big[len] = '\0';
	message = json_pack("{s:s}", "big", big);
	ck_assert_int_eq(channel_send(channel, message), 0);
	ck_assert_uint_gt(channel_output_pending(channel), 0);
	fd_close(&out_pipe[0]);
	pump();
	ck_assert_int_eq(channel_is_open(channel), 0);
	ck_assert_int_eq(sink.closed, 1);
	ck_assert_uint_eq(channel_output_pending(channel), 0);
	json_decref(message);
	free(big);
}
END_TEST

/* Reads a descriptor to EOF into a heap buffer. */
static char *
fd_read_all(int fd, size_t *len)
{
	char	*buf = xmalloc(65536);
	ssize_t	 n;

	*len = 0;
	while ((n = read(fd, buf + *len, 65536 - *len)) > 0)
		*len += n;
	return buf;
}

/* In a child: guards stdout, writes stray text, sends a frame; exit status. */
static int
guard_child(int out_fd, int err_fd)
{
	struct event_base	*child_base;
	struct channel		*child_channel;
	json_t			*message;
	char			*cause;
	int			 fd, input[2], status = 0;

	if (dup2(out_fd, STDOUT_FILENO) == -1 ||
	    dup2(err_fd, STDERR_FILENO) == -1 || pipe(input) == -1)
		return 2;
	close(out_fd);
	close(err_fd);

	printf("early-");	/* still in stdio's buffer at install time */
	fd = stdout_guard_install(&cause);
	if (fd < 3 || (fcntl(fd, F_GETFD) & FD_CLOEXEC) == 0)
		return 3;
	printf("stray-");
	puts("puts-line");
	(void)!write(STDOUT_FILENO, "raw-write\n", 10);
	fflush(stdout);

	child_base = event_base_new();
	child_channel = channel_new(child_base, input[0], fd, 0, NULL,
	    sink_message, sink_close, &sink);
	message = json_pack("{s:b}", "ok", 1);
	if (channel_send(child_channel, message) != 0)
		status = 4;
	while (channel_output_pending(child_channel) != 0)
		event_base_loop(child_base, EVLOOP_ONCE);
	printf("after-send\n");
	fflush(stdout);

	json_decref(message);
	channel_free(child_channel);
	event_base_free(child_base);
	close(input[0]);
	close(input[1]);
	close(fd);
	return status;
}

START_TEST(test_stdout_guard_keeps_stray_output_off_the_stream)
{
	static const char	 frame_text[] = "{\"ok\":true}";
	static const char	*stray[] = {
		"early-", "stray-puts-line\n", "raw-write\n", "after-send\n",
	};
	size_t			 i;
	uint8_t			 header[NM_FRAME_HEADER_SIZE];
	int			 out[2], err[2], status;
	char			*got_out, *got_err;
	size_t			 out_len, err_len;
	pid_t			 pid;

	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(out[0]);
		close(err[0]);
		status = guard_child(out[1], err[1]);
		teardown();
		_exit(status);
	}
	close(out[1]);
	close(err[1]);
	got_out = fd_read_all(out[0], &out_len);
	got_err = fd_read_all(err[0], &err_len);
	close(out[0]);
	close(err[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child failed: status %d", status);

	/* stdout holds exactly one frame and nothing else. */
	nm_frame_header_encode(header, sizeof frame_text - 1);
	ck_assert_uint_eq(out_len, 4 + sizeof frame_text - 1);
	ck_assert_mem_eq(got_out, header, 4);
	ck_assert_mem_eq(got_out + 4, frame_text, sizeof frame_text - 1);

	/* The stray text all went to stderr (stdio buffering sets order). */
	got_err[err_len < 65535 ? err_len : 65535] = '\0';
	for (i = 0; i < sizeof stray / sizeof *stray; i++) {
		ck_assert_msg(strstr(got_err, stray[i]) != NULL,
		    "stderr lacks \"%s\": \"%s\"", stray[i], got_err);
	}
	free(got_out);
	free(got_err);
}
END_TEST

START_TEST(test_stdout_guard_fails_without_stdout)
{
	char	*cause = NULL;
	int	 status;
	pid_t	 pid;

	fflush(stdout);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(STDOUT_FILENO);
		status = stdout_guard_install(&cause) == -1 && cause != NULL &&
		    strstr(cause, "cannot duplicate stdout") != NULL ? 0 : 1;
		free(cause);
		teardown();
		_exit(status);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child failed: status %d", status);
}
END_TEST

/* Builds the channel suite. */
static Suite *
channel_suite(void)
{
	Suite	*s = suite_create("channel");
	TCase	*tc;

	tc = tcase_create("read");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_read_frame_byte_by_byte);
	tcase_add_test(tc, test_read_several_frames_in_one_write);
	tcase_add_test(tc, test_read_large_frame_over_many_reads);
	tcase_add_test(tc, test_read_bad_frames_skipped);
	tcase_add_test(tc, test_read_oversized_frame_discarded);
	tcase_add_test(tc, test_read_large_oversized_frame_discarded);
	suite_add_tcase(s, tc);

	tc = tcase_create("close");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_corrupt_length_closes);
	tcase_add_test(tc, test_eof_calls_on_close_once);
	tcase_add_test(tc, test_eof_inside_frame_closes);
	tcase_add_test(tc, test_unwatchable_input_closes_from_loop);
	tcase_add_test(tc, test_free_with_close_pending_never_calls_on_close);
	suite_add_tcase(s, tc);

	tc = tcase_create("send");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_send_writes_one_frame);
	tcase_add_test(tc, test_send_large_message_is_chunked);
	tcase_add_test(tc, test_send_exactly_outbound_max_is_one_frame);
	tcase_add_test(tc, test_send_after_close_fails);
	tcase_add_test(tc, test_send_to_closed_reader_closes);
	tcase_add_test(tc, test_reader_gone_while_queued_closes);
	suite_add_tcase(s, tc);

	tc = tcase_create("stdout-guard");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stdout_guard_keeps_stray_output_off_the_stream);
	tcase_add_test(tc, test_stdout_guard_fails_without_stdout);
	suite_add_tcase(s, tc);
	return s;
}

/* Runs the channel suite; a closed pipe must be an error, not a signal. */
int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run_suite(channel_suite());
}
