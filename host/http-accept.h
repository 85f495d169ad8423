/*
 * Accepting connections when file descriptors run out. libevent's listener
 * keeps asking for a connection that accept() cannot take (EMFILE, ENFILE),
 * and so spins at full CPU; a guard pauses the listener for a second
 * instead, says so in the log (once a minute while it lasts), and resumes.
 */
#ifndef HTTP_ACCEPT_H
#define HTTP_ACCEPT_H

struct evconnlistener;
struct http_accept_guard;
struct log;

struct http_accept_guard	*http_accept_guard_new(
				    struct evconnlistener *listener,
				    struct log *log);
void				 http_accept_guard_free(
				    struct http_accept_guard *guard);

#endif
