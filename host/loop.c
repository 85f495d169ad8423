/* The event loop, made to watch the descriptors it is given. */
#include "loop.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <unistd.h>

#include <event2/event.h>

/* Says whether epoll can watch fd (pipes, sockets and terminals). */
bool
loop_pollable(int fd)
{
	struct stat	sb;

	if (fstat(fd, &sb) == -1)
		return false;
	return S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode) || isatty(fd);
}

/*
 * Makes the event loop for a program reading in_fd and writing out_fd.
 * epoll's changelist saves a syscall per change; when either descriptor
 * is one epoll refuses (a file, /dev/null), poll watches instead, which
 * finds it always ready, so a file is read to its end like a pipe.
 */
struct event_base *
loop_new(int in_fd, int out_fd)
{
	struct event_config	*config = event_config_new();
	struct event_base	*base;

	event_config_set_flag(config, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	if (!loop_pollable(in_fd) || !loop_pollable(out_fd))
		event_config_avoid_method(config, "epoll");
	base = event_base_new_with_config(config);
	event_config_free(config);
	return base;
}
