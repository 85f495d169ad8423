/*
 * The container: one struct that owns the config, log, event base,
 * native-messaging channel, extension RPC, tool registry, session store
 * and HTTP server. Modules receive the parts they need from it; there are
 * no other globals.
 */
#ifndef BRIDGE_H
#define BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "config.h"

struct channel;
struct http_server;
struct log;
struct mcp;
struct rpc;
struct session_store;
struct tool_registry;

struct bridge {
	struct config		 config;
	struct log		*log;
	struct event_base	*base;
	struct channel		*channel;
	struct rpc		*rpc;
	struct tool_registry	*tools;
	struct session_store	*sessions;
	struct mcp		*mcp;
	struct http_server	*http;
	char			*token;		/* NULL when auth is off */
	char			*runtime_file;
	char			*port_note;	/* why the port differs, or NULL */
	uint16_t		 port;
	uint64_t		 started_ms;
	struct event		*signal_int;
	struct event		*signal_term;
	struct event		*exit_timer;
	bool			 exiting;
};

struct bridge	*bridge_new(struct config *config, int in_fd, int out_fd,
		    char **cause);
int		 bridge_run(struct bridge *bridge);
void		 bridge_free(struct bridge *bridge);
json_t		*bridge_status(struct bridge *bridge);
char		*bridge_mcp_url(const struct bridge *bridge);
uint64_t	 bridge_now_ms(void);

#endif
