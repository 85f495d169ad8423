/* Finding a running host: runtime file, process, GET /health. */
#include "probe.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "xmalloc.h"

/* Largest response read (the health answer is about a hundred bytes). */
#define PROBE_RESPONSE_MAX	(64 * 1024)

/* Reads and checks the runtime file. */
int
probe_runtime_read(const char *path, struct probe_runtime *runtime,
    char **cause)
{
	json_error_t	 error;
	json_t		*root, *pid, *port;
	const char	*text;

	memset(runtime, 0, sizeof *runtime);
	root = json_load_file(path, 0, &error);
	if (root == NULL) {
		if (access(path, F_OK) != 0)
			*cause = xasprintf("no runtime file at %s", path);
		else
			*cause = xasprintf("%s is not valid JSON: %s", path,
			    error.text);
		return -1;
	}
	pid = json_object_get(root, "pid");
	port = json_object_get(root, "port");
	if (!json_is_integer(pid) || json_integer_value(pid) <= 0 ||
	    !json_is_integer(port) || json_integer_value(port) <= 0 ||
	    json_integer_value(port) > 65535) {
		*cause = xasprintf("%s lacks a valid \"pid\" and \"port\"",
		    path);
		json_decref(root);
		return -1;
	}
	runtime->pid = (long)json_integer_value(pid);
	runtime->port = (int)json_integer_value(port);
	if ((text = json_string_value(json_object_get(root, "version"))) !=
	    NULL)
		runtime->version = xstrdup(text);
	if ((text = json_string_value(json_object_get(root, "url"))) != NULL)
		runtime->url = xstrdup(text);
	json_decref(root);
	return 0;
}

/* Frees what probe_runtime_read filled in. */
void
probe_runtime_clear(struct probe_runtime *runtime)
{
	free(runtime->version);
	free(runtime->url);
	memset(runtime, 0, sizeof *runtime);
}

/* Says whether a process with this pid exists. */
bool
probe_pid_alive(long pid)
{
	if (pid <= 0)
		return false;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Returns the milliseconds left until deadline (CLOCK_MONOTONIC ms). */
static int
probe_left(long long deadline)
{
	struct timespec	ts;
	long long	now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	return now >= deadline ? 0 : (int)(deadline - now);
}

/* Returns a deadline timeout_ms from now. */
static long long
probe_deadline(int timeout_ms)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + timeout_ms;
}

/* Waits until fd is ready for events or the deadline passes. */
static int
probe_wait(int fd, short events, long long deadline)
{
	struct pollfd	pfd = { .fd = fd, .events = events };
	int		n;

	do {
		n = poll(&pfd, 1, probe_left(deadline));
	} while (n == -1 && errno == EINTR);
	return n;
}

/* Decodes a chunked body in place; returns its length or -1. */
static long
probe_dechunk(char *body, size_t len)
{
	size_t	 in = 0, out = 0, size;
	char	*end;

	for (;;) {
		if (in >= len)
			return -1;
		size = strtoul(body + in, &end, 16);
		if (end == body + in || (end = strstr(end, "\r\n")) == NULL)
			return -1;
		in = (size_t)(end - body) + 2;
		if (size == 0)
			return (long)out;
		if (size > len - in)
			return -1;
		memmove(body + out, body + in, size);
		out += size;
		in += size + 2;
	}
}

/*
 * Parses an HTTP/1.x response (status line, headers, body by
 * Content-Length, chunks or the end of the stream). Pure, for the tests.
 */
int
probe_http_parse(const char *response, size_t len, int *status, char **body,
    char **cause)
{
	const char	*head_end, *line, *next, *chunk;
	char		*copy;
	size_t		 head_len, body_len, content_length = (size_t)-1;
	bool		 chunked = false;
	long		 decoded;

	copy = xstrndup(response, len);
	head_end = strstr(copy, "\r\n\r\n");
	if (strncmp(copy, "HTTP/1.", 7) != 0 || head_end == NULL ||
	    len < 12 || copy[8] != ' ') {
		*cause = xstrdup("the answer is not an HTTP response");
		free(copy);
		return -1;
	}
	*status = atoi(copy + 9);
	head_len = (size_t)(head_end - copy) + 4;
	for (line = strstr(copy, "\r\n") + 2; line < head_end; line = next) {
		next = strstr(line, "\r\n") + 2;
		if (strncasecmp(line, "Content-Length:", 15) == 0)
			content_length = strtoul(line + 15, NULL, 10);
		else if (strncasecmp(line, "Transfer-Encoding:", 18) == 0 &&
		    (chunk = strstr(line, "chunked")) != NULL && chunk < next)
			chunked = true;
	}
	body_len = strlen(copy + head_len);
	if (content_length != (size_t)-1 && content_length < body_len)
		body_len = content_length;
	else if (content_length != (size_t)-1 && content_length > body_len) {
		*cause = xstrdup("the HTTP response ended early");
		free(copy);
		return -1;
	}
	*body = xstrndup(copy + head_len, body_len);
	free(copy);
	if (chunked) {
		if ((decoded = probe_dechunk(*body, body_len)) < 0) {
			*cause = xstrdup("the HTTP response has broken chunks");
			free(*body);
			*body = NULL;
			return -1;
		}
		(*body)[decoded] = '\0';
	}
	return 0;
}

/* Connects to 127.0.0.1:port within the deadline. */
static int
probe_connect(int port, long long deadline, char **cause)
{
	struct sockaddr_in	sin;
	int			fd, error = 0;
	socklen_t		len = sizeof error;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0)) == -1) {
		*cause = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
		if (errno != EINPROGRESS)
			error = errno;
		else if (probe_wait(fd, POLLOUT, deadline) <= 0)
			error = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error,
		    &len) == -1)
			error = errno;
	}
	if (error != 0) {
		*cause = xasprintf("cannot connect to 127.0.0.1:%d: %s", port,
		    strerror(error));
		close(fd);
		return -1;
	}
	return fd;
}

/* GETs path from 127.0.0.1:port with a deadline; blocking, for commands. */
int
probe_http_get(int port, const char *path, int timeout_ms, int *status,
    char **body, char **cause)
{
	long long	 deadline = probe_deadline(timeout_ms);
	char		*request, *buf;
	size_t		 used = 0, len, sent = 0;
	ssize_t		 n;
	int		 fd, rc = -1;

	if ((fd = probe_connect(port, deadline, cause)) == -1)
		return -1;
	request = xasprintf("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "Accept: application/json\r\nConnection: close\r\n\r\n", path,
	    port);
	len = strlen(request);
	while (sent < len) {
		n = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
		if (n == -1 && errno == EAGAIN &&
		    probe_wait(fd, POLLOUT, deadline) > 0)
			continue;
		if (n <= 0) {
			*cause = xasprintf("cannot send to 127.0.0.1:%d: %s",
			    port, n == 0 ? "closed" : strerror(errno));
			goto out;
		}
		sent += (size_t)n;
	}
	buf = xmalloc(PROBE_RESPONSE_MAX);
	for (;;) {
		if (probe_wait(fd, POLLIN, deadline) <= 0) {
			*cause = xasprintf("127.0.0.1:%d did not answer %s "
			    "within %d ms", port, path, timeout_ms);
			free(buf);
			goto out;
		}
		n = recv(fd, buf + used, PROBE_RESPONSE_MAX - used, 0);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == -1) {
			*cause = xasprintf("cannot read from 127.0.0.1:%d: %s",
			    port, strerror(errno));
			free(buf);
			goto out;
		}
		if (n == 0 || (used += (size_t)n) == PROBE_RESPONSE_MAX)
			break;
	}
	rc = probe_http_parse(buf, used, status, body, cause);
	free(buf);
out:
	free(request);
	close(fd);
	return rc;
}

/* GETs /health and returns its JSON object. */
json_t *
probe_health(int port, int timeout_ms, char **cause)
{
	json_error_t	 error;
	json_t		*health;
	char		*body = NULL;
	int		 status;

	if (probe_http_get(port, "/health", timeout_ms, &status, &body,
	    cause) != 0)
		return NULL;
	if (status != 200) {
		*cause = xasprintf("GET /health on port %d answered HTTP %d",
		    port, status);
		free(body);
		return NULL;
	}
	health = json_loads(body, 0, &error);
	free(body);
	if (!json_is_object(health)) {
		*cause = xasprintf("GET /health on port %d did not answer a "
		    "JSON object", port);
		json_decref(health);
		return NULL;
	}
	return health;
}
