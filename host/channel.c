/* The native-messaging channel: non-blocking frame I/O on two descriptors. */
#include "channel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "log.h"
#include "nm-chunk.h"
#include "nm-frame.h"
#include "os.h"
#include "xmalloc.h"

/* Most bytes taken from the input descriptor in one read. */
#define CHANNEL_READ_SIZE	(64 * 1024)

struct channel {
	struct event_base	*base;
	struct os_stdio		*stdio;		/* what the loop watches */
	size_t			 max_inbound;
	struct log		*log;
	channel_message_cb	 on_message;
	channel_close_cb	 on_close;
	void			*arg;

	int			 open;
	struct event		*read_event;
	struct event		*write_event;
	struct event		*close_event;	/* on_close, from the loop */
	struct evbuffer		*input;
	struct evbuffer		*output;
	size_t			 discard;	/* oversized bytes to drop */
	uint64_t		 next_chunk_id;
};

/* Stops all I/O and schedules on_close to run from the loop. */
static void
channel_close(struct channel *channel)
{
	if (!channel->open)
		return;
	channel->open = 0;
	event_del(channel->read_event);
	event_del(channel->write_event);
	evbuffer_drain(channel->input, evbuffer_get_length(channel->input));
	evbuffer_drain(channel->output, evbuffer_get_length(channel->output));
	event_active(channel->close_event, EV_TIMEOUT, 0);
}

/* Tells the owner the channel closed; runs once, from the loop. */
static void
channel_notify_close(evutil_socket_t fd, short events, void *arg)
{
	struct channel	*channel = arg;

	channel->on_close(channel->arg);
}

/* Hands one frame's payload to the owner, or logs why it was skipped. */
static void
channel_deliver(struct channel *channel, const uint8_t *payload, size_t len,
    size_t consumed)
{
	json_t	*message;
	char	*cause;

	message = nm_frame_decode(payload, len, &cause);
	evbuffer_drain(channel->input, consumed);
	if (message == NULL) {
		log_warn(channel->log, "native messaging: skipped a frame of "
		    "%zu bytes: %s", len, cause);
		free(cause);
		return;
	}
	channel->on_message(message, channel->arg);
	json_decref(message);
}

/* Takes every whole frame from the input buffer, in order. */
static void
channel_process(struct channel *channel)
{
	struct evbuffer	*input = channel->input;
	const uint8_t	*buf, *payload;
	uint8_t		 header[NM_FRAME_HEADER_SIZE];
	size_t		 avail, need, len, consumed, drop;
	uint32_t	 length;

	while (channel->open) {
		avail = evbuffer_get_length(input);
		if (channel->discard != 0) {
			drop = channel->discard;
			if (drop > avail)
				drop = avail;
			evbuffer_drain(input, drop);
			channel->discard -= drop;
			if (channel->discard != 0)
				return;
			continue;
		}
		if (avail < NM_FRAME_HEADER_SIZE)
			return;

		/* Wait for a whole frame, but only for one within the cap. */
		evbuffer_copyout(input, header, sizeof header);
		memcpy(&length, header, sizeof length);
		need = NM_FRAME_HEADER_SIZE;
		if (length <= channel->max_inbound)
			need += length;
		if (avail < need)
			return;
		buf = evbuffer_pullup(input, need);

		switch (nm_frame_parse(buf, need, channel->max_inbound,
		    &payload, &len, &consumed, &length)) {
		case NM_FRAME_OK:
			channel_deliver(channel, payload, len, consumed);
			break;
		case NM_FRAME_EMPTY:
			log_warn(channel->log, "native messaging: skipped an "
			    "empty frame");
			evbuffer_drain(input, consumed);
			break;
		case NM_FRAME_TOO_LARGE:
			log_warn(channel->log, "native messaging: skipped a "
			    "frame of %u bytes: larger than the %zu byte limit",
			    length, channel->max_inbound);
			evbuffer_drain(input, consumed);
			channel->discard = length;
			break;
		case NM_FRAME_CORRUPT:
			log_error(channel->log, "native messaging: closing: "
			    "frame length %u is impossible, the stream is "
			    "corrupt", length);
			channel_close(channel);
			return;
		case NM_FRAME_NEED_MORE:
			return;
		}
	}
}

/* Reads what the input descriptor has and processes whole frames. */
static void
channel_read_cb(evutil_socket_t fd, short events, void *arg)
{
	struct channel	*channel = arg;
	size_t		 partial;
	int		 n, error;

	n = evbuffer_read(channel->input, fd, CHANNEL_READ_SIZE);
	if (n == -1) {
		if (os_io_again(error = EVUTIL_SOCKET_ERROR()))
			return;
		log_warn(channel->log, "native messaging: closing: read "
		    "error: %s", evutil_socket_error_to_string(error));
		channel_close(channel);
		return;
	}
	if (n == 0) {
		partial = evbuffer_get_length(channel->input);
		if (partial != 0) {
			log_warn(channel->log, "native messaging: input ended "
			    "inside a frame (%zu bytes left over)", partial);
		}
		log_info(channel->log, "native messaging: input closed");
		channel_close(channel);
		return;
	}
	channel_process(channel);
}

/* Writes queued output until it is gone or the descriptor would block. */
static void
channel_flush(struct channel *channel)
{
	int	error;

	while (channel->open && evbuffer_get_length(channel->output) != 0) {
		if (evbuffer_write(channel->output,
		    os_stdio_output(channel->stdio)) != -1)
			continue;
		if (os_io_again(error = EVUTIL_SOCKET_ERROR())) {
			if (event_add(channel->write_event, NULL) == -1) {
				log_error(channel->log, "native messaging: "
				    "closing: cannot watch the output");
				channel_close(channel);
			}
			return;
		}
		log_info(channel->log, "native messaging: closing: write "
		    "error: %s", evutil_socket_error_to_string(error));
		channel_close(channel);
		return;
	}
	if (channel->open)
		event_del(channel->write_event);
}

/* Flushes when the output descriptor is writable again. */
static void
channel_write_cb(evutil_socket_t fd, short events, void *arg)
{
	channel_flush(arg);
}

/*
 * Creates a channel reading frames from in_fd and writing them to out_fd.
 * The descriptors stay the caller's: the channel never closes them.
 */
struct channel *
channel_new(struct event_base *base, int in_fd, int out_fd,
    size_t max_inbound, struct log *log, channel_message_cb on_message,
    channel_close_cb on_close, void *arg)
{
	struct channel	*channel;
	char		*cause = NULL;

	channel = xcalloc(1, sizeof *channel);
	channel->base = base;
	channel->max_inbound = max_inbound ? max_inbound : NM_FRAME_DEFAULT_MAX;
	channel->log = log;
	channel->on_message = on_message;
	channel->on_close = on_close;
	channel->arg = arg;
	channel->open = 1;
	channel->next_chunk_id = 1;

	channel->input = evbuffer_new();
	channel->output = evbuffer_new();
	/* Like running out of memory: no socket pair or thread to be had. */
	if ((channel->stdio = os_stdio_new(in_fd, out_fd, &cause)) == NULL) {
		log_error(log, "native messaging: %s", cause);
		abort();
	}
	channel->read_event = event_new(base, os_stdio_input(channel->stdio),
	    EV_READ|EV_PERSIST, channel_read_cb, channel);
	channel->write_event = event_new(base,
	    os_stdio_output(channel->stdio), EV_WRITE|EV_PERSIST,
	    channel_write_cb, channel);
	channel->close_event = event_new(base, -1, 0, channel_notify_close,
	    channel);
	if (channel->input == NULL || channel->output == NULL ||
	    channel->read_event == NULL || channel->write_event == NULL ||
	    channel->close_event == NULL) {
		log_error(log, "native messaging: out of memory");
		abort();
	}

	/* Input the loop cannot watch at all: treat it as closed. */
	if (event_add(channel->read_event, NULL) == -1) {
		log_warn(log, "native messaging: closing: cannot watch input "
		    "fd %d", in_fd);
		channel_close(channel);
	}
	return channel;
}

/*
 * Frees a channel without calling on_close. Never call it from inside
 * on_message or on_close: free it from the loop afterwards.
 */
void
channel_free(struct channel *channel)
{
	if (channel == NULL)
		return;
	event_free(channel->read_event);
	event_free(channel->write_event);
	event_free(channel->close_event);
	os_stdio_free(channel->stdio);
	evbuffer_free(channel->input);
	evbuffer_free(channel->output);
	free(channel);
}

/* Queues one frame holding len bytes of text. */
static void
channel_queue_frame(struct channel *channel, const char *text, size_t len)
{
	uint8_t	header[NM_FRAME_HEADER_SIZE];

	nm_frame_header_encode(header, (uint32_t)len);
	evbuffer_add(channel->output, header, sizeof header);
	evbuffer_add(channel->output, text, len);
}

/* Queues one chunk message as its own frame. */
static void
channel_queue_chunk(const json_t *chunk, void *arg)
{
	struct channel	*channel = arg;
	char		*text;

	text = json_dumps(chunk, JSON_COMPACT);
	channel_queue_frame(channel, text, strlen(text));
	free(text);
}

/*
 * Queues a message, as chunks if it is over 1 MB serialised, and writes what
 * it can now; -1 if the channel is (or just became) closed.
 */
int
channel_send(struct channel *channel, const json_t *message)
{
	char	*text;
	size_t	 len;

	if (!channel->open)
		return -1;
	text = json_dumps(message, JSON_COMPACT);
	if (text == NULL) {
		log_error(channel->log, "native messaging: cannot serialise "
		    "a message");
		return -1;
	}
	len = strlen(text);
	if (len <= NM_FRAME_OUTBOUND_MAX)
		channel_queue_frame(channel, text, len);
	else {
		nm_chunk_split(text, len, channel->next_chunk_id++,
		    NM_FRAME_OUTBOUND_MAX, channel_queue_chunk, channel);
	}
	free(text);
	channel_flush(channel);
	return channel->open ? 0 : -1;
}

/* Returns 1 until the channel has closed. */
int
channel_is_open(const struct channel *channel)
{
	return channel->open;
}

/* Returns the bytes queued but not yet written. */
size_t
channel_output_pending(const struct channel *channel)
{
	return evbuffer_get_length(channel->output);
}
