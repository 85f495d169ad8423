/*
 * The event loop of a program whose standard input and output may be
 * anything a shell gives it: pipes and sockets (a browser, an MCP client),
 * a terminal, or a regular file or /dev/null, which epoll refuses to watch.
 */
#ifndef LOOP_H
#define LOOP_H

#include <stdbool.h>

struct event_base;

bool			 loop_pollable(int fd);
struct event_base	*loop_new(int in_fd, int out_fd);

#endif
