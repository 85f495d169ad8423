/*
 * Unit tests for the HTTP front door (host/http-door.c): an evhttp with
 * the door in front, bound to 127.0.0.1, and clients on loopback sockets
 * in the same event loop. The door writes to its sockets itself (so that
 * what evhttp counts as written is in the kernel), which a bufferevent
 * pair cannot stand in for: the clients are real sockets, and the tests
 * turn the loop until what they wait for happens, never sleeping.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "check-helpers.h"
#include "http-door.h"
#include "http-framer.h"
#include "log.h"

/* The most clients one test opens. */
#define DOOR_CLIENTS		8
/* The most bytes a client keeps of what it read. */
#define DOOR_CLIENT_BYTES	16384

/* One client connection: what it read, and whether the host closed it. */
struct door_client {
	int		 fd;
	struct event	*readable;
	char		 got[DOOR_CLIENT_BYTES + 1];	/* NUL-terminated */
	size_t		 len;
	bool		 eof;
	int		 error;		/* errno of a failed read, or 0 */
};

/* The server under test and its clients. */
struct door_test {
	struct event_base	*base;
	struct evhttp		*http;
	struct http_door	*door;
	uint16_t		 port;
	struct evhttp_request	*kept;		/* a reply the test sends */
	struct door_client	 clients[DOOR_CLIENTS];
	size_t			 client_count;
	struct check_clock	 clock;		/* the door's, moved by hand */
};

/* The door's judge: a head with X-Refuse is refused as a missing token. */
static int
door_test_judge(const struct http_head *head,
    struct http_door_refusal *refusal, __attribute__((unused)) void *arg)
{
	if (evhttp_find_header(&head->headers, "X-Refuse") == NULL)
		return 0;
	*refusal = (struct http_door_refusal){ 401, "Unauthorized",
	    "refused: no token", "Bearer realm=\"test\"", NULL };
	return -1;
}

/*
 * The router: /keep waits for the test to answer, /stream starts a
 * chunked reply the test ends, anything else is answered "ok" at once.
 */
static void
door_test_route(struct evhttp_request *req, void *arg)
{
	struct door_test	*test = arg;
	const char		*uri = evhttp_request_get_uri(req);
	struct evbuffer		*body;

	http_door_track(test->door, req);
	if (strcmp(uri, "/keep") == 0) {
		test->kept = req;
		return;
	}
	body = evbuffer_new();
	if (strcmp(uri, "/stream") == 0) {
		test->kept = req;
		evhttp_send_reply_start(req, 200, "OK");
		evbuffer_add_printf(body, "data: one\n\n");
		evhttp_send_reply_chunk(req, body);
	} else {
		evbuffer_add_printf(body, "ok");
		evhttp_send_reply(req, 200, "OK", body);
	}
	evbuffer_free(body);
}

/*
 * Starts a server with the door in front, allowing max_connections and
 * logging to log (NULL: nowhere).
 */
static void
door_test_start(struct door_test *test, size_t max_connections,
    struct log *log)
{
	struct http_door_settings	 settings = {
		.max_connections = max_connections,
		.max_headers = 8192,
		.max_body = 65536,
		.head_timeout_ms = 100,
		.min_body_rate = 1000,
	};
	struct evhttp_bound_socket	*bound;
	struct sockaddr_in		 sin;
	socklen_t			 len = sizeof sin;

	memset(test, 0, sizeof *test);
	test->base = event_base_new();
	test->http = evhttp_new(test->base);
	test->door = http_door_new(test->http, test->base, &settings,
	    door_test_judge, NULL, check_clock_start(&test->clock, 0), log);
	evhttp_set_gencb(test->http, door_test_route, test);
	bound = evhttp_bind_socket_with_handle(test->http, "127.0.0.1", 0);
	ck_assert_ptr_nonnull(bound);
	ck_assert_int_eq(getsockname(evhttp_bound_socket_get_fd(bound),
	    (struct sockaddr *)&sin, &len), 0);
	test->port = ntohs(sin.sin_port);
}

/* Closes the clients, then frees the server as the host does. */
static void
door_test_stop(struct door_test *test)
{
	size_t	i;

	for (i = 0; i < test->client_count; i++) {
		event_free(test->clients[i].readable);
		close(test->clients[i].fd);
	}
	evhttp_free(test->http);
	http_door_free(test->door);
	event_base_free(test->base);
}

/* Reads what the host sent a client, until end of file or an error. */
static void
door_client_read(evutil_socket_t fd, __attribute__((unused)) short events,
    void *arg)
{
	struct door_client	*client = arg;
	ssize_t			 n;

	n = recv(fd, client->got + client->len, DOOR_CLIENT_BYTES -
	    client->len, 0);
	if (n > 0) {
		client->len += (size_t)n;
		client->got[client->len] = '\0';
		ck_assert_uint_lt(client->len, DOOR_CLIENT_BYTES);
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	client->error = n < 0 ? errno : 0;
	client->eof = true;
	event_del(client->readable);
}

/* Connects a client to the server; the host accepts it in the loop. */
static struct door_client *
door_client_connect(struct door_test *test)
{
	struct door_client	*client;
	struct sockaddr_in	 sin = { .sin_family = AF_INET };

	ck_assert_uint_lt(test->client_count, DOOR_CLIENTS);
	client = &test->clients[test->client_count++];
	sin.sin_port = htons(test->port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	client->fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(client->fd, 0);
	ck_assert_int_eq(connect(client->fd, (struct sockaddr *)&sin,
	    sizeof sin), 0);
	ck_assert_int_eq(fcntl(client->fd, F_SETFL, O_NONBLOCK), 0);
	client->readable = event_new(test->base, client->fd,
	    EV_READ|EV_PERSIST, door_client_read, client);
	event_add(client->readable, NULL);
	return client;
}

/* Sends text on a client (small enough for the socket's buffer). */
static void
door_client_send(struct door_client *client, const char *text)
{
	ck_assert_int_eq(send(client->fd, text, strlen(text), 0),
	    (ssize_t)strlen(text));
}

/* Turns the loop until the host has closed the client's connection. */
static void
door_client_until_closed(struct door_test *test, struct door_client *client)
{
	while (!client->eof)
		event_base_loop(test->base, EVLOOP_ONCE);
	ck_assert_msg(client->error == 0, "the host reset the connection "
	    "(%s) after: %s", strerror(client->error), client->got);
}

/* Turns the loop until the client has read text. */
static void
door_client_until_read(struct door_test *test, struct door_client *client,
    const char *text)
{
	while (strstr(client->got, text) == NULL) {
		ck_assert_msg(!client->eof, "closed before \"%s\": %s", text,
		    client->got);
		event_base_loop(test->base, EVLOOP_ONCE);
	}
}

/* Turns the loop until the router kept a request. */
static void
door_test_until_kept(struct door_test *test)
{
	while (test->kept == NULL)
		event_base_loop(test->base, EVLOOP_ONCE);
}

/*
 * Asserts that a client read exactly one answer of status (with body
 * last), then the door's 401, then the end: nothing lost, nothing after.
 */
static void
door_client_assert_answered_then_refused(struct door_client *client,
    const char *status, const char *body)
{
	static const char	 end[] = "\"refused: no token\"},\"id\":null}";
	const char		*refusal = strstr(client->got, "HTTP/1.1 401 ");
	const char		*answer_body;

	ck_assert_msg(strncmp(client->got, status, strlen(status)) == 0,
	    "not the answer first: %s", client->got);
	ck_assert_msg(refusal != NULL, "no refusal: %s", client->got);
	answer_body = strstr(client->got, body);
	ck_assert_msg(answer_body != NULL && answer_body + strlen(body) ==
	    refusal, "the answer's body is not whole before the refusal: %s",
	    client->got);
	ck_assert_ptr_null(strstr(refusal + 1, "HTTP/1.1 "));
	ck_assert_ptr_nonnull(strstr(refusal, "\r\nConnection: close\r\n"));
	ck_assert_msg(client->len > strlen(end) && strcmp(client->got +
	    client->len - strlen(end), end) == 0, "the refusal is cut: %s",
	    refusal);
}

#define DOOR_GET(path)	"GET " path " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
#define DOOR_REFUSED	"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n" \
			"X-Refuse: 1\r\n\r\n"

START_TEST(test_door_serves_max_connections_and_refuses_the_next)
{
	struct door_test	 test;
	struct door_client	*clients[4];
	size_t			 i;

	door_test_start(&test, 3, NULL);
	for (i = 0; i < 4; i++) {
		clients[i] = door_client_connect(&test);
		door_client_send(clients[i], "GET / HTTP/1.1\r\n"
		    "Host: 127.0.0.1\r\nConnection: close\r\n\r\n");
	}
	/* Accepted in order: the first three are served, the fourth not. */
	for (i = 0; i < 3; i++) {
		door_client_until_closed(&test, clients[i]);
		ck_assert_msg(strncmp(clients[i]->got, "HTTP/1.1 200 OK\r\n",
		    17) == 0, "client %zu: %s", i, clients[i]->got);
	}
	door_client_until_closed(&test, clients[3]);
	ck_assert_msg(strncmp(clients[3]->got,
	    "HTTP/1.1 503 Service Unavailable\r\n", 34) == 0, "%s",
	    clients[3]->got);
	ck_assert_ptr_nonnull(strstr(clients[3]->got, "max-connections"));
	door_test_stop(&test);
}
END_TEST

/* Counts the lines of a file that contain text. */
static size_t
door_count_lines(const char *path, const char *text)
{
	char	 line[1024];
	size_t	 count = 0;
	FILE	*f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strstr(line, text) != NULL)
			count++;
	}
	fclose(f);
	return count;
}

/*
 * A door over its cap says so in the log once a minute by the injected
 * clock: the refusals in between are not logged, the first one after the
 * clock moved a minute is.
 */
START_TEST(test_door_logs_the_cap_once_a_minute_by_its_clock)
{
	struct door_test	 test;
	struct door_client	*clients[5];
	struct log		*log;
	char			 path[] = "/tmp/check-door-log.XXXXXX", *cause;
	size_t			 i;
	int			 fd;

	fd = mkstemp(path);
	ck_assert_int_ne(fd, -1);
	close(fd);
	log = log_open(LOG_LEVEL_WARN, path, &cause);
	ck_assert_ptr_nonnull(log);
	door_test_start(&test, 1, log);
	for (i = 0; i < 3; i++) {
		clients[i] = door_client_connect(&test);
		door_client_send(clients[i], "GET / HTTP/1.1\r\n"
		    "Host: 127.0.0.1\r\nConnection: close\r\n\r\n");
	}
	for (i = 0; i < 3; i++)
		door_client_until_closed(&test, clients[i]);
	ck_assert_ptr_nonnull(strstr(clients[2]->got, "max-connections"));
	ck_assert_uint_eq(door_count_lines(path, "connections are open"), 1);

	test.clock.now_ms += 60000;
	for (i = 3; i < 5; i++) {
		clients[i] = door_client_connect(&test);
		door_client_send(clients[i], "GET / HTTP/1.1\r\n"
		    "Host: 127.0.0.1\r\nConnection: close\r\n\r\n");
	}
	for (i = 3; i < 5; i++)
		door_client_until_closed(&test, clients[i]);
	ck_assert_ptr_nonnull(strstr(clients[4]->got, "max-connections"));
	ck_assert_uint_eq(door_count_lines(path, "connections are open"), 2);
	door_test_stop(&test);
	log_close(log);
	unlink(path);
}
END_TEST

START_TEST(test_door_answers_a_request_before_refusing_the_next)
{
	struct door_test	 test;
	struct door_client	*client;

	door_test_start(&test, 16, NULL);
	client = door_client_connect(&test);
	door_client_send(client, DOOR_GET("/a") DOOR_REFUSED);
	door_client_until_closed(&test, client);
	door_client_assert_answered_then_refused(client, "HTTP/1.1 200 OK",
	    "\r\n\r\nok");
	door_test_stop(&test);
}
END_TEST

START_TEST(test_door_holds_a_refusal_until_a_late_reply_is_written)
{
	struct door_test	 test;
	struct door_client	*client;
	struct evbuffer		*body = evbuffer_new();

	door_test_start(&test, 16, NULL);
	client = door_client_connect(&test);
	door_client_send(client, DOOR_GET("/keep") DOOR_REFUSED);
	door_test_until_kept(&test);
	/* The router answers late, as a tool call waiting on the browser. */
	evbuffer_add_printf(body, "late");
	evhttp_send_reply(test.kept, 200, "OK", body);
	evbuffer_free(body);
	door_client_until_closed(&test, client);
	door_client_assert_answered_then_refused(client, "HTTP/1.1 200 OK",
	    "\r\n\r\nlate");
	door_test_stop(&test);
}
END_TEST

START_TEST(test_door_holds_a_refusal_behind_a_stream_until_it_ends)
{
	struct door_test	 test;
	struct door_client	*client;

	door_test_start(&test, 16, NULL);
	client = door_client_connect(&test);
	door_client_send(client, DOOR_GET("/stream") DOOR_REFUSED);
	/* The stream's events come while the refusal waits. */
	door_client_until_read(&test, client, "data: one\n\n\r\n");
	ck_assert_ptr_null(strstr(client->got, "HTTP/1.1 401"));
	evhttp_send_reply_end(test.kept);
	door_client_until_closed(&test, client);
	door_client_assert_answered_then_refused(client, "HTTP/1.1 200 OK",
	    "data: one\n\n\r\n0\r\n\r\n");
	door_test_stop(&test);
}
END_TEST

START_TEST(test_door_refuses_a_slow_body_without_waiting_for_its_reply)
{
	struct door_test	 test;
	struct door_client	*client;

	/* The cut request is owed no reply: its 408 waits for none. */
	door_test_start(&test, 16, NULL);
	client = door_client_connect(&test);
	door_client_send(client, DOOR_GET("/a") "POST /b HTTP/1.1\r\n"
	    "Host: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc");
	door_client_until_closed(&test, client);
	ck_assert_msg(strncmp(client->got, "HTTP/1.1 200 OK\r\n", 17) == 0,
	    "%s", client->got);
	ck_assert_ptr_nonnull(strstr(client->got, "\r\n\r\nokHTTP/1.1 408 "));
	ck_assert_ptr_nonnull(strstr(client->got, "Request body too slow"));
	door_test_stop(&test);
}
END_TEST

/* Builds the suite. */
static Suite *
door_suite(void)
{
	Suite	*suite = suite_create("door");
	TCase	*tc = tcase_create("door");

	tcase_add_test(tc, test_door_serves_max_connections_and_refuses_the_next);
	tcase_add_test(tc, test_door_logs_the_cap_once_a_minute_by_its_clock);
	tcase_add_test(tc, test_door_answers_a_request_before_refusing_the_next);
	tcase_add_test(tc, test_door_holds_a_refusal_until_a_late_reply_is_written);
	tcase_add_test(tc, test_door_holds_a_refusal_behind_a_stream_until_it_ends);
	tcase_add_test(tc, test_door_refuses_a_slow_body_without_waiting_for_its_reply);
	suite_add_tcase(suite, tc);
	return suite;
}

int
main(void)
{
	/* A client gone before the door writes must not end the suite. */
	signal(SIGPIPE, SIG_IGN);
	return check_run_suite(door_suite());
}
