/*
 * Tests for the MCP layer: JSON-RPC parsing and every error code, version
 * negotiation, the methods, forwarding tool calls to the extension,
 * progress, cancellation and the end of a session.
 */
#include <string.h>

#include <check.h>
#include <event2/event.h>

#include "check-helpers.h"
#include "errors.h"
#include "jsonrpc.h"
#include "mcp.h"
#include "mcp-call.h"
#include "mcp-resources.h"
#include "resources.h"
#include "rpc.h"
#include "session.h"
#include "tools.h"

/* The parts MCP uses, and what the extension was sent. */
struct fixture {
	struct check_clock	 clock;
	struct event_base	*base;
	struct tool_registry	*tools;
	struct rpc		*rpc;
	struct session_store	*sessions;
	struct tool_host_context host;
	struct mcp_dispatcher	 dispatcher;
	struct mcp		*mcp;
	struct session		*session;
	json_t		*sent;		/* messages to the extension */
	json_t		*emitted;	/* messages to the MCP client */
	int		 finals;
	int		 silent_finals;	/* final with no message */
};

static struct fixture	fx;

/* Captures what the host sends to the extension. */
static int
fixture_send(const json_t *message, void *arg)
{
	json_array_append_new(fx.sent, json_deep_copy(message));
	return 0;
}

/* Captures what MCP sends to the client. */
static void
fixture_emit(json_t *message, bool final, void *arg)
{
	if (message != NULL)
		json_array_append_new(fx.emitted, message);
	else
		fx.silent_finals++;
	if (final)
		fx.finals++;
}

/* The host's status as host tools see it: from the rpc and the store. */
static json_t *
fixture_status(void *arg, char **cause)
{
	return json_pack("{s:b,s:I}", "extension_connected",
	    rpc_is_connected(fx.rpc), "sessions",
	    (json_int_t)session_store_count(fx.sessions));
}

/* Starts a forwarded call at the rpc layer, as the host does. */
static uint64_t
fixture_call(void *arg, const char *method, const char *client,
    const char *caller, bool owner, json_t *params, int timeout_ms,
    mcp_done_cb done, mcp_progress_cb progress, void *call_arg,
    const char **error_code, char **error_message)
{
	return rpc_call(fx.rpc, method, client, caller, owner, params, timeout_ms, done,
	    progress, call_arg);
}

/* Cancels a forwarded call at the rpc layer. */
static void
fixture_cancel(void *arg, uint64_t id, const char *reason)
{
	rpc_cancel(fx.rpc, id, reason);
}

/* Builds the parts MCP needs; the extension is connected. */
static void
setup(void)
{
	struct rpc_callbacks	callbacks = { .send = fixture_send };
	char			*cause = NULL;
	json_t			*hello;

	memset(&fx, 0, sizeof fx);
	fx.base = event_base_new();
	fx.tools = tool_registry_new(&cause);
	ck_assert_msg(fx.tools != NULL, "registry: %s", cause);
	fx.rpc = rpc_new(fx.base, check_clock_start(&fx.clock, 1000), NULL,
	    50, &callbacks);
	fx.sessions = session_store_new(8, 60000, NULL, NULL);
	fx.host.status = fixture_status;
	fx.dispatcher.call = fixture_call;
	fx.dispatcher.cancel = fixture_cancel;
	fx.mcp = mcp_new(fx.tools, 0, &fx.dispatcher, &fx.host, fx.sessions,
	    NULL);
	fx.session = session_store_create(fx.sessions, SESSION_STREAMABLE, 0);
	fx.sent = json_array();
	fx.emitted = json_array();
	hello = check_json("{\"type\":\"hello\",\"protocol\":1,"
	    "\"version\":\"test\"}");
	rpc_receive(fx.rpc, hello);
	json_decref(hello);
	json_array_clear(fx.sent);	/* the welcome */
}

/* Frees the fixture. */
static void
teardown(void)
{
	mcp_call_session_ended(fx.mcp, fx.session);
	session_store_free(fx.sessions);
	rpc_free(fx.rpc);
	mcp_free(fx.mcp);
	tool_registry_free(fx.tools);
	event_base_free(fx.base);
	json_decref(fx.sent);
	json_decref(fx.emitted);
}

/* Handles one message given as JSON text; returns the outcome. */
static enum mcp_outcome
handle(const char *text, struct mcp_call **call)
{
	json_t			*message = check_json(text);
	struct mcp_call		*ignored;
	enum mcp_outcome	 outcome;

	outcome = mcp_handle(fx.mcp, fx.session, message, fixture_emit,
	    NULL, call != NULL ? call : &ignored);
	json_decref(message);
	return outcome;
}

/* Returns the last message emitted to the client. */
static json_t *
last_emitted(void)
{
	size_t	n = json_array_size(fx.emitted);

	ck_assert_msg(n > 0, "nothing was emitted");
	return json_array_get(fx.emitted, n - 1);
}

/* Asserts the last emitted message is an error with this code. */
static void
assert_error_code(int code)
{
	json_t	*error = json_object_get(last_emitted(), "error");
	char	*text = json_dumps(last_emitted(), 0);

	ck_assert_msg(error != NULL, "not an error: %s", text);
	ck_assert_msg(json_integer_value(json_object_get(error, "code")) == code,
	    "expected code %d in %s", code, text);
	free(text);
}

/* Delivers a response from the extension for the last request sent. */
static void
extension_answers(const char *body)
{
	json_t	*request = json_array_get(fx.sent, json_array_size(fx.sent) - 1);
	json_t	*response = check_json(body);

	json_object_set_new(response, "type", json_string("response"));
	json_object_set(response, "id", json_object_get(request, "id"));
	rpc_receive(fx.rpc, response);
	json_decref(response);
}

START_TEST(test_parse_error_is_32700)
{
	json_t	*error = NULL;

	ck_assert_ptr_null(jsonrpc_parse("{\"jsonrpc\":", 11, &error));
	ck_assert_int_eq(json_integer_value(json_object_get(
	    json_object_get(error, "error"), "code")), JSONRPC_PARSE_ERROR);
	ck_assert(json_is_null(json_object_get(error, "id")));
	json_decref(error);
}
END_TEST

START_TEST(test_invalid_requests_are_32600)
{
	static const char *const bad[] = {
		"[1]", "{\"id\":1,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
		"{\"jsonrpc\":\"2.0\",\"id\":1}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":3}",
	};
	size_t	i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_int_eq(handle(bad[i], NULL), MCP_REPLIED);
		assert_error_code(JSONRPC_INVALID_REQUEST);
	}
	ck_assert_int_eq(fx.finals, (int)(sizeof bad / sizeof *bad));
}
END_TEST

START_TEST(test_unknown_method_is_32601)
{
	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\",\"id\":\"a\","
	    "\"method\":\"nope/nope\"}", NULL), MCP_REPLIED);
	assert_error_code(JSONRPC_METHOD_NOT_FOUND);
	ck_assert_str_eq(json_string_value(json_object_get(last_emitted(),
	    "id")), "a");
}
END_TEST

START_TEST(test_notifications_and_responses_get_no_reply)
{
	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\","
	    "\"method\":\"notifications/initialized\"}", NULL), MCP_NO_REPLY);
	ck_assert(fx.session->initialized);
	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\",\"id\":5,"
	    "\"result\":{}}", NULL), MCP_NO_REPLY);
	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\","
	    "\"method\":\"notifications/whatever\"}", NULL), MCP_NO_REPLY);
	ck_assert_uint_eq(json_array_size(fx.emitted), 0);
}
END_TEST

START_TEST(test_initialize_echoes_a_supported_version)
{
	static const char *const versions[] = {
		"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
	};
	char	 text[256];
	size_t	 i;
	json_t	*result;

	for (i = 0; i < sizeof versions / sizeof *versions; i++) {
		snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":1,"
		    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
		    "\"%s\",\"capabilities\":{}}}", versions[i]);
		handle(text, NULL);
		result = json_object_get(last_emitted(), "result");
		ck_assert_str_eq(json_string_value(json_object_get(result,
		    "protocolVersion")), versions[i]);
		ck_assert_str_eq(fx.session->protocol_version, versions[i]);
	}
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    result, "serverInfo"), "name")), "browser-bridge");
	ck_assert(json_is_true(json_object_get(json_object_get(json_object_get(
	    result, "capabilities"), "tools"), "listChanged")));
}
END_TEST

START_TEST(test_initialize_answers_latest_for_unknown_version)
{
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"1999-01-01\"}}", NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    last_emitted(), "result"), "protocolVersion")), MCP_LATEST_VERSION);
	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\","
	    "\"params\":{}}", NULL);
	assert_error_code(JSONRPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_simple_methods)
{
	json_t	*expected = check_json("{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"result\":{}}");

	handle("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", NULL);
	ck_assert_json_eq(last_emitted(), expected);
	/* No prompts, no log messages: neither advertised nor answered. */
	handle("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"prompts/list\"}",
	    NULL);
	assert_error_code(JSONRPC_METHOD_NOT_FOUND);
	handle("{\"jsonrpc\":\"2.0\",\"id\":9,"
	    "\"method\":\"resources/templates/list\"}", NULL);
	ck_assert(json_is_array(json_object_get(json_object_get(
	    last_emitted(), "result"), "resourceTemplates")));
	handle("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/list\"}",
	    NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(
	    last_emitted(), "result"), "resources")), 3);
	handle("{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"logging/setLevel\","
	    "\"params\":{\"level\":\"debug\"}}", NULL);
	assert_error_code(JSONRPC_METHOD_NOT_FOUND);
	json_decref(expected);
}
END_TEST

START_TEST(test_tools_list_pages_with_cursor)
{
	json_t		*result;
	const char	*cursor;
	char		 text[256];
	size_t		 seen = 0;

	mcp_free(fx.mcp);
	fx.mcp = mcp_new(fx.tools, 7, &fx.dispatcher, &fx.host, fx.sessions,
	    NULL);
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", NULL);
	for (;;) {
		result = json_object_get(last_emitted(), "result");
		ck_assert_ptr_nonnull(result);
		seen += json_array_size(json_object_get(result, "tools"));
		cursor = json_string_value(json_object_get(result, "nextCursor"));
		if (cursor == NULL)
			break;
		snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":2,"
		    "\"method\":\"tools/list\",\"params\":{\"cursor\":\"%s\"}}",
		    cursor);
		handle(text, NULL);
	}
	ck_assert_uint_eq(seen, tool_registry_count(fx.tools));
	handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\","
	    "\"params\":{\"cursor\":\"garbage\"}}", NULL);
	assert_error_code(JSONRPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_unknown_tool_is_32602)
{
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"fly_to_moon\",\"arguments\":{}}}", NULL);
	assert_error_code(JSONRPC_INVALID_PARAMS);
	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"arguments\":{}}}", NULL);
	assert_error_code(JSONRPC_INVALID_PARAMS);
	handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"navigate_to\",\"arguments\":[1]}}", NULL);
	assert_error_code(JSONRPC_INVALID_PARAMS);
	ck_assert_uint_eq(json_array_size(fx.sent), 0);
}
END_TEST

START_TEST(test_bad_argument_is_error_result_not_forwarded)
{
	json_t		*result;
	const char	*text;

	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"scroll_page\","
	    "\"arguments\":{\"direction\":\"sideways\"}}}", NULL), MCP_REPLIED);
	result = json_object_get(last_emitted(), "result");
	ck_assert(json_is_true(json_object_get(result, "isError")));
	text = json_string_value(json_object_get(json_array_get(
	    json_object_get(result, "content"), 0), "text"));
	ck_assert_msg(strstr(text, "INVALID_ARGUMENT") == text &&
	    strstr(text, "direction") != NULL, "unexpected: %s", text);
	ck_assert_uint_eq(json_array_size(fx.sent), 0);
}
END_TEST

START_TEST(test_tool_call_forwards_exact_arguments)
{
	struct mcp_call	*call = NULL;
	json_t		*request, *expected;

	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\",\"id\":\"c1\","
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"navigate_to\","
	    "\"arguments\":{\"url\":\"https://example.com/\","
	    "\"wait_until\":\"none\"}}}", &call), MCP_PENDING);
	ck_assert_ptr_nonnull(call);
	ck_assert_uint_eq(json_array_size(fx.sent), 1);
	request = json_array_get(fx.sent, 0);
	ck_assert_str_eq(json_string_value(json_object_get(request, "method")),
	    "navigate_to");
	expected = check_json("{\"url\":\"https://example.com/\","
	    "\"wait_until\":\"none\"}");
	ck_assert_json_eq(json_object_get(request, "params"), expected);
	json_decref(expected);
	ck_assert_uint_eq(fx.session->call_count, 1);

	extension_answers("{\"result\":{\"content\":[{\"type\":\"text\","
	    "\"text\":\"done\"}],\"structuredContent\":{\"url\":\"x\"}}}");
	/* The model reads the text: no structuredContent unless asked. */
	expected = check_json("{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"result\":"
	    "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}");
	ck_assert_json_eq(last_emitted(), expected);
	json_decref(expected);
	ck_assert_int_eq(fx.finals, 1);
	ck_assert_uint_eq(fx.session->call_count, 0);
}
END_TEST

START_TEST(test_plain_extension_result_is_wrapped)
{
	json_t	*result;

	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"manage_tabs\",\"arguments\":"
	    "{\"action\":\"list\"},\"_meta\":{\"" MCP_META_STRUCTURED
	    "\":true}}}", NULL);
	extension_answers("{\"result\":{\"tabs\":[]}}");
	result = json_object_get(last_emitted(), "result");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(result, "content"), 0), "text")), "{\"tabs\":[]}");
	ck_assert(json_is_array(json_object_get(json_object_get(result,
	    "structuredContent"), "tabs")));
}
END_TEST

START_TEST(test_extension_error_becomes_is_error_result)
{
	json_t	*result;

	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"click_element\",\"arguments\":"
	    "{\"ref\":\"e9\"}}}", NULL);
	extension_answers("{\"error\":{\"code\":\"STALE_REF\",\"message\":"
	    "\"Ref e9 is from an older page state; call get_browser_state.\"}}");
	result = json_object_get(last_emitted(), "result");
	ck_assert(json_is_true(json_object_get(result, "isError")));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(result, "content"), 0), "text")),
	    "STALE_REF: Ref e9 is from an older page state; call "
	    "get_browser_state.");
}
END_TEST

/* Handles one message parsed the way the transports parse bodies. */
static void
handle_wire(const char *text)
{
	json_t			*message, *error = NULL;
	struct mcp_call		*ignored;

	message = jsonrpc_parse(text, strlen(text), &error);
	ck_assert_msg(message != NULL, "%s does not parse", text);
	(void)mcp_handle(fx.mcp, fx.session, message, fixture_emit, NULL,
	    &ignored);
	json_decref(message);
}

START_TEST(test_names_with_nul_are_refused)
{
	handle_wire("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"host_status\\u0000evil\"}}");
	assert_error_code(JSONRPC_INVALID_PARAMS);
	handle_wire("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/list\\u0000x\"}");
	assert_error_code(JSONRPC_INVALID_REQUEST);
	handle_wire("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"resources/read\",\"params\":{\"uri\":\"browser://tabs\\u0000x\"}}");
	assert_error_code(JSONRPC_INVALID_PARAMS);
	handle_wire("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	    "\"tools/list\",\"params\":{\"cursor\":\"1\\u0000x\"}}");
	assert_error_code(JSONRPC_INVALID_PARAMS);
	ck_assert_uint_eq(json_array_size(fx.sent), 0);
}
END_TEST

START_TEST(test_host_status_is_answered_by_the_host)
{
	json_t	*result;

	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"host_status\"}}",
	    NULL), MCP_REPLIED);
	result = json_object_get(json_object_get(last_emitted(), "result"),
	    "structuredContent");
	ck_assert(json_is_true(json_object_get(result, "extension_connected")));
	ck_assert_int_eq(json_integer_value(json_object_get(result,
	    "sessions")), 1);
	ck_assert_uint_eq(json_array_size(fx.sent), 0);
}
END_TEST

START_TEST(test_progress_only_with_token_and_increasing)
{
	json_t	*request, *progress, *params;

	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"run_task\",\"arguments\":{\"task\":\"x\"},"
	    "\"_meta\":{\"progressToken\":\"tok\"}}}", NULL);
	request = json_array_get(fx.sent, 0);
	progress = check_json("{\"type\":\"progress\",\"progress\":1,"
	    "\"total\":3,\"message\":\"planning\"}");
	json_object_set(progress, "id", json_object_get(request, "id"));
	rpc_receive(fx.rpc, progress);
	rpc_receive(fx.rpc, progress);	/* not increasing: dropped */
	json_object_set_new(progress, "progress", json_integer(2));
	rpc_receive(fx.rpc, progress);
	json_decref(progress);
	ck_assert_uint_eq(json_array_size(fx.emitted), 2);
	params = json_object_get(json_array_get(fx.emitted, 0), "params");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    fx.emitted, 0), "method")), "notifications/progress");
	ck_assert_str_eq(json_string_value(json_object_get(params,
	    "progressToken")), "tok");
	ck_assert_int_eq(json_integer_value(json_object_get(params, "total")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(params, "message")),
	    "planning");
	ck_assert_int_eq(fx.finals, 0);

	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"run_task\",\"arguments\":{\"task\":\"y\"}}}",
	    NULL);
	progress = check_json("{\"type\":\"progress\",\"progress\":1}");
	json_object_set(progress, "id", json_object_get(json_array_get(fx.sent,
	    1), "id"));
	rpc_receive(fx.rpc, progress);
	json_decref(progress);
	ck_assert_uint_eq(json_array_size(fx.emitted), 2);	/* no token */
}
END_TEST

START_TEST(test_cancelled_notification_cancels_at_extension)
{
	json_t	*cancel;

	handle("{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"wait_for\",\"arguments\":{\"text\":\"x\"}}}",
	    NULL);
	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\","
	    "\"method\":\"notifications/cancelled\",\"params\":"
	    "{\"requestId\":41,\"reason\":\"user\"}}", NULL), MCP_NO_REPLY);
	ck_assert_int_eq(fx.silent_finals, 1);
	ck_assert_uint_eq(json_array_size(fx.emitted), 0);
	cancel = json_array_get(fx.sent, 1);
	ck_assert_str_eq(json_string_value(json_object_get(cancel, "type")),
	    "cancel");
	ck_assert(json_equal(json_object_get(cancel, "id"), json_object_get(
	    json_array_get(fx.sent, 0), "id")));
	ck_assert_uint_eq(fx.session->call_count, 0);
	/* A late answer from the extension goes nowhere. */
	extension_answers("{\"result\":{\"content\":[]}}");
	ck_assert_uint_eq(json_array_size(fx.emitted), 0);
}
END_TEST

START_TEST(test_unknown_resource_is_32002)
{
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\","
	    "\"params\":{\"uri\":\"browser://nowhere\"}}", NULL);
	assert_error_code(MCP_RESOURCE_NOT_FOUND);
	ck_assert_uint_eq(json_array_size(fx.sent), 0);
}
END_TEST

/* Asserts a JSON value equals the value JSON text describes. */
static void
assert_json_text(const json_t *actual, const char *text)
{
	json_t	*expected = check_json(text);

	ck_assert_json_eq(actual, expected);
	json_decref(expected);
}

/* Records which session a resource notification went to. */
static void
capture_delivery(struct session *session, const json_t *message, void *arg)
{
	json_t	*seen = arg;

	json_array_append_new(seen, json_pack("{s:s,s:O}", "session",
	    session->id, "message", message));
}

START_TEST(test_initialize_advertises_subscribe)
{
	json_t	*resources;

	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-11-25\"}}", NULL);
	resources = json_object_get(json_object_get(json_object_get(
	    last_emitted(), "result"), "capabilities"), "resources");
	ck_assert(json_is_true(json_object_get(resources, "subscribe")));
	ck_assert(json_is_true(json_object_get(resources, "listChanged")));
}
END_TEST

START_TEST(test_subscribe_then_unsubscribe)
{
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
	    "\"params\":{\"uri\":\"browser://current/state\"}}", NULL);
	assert_json_text(last_emitted(),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
	ck_assert_uint_eq(fx.session->subscriptions,
	    1u << resources_index("browser://current/state"));
	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
	    "\"params\":{\"uri\":\"browser://tabs\"}}", NULL);
	handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"resources/unsubscribe\",\"params\":{\"uri\":"
	    "\"browser://current/state\"}}", NULL);
	assert_json_text(last_emitted(),
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
	ck_assert_uint_eq(fx.session->subscriptions,
	    1u << resources_index("browser://tabs"));
	/* Unsubscribing twice is not an error. */
	handle("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	    "\"resources/unsubscribe\",\"params\":{\"uri\":"
	    "\"browser://current/state\"}}", NULL);
	assert_json_text(last_emitted(),
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}");
	ck_assert_uint_eq(json_array_size(fx.sent), 0);
}
END_TEST

START_TEST(test_subscribe_unknown_uri_is_32002)
{
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
	    "\"params\":{\"uri\":\"browser://nowhere\"}}", NULL);
	assert_error_code(MCP_RESOURCE_NOT_FOUND);
	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"resources/unsubscribe\",\"params\":{\"uri\":"
	    "\"browser://nowhere\"}}", NULL);
	assert_error_code(MCP_RESOURCE_NOT_FOUND);
	handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
	    "\"params\":{}}", NULL);
	assert_error_code(JSONRPC_INVALID_PARAMS);
	ck_assert_uint_eq(fx.session->subscriptions, 0);
}
END_TEST

/* Records what a listen stream is handed. */
static void
capture_listened(const json_t *message, void *arg)
{
	json_array_append_new(arg, json_deep_copy(message));
}

START_TEST(test_listen_stream_gets_what_it_asked_for)
{
	struct mcp_listener	*listener;
	json_t			*seen = json_array(), *reply, *request;

	request = check_json("{\"jsonrpc\":\"2.0\",\"id\":\"L1\",\"method\":"
	    "\"subscriptions/listen\",\"params\":{\"notifications\":{"
	    "\"toolsListChanged\":true,\"promptsListChanged\":true,"
	    "\"resourceSubscriptions\":[\"browser://tabs\",\"browser://x\"]}}}");
	listener = mcp_listen(fx.mcp, request, capture_listened, seen, &reply);
	ck_assert_ptr_nonnull(listener);
	assert_json_text(reply, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/subscriptions/acknowledged\",\"params\":{"
	    "\"notifications\":{\"resourceSubscriptions\":[\"browser://tabs\"],"
	    "\"toolsListChanged\":true},\"_meta\":{"
	    "\"io.modelcontextprotocol/subscriptionId\":\"L1\"}}}");
	json_decref(reply);

	mcp_broadcast(fx.mcp, "notifications/resources/list_changed");
	ck_assert_uint_eq(json_array_size(seen), 0);
	mcp_broadcast(fx.mcp, "notifications/tools/list_changed");
	ck_assert_uint_eq(mcp_resources_updated(fx.mcp, "browser://tabs",
	    NULL, NULL), 1);
	ck_assert_uint_eq(mcp_resources_updated(fx.mcp,
	    "browser://current/state", NULL, NULL), 0);
	ck_assert_uint_eq(json_array_size(seen), 2);
	assert_json_text(json_array_get(seen, 1), "{\"jsonrpc\":\"2.0\","
	    "\"method\":\"notifications/resources/updated\",\"params\":{"
	    "\"uri\":\"browser://tabs\",\"_meta\":{"
	    "\"io.modelcontextprotocol/subscriptionId\":\"L1\"}}}");

	mcp_unlisten(fx.mcp, listener);
	mcp_broadcast(fx.mcp, "notifications/tools/list_changed");
	ck_assert_uint_eq(json_array_size(seen), 2);
	json_decref(request);
	json_decref(seen);
}
END_TEST

START_TEST(test_resource_updated_reaches_only_subscribers)
{
	struct session	*other;
	json_t		*seen = json_array();

	other = session_store_create(fx.sessions, SESSION_STREAMABLE, 0);
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
	    "\"params\":{\"uri\":\"browser://current/state\"}}", NULL);

	ck_assert_uint_eq(mcp_resources_updated(fx.mcp,
	    "browser://current/state", capture_delivery, seen), 1);
	ck_assert_uint_eq(json_array_size(seen), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(seen,
	    0), "session")), fx.session->id);
	assert_json_text(json_object_get(json_array_get(seen, 0), "message"),
	    "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/resources/updated\",\"params\":{\"uri\":"
	    "\"browser://current/state\"}}");

	/* Another resource, an unknown one: nobody is subscribed. */
	ck_assert_uint_eq(mcp_resources_updated(fx.mcp, "browser://tabs",
	    capture_delivery, seen), 0);
	ck_assert_uint_eq(mcp_resources_updated(fx.mcp,
	    "browser://nowhere", capture_delivery, seen), 0);
	/* Without a stream, a subscriber gets nothing sent to it. */
	ck_assert_uint_eq(mcp_resources_updated(fx.mcp,
	    "browser://current/state", NULL, NULL), 0);

	/* Both subscribed: both told; after unsubscribing, neither. */
	other->subscriptions = fx.session->subscriptions;
	ck_assert_uint_eq(mcp_resources_updated(fx.mcp,
	    "browser://current/state", capture_delivery, seen), 2);
	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"resources/unsubscribe\",\"params\":{\"uri\":"
	    "\"browser://current/state\"}}", NULL);
	other->subscriptions = 0;
	ck_assert_uint_eq(mcp_resources_updated(fx.mcp,
	    "browser://current/state", capture_delivery, seen), 0);
	ck_assert_uint_eq(json_array_size(seen), 3);
	json_decref(seen);
}
END_TEST

START_TEST(test_resource_read_forwards_and_fails_as_32603)
{
	json_t	*request;

	ck_assert_int_eq(handle("{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"resources/read\",\"params\":"
	    "{\"uri\":\"browser://tabs\"}}", NULL), MCP_PENDING);
	request = json_array_get(fx.sent, 0);
	ck_assert_str_eq(json_string_value(json_object_get(request, "method")),
	    "read_resource");
	extension_answers("{\"result\":{\"contents\":[{\"uri\":"
	    "\"browser://tabs\",\"mimeType\":\"application/json\","
	    "\"text\":\"[]\"}]}}");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(json_object_get(last_emitted(), "result"),
	    "contents"), 0), "text")), "[]");

	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\","
	    "\"params\":{\"uri\":\"browser://current/state\"}}", NULL);
	extension_answers("{\"error\":{\"code\":\"TAB_NOT_FOUND\","
	    "\"message\":\"No active tab.\"}}");
	assert_error_code(JSONRPC_INTERNAL_ERROR);
}
END_TEST

START_TEST(test_session_end_abandons_calls)
{
	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"navigate_to\",\"arguments\":{\"url\":\"x\"}}}",
	    NULL);
	handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"navigate_to\",\"arguments\":{\"url\":\"y\"}}}",
	    NULL);
	mcp_call_session_ended(fx.mcp, fx.session);
	ck_assert_int_eq(fx.finals, 2);
	ck_assert_uint_eq(json_array_size(fx.emitted), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(
	    fx.emitted, 1), "id")), 2);
	assert_error_code(JSONRPC_INTERNAL_ERROR);
	ck_assert_uint_eq(fx.session->call_count, 0);
	ck_assert_uint_eq(json_array_size(fx.sent), 4);	/* 2 requests, 2 cancels */
	ck_assert_uint_eq(rpc_pending_count(fx.rpc), 0);
}
END_TEST

START_TEST(test_timeout_becomes_is_error_result)
{
	json_t		*result;
	const char	*text;

	handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"wait_for\",\"arguments\":{\"delay_ms\":1,"
	    "\"timeout_ms\":1}}}", NULL);
	/* The host allows timeout_ms plus a margin; move the clock past it. */
	fx.clock.now_ms += 1;
	ck_assert_uint_eq(rpc_expire(fx.rpc), 0);
	fx.clock.now_ms += 60 * 1000;
	ck_assert_uint_eq(rpc_expire(fx.rpc), 1);
	result = json_object_get(last_emitted(), "result");
	ck_assert(json_is_true(json_object_get(result, "isError")));
	text = json_string_value(json_object_get(json_array_get(
	    json_object_get(result, "content"), 0), "text"));
	ck_assert_msg(strncmp(text, "TIMEOUT: ", 9) == 0, "got %s", text);
}
END_TEST

/* A dispatcher that can start nothing, as when no host runs. */
static uint64_t
refusing_call(void *arg, const char *method, const char *client,
    const char *caller, bool owner, json_t *params, int timeout_ms,
    mcp_done_cb done, mcp_progress_cb progress, void *call_arg,
    const char **error_code, char **error_message)
{
	json_decref(params);
	*error_code = ERR_HOST_NOT_RUNNING;
	*error_message = strdup("No host runs.");
	return 0;
}

START_TEST(test_dispatcher_that_cannot_start_answers_at_once)
{
	struct mcp_dispatcher	 refusing = { refusing_call, fixture_cancel,
				    NULL };
	struct mcp		*mcp;
	struct mcp_call		*call;
	json_t			*message, *want;

	mcp = mcp_new(fx.tools, 0, &refusing, &fx.host, fx.sessions, NULL);
	message = check_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"navigate_to\","
	    "\"arguments\":{\"url\":\"x\"}}}");
	ck_assert_int_eq(mcp_handle(mcp, fx.session, message, fixture_emit,
	    NULL, &call), MCP_REPLIED);
	json_decref(message);
	ck_assert_ptr_null(call);
	ck_assert_int_eq(fx.finals, 1);
	want = check_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
	    "{\"content\":[{\"type\":\"text\",\"text\":"
	    "\"HOST_NOT_RUNNING: No host runs.\"}],\"isError\":true}}");
	ck_assert_json_eq(last_emitted(), want);
	json_decref(want);

	message = check_json("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"resources/read\",\"params\":{\"uri\":\"browser://tabs\"}}");
	ck_assert_int_eq(mcp_handle(mcp, fx.session, message, fixture_emit,
	    NULL, &call), MCP_REPLIED);
	json_decref(message);
	want = check_json("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":"
	    "{\"code\":-32603,\"message\":\"HOST_NOT_RUNNING: No host "
	    "runs.\",\"data\":{\"code\":\"HOST_NOT_RUNNING\"}}}");
	ck_assert_json_eq(last_emitted(), want);
	json_decref(want);
	ck_assert_int_eq(fx.finals, 2);
	ck_assert_uint_eq(fx.session->call_count, 0);
	ck_assert_uint_eq(json_array_size(fx.sent), 0);
	mcp_free(mcp);
}
END_TEST

/* The MCP suite. */
static Suite *
mcp_suite(void)
{
	Suite	*s = suite_create("mcp");
	TCase	*tc;

	tc = tcase_create("jsonrpc");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse_error_is_32700);
	tcase_add_test(tc, test_invalid_requests_are_32600);
	tcase_add_test(tc, test_unknown_method_is_32601);
	tcase_add_test(tc, test_notifications_and_responses_get_no_reply);
	suite_add_tcase(s, tc);

	tc = tcase_create("methods");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_initialize_echoes_a_supported_version);
	tcase_add_test(tc, test_initialize_answers_latest_for_unknown_version);
	tcase_add_test(tc, test_simple_methods);
	tcase_add_test(tc, test_tools_list_pages_with_cursor);
	tcase_add_test(tc, test_unknown_resource_is_32002);
	tcase_add_test(tc, test_resource_read_forwards_and_fails_as_32603);
	suite_add_tcase(s, tc);

	tc = tcase_create("subscriptions");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_initialize_advertises_subscribe);
	tcase_add_test(tc, test_subscribe_then_unsubscribe);
	tcase_add_test(tc, test_subscribe_unknown_uri_is_32002);
	tcase_add_test(tc, test_resource_updated_reaches_only_subscribers);
	tcase_add_test(tc, test_listen_stream_gets_what_it_asked_for);
	suite_add_tcase(s, tc);

	tc = tcase_create("tools");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_unknown_tool_is_32602);
	tcase_add_test(tc, test_bad_argument_is_error_result_not_forwarded);
	tcase_add_test(tc, test_tool_call_forwards_exact_arguments);
	tcase_add_test(tc, test_plain_extension_result_is_wrapped);
	tcase_add_test(tc, test_extension_error_becomes_is_error_result);
	tcase_add_test(tc, test_host_status_is_answered_by_the_host);
	tcase_add_test(tc, test_names_with_nul_are_refused);
	tcase_add_test(tc, test_progress_only_with_token_and_increasing);
	tcase_add_test(tc, test_cancelled_notification_cancels_at_extension);
	tcase_add_test(tc, test_session_end_abandons_calls);
	tcase_add_test(tc, test_timeout_becomes_is_error_result);
	tcase_add_test(tc, test_dispatcher_that_cannot_start_answers_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_run_suite(mcp_suite());
}
