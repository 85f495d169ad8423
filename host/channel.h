/*
 * The native-messaging channel on the host's stdin and stdout: reads frames
 * without blocking, reassembles partial ones, hands each JSON object to the
 * owner, and writes messages as frames (chunked above 1 MB).
 *
 * The channel never closes in_fd or out_fd; they stay the caller's. on_close
 * runs once, from the loop. channel_free must not be called from inside
 * on_message or on_close: the owner frees the channel from the loop later.
 */
#ifndef CHANNEL_H
#define CHANNEL_H

#include <stddef.h>

#include <event2/event.h>
#include <jansson.h>

struct log;
struct channel;

/* A decoded inbound object; borrowed: json_incref to keep it. */
typedef void (*channel_message_cb)(json_t *message, void *arg);
/* EOF, a read error or a corrupt stream: the channel is closed. */
typedef void (*channel_close_cb)(void *arg);

struct channel	*channel_new(struct event_base *base, int in_fd, int out_fd,
		    size_t max_inbound, struct log *log,
		    channel_message_cb on_message, channel_close_cb on_close,
		    void *arg);
void		 channel_free(struct channel *channel);
int		 channel_send(struct channel *channel, const json_t *message);
int		 channel_is_open(const struct channel *channel);
size_t		 channel_output_pending(const struct channel *channel);

#endif
