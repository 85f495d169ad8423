/*
 * Pending calls: recorded on their session, handed to the dispatcher,
 * answered once through their finish function, cancelled when their client
 * or session goes; progress and the agents' questions on the way.
 */
#include "mcp-call.h"

#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp-method.h"
#include "session.h"
#include "xmalloc.h"

/* How long the extension has to take a client's answer to a question. */
#define MCP_ANSWER_TIMEOUT_MS	15000

/* Detaches a finished call from its session and frees it. */
static void
mcp_call_free(struct mcp_call *call)
{
	TAILQ_REMOVE(&call->session->calls, call, entry);
	call->session->call_count--;
	json_decref(call->again_args);
	json_decref(call->request_id);
	json_decref(call->progress_token);
	free(call->elicit_id);
	json_decref(call->elicit_args);
	free(call);
}

/*
 * Forgets a call, then gives its caller the final answer (NULL: none, it
 * was cancelled). In that order: the answer may end what the call belongs
 * to (a stateless request's state goes with its HTTP exchange).
 */
static void
mcp_call_answer(struct mcp *mcp, struct mcp_call *call, json_t *reply,
    bool cancel)
{
	mcp_emit_cb	 emit = call->emit;
	void		*arg = call->arg;

	if (cancel)
		mcp_call_abandon(mcp, call);
	else
		mcp_call_free(call);
	emit(reply, true, arg);
}

/*
 * The agents' question (a string) as elicitation/create's params: the
 * question, and a form of one text field, "answer".
 */
json_t *
mcp_call_question(const json_t *question)
{
	json_t	*answer, *schema;

	answer = json_pack("{s:s, s:s, s:s}", "type", "string", "title",
	    "Answer", "description", "What to tell the browser's agents (or "
	    "\"done\" once you did it in the browser).");
	schema = json_pack("{s:s, s:{s:o}, s:[s]}", "type", "object",
	    "properties", "answer", answer, "required", "answer");
	return json_pack("{s:O, s:o}", "message", question, "requestedSchema",
	    schema);
}

/*
 * The answer an elicitation result (or an input response) carries:
 * content.answer of an accepted one. NULL for a declined or cancelled
 * one; *malformed is set when it is neither.
 */
const char *
mcp_call_elicited(const json_t *response, bool *malformed)
{
	const char	*action, *answer;

	*malformed = false;
	action = json_string_value(json_object_get(response, "action"));
	if (action == NULL) {
		*malformed = true;
		return NULL;
	}
	if (strcmp(action, "accept") != 0)
		return NULL;
	answer = json_string_value(json_object_get(json_object_get(response,
	    "content"), "answer"));
	if (answer == NULL || *answer == '\0')
		*malformed = true;
	return *malformed ? NULL : answer;
}

/*
 * The agents of the task this call waits on ask their question (progress
 * with "input"): a client that can ask its user gets it as
 * elicitation/create on the call's stream, once; its answer goes to
 * answer_task (mcp_call_response). The person may answer in the browser first.
 */
static void
mcp_call_elicit(struct mcp_call *call, const json_t *input)
{
	const json_t	*question = json_object_get(input, "question");
	json_t		*request;

	if (!call->session->elicitation || call->elicit_id != NULL ||
	    !json_is_string(question) ||
	    !json_is_string(json_object_get(input, "task_id")) ||
	    !json_is_string(json_object_get(input, "question_id")))
		return;
	call->elicit_id = xasprintf("elicit-%llu-%s",
	    (unsigned long long)call->dispatch_id,
	    json_string_value(json_object_get(input, "question_id")));
	call->elicit_args = json_pack("{s:O, s:O}", "task_id",
	    json_object_get(input, "task_id"), "question_id",
	    json_object_get(input, "question_id"));
	request = json_pack("{s:s, s:s, s:s, s:o}", "jsonrpc", "2.0", "id",
	    call->elicit_id, "method", "elicitation/create", "params",
	    mcp_call_question(question));
	call->emit(request, false, call->arg);
}

/* Passes extension progress on as notifications/progress, if asked for. */
static void
mcp_call_progress(const json_t *progress, void *arg)
{
	struct mcp_call	*call = arg;
	const json_t	*value = json_object_get(progress, "progress");
	json_t		*params;

	if (json_is_object(json_object_get(progress, "input")))
		mcp_call_elicit(call, json_object_get(progress, "input"));
	if (call->progress_token == NULL || !json_is_number(value) ||
	    json_number_value(value) <= call->last_progress)
		return;	/* progress must increase */
	call->last_progress = json_number_value(value);
	params = json_pack("{s:O,s:O}", "progressToken", call->progress_token,
	    "progress", value);
	if (json_is_number(json_object_get(progress, "total")))
		json_object_set(params, "total",
		    json_object_get(progress, "total"));
	if (json_is_string(json_object_get(progress, "message")))
		json_object_set(params, "message",
		    json_object_get(progress, "message"));
	call->emit(jsonrpc_notification("notifications/progress", params),
	    false, call->arg);
}

/* The extension answered a call: send the response and forget the call. */
static void
mcp_call_done(const json_t *result, const char *error_code,
    const char *error_message, void *arg)
{
	struct mcp_call	*call = arg;
	json_t		*reply;

	reply = call->finish(call, result, error_code, error_message);
	if (reply != NULL)	/* NULL: started again (mcp_call_again) */
		mcp_call_answer(call->mcp, call, reply, false);
}

/* What an answer_task the host starts by itself needs: nothing back. */
static void
mcp_call_answer_done(const json_t *result, const char *error_code,
    const char *error_message, void *arg)
{
}

/*
 * A client's response to our elicitation/create: an accepted answer goes
 * to the extension's answer_task (the task's own, first answer wins);
 * a decline or cancel leaves the question to the person. Responses to
 * nothing we asked are ignored.
 */
void
mcp_call_response(struct mcp *mcp, struct session *session,
    const json_t *message)
{
	const char	*id = jsonrpc_string(json_object_get(message, "id"));
	const char	*answer, *code = NULL;
	char		*error = NULL, caller[SESSION_CALLER_LENGTH + 1];
	struct mcp_call	*call;
	json_t		*args;
	bool		 malformed;

	if (id == NULL)
		return;
	TAILQ_FOREACH(call, &session->calls, entry) {
		if (call->elicit_id != NULL && strcmp(call->elicit_id, id) == 0)
			break;
	}
	if (call == NULL)
		return;
	answer = mcp_call_elicited(json_object_get(message, "result"),
	    &malformed);
	if (malformed)
		log_info(mcp->log, "client %s answered the agents' question of "
		    "task %s with no usable answer; the person can answer in "
		    "the browser", *session->client != '\0' ? session->client :
		    "(unnamed)", json_string_value(json_object_get(
		    call->elicit_args, "task_id")));
	if (answer != NULL) {
		args = json_deep_copy(call->elicit_args);
		json_object_set_new(args, "answer", json_string(answer));
		session_caller(mcp->sessions, session, caller);
		if (mcp->dispatcher.call(mcp->dispatcher.arg, "answer_task",
		    session->client, caller, session->grant.owner, args,
		    MCP_ANSWER_TIMEOUT_MS,
		    mcp_call_answer_done, NULL, NULL, &code, &error) == 0) {
			log_warn(mcp->log, "the client's answer to task %s "
			    "was lost: %s", json_string_value(json_object_get(
			    call->elicit_args, "task_id")), error);
			free(error);
		}
	}
	free(call->elicit_id);
	call->elicit_id = NULL;
}

/* Records a request that will wait for the dispatcher. */
struct mcp_call *
mcp_call_new(struct mcp *mcp, struct session *session, const json_t *request,
    mcp_call_finish_fn finish, mcp_emit_cb emit, void *arg)
{
	struct mcp_call	*call = xcalloc(1, sizeof *call);
	const json_t	*meta;

	call->mcp = mcp;
	call->session = session;
	call->finish = finish;
	call->request_id = json_incref(json_object_get(request, "id"));
	meta = json_object_get(json_object_get(request, "params"), "_meta");
	call->progress_token = json_incref(json_object_get(meta,
	    "progressToken"));
	call->emit = emit;
	call->arg = arg;
	TAILQ_INSERT_TAIL(&session->calls, call, entry);
	session->call_count++;
	return call;
}

/*
 * Hands a recorded call to the dispatcher (stealing args); a finish
 * function may do it again when the answer says to ask once more. Returns
 * whether the call is pending; if not, *code and *message (heap) say why.
 */
bool
mcp_call_dispatch(struct mcp_call *call, const char *method, json_t *args,
    int timeout_ms, const char **code, char **message)
{
	struct mcp	*mcp = call->mcp;
	char		 caller[SESSION_CALLER_LENGTH + 1];

	session_caller(mcp->sessions, call->session, caller);
	call->dispatch_id = mcp->dispatcher.call(mcp->dispatcher.arg, method,
	    call->session->client, caller, call->session->grant.owner, args,
	    timeout_ms, mcp_call_done,
	    mcp_call_progress, call, code, message);
	return call->dispatch_id != 0;
}

/*
 * Hands a recorded call to the dispatcher (stealing args). Returns it, or
 * NULL when the dispatcher refused at once and the call was answered.
 */
struct mcp_call *
mcp_call_start(struct mcp_call *call, const char *method, json_t *args,
    int timeout_ms)
{
	const char	*error_code = NULL;
	char		*error_message = NULL;

	if (mcp_call_dispatch(call, method, args, timeout_ms, &error_code,
	    &error_message))
		return call;
	mcp_call_done(NULL, error_code, error_message, call);
	free(error_message);
	return NULL;
}

/* notifications/cancelled: stop the call; it gets no response. */
void
mcp_call_cancelled(struct mcp *mcp, struct session *session,
    const json_t *params)
{
	const json_t	*id = json_object_get(params, "requestId");
	struct mcp_call	*call;

	if (id == NULL)
		return;
	TAILQ_FOREACH(call, &session->calls, entry) {
		if (json_equal(call->request_id, id))
			break;
	}
	if (call == NULL)
		return;	/* finished already, or never existed */
	log_debug(mcp->log, "session %.8s cancelled a call",
	    session->id);
	mcp_call_answer(mcp, call, NULL, true);
}

/* The caller of a pending call is gone: cancel it, never emit again. */
void
mcp_call_abandon(struct mcp *mcp, struct mcp_call *call)
{
	mcp->dispatcher.cancel(mcp->dispatcher.arg, call->dispatch_id,
	    "cancelled");
	mcp_call_free(call);
}

/*
 * A session ended (DELETE, expiry, its stream closed): each pending call is
 * cancelled at the extension and answered with an error, so a caller still
 * waiting on its POST is not left hanging.
 */
void
mcp_call_session_ended(struct mcp *mcp, struct session *session)
{
	struct mcp_call	*call;

	while ((call = TAILQ_FIRST(&session->calls)) != NULL) {
		mcp_call_answer(mcp, call, jsonrpc_error(call->request_id,
		    JSONRPC_INTERNAL_ERROR, "The MCP session ended before this "
		    "call finished; initialize a new session and retry.", NULL),
		    true);
	}
}
