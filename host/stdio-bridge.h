/*
 * browser-bridge stdio: an MCP server on stdin and stdout (newline-delimited
 * JSON-RPC, the MCP stdio transport) for clients that only start stdio
 * servers. Each line goes to the relay (stdio-relay.c), which carries it
 * to the running host, or answers here while there is none.
 */
#ifndef STDIO_BRIDGE_H
#define STDIO_BRIDGE_H

struct config;

int	stdio_bridge_run(struct config *config, int out_fd);

#endif
