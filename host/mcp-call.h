/*
 * The MCP requests that wait for the dispatcher (tools/call,
 * resources/read, the task methods): each is a pending call of its session
 * until it is answered, cancelled (notifications/cancelled, its caller gone)
 * or its session ends. On the way its client gets progress and the agents'
 * questions (elicitation/create), whose answers go to answer_task. How an
 * outcome becomes a reply is the starter's (a finish function), so this
 * file knows no tool, resource or task.
 */
#ifndef MCP_CALL_H
#define MCP_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp.h"
#include "queue.h"

struct mcp_call;

/*
 * Turns a call's outcome (result borrowed, or error_code and
 * error_message) into its JSON-RPC reply; NULL when it started the call
 * again (mcp_call_dispatch) and the call is still pending.
 */
typedef json_t *(*mcp_call_finish_fn)(struct mcp_call *call,
		    const json_t *result, const char *error_code,
		    const char *error_message);

/* A request waiting for the dispatcher. */
struct mcp_call {
	struct mcp		*mcp;
	struct session		*session;
	mcp_call_finish_fn	 finish;
	int			 op;	/* finish's: a task op, or structured */
	json_t			*again_args;	/* finish's: to ask again */
	json_t			*request_id;
	uint64_t		 dispatch_id;
	json_t			*progress_token;	/* NULL: no progress */
	double			 last_progress;
	/* The agents' question sent as elicitation/create, until answered. */
	char			*elicit_id;
	json_t			*elicit_args;	/* answer_task's task_id, question_id */
	mcp_emit_cb		 emit;
	void			*arg;
	TAILQ_ENTRY(mcp_call)	 entry;
};

struct mcp_call	*mcp_call_new(struct mcp *mcp, struct session *session,
		    const json_t *request, mcp_call_finish_fn finish,
		    mcp_emit_cb emit, void *arg);
struct mcp_call	*mcp_call_start(struct mcp_call *call, const char *method,
		    json_t *args, int timeout_ms);
bool		 mcp_call_dispatch(struct mcp_call *call, const char *method,
		    json_t *args, int timeout_ms, const char **code,
		    char **message);
void		 mcp_call_response(struct mcp *mcp, struct session *session,
		    const json_t *message);
void		 mcp_call_cancelled(struct mcp *mcp, struct session *session,
		    const json_t *params);
void		 mcp_call_abandon(struct mcp *mcp, struct mcp_call *call);
void		 mcp_call_session_ended(struct mcp *mcp,
		    struct session *session);
json_t		*mcp_call_question(const json_t *question);
const char	*mcp_call_elicited(const json_t *response, bool *malformed);

#endif
