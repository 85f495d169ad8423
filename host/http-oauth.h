/*
 * The OAuth routes of the HTTP server (docs/protocol.md, "HTTP
 * endpoints"): the metadata under /.well-known, /register, /authorize,
 * /token and /revoke, and the check of the access tokens MCP requests
 * carry. Off ("oauth": false), the routes answer 404 and only the owner
 * key opens /mcp.
 */
#ifndef HTTP_OAUTH_H
#define HTTP_OAUTH_H

#include <stdbool.h>
#include <stdint.h>

struct clock;
struct evhttp_request;
struct evhttp_uri;
struct log;
struct oauth_approver;
struct oauth_store;
struct session_grant;

struct http_oauth;

struct http_oauth	*http_oauth_new(struct oauth_store *store,
			    const struct oauth_approver *approver,
			    uint16_t port, const struct clock *wall,
			    struct log *log);
void			 http_oauth_free(struct http_oauth *oauth);
bool			 http_oauth_path(const char *path);
void			 http_oauth_route(struct http_oauth *oauth,
			    struct evhttp_request *req, const char *path,
			    const struct evhttp_uri *uri);
int			 http_oauth_authenticate(struct http_oauth *oauth,
			    const char *authorization,
			    struct session_grant *grant);
void			 http_oauth_forget_client(struct http_oauth *oauth,
			    const char *client_id);
void			 http_oauth_tick(struct http_oauth *oauth);

#endif
