/*
 * Tests for the pieces the stdio bridge, doctor and status read the host
 * with: the client-side SSE parser, the HTTP response parser, the runtime
 * file reader, the process check and the blocking GET's failures.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <event2/buffer.h>
#include <jansson.h>

#include "check-helpers.h"
#include "files.h"
#include "instance.h"
#include "os.h"
#include "probe.h"
#include "stdio-sse-reader.h"
#include "stdio-offline.h"
#include "tools.h"
#include "xmalloc.h"

/* The events a parser delivered, as "event|data" lines. */
struct seen {
	char	*text;
	size_t	 count;
};

/* Records one event. */
static void
seen_event(const char *event, const char *data, size_t len, void *arg)
{
	struct seen	*seen = arg;
	char		*next;

	next = xasprintf("%s%s|%.*s\n", seen->text != NULL ? seen->text : "",
	    event, (int)len, data);
	free(seen->text);
	seen->text = next;
	seen->count++;
}

/* Feeds text to a parser in one piece. */
static void
feed(struct stdio_sse_reader *parser, const char *text, struct seen *seen)
{
	stdio_sse_reader_feed(parser, text, strlen(text), seen_event, seen);
}

START_TEST(test_sse_events)
{
	struct stdio_sse_reader	 parser;
	struct seen		 seen = { NULL, 0 };

	stdio_sse_reader_init(&parser, 1024);
	feed(&parser,
	    ": stream open\n\n"
	    "event: message\ndata: {\"a\":1}\n\n"
	    "data: line one\ndata: line two\n\n"
	    "event: endpoint\r\ndata:/messages?x=1\r\n\r\n"
	    "data\n\n"
	    "id: 7\nretry: 100\ndata: x\n\n", &seen);
	ck_assert_str_eq(seen.text,
	    "message|{\"a\":1}\n"
	    "message|line one\nline two\n"
	    "endpoint|/messages?x=1\n"
	    "message|\n"
	    "message|x\n");
	ck_assert_uint_eq(seen.count, 5);
	ck_assert_uint_eq(stdio_sse_reader_buffered(&parser), 0);
	free(seen.text);
	stdio_sse_reader_clear(&parser);
}
END_TEST

START_TEST(test_sse_split_anywhere)
{
	static const char	 stream[] = "event: message\ndata: {\"id\":1}\n\n"
				    "data: {\"id\":2}\r\n\r\n";
	struct stdio_sse_reader	 parser;
	struct seen		 seen;
	size_t			 cut;
	char			 part[sizeof stream];

	for (cut = 0; cut < sizeof stream - 1; cut++) {
		memset(&seen, 0, sizeof seen);
		stdio_sse_reader_init(&parser, 1024);
		memcpy(part, stream, cut);
		part[cut] = '\0';
		feed(&parser, part, &seen);
		feed(&parser, stream + cut, &seen);
		ck_assert_msg(seen.text != NULL &&
		    strcmp(seen.text, "message|{\"id\":1}\nmessage|{\"id\":2}\n")
		    == 0, "cut at %zu: %s", cut, seen.text);
		free(seen.text);
		stdio_sse_reader_clear(&parser);
	}
}
END_TEST

START_TEST(test_sse_no_event_without_data)
{
	struct stdio_sse_reader	 parser;
	struct seen		 seen = { NULL, 0 };

	stdio_sse_reader_init(&parser, 1024);
	feed(&parser, "\n\n: keepalive\n\nevent: message\n\n", &seen);
	ck_assert_uint_eq(seen.count, 0);
	/* The event name does not leak into the next event. */
	feed(&parser, "data: y\n\n", &seen);
	ck_assert_str_eq(seen.text, "message|y\n");
	free(seen.text);
	stdio_sse_reader_clear(&parser);
}
END_TEST

START_TEST(test_sse_oversized_event_is_dropped)
{
	struct stdio_sse_reader	 parser;
	struct seen		 seen = { NULL, 0 };
	char			 big[200];

	stdio_sse_reader_init(&parser, 64);
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	feed(&parser, "data: ", &seen);
	feed(&parser, big, &seen);
	ck_assert_uint_le(stdio_sse_reader_buffered(&parser), 64);
	feed(&parser, "\n\ndata: small\n\n", &seen);
	ck_assert_str_eq(seen.text, "message|small\n");

	/* Many short data lines that add up past the limit. */
	free(seen.text);
	memset(&seen, 0, sizeof seen);
	feed(&parser, "data: 0123456789\ndata: 0123456789\n"
	    "data: 0123456789\ndata: 0123456789\ndata: 0123456789\n"
	    "data: 0123456789\n\ndata: after\n\n", &seen);
	ck_assert_str_eq(seen.text, "message|after\n");
	free(seen.text);
	stdio_sse_reader_clear(&parser);
}
END_TEST

/* Listens on a free loopback port without ever answering. */
static int
silent_listener(int *port)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ne(fd, -1);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/*
 * Answers one connection on a free loopback port with a canned response,
 * from a child process; returns the child's pid.
 */
static pid_t
canned_server(const char *response, int *port)
{
	char	buf[4096];
	size_t	used = 0;
	ssize_t	n;
	pid_t	child;
	int	fd, conn;

	fd = silent_listener(port);
	if ((child = fork()) != 0) {
		close(fd);
		return child;
	}
	if ((conn = accept(fd, NULL, NULL)) == -1)
		_exit(1);
	while (used < sizeof buf - 1 &&
	    (n = read(conn, buf + used, sizeof buf - 1 - used)) > 0) {
		used += (size_t)n;
		buf[used] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL)
			break;
	}
	/* The request is libevent's: a GET with Host and Accept. */
	if (strncmp(buf, "GET /health HTTP/1.1\r\n", 22) != 0 ||
	    strstr(buf, "Host: 127.0.0.1:") == NULL)
		_exit(2);
	(void)write(conn, response, strlen(response));
	close(conn);
	_exit(0);
}

/* GETs /health from a canned answer; checks the status and body, or the failure. */
static void
check_get(const char *response, int want_status, const char *want_body)
{
	char	*body = NULL, *cause = NULL;
	int	 status = 0, rc, port, child_status;
	pid_t	 child;

	child = canned_server(response, &port);
	rc = probe_http_get(port, "/health", 2000, &status, &body, &cause);
	ck_assert_int_eq(waitpid(child, &child_status, 0), child);
	ck_assert_msg(WIFEXITED(child_status) &&
	    WEXITSTATUS(child_status) == 0, "the request was not a GET of "
	    "/health with a Host header");
	if (want_body == NULL) {
		ck_assert_msg(rc == -1, "accepted: %s", response);
		ck_assert_ptr_nonnull(cause);
		free(cause);
		return;
	}
	ck_assert_msg(rc == 0, "%s: %s", response, cause);
	ck_assert_int_eq(status, want_status);
	ck_assert_str_eq(body, want_body);
	free(body);
}

START_TEST(test_http_get_answers)
{
	check_get("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	    "Content-Length: 15\r\n\r\n{\"status\":\"ok\"}", 200,
	    "{\"status\":\"ok\"}");
	check_get("HTTP/1.0 404 Not Found\r\nConnection: close\r\n\r\nnope",
	    404, "nope");
	check_get("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n", 200, "{\"a\":1}");
	check_get("HTTP/1.1 204 No Content\r\n\r\n", 204, "");
	check_get("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 0,
	    NULL);
	check_get("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "zz\r\n", 0, NULL);
	check_get("SSH-2.0-OpenSSH\r\n\r\n", 0, NULL);
	check_get("", 0, NULL);
}
END_TEST

/* Writes text to a temporary file and returns its path. */
static char *
temp_file(const char *text)
{
	char	*path = xstrdup("/tmp/check-stdio-XXXXXX");
	int	 fd = mkstemp(path);

	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(test_runtime_read)
{
	struct instance	 instance;
	char		*path, *cause = NULL;

	path = temp_file("{\"pid\": 1234, \"port\": 9333, \"version\": "
	    "\"0.1.0\", \"url\": \"http://127.0.0.1:9333/mcp\", "
	    "\"started\": 1, \"browser\": \"chromium\", \"profile\": "
	    "\"/home/u/p\", \"name\": \"chromium:p\"}\n");
	ck_assert_int_eq(instance_read(path, &instance, &cause), 0);
	ck_assert_int_eq(instance.pid, 1234);
	ck_assert_int_eq(instance.port, 9333);
	ck_assert_str_eq(instance.version, "0.1.0");
	ck_assert_str_eq(instance.url, "http://127.0.0.1:9333/mcp");
	ck_assert_str_eq(instance.name, "chromium:p");
	ck_assert_str_eq(instance.profile, "/home/u/p");
	instance_clear(&instance);
	unlink(path);
	free(path);

	/* An older file: no browser, so "unknown" in the default profile. */
	path = temp_file("{\"pid\": 1234, \"port\": 9333}");
	ck_assert_int_eq(instance_read(path, &instance, &cause), 0);
	ck_assert_str_eq(instance.browser, "unknown");
	ck_assert_str_eq(instance.profile, "default");
	ck_assert_str_eq(instance.name, "unknown");
	instance_clear(&instance);
	unlink(path);
	free(path);

	path = temp_file("{\"pid\": 1234, \"port\": 70000}");
	ck_assert_int_eq(instance_read(path, &instance, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "lacks a valid \"pid\" and "
	    "\"port\""));
	free(cause);
	unlink(path);
	free(path);

	path = temp_file("{\"port\": 9333}");
	ck_assert_int_eq(instance_read(path, &instance, &cause), -1);
	free(cause);
	unlink(path);
	free(path);

	path = temp_file("{\"pid\": ");
	ck_assert_int_eq(instance_read(path, &instance, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "is not valid JSON"));
	free(cause);
	unlink(path);
	free(path);
}
END_TEST

/* Writes one runtime file into dir. */
static void
write_instance(const char *dir, long pid, long long started,
    const char *name)
{
	char	*path = xasprintf("%s/%ld.json", dir, pid);
	char	*text = xasprintf("{\"pid\": %ld, \"port\": %ld, \"started\": "
		    "%lld, \"browser\": \"chromium\", \"profile\": \"/p/%s\", "
		    "\"name\": \"%s\"}", pid, 9000 + pid % 1000, started, name,
		    name);
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(text);
	free(path);
}

START_TEST(test_instances_listed_and_picked)
{
	char		 root[] = "/tmp/check-instances-XXXXXX";
	char		*dir, *old_runtime, *cause = NULL, *pid;
	struct instance	*list;
	const struct instance *picked;
	pid_t		 child, dead;
	int		 status;
	size_t		 count;

	ck_assert_ptr_nonnull(mkdtemp(root));
	dir = xasprintf("%s/browser-bridge/hosts", root);
	ck_assert_int_eq(files_make_dirs(dir, 0700, "", &cause), 0);
	if ((dead = fork()) == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(dead, &status, 0), dead);
	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}
	/* Two live hosts, the younger first on disk; one that died. */
	write_instance(dir, (long)child, 200, "chromium:work");
	write_instance(dir, (long)getpid(), 100, "chromium:home");
	write_instance(dir, (long)dead, 50, "chromium:gone");
	old_runtime = getenv("XDG_RUNTIME_DIR") != NULL ?
	    xstrdup(getenv("XDG_RUNTIME_DIR")) : NULL;
	setenv("XDG_RUNTIME_DIR", root, 1);

	count = instance_list(&list);
	ck_assert_uint_eq(count, 2);
	ck_assert_str_eq(list[0].name, "chromium:home");	/* oldest first */
	ck_assert_str_eq(list[1].name, "chromium:work");
	pid = xasprintf("%s/%ld.json", dir, (long)dead);
	ck_assert_int_eq(access(pid, F_OK), -1);	/* the dead one's file went */
	free(pid);

	ck_assert_ptr_eq(instance_pick(list, count, NULL, &cause), &list[0]);
	ck_assert_ptr_eq(instance_pick(list, count, "chromium:work", &cause),
	    &list[1]);
	ck_assert_ptr_eq(instance_pick(list, count, "/p/chromium:work", &cause),
	    &list[1]);
	pid = xasprintf("%ld", (long)child);
	ck_assert_ptr_eq(instance_pick(list, count, pid, &cause), &list[1]);
	free(pid);
	ck_assert_ptr_eq(instance_pick(list, count, "chromium", &cause),
	    &list[0]);
	picked = instance_pick(list, count, "firefox", &cause);
	ck_assert_ptr_null(picked);
	ck_assert_ptr_nonnull(strstr(cause, "no running Browser Bridge host "
	    "is \"firefox\"; running: chromium:home (pid "));
	ck_assert_ptr_nonnull(strstr(cause, ", chromium:work (pid "));
	free(cause);
	instance_list_free(list, count);

	kill(child, SIGKILL);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	if (old_runtime != NULL)
		setenv("XDG_RUNTIME_DIR", old_runtime, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	free(old_runtime);
	pid = xasprintf("rm -rf %s", root);
	ck_assert_int_eq(system(pid), 0);
	free(pid);
	free(dir);
}
END_TEST

START_TEST(test_identity_names_the_parent_browser)
{
	json_t	*identity = instance_identity((long)getppid());

	/* Whatever started this test: a name, and the default profile. */
	ck_assert_ptr_nonnull(json_string_value(json_object_get(identity,
	    "browser")));
	ck_assert_str_eq(json_string_value(json_object_get(identity,
	    "profile")), "default");
	json_decref(identity);
	identity = instance_identity(-1);	/* no such process */
	ck_assert_str_eq(json_string_value(json_object_get(identity,
	    "browser")), "unknown");
	ck_assert_str_eq(json_string_value(json_object_get(identity, "name")),
	    "unknown");
	json_decref(identity);
}
END_TEST

START_TEST(test_pid_alive)
{
	pid_t	child;
	int	status;

	ck_assert(os_process_alive((long)getpid()));
	ck_assert(!os_process_alive(0));
	ck_assert(!os_process_alive(-1));
	if ((child = fork()) == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(!os_process_alive((long)child));
}
END_TEST

START_TEST(test_http_get_failures)
{
	char	*body = NULL, *cause = NULL;
	int	 status, port, fd;

	/* Nobody listens once the listener is closed. */
	fd = silent_listener(&port);
	close(fd);
	ck_assert_int_eq(probe_http_get(port, "/health", 500, &status, &body,
	    &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "cannot connect to 127.0.0.1:"));
	free(cause);

	/* A listener that never answers: the timeout ends the wait. */
	fd = silent_listener(&port);
	ck_assert_int_eq(probe_http_get(port, "/health", 200, &status, &body,
	    &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "did not answer /health within "
	    "200 ms"));
	free(cause);
	ck_assert_ptr_null(probe_health(port, NULL, 100, &cause));
	free(cause);
	close(fd);
}
END_TEST

/* Keeps the offline answers, in order. */
static void
offline_emit(json_t *message, bool final, void *arg)
{
	json_array_append_new(arg, message);
}

/* Answers one message offline; returns the answer (or NULL). */
static json_t *
offline_answer(struct stdio_offline *offline, json_t *answers,
    const char *text, bool lost, const char *why)
{
	json_t	*message = check_json(text);

	json_array_clear(answers);
	stdio_offline_answer(offline, message, lost, why, offline_emit,
	    answers);
	json_decref(message);
	return json_array_get(answers, 0);
}

/* Returns the text of a tool result's first content item. */
static const char *
result_text(const json_t *reply)
{
	return json_string_value(json_object_get(json_array_get(
	    json_object_get(json_object_get(reply, "result"), "content"), 0),
	    "text"));
}

/* Returns whether text starts with prefix. */
static bool
starts_with(const char *text, const char *prefix)
{
	return text != NULL && strncmp(text, prefix, strlen(prefix)) == 0;
}

START_TEST(test_offline_answers_come_from_mcp)
{
	struct tool_registry	*tools;
	struct stdio_offline	*offline;
	json_t			*answers = json_array(), *reply;
	char			*cause = NULL;
	const char		*version;

	tools = tool_registry_new(&cause);
	ck_assert_msg(tools != NULL, "registry: %s", cause);
	offline = stdio_offline_new(tools, 0, NULL);

	reply = check_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-06-18\"}}");
	version = stdio_offline_answer(offline, reply, false, NULL,
	    offline_emit, answers);
	json_decref(reply);
	ck_assert_str_eq(version, "2025-06-18");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    json_array_get(answers, 0), "result"), "protocolVersion")),
	    "2025-06-18");

	reply = offline_answer(offline, answers, "{\"jsonrpc\":\"2.0\","
	    "\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
	    "\"navigate_to\",\"arguments\":{\"url\":\"https://a.test/\"}}}",
	    false, "the runtime file is missing");
	ck_assert(json_is_true(json_object_get(json_object_get(reply,
	    "result"), "isError")));
	ck_assert_msg(starts_with(result_text(reply), "HOST_NOT_RUNNING: No "
	    "Browser Bridge host is running"), "%s", result_text(reply));
	ck_assert_ptr_nonnull(strstr(result_text(reply),
	    " Last attempt: the runtime file is missing"));

	/* host_status, answered by the host, says the same. */
	reply = offline_answer(offline, answers, "{\"jsonrpc\":\"2.0\","
	    "\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
	    "\"host_status\"}}", true, NULL);
	ck_assert_msg(starts_with(result_text(reply), "HOST_NOT_RUNNING: The "
	    "Browser Bridge host went away"), "%s", result_text(reply));

	/* Protocol mistakes stay protocol errors. */
	reply = offline_answer(offline, answers, "{\"jsonrpc\":\"2.0\","
	    "\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
	    "\"no_such_tool\"}}", false, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
	    reply, "error"), "code")), -32602);
	reply = offline_answer(offline, answers, "{\"jsonrpc\":\"2.0\","
	    "\"id\":5,\"method\":\"resources/read\",\"params\":{\"uri\":"
	    "\"browser://tabs\"}}", false, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    json_object_get(reply, "error"), "data"), "code")),
	    "HOST_NOT_RUNNING");
	ck_assert_ptr_null(offline_answer(offline, answers, "{\"jsonrpc\":"
	    "\"2.0\",\"method\":\"notifications/initialized\"}", false,
	    NULL));

	stdio_offline_free(offline);
	tool_registry_free(tools);
	json_decref(answers);
}
END_TEST

/* The suite: SSE parser, offline answers, probe. */
static Suite *
stdio_suite(void)
{
	Suite	*s = suite_create("stdio");
	TCase	*tc;

	tc = tcase_create("sse parser");
	tcase_add_test(tc, test_sse_events);
	tcase_add_test(tc, test_sse_split_anywhere);
	tcase_add_test(tc, test_sse_no_event_without_data);
	tcase_add_test(tc, test_sse_oversized_event_is_dropped);
	suite_add_tcase(s, tc);

	tc = tcase_create("offline");
	tcase_add_test(tc, test_offline_answers_come_from_mcp);
	suite_add_tcase(s, tc);

	tc = tcase_create("probe");
	tcase_add_test(tc, test_http_get_answers);
	tcase_add_test(tc, test_runtime_read);
	tcase_add_test(tc, test_instances_listed_and_picked);
	tcase_add_test(tc, test_identity_names_the_parent_browser);
	tcase_add_test(tc, test_pid_alive);
	tcase_add_test(tc, test_http_get_failures);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_run_suite(stdio_suite());
}
