/* Tests for the host-extension protocol: handshake, calls, timeouts, close. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <event2/event.h>
#include <jansson.h>

#include "check-helpers.h"
#include "errors.h"
#include "rpc.h"

#define MSG_NOT_CONNECTED \
	"The browser extension has not connected to this host. Open the " \
	"browser with the Browser Bridge extension enabled (check " \
	"chrome://extensions), then retry; `browser-bridge doctor` checks " \
	"every step."
#define MSG_DISCONNECTED \
	"The browser extension disconnected (browser closed or extension " \
	"reloaded). Reopen the browser and retry."

struct ctx;

/* What one call's callbacks saw. */
struct outcome {
	struct ctx	*ctx;
	int		 done;
	json_t		*result;
	char		*code;
	char		*message;
	json_t		*progress;	/* array of progress messages */
	/* Re-entrancy: what the done callback does. */
	uint64_t	 cancel_id;
	bool		 call_again;
	uint64_t	 new_id;
	struct outcome	*new_outcome;
};

struct ctx {
	struct check_clock	 clock;
	struct event_base	*base;
	struct rpc		*rpc;
	json_t			*sent;
	bool			 send_fails;
	size_t			 backlog;	/* what test_backlog says */
	int			 connected;
	int			 disconnected;
	json_t			*seen_hello;
	json_t			*events;
	bool			 done_inside_call;
	bool			 in_call;
};

/* Captures a message the host sends. */
static int
test_send(const json_t *message, void *arg)
{
	struct ctx	*ctx = arg;

	if (ctx->send_fails)
		return -1;
	json_array_append_new(ctx->sent, json_deep_copy(message));
	return 0;
}

/* Says how many bytes wait for the extension. */
static size_t
test_backlog(void *arg)
{
	struct ctx	*ctx = arg;

	return ctx->backlog;
}

/* Welcome fields; tries to override type and protocol too. */
static json_t *
test_welcome(const json_t *hello, void *arg)
{
	struct ctx	*ctx = arg;

	json_decref(ctx->seen_hello);
	ctx->seen_hello = json_deep_copy(hello);
	return check_json("{\"version\":\"9.9.9\",\"mcp_url\":"
	    "\"http://127.0.0.1:8765/mcp\",\"port\":8765,\"auth\":true,"
	    "\"type\":\"bogus\",\"protocol\":42}");
}

/* Counts connections. */
static void
test_connected(void *arg)
{
	((struct ctx *)arg)->connected++;
}

/* Counts disconnections. */
static void
test_disconnected(void *arg)
{
	((struct ctx *)arg)->disconnected++;
}

/* Answers "echo" with its method and params; anything else is unknown. */
static json_t *
test_host_request(const char *method, const json_t *params,
    __attribute__((unused)) void *arg, const char **code, char **message)
{
	if (strcmp(method, "echo") == 0)
		return json_pack("{s:s, s:O}", "method", method, "params",
		    (json_t *)params);
	*code = ERR_UNKNOWN_METHOD;
	*message = strdup("no such method; call status");
	return NULL;
}

/* Records events. */
static void
test_event(const json_t *event, void *arg)
{
	json_array_append_new(((struct ctx *)arg)->events,
	    json_deep_copy(event));
}

/* Records a call's outcome and does what the test asked for. */
static void
test_done(const json_t *result, const char *code, const char *message,
    void *arg)
{
	struct outcome	*o = arg;
	struct ctx	*ctx = o->ctx;

	if (ctx->in_call)
		ctx->done_inside_call = true;
	o->done++;
	o->result = result != NULL ? json_deep_copy(result) : NULL;
	o->code = code != NULL ? strdup(code) : NULL;
	o->message = message != NULL ? strdup(message) : NULL;
	if (o->cancel_id != 0)
		rpc_cancel(ctx->rpc, o->cancel_id, "cancelled");
	if (o->call_again) {
		o->new_outcome = calloc(1, sizeof *o->new_outcome);
		o->new_outcome->ctx = ctx;
		o->new_id = rpc_call(ctx->rpc, "again", NULL, NULL, false, NULL, 1000,
		    test_done, NULL, o->new_outcome);
	}
}

/* Records a progress message. */
static void
test_progress(const json_t *progress, void *arg)
{
	struct outcome	*o = arg;

	if (o->progress == NULL)
		o->progress = json_array();
	json_array_append_new(o->progress, json_deep_copy(progress));
}

/* Frees what an outcome holds. */
static void
outcome_clear(struct outcome *o)
{
	if (o->new_outcome != NULL) {
		outcome_clear(o->new_outcome);
		free(o->new_outcome);
	}
	json_decref(o->result);
	json_decref(o->progress);
	free(o->code);
	free(o->message);
	memset(o, 0, sizeof *o);
}

/* Creates the base and the protocol state for one test. */
static void
ctx_start(struct ctx *ctx, int grace_ms)
{
	struct rpc_callbacks	cb = {
		.send = test_send,
		.backlog = test_backlog,
		.welcome = test_welcome,
		.connected = test_connected,
		.disconnected = test_disconnected,
		.host_request = test_host_request,
		.event = test_event,
		.arg = ctx,
	};

	memset(ctx, 0, sizeof *ctx);
	ctx->base = event_base_new();
	ck_assert_ptr_nonnull(ctx->base);
	ctx->sent = json_array();
	ctx->events = json_array();
	ctx->rpc = rpc_new(ctx->base, check_clock_start(&ctx->clock, 1000),
	    NULL, grace_ms, &cb);
}

/* Frees everything a test made. */
static void
ctx_end(struct ctx *ctx)
{
	rpc_free(ctx->rpc);
	event_base_free(ctx->base);
	json_decref(ctx->sent);
	json_decref(ctx->events);
	json_decref(ctx->seen_hello);
}

/* Feeds one message, given as JSON text, to the protocol state. */
static void
ctx_receive(struct ctx *ctx, const char *text)
{
	json_t	*message = check_json(text);

	rpc_receive(ctx->rpc, message);
	json_decref(message);
}

/* Says hello with protocol 1 and drops the welcome from the sent list. */
static void
ctx_connect(struct ctx *ctx)
{
	ctx_receive(ctx, "{\"type\":\"hello\",\"protocol\":1,"
	    "\"version\":\"0.1.0\",\"capabilities\":[\"tabs\"]}");
	ck_assert(rpc_is_connected(ctx->rpc));
	json_array_clear(ctx->sent);
}

/*
 * Moves the clock on by ms, then runs what is due: the calls the clock
 * says are overdue, and the failures deferred to the loop.
 */
static void
ctx_advance(struct ctx *ctx, int ms)
{
	ctx->clock.now_ms += (uint64_t)ms;
	rpc_expire(ctx->rpc);
	event_base_loop(ctx->base, EVLOOP_NONBLOCK);
}

/* Starts a call, noting whether done ran inside rpc_call. */
static uint64_t
ctx_call(struct ctx *ctx, const char *method, const char *params,
    int timeout_ms, struct outcome *o)
{
	uint64_t	id;

	o->ctx = ctx;
	ctx->in_call = true;
	id = rpc_call(ctx->rpc, method, NULL, NULL, false, params != NULL ?
	    check_json(params) : NULL, timeout_ms, test_done, test_progress, o);
	ctx->in_call = false;
	return id;
}

/* Returns the sent message at index i. */
static json_t *
ctx_sent(struct ctx *ctx, size_t i)
{
	ck_assert_uint_gt(json_array_size(ctx->sent), i);
	return json_array_get(ctx->sent, i);
}

/* Asserts a sent message equals the given JSON text. */
static void
ck_assert_sent(struct ctx *ctx, size_t i, const char *expected)
{
	json_t	*want = check_json(expected);

	ck_assert_json_eq(ctx_sent(ctx, i), want);
	json_decref(want);
}

/* Asserts a result equals the given JSON text. */
static void
ck_assert_result(const struct outcome *o, const char *expected)
{
	json_t	*want = check_json(expected);

	ck_assert_int_eq(o->done, 1);
	ck_assert_ptr_null(o->code);
	ck_assert_json_eq(o->result, want);
	json_decref(want);
}

/* Asserts a call failed with the given code (and message, if not NULL). */
static void
ck_assert_failed(const struct outcome *o, const char *code,
    const char *message)
{
	ck_assert_int_eq(o->done, 1);
	ck_assert_ptr_null(o->result);
	ck_assert_str_eq(o->code, code);
	ck_assert_ptr_nonnull(o->message);
	if (message != NULL)
		ck_assert_str_eq(o->message, message);
}

START_TEST(test_handshake_welcome_carries_callback_fields)
{
	struct ctx	 ctx;
	json_t		*hello;

	ctx_start(&ctx, 0);
	ck_assert(!rpc_is_connected(ctx.rpc));
	ck_assert_ptr_null(rpc_extension_hello(ctx.rpc));
	ctx_receive(&ctx, "{\"type\":\"hello\",\"protocol\":1,"
	    "\"version\":\"0.1.0\",\"capabilities\":[\"tabs\"]}");
	ck_assert(rpc_is_connected(ctx.rpc));
	ck_assert_int_eq(ctx.connected, 1);
	ck_assert_uint_eq(json_array_size(ctx.sent), 1);
	ck_assert_sent(&ctx, 0, "{\"type\":\"welcome\",\"protocol\":1,"
	    "\"version\":\"9.9.9\",\"mcp_url\":\"http://127.0.0.1:8765/mcp\","
	    "\"port\":8765,\"auth\":true}");
	hello = check_json("{\"type\":\"hello\",\"protocol\":1,"
	    "\"version\":\"0.1.0\",\"capabilities\":[\"tabs\"]}");
	ck_assert_json_eq(ctx.seen_hello, hello);
	ck_assert_json_eq(rpc_extension_hello(ctx.rpc), hello);
	json_decref(hello);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_handshake_second_hello_rewelcomes)
{
	struct ctx	ctx;

	ctx_start(&ctx, 0);
	ctx_receive(&ctx, "{\"type\":\"hello\",\"protocol\":1,"
	    "\"version\":\"0.1.0\"}");
	ctx_receive(&ctx, "{\"type\":\"hello\",\"protocol\":1,"
	    "\"version\":\"0.2.0\"}");
	ck_assert(rpc_is_connected(ctx.rpc));
	ck_assert_int_eq(ctx.connected, 2);
	ck_assert_uint_eq(json_array_size(ctx.sent), 2);
	ck_assert_str_eq(json_string_value(json_object_get(ctx_sent(&ctx, 1),
	    "type")), "welcome");
	ck_assert_str_eq(json_string_value(json_object_get(
	    rpc_extension_hello(ctx.rpc), "version")), "0.2.0");
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_handshake_protocol_mismatch)
{
	struct ctx	 ctx;
	json_t		*error;

	ctx_start(&ctx, 0);
	ctx_receive(&ctx, "{\"type\":\"hello\",\"protocol\":2}");
	ck_assert(!rpc_is_connected(ctx.rpc));
	ck_assert_int_eq(ctx.connected, 0);
	ck_assert_ptr_null(rpc_extension_hello(ctx.rpc));
	ck_assert_sent(&ctx, 0, "{\"type\":\"welcome\",\"protocol\":1,"
	    "\"error\":{\"code\":\"PROTOCOL_MISMATCH\",\"message\":"
	    "\"The extension speaks protocol 2, this host speaks 1: update "
	    "both to the same release.\"}}");

	/* A string "1" is not the integer 1; a missing one is a mismatch. */
	ctx_receive(&ctx, "{\"type\":\"hello\",\"protocol\":\"1\"}");
	ctx_receive(&ctx, "{\"type\":\"hello\"}");
	ck_assert(!rpc_is_connected(ctx.rpc));
	ck_assert_uint_eq(json_array_size(ctx.sent), 3);
	error = json_object_get(ctx_sent(&ctx, 2), "error");
	ck_assert_str_eq(json_string_value(json_object_get(error, "code")),
	    ERR_PROTOCOL_MISMATCH);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_call_before_hello_is_sent_with_remaining_timeout)
{
	struct ctx	 ctx;
	struct outcome	 o = { 0 };
	uint64_t	 id;
	json_t		*request;
	json_int_t	 timeout;

	ctx_start(&ctx, 5000);
	id = ctx_call(&ctx, "navigate_to", "{\"url\":\"https://a.test/\"}",
	    1000, &o);
	ck_assert_uint_eq(id, 1);
	ck_assert_uint_eq(json_array_size(ctx.sent), 0);
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 1);
	ctx_advance(&ctx, 100);
	ck_assert_int_eq(o.done, 0);

	ctx_receive(&ctx, "{\"type\":\"hello\",\"protocol\":1}");
	ck_assert_uint_eq(json_array_size(ctx.sent), 2);
	request = ctx_sent(&ctx, 1);
	timeout = json_integer_value(json_object_get(request, "timeout_ms"));
	ck_assert_int_eq(timeout, 900);
	json_object_del(request, "timeout_ms");
	ck_assert_sent(&ctx, 1, "{\"type\":\"request\",\"id\":1,"
	    "\"method\":\"navigate_to\",\"params\":{\"url\":"
	    "\"https://a.test/\"}}");

	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":1,\"result\":"
	    "{\"content\":[]}}");
	ck_assert_result(&o, "{\"content\":[]}");
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 0);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_call_before_hello_fails_after_grace)
{
	struct ctx	ctx;
	struct outcome	o = { 0 }, shorter = { 0 };

	ctx_start(&ctx, 500);
	ctx_call(&ctx, "snapshot", NULL, 10000, &o);
	ctx_advance(&ctx, 499);
	ck_assert_int_eq(o.done, 0);
	ctx_advance(&ctx, 1);
	ck_assert_failed(&o, ERR_EXTENSION_NOT_CONNECTED, MSG_NOT_CONNECTED);
	ck_assert_uint_eq(json_array_size(ctx.sent), 0);
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 0);
	outcome_clear(&o);
	ctx_end(&ctx);

	/* A call whose own timeout is shorter than the grace fails sooner. */
	ctx_start(&ctx, 60000);
	ctx_call(&ctx, "snapshot", NULL, 30, &shorter);
	ctx_advance(&ctx, 29);
	ck_assert_int_eq(shorter.done, 0);
	ctx_advance(&ctx, 1);
	ck_assert_failed(&shorter, ERR_EXTENSION_NOT_CONNECTED,
	    MSG_NOT_CONNECTED);
	ck_assert(!ctx.done_inside_call);
	outcome_clear(&shorter);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_call_defaults_params_and_timeout)
{
	struct ctx	ctx;
	struct outcome	o = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_call(&ctx, "list_tabs", NULL, 0, &o);
	ck_assert_sent(&ctx, 0, "{\"type\":\"request\",\"id\":1,"
	    "\"method\":\"list_tabs\",\"params\":{},\"timeout_ms\":30000}");
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 1);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_call_names_its_client)
{
	struct ctx	ctx;
	struct outcome	o = { 0 }, unnamed = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	o.ctx = &ctx;
	unnamed.ctx = &ctx;
	rpc_call(ctx.rpc, "click_element", "claude-code 2.1.3", "5e551011",
	    true, NULL, 5000, test_done, NULL, &o);
	rpc_call(ctx.rpc, "click_element", "", "", false, NULL, 5000,
	    test_done, NULL, &unnamed);
	ck_assert_sent(&ctx, 0, "{\"type\":\"request\",\"id\":1,"
	    "\"method\":\"click_element\",\"params\":{},\"timeout_ms\":5000,"
	    "\"client\":\"claude-code 2.1.3\",\"caller\":\"5e551011\","
	    "\"owner\":true}");
	ck_assert_sent(&ctx, 1, "{\"type\":\"request\",\"id\":2,"
	    "\"method\":\"click_element\",\"params\":{},\"timeout_ms\":5000}");
	outcome_clear(&o);
	outcome_clear(&unnamed);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_response_correlated_by_id_out_of_order)
{
	struct ctx	ctx;
	struct outcome	o[3] = { { 0 } };
	uint64_t	ids[3];
	int		i;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	for (i = 0; i < 3; i++)
		ids[i] = ctx_call(&ctx, "click", NULL, 5000, &o[i]);
	ck_assert_uint_eq(ids[0], 1);
	ck_assert_uint_eq(ids[1], 2);
	ck_assert_uint_eq(ids[2], 3);
	ck_assert_uint_eq(json_array_size(ctx.sent), 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(json_integer_value(json_object_get(
		    ctx_sent(&ctx, i), "id")), ids[i]);
	}

	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":3,\"result\":"
	    "{\"n\":3}}");
	ck_assert_int_eq(o[0].done + o[1].done, 0);
	ck_assert_result(&o[2], "{\"n\":3}");
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":1,\"result\":"
	    "{\"n\":1}}");
	ck_assert_result(&o[0], "{\"n\":1}");
	ck_assert_int_eq(o[1].done, 0);
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":2,\"result\":"
	    "{\"n\":2}}");
	ck_assert_result(&o[1], "{\"n\":2}");
	ck_assert_result(&o[2], "{\"n\":3}");
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 0);
	for (i = 0; i < 3; i++)
		outcome_clear(&o[i]);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_error_response_passes_code_and_message)
{
	struct ctx	ctx;
	struct outcome	o[3] = { { 0 } };
	int		i;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	for (i = 0; i < 3; i++)
		ctx_call(&ctx, "click", NULL, 5000, &o[i]);
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":1,\"error\":"
	    "{\"code\":\"TAB_NOT_FOUND\",\"message\":\"Tab 4 is gone; call "
	    "list_tabs.\"}}");
	ck_assert_failed(&o[0], ERR_TAB_NOT_FOUND,
	    "Tab 4 is gone; call list_tabs.");
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":2,\"error\":"
	    "{\"message\":\"something broke\"}}");
	ck_assert_failed(&o[1], ERR_INTERNAL, "something broke");
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":3,\"error\":"
	    "{\"code\":\"STALE_REF\"}}");
	ck_assert_failed(&o[2], ERR_STALE_REF, NULL);
	ck_assert_uint_gt(strlen(o[2].message), 0);
	for (i = 0; i < 3; i++)
		outcome_clear(&o[i]);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_progress_delivered_in_order)
{
	struct ctx	 ctx;
	struct outcome	 o = { 0 };
	json_t		*want;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_call(&ctx, "run_task", NULL, 5000, &o);
	ctx_receive(&ctx, "{\"type\":\"progress\",\"id\":1,\"progress\":1,"
	    "\"total\":3,\"message\":\"one\"}");
	ctx_receive(&ctx, "{\"type\":\"progress\",\"id\":99,\"progress\":1}");
	ctx_receive(&ctx, "{\"type\":\"progress\",\"id\":1,\"progress\":2,"
	    "\"total\":3}");
	ck_assert_int_eq(o.done, 0);
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":1,\"result\":{}}");
	want = check_json("[{\"type\":\"progress\",\"id\":1,\"progress\":1,"
	    "\"total\":3,\"message\":\"one\"},{\"type\":\"progress\",\"id\":1,"
	    "\"progress\":2,\"total\":3}]");
	ck_assert_json_eq(o.progress, want);
	json_decref(want);
	ck_assert_result(&o, "{}");
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_timeout_fails_and_sends_cancel)
{
	struct ctx	ctx;
	struct outcome	o = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_call(&ctx, "wait_for", NULL, 30, &o);
	ctx_advance(&ctx, 29);
	ck_assert_int_eq(o.done, 0);
	ck_assert_uint_eq(json_array_size(ctx.sent), 1);
	ctx_advance(&ctx, 1);
	ck_assert_failed(&o, ERR_TIMEOUT, "The extension did not answer "
	    "wait_for within 30 ms. The page may be busy or the tab closed; "
	    "check the tab and retry, or raise timeout_ms.");
	ck_assert_uint_eq(json_array_size(ctx.sent), 2);
	ck_assert_sent(&ctx, 1, "{\"type\":\"cancel\",\"id\":1,"
	    "\"reason\":\"timeout\"}");
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 0);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_late_response_after_timeout_ignored)
{
	struct ctx	ctx;
	struct outcome	o = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_call(&ctx, "wait_for", NULL, 20, &o);
	ctx_advance(&ctx, 20);
	ck_assert_int_eq(o.done, 1);
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":1,\"result\":{}}");
	ctx_receive(&ctx, "{\"type\":\"progress\",\"id\":1,\"progress\":1}");
	ck_assert_int_eq(o.done, 1);
	ck_assert_str_eq(o.code, ERR_TIMEOUT);
	ck_assert_ptr_null(o.progress);
	ck_assert_uint_eq(json_array_size(ctx.sent), 2);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_cancel_sends_cancel_and_never_calls_done)
{
	struct ctx	ctx;
	struct outcome	o = { 0 }, queued = { 0 };
	uint64_t	id;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	id = ctx_call(&ctx, "navigate_to", NULL, 30, &o);
	rpc_cancel(ctx.rpc, id, "cancelled");
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 0);
	ck_assert_sent(&ctx, 1, "{\"type\":\"cancel\",\"id\":1,"
	    "\"reason\":\"cancelled\"}");
	rpc_cancel(ctx.rpc, id, "cancelled");
	rpc_cancel(ctx.rpc, 12345, "cancelled");
	ctx_receive(&ctx, "{\"type\":\"response\",\"id\":1,\"result\":{}}");
	ctx_advance(&ctx, 100);
	ck_assert_int_eq(o.done, 0);
	ck_assert_uint_eq(json_array_size(ctx.sent), 2);
	ctx_end(&ctx);

	/* A queued call the extension never saw is dropped silently. */
	ctx_start(&ctx, 30);
	id = ctx_call(&ctx, "navigate_to", NULL, 1000, &queued);
	rpc_cancel(ctx.rpc, id, "cancelled");
	ctx_advance(&ctx, 100);
	ck_assert_int_eq(queued.done, 0);
	ck_assert_uint_eq(json_array_size(ctx.sent), 0);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_channel_closed_fails_sent_calls)
{
	struct ctx	ctx;
	struct outcome	o[2] = { { 0 } };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_call(&ctx, "click", NULL, 5000, &o[0]);
	ctx_call(&ctx, "type_text", NULL, 5000, &o[1]);
	rpc_channel_closed(ctx.rpc);
	ck_assert_failed(&o[0], ERR_EXTENSION_DISCONNECTED, MSG_DISCONNECTED);
	ck_assert_failed(&o[1], ERR_EXTENSION_DISCONNECTED, MSG_DISCONNECTED);
	ck_assert_int_eq(ctx.disconnected, 1);
	ck_assert(!rpc_is_connected(ctx.rpc));
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 0);
	rpc_channel_closed(ctx.rpc);
	ck_assert_int_eq(ctx.disconnected, 1);

	/* Messages after the close change nothing. */
	ctx_receive(&ctx, "{\"type\":\"hello\",\"protocol\":1}");
	ck_assert(!rpc_is_connected(ctx.rpc));
	ck_assert_uint_eq(json_array_size(ctx.sent), 2);
	outcome_clear(&o[0]);
	outcome_clear(&o[1]);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_channel_closed_fails_queued_calls)
{
	struct ctx	ctx;
	struct outcome	o = { 0 };

	ctx_start(&ctx, 5000);
	ctx_call(&ctx, "click", NULL, 5000, &o);
	rpc_channel_closed(ctx.rpc);
	ck_assert_failed(&o, ERR_EXTENSION_DISCONNECTED, MSG_DISCONNECTED);
	ck_assert_int_eq(ctx.disconnected, 1);
	ck_assert_uint_eq(json_array_size(ctx.sent), 0);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_call_after_close_fails_asynchronously)
{
	struct ctx	ctx;
	struct outcome	o = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	rpc_channel_closed(ctx.rpc);
	ctx_call(&ctx, "click", NULL, 5000, &o);
	ck_assert_int_eq(o.done, 0);
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 1);
	ctx_advance(&ctx, 50);
	ck_assert_failed(&o, ERR_EXTENSION_DISCONNECTED, MSG_DISCONNECTED);
	ck_assert(!ctx.done_inside_call);
	ck_assert_uint_eq(json_array_size(ctx.sent), 0);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_send_failure_fails_call_asynchronously)
{
	struct ctx	ctx;
	struct outcome	o = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx.send_fails = true;
	ctx_call(&ctx, "click", NULL, 5000, &o);
	ck_assert_int_eq(o.done, 0);
	ctx_advance(&ctx, 50);
	ck_assert_failed(&o, ERR_EXTENSION_DISCONNECTED, MSG_DISCONNECTED);
	ck_assert(!ctx.done_inside_call);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_backlog_over_bound_fails_new_calls_busy)
{
	struct ctx	ctx;
	struct outcome	queued = { 0 }, refused = { 0 }, later = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx.backlog = RPC_BACKLOG_MAX;
	ctx_call(&ctx, "click", NULL, 5000, &queued);
	ck_assert_int_eq(json_array_size(ctx.sent), 1);	/* at the bound: written */
	ctx.backlog = RPC_BACKLOG_MAX + 1;
	ctx_call(&ctx, "click", NULL, 5000, &refused);
	ck_assert_int_eq(json_array_size(ctx.sent), 1);	/* over it: not written */
	ck_assert_int_eq(refused.done, 0);
	ctx_advance(&ctx, 50);
	ck_assert_failed(&refused, ERR_EXTENSION_BUSY,
	    "The browser extension is not reading its messages (8 MiB wait "
	    "for it): it may be hung. Retry in a moment; if it keeps "
	    "happening, reload Browser Bridge at chrome://extensions or "
	    "restart the browser.");
	ck_assert(!ctx.done_inside_call);
	ck_assert_int_eq(queued.done, 0);	/* the queued call still waits */
	ck_assert_int_eq(rpc_pending_count(ctx.rpc), 1);
	ctx.backlog = 0;
	ctx_call(&ctx, "click", NULL, 5000, &later);
	ck_assert_int_eq(json_array_size(ctx.sent), 2);	/* read again: written */
	outcome_clear(&queued);
	outcome_clear(&refused);
	outcome_clear(&later);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_extension_request_answered_with_same_id)
{
	struct ctx	ctx;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_receive(&ctx, "{\"type\":\"request\",\"id\":\"e1\","
	    "\"method\":\"echo\",\"params\":{\"a\":1}}");
	ck_assert_sent(&ctx, 0, "{\"type\":\"response\",\"id\":\"e1\","
	    "\"result\":{\"method\":\"echo\",\"params\":{\"a\":1}}}");
	ctx_receive(&ctx, "{\"type\":\"request\",\"id\":5,"
	    "\"method\":\"echo\"}");
	ck_assert_sent(&ctx, 1, "{\"type\":\"response\",\"id\":5,"
	    "\"result\":{\"method\":\"echo\",\"params\":{}}}");
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_extension_request_errors)
{
	struct ctx	 ctx;
	json_t		*error;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_receive(&ctx, "{\"type\":\"request\",\"id\":\"e2\","
	    "\"method\":\"nope\",\"params\":{}}");
	ck_assert_sent(&ctx, 0, "{\"type\":\"response\",\"id\":\"e2\","
	    "\"error\":{\"code\":\"UNKNOWN_METHOD\",\"message\":"
	    "\"no such method; call status\"}}");

	ctx_receive(&ctx, "{\"type\":\"request\",\"id\":[1,2]}");
	ck_assert_int_eq(json_array_size(json_object_get(ctx_sent(&ctx, 1),
	    "id")), 2);
	error = json_object_get(ctx_sent(&ctx, 1), "error");
	ck_assert_str_eq(json_string_value(json_object_get(error, "code")),
	    ERR_INVALID_ARGUMENT);

	ctx_receive(&ctx, "{\"type\":\"request\",\"id\":7,\"method\":\"echo\","
	    "\"params\":[1]}");
	error = json_object_get(ctx_sent(&ctx, 2), "error");
	ck_assert_str_eq(json_string_value(json_object_get(error, "code")),
	    ERR_INVALID_ARGUMENT);

	/* Without an id there is nobody to answer. */
	ctx_receive(&ctx, "{\"type\":\"request\",\"method\":\"echo\"}");
	ck_assert_uint_eq(json_array_size(ctx.sent), 3);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_unknown_message_type_ignored)
{
	struct ctx	ctx;
	struct outcome	o = { 0 };

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_call(&ctx, "click", NULL, 5000, &o);
	ctx_receive(&ctx, "{\"type\":\"bogus\",\"id\":1}");
	ctx_receive(&ctx, "{\"id\":1,\"result\":{}}");
	ctx_receive(&ctx, "{\"type\":7,\"id\":1}");
	ck_assert_int_eq(o.done, 0);
	ck_assert_uint_eq(json_array_size(ctx.sent), 1);
	ck_assert(rpc_is_connected(ctx.rpc));
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 1);
	ck_assert_int_eq(ctx.disconnected, 0);
	ck_assert_uint_eq(json_array_size(ctx.events), 0);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_event_passed_to_owner)
{
	struct ctx	 ctx;
	json_t		*want;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_receive(&ctx, "{\"type\":\"event\",\"event\":\"tab_navigated\","
	    "\"tab_id\":4}");
	want = check_json("[{\"type\":\"event\",\"event\":\"tab_navigated\","
	    "\"tab_id\":4}]");
	ck_assert_json_eq(ctx.events, want);
	json_decref(want);
	ck_assert_uint_eq(json_array_size(ctx.sent), 0);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_reentrant_cancel_and_call_on_close)
{
	struct ctx	ctx;
	struct outcome	o[3] = { { 0 } };
	uint64_t	ids[3];
	int		i;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	for (i = 0; i < 3; i++)
		ids[i] = ctx_call(&ctx, "click", NULL, 5000, &o[i]);
	o[0].cancel_id = ids[1];
	o[0].call_again = true;
	o[2].cancel_id = ids[2];	/* itself: already finished, a no-op */
	rpc_channel_closed(ctx.rpc);
	ck_assert_failed(&o[0], ERR_EXTENSION_DISCONNECTED, NULL);
	ck_assert_int_eq(o[1].done, 0);
	ck_assert_failed(&o[2], ERR_EXTENSION_DISCONNECTED, NULL);
	ck_assert_int_eq(ctx.disconnected, 1);

	/* The call made during the close fails later, from the loop. */
	ck_assert_ptr_nonnull(o[0].new_outcome);
	ck_assert_uint_eq(o[0].new_id, 4);
	ck_assert_int_eq(o[0].new_outcome->done, 0);
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 1);
	ctx_advance(&ctx, 50);
	ck_assert_failed(o[0].new_outcome, ERR_EXTENSION_DISCONNECTED,
	    MSG_DISCONNECTED);
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 0);
	for (i = 0; i < 3; i++)
		outcome_clear(&o[i]);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_reentrant_cancel_and_call_on_timeout)
{
	struct ctx	ctx;
	struct outcome	o = { 0 }, other = { 0 };
	uint64_t	id, other_id;

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	id = ctx_call(&ctx, "wait_for", NULL, 20, &o);
	other_id = ctx_call(&ctx, "click", NULL, 5000, &other);
	o.cancel_id = other_id;
	o.call_again = true;
	ctx_advance(&ctx, 20);
	ck_assert_failed(&o, ERR_TIMEOUT, NULL);
	ck_assert_int_eq(other.done, 0);
	rpc_cancel(ctx.rpc, id, "cancelled");	/* finished: a no-op */
	/* request 1, request 2, cancel 1, cancel 2, request 3 (again). */
	ck_assert_uint_eq(json_array_size(ctx.sent), 5);
	ck_assert_sent(&ctx, 2, "{\"type\":\"cancel\",\"id\":1,"
	    "\"reason\":\"timeout\"}");
	ck_assert_sent(&ctx, 3, "{\"type\":\"cancel\",\"id\":2,"
	    "\"reason\":\"cancelled\"}");
	ck_assert_sent(&ctx, 4, "{\"type\":\"request\",\"id\":3,"
	    "\"method\":\"again\",\"params\":{},\"timeout_ms\":1000}");
	ck_assert_uint_eq(rpc_pending_count(ctx.rpc), 1);
	outcome_clear(&o);
	ctx_end(&ctx);
}
END_TEST

START_TEST(test_free_with_pending_calls_skips_callbacks)
{
	struct ctx	ctx;
	struct outcome	sent = { 0 }, queued = { 0 };

	ctx_start(&ctx, 5000);
	ctx_call(&ctx, "click", "{\"ref\":\"e1\"}", 5000, &queued);
	ctx_end(&ctx);
	ck_assert_int_eq(queued.done, 0);

	ctx_start(&ctx, 0);
	ctx_connect(&ctx);
	ctx_call(&ctx, "click", NULL, 5000, &sent);
	ctx_end(&ctx);
	ck_assert_int_eq(sent.done, 0);
	ck_assert_int_eq(ctx.disconnected, 0);
}
END_TEST

/* Builds the rpc suite. */
static Suite *
rpc_suite(void)
{
	Suite	*s = suite_create("rpc");
	TCase	*tc;

	tc = tcase_create("handshake");
	tcase_add_test(tc, test_handshake_welcome_carries_callback_fields);
	tcase_add_test(tc, test_handshake_second_hello_rewelcomes);
	tcase_add_test(tc, test_handshake_protocol_mismatch);
	suite_add_tcase(s, tc);

	tc = tcase_create("before_hello");
	tcase_add_test(tc, test_call_before_hello_is_sent_with_remaining_timeout);
	tcase_add_test(tc, test_call_before_hello_fails_after_grace);
	suite_add_tcase(s, tc);

	tc = tcase_create("calls");
	tcase_add_test(tc, test_call_defaults_params_and_timeout);
	tcase_add_test(tc, test_call_names_its_client);
	tcase_add_test(tc, test_response_correlated_by_id_out_of_order);
	tcase_add_test(tc, test_error_response_passes_code_and_message);
	tcase_add_test(tc, test_progress_delivered_in_order);
	tcase_add_test(tc, test_timeout_fails_and_sends_cancel);
	tcase_add_test(tc, test_late_response_after_timeout_ignored);
	tcase_add_test(tc, test_cancel_sends_cancel_and_never_calls_done);
	suite_add_tcase(s, tc);

	tc = tcase_create("close");
	tcase_add_test(tc, test_channel_closed_fails_sent_calls);
	tcase_add_test(tc, test_channel_closed_fails_queued_calls);
	tcase_add_test(tc, test_call_after_close_fails_asynchronously);
	tcase_add_test(tc, test_send_failure_fails_call_asynchronously);
	tcase_add_test(tc, test_free_with_pending_calls_skips_callbacks);
	suite_add_tcase(s, tc);

	tc = tcase_create("extension_messages");
	tcase_add_test(tc, test_extension_request_answered_with_same_id);
	tcase_add_test(tc, test_extension_request_errors);
	tcase_add_test(tc, test_unknown_message_type_ignored);
	tcase_add_test(tc, test_event_passed_to_owner);
	tcase_add_test(tc, test_backlog_over_bound_fails_new_calls_busy);
	suite_add_tcase(s, tc);

	tc = tcase_create("reentrancy");
	tcase_add_test(tc, test_reentrant_cancel_and_call_on_close);
	tcase_add_test(tc, test_reentrant_cancel_and_call_on_timeout);
	suite_add_tcase(s, tc);

	return s;
}

/* Runs the rpc suite. */
int
main(void)
{
	return check_run_suite(rpc_suite());
}
