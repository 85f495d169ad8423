/*
 * Noticing a client that hangs up while its request waits for the reply.
 * libevent 2.1 stops reading a server connection once it has a request, so
 * a closed socket would be seen only when the reply is written; a watch
 * peeks at the socket meanwhile and, on end of file or an error, frees the
 * connection, which runs its close callback at once.
 */
#ifndef HTTP_HANGUP_H
#define HTTP_HANGUP_H

struct evhttp_request;
struct http_hangup;

struct http_hangup	*http_hangup_watch(struct evhttp_request *req);
void			 http_hangup_free(struct http_hangup *hangup);

#endif
