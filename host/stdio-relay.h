/*
 * The stdio bridge's relay: every client message goes to the running host
 * over Streamable HTTP, every answer back. Without a host it answers here
 * (stdio-offline.c) and connects as soon as one appears, replaying the
 * client's initialize. 2026-07-28 requests need no session: each goes to
 * the host on its own, and their listen streams wait for a host.
 */
#ifndef STDIO_RELAY_H
#define STDIO_RELAY_H

#include <jansson.h>

struct config;
struct event_base;
struct log;
struct stdio_relay;
struct tool_registry;

/* How often the relay looks for a host while it has none. */
#define STDIO_RELAY_RETRY_MS	1000

struct stdio_relay_callbacks {
	/* Hands a message (borrowed) to the client. */
	void	(*write)(const json_t *message, void *arg);
	/* The client's input ended and every answer is out: stop. */
	void	(*finished)(void *arg);
	void	*arg;
};

struct stdio_relay	*stdio_relay_new(struct event_base *base,
			    const struct config *config, struct log *log,
			    const struct tool_registry *tools,
			    const struct stdio_relay_callbacks *cb);
void			 stdio_relay_free(struct stdio_relay *relay);
void			 stdio_relay_message(struct stdio_relay *relay,
			    const json_t *message);
void			 stdio_relay_input_closed(struct stdio_relay *relay);

#endif
