/*
 * GET /authorize: the authorization request checked, the person asked in
 * the extension (approve_client over native messaging, docs/protocol.md),
 * and the browser sent back to the client with a code or access_denied.
 * Nothing sent over HTTP decides: the page only waits, reloading itself.
 */
#ifndef OAUTH_AUTHORIZE_H
#define OAUTH_AUTHORIZE_H

#include <stdint.h>

#include <jansson.h>

struct clock;
struct log;
struct oauth_store;

/* How long the person has to decide. */
#define OAUTH_APPROVAL_MS	(5 * 60 * 1000)
/* Requests of clients never approved waiting at once; more are refused. */
#define OAUTH_PENDING_MAX	8
/* One client's at most, approved or not: no client holds the queue. */
#define OAUTH_PENDING_PER_CLIENT	2
/*
 * Of the clients never approved, those one process registered, at most
 * (when the host knows the process, os_loopback_peer): a process that
 * registers many clients holds no more of the queue than one client.
 */
#define OAUTH_PENDING_PER_PROCESS	2

/* The outcome of asking the person: the extension's result, or an error. */
typedef void (*oauth_approval_cb)(const json_t *result,
		    const char *error_code, const char *error_message,
		    void *arg);

/* Who asks the person: the extension, over native messaging. */
struct oauth_approver {
	/* Sends approve_client (steals params); returns its id, never 0. */
	uint64_t	 (*ask)(void *arg, json_t *params, int timeout_ms,
			     oauth_approval_cb done, void *done_arg);
	void		 (*cancel)(void *arg, uint64_t id);
	void		*arg;
};

/* What to answer an authorization request. */
struct oauth_authorize_answer {
	int		 status;	/* 200 page, 302 redirect, 4xx, 503 page */
	char		*location;	/* for 302 */
	char		*html;		/* for a page */
	unsigned	 retry_after_s;	/* for 503: when a place frees */
};

struct oauth_authorize;

struct oauth_authorize	*oauth_authorize_new(struct oauth_store *store,
			    const struct oauth_approver *approver,
			    uint16_t port, const struct clock *wall,
			    struct log *log);
void			 oauth_authorize_free(struct oauth_authorize *authorize);
void			 oauth_authorize_request(
			    struct oauth_authorize *authorize,
			    const json_t *query,
			    struct oauth_authorize_answer *answer);
void			 oauth_authorize_forget_client(
			    struct oauth_authorize *authorize,
			    const char *client_id);
void			 oauth_authorize_expire(struct oauth_authorize *authorize);

#endif
