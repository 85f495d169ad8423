/*
 * The host: builds the parts (channel, extension RPC, tool registry,
 * sessions, MCP, HTTP server), each given only what it uses, and runs the
 * loop until the browser leaves or a signal arrives. Only main calls it.
 */
#ifndef BRIDGE_H
#define BRIDGE_H

struct bridge;
struct config;

struct bridge	*bridge_new(struct config *config, int in_fd, int out_fd,
		    char **cause);
int		 bridge_run(struct bridge *bridge);
void		 bridge_free(struct bridge *bridge);

#endif
