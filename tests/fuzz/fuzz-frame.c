/*
 * Fuzz target: the native-messaging channel reading what the browser
 * writes. The input is the whole byte stream on the host's stdin, then
 * end of file; frames are delivered, skipped or end the channel, which
 * closes exactly once. A small frame limit exercises skipping.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "channel.h"

/* Frames over this many bytes are skipped. */
#define FUZZ_FRAME_MAX	512

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_sink {
	size_t	messages;
	int	closed;
};

/* Takes a delivered message, which must be a JSON object. */
static void
fuzz_message(json_t *message, void *arg)
{
	struct fuzz_sink	*sink = arg;

	if (!json_is_object(message) || sink->closed)
		abort();
	sink->messages++;
}

/* Counts the close. */
static void
fuzz_close(void *arg)
{
	struct fuzz_sink	*sink = arg;

	sink->closed++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_sink	 sink = { 0 };
	struct event_base	*base;
	struct channel		*channel;
	int			 in[2], out[2];
	size_t			 off = 0;
	ssize_t			 n;

	if (size > 60000 || pipe(in) != 0)
		return 0;	/* a pipe holds 64 KiB: one write, no blocking */
	if (pipe(out) != 0) {
		close(in[0]);
		close(in[1]);
		return 0;
	}
	while (off < size && (n = write(in[1], data + off, size - off)) > 0)
		off += (size_t)n;
	close(in[1]);
	base = event_base_new();
	channel = channel_new(base, in[0], out[1], FUZZ_FRAME_MAX, NULL,
	    fuzz_message, fuzz_close, &sink);
	event_base_dispatch(base);
	if (sink.closed != 1)
		abort();
	channel_free(channel);
	event_base_free(base);
	close(in[0]);
	close(out[0]);
	close(out[1]);
	return 0;
}
