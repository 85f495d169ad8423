/*
 * bench-host: the host's overhead benchmark (`make bench`). It starts
 * browser-bridge with pipes on its stdin and stdout, plays the extension on
 * them (every request answered at once, from the event loop) and drives MCP
 * tools/call over keep-alive HTTP/1.1 connections (Streamable HTTP), then
 * prints throughput, latency, memory and start-up time against the targets.
 *
 * A benchmark, not a test: a missed target still exits 0. It exits 1 only
 * when something failed outright: the host died, a reply was wrong or
 * missing, a phase did not finish in time. Every reply is checked.
 *
 * Usage: bench-host PATH-TO-BROWSER-BRIDGE
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <jansson.h>

#include "nm-frame.h"
#include "xmalloc.h"

/*
 * The load: calls measured, warm-up, limits. Each can be overridden at
 * build time (-DBENCH_CALLS_1=2000) for a short run under a profiler.
 */
#ifndef BENCH_WARMUP_1
#define BENCH_WARMUP_1		2000
#endif
#ifndef BENCH_CALLS_1
#define BENCH_CALLS_1		20000
#endif
#define BENCH_CONCURRENCY	64
#ifndef BENCH_WARMUP_64
#define BENCH_WARMUP_64		10000
#endif
#ifndef BENCH_CALLS_64
#define BENCH_CALLS_64		200000
#endif
#ifndef BENCH_SECONDS_64
#define BENCH_SECONDS_64	5
#endif
/* Concurrency 1 and the floor stop measuring after this, slow or not. */
#define BENCH_SECONDS_1		10
/* A phase that runs longer than this has failed. */
#ifndef BENCH_PHASE_LIMIT_S
#define BENCH_PHASE_LIMIT_S	25
#endif
#ifndef BENCH_STARTS
#define BENCH_STARTS		20
#endif
#define BENCH_START_POLL_US	100
#define BENCH_START_LIMIT_MS	5000
#define BENCH_EXIT_LIMIT_MS	5000
#define BENCH_MAX_HEADER	(16 * 1024)
#define BENCH_MAX_BODY		(1024 * 1024)
#define BENCH_MAX_ERRORS_SHOWN	10

#define BENCH_PROTOCOL		"2025-06-18"
#define BENCH_TOOL		"navigate_to"
#define BENCH_URL		"https://example.com"

/* The targets. */
#define BENCH_TARGET_P50_1_US	100.0
#define BENCH_TARGET_CPS_64	30000.0
#define BENCH_TARGET_IDLE_MB	4.0
#define BENCH_TARGET_PEAK_MB	8.0
#define BENCH_TARGET_START_MS	10.0

struct bench;
struct bench_load;

/* Where one MCP client connection is in its life. */
enum bench_client_state {
	BENCH_CLIENT_INITIALIZE,	/* initialize sent: wants 200 + id */
	BENCH_CLIENT_INITIALIZED,	/* notifications/initialized: 202 */
	BENCH_CLIENT_IDLE,		/* ready, nothing in flight */
	BENCH_CLIENT_CALLING,		/* one tools/call in flight */
};

/* One keep-alive HTTP/1.1 connection holding one MCP session. */
struct bench_client {
	struct bench		*bench;
	struct bench_load	*load;
	int			 fd;
	enum bench_client_state	 state;
	struct evbuffer		*in;
	struct evbuffer		*out;
	struct event		*read_event;
	struct event		*write_event;
	char			*session_id;
	json_int_t		 next_id;
	json_int_t		 expected_id;
	uint64_t		 sent_ns;
};

/* One load phase: N clients, each with one call in flight. */
struct bench_load {
	struct bench		 *bench;
	const char		 *name;
	size_t			  concurrency;
	size_t			  warmup;	/* calls before measuring */
	size_t			  calls;	/* measured calls wanted */
	uint64_t		  limit_ns;	/* measured time wanted, at most */
	struct bench_client	**clients;
	size_t			  ready;	/* clients initialized */
	size_t			  completed;	/* calls answered */
	size_t			  in_flight;
	bool			  measuring;
	bool			  stopping;
	bool			  done;
	uint64_t		  start_ns;
	uint64_t		  end_ns;
	uint32_t		 *samples;	/* latencies in ns */
	size_t			  measured;
	/* Results. */
	double			  calls_per_s;
	double			  p50_us;
	double			  p99_us;
	double			  host_cpu_us;	/* host CPU per measured call */
	double			  host_sys_us;	/* the kernel's part of it */
	double			  host_busy;	/* host CPU / wall time */
	double			  bench_busy;
	double			  others_busy;	/* everything else */
	double			  steal;	/* the hypervisor's */
	uint64_t		  host_cpu_start_ns;
	uint64_t		  host_sys_start_ns;
	uint64_t		  bench_cpu_start_ns;
	uint64_t		  machine_start_ns;
	uint64_t		  steal_start_ns;
};

/* A host process started with pipes on its stdin and stdout. */
struct bench_host {
	pid_t			 pid;
	int			 to_host;	/* the host's stdin */
	int			 from_host;	/* the host's stdout */
	struct evbuffer		*in;
	struct evbuffer		*out;
	struct event		*read_event;
	struct event		*write_event;
	bool			 welcomed;
	bool			 closing;	/* we closed its stdin */
	int			 port;
	size_t			 requests;
};

/* The whole run. */
struct bench {
	const char		*binary;
	char			*tmpdir;
	char			*rundir;	/* XDG_RUNTIME_DIR */
	char			*log_path;
	int			 log_fd;
	char			*token;
	struct event_base	*base;
	struct bench_host	 host;
	bool			 failed;
	char			*failure;
	size_t			 errors;
	/* Results. */
	double			 floor_p50_us;	/* the wakeups alone */
	double			 start_ms;
	double			 start_max_ms;
	double			 exit_ms;
	long			 idle_rss_kb;
	long			 idle_hwm_kb;
	long			 after_rss_kb;
	long			 peak_hwm_kb;
};

static void	bench_client_call(struct bench_client *);

/* Returns a monotonic clock in nanoseconds. */
static uint64_t
bench_now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Records an outright failure; the first one is what the run reports. */
static void __attribute__((format(PRINTF_FORMAT, 2, 3)))
bench_fail(struct bench *bench, const char *fmt, ...)
{
	va_list	ap;
	char	*message;

	va_start(ap, fmt);
	message = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "bench-host: %s\n", message);
	if (bench->failure == NULL)
		bench->failure = message;
	else
		free(message);
	bench->failed = true;
	if (bench->base != NULL)
		event_base_loopbreak(bench->base);
}

/* Counts a wrong reply; the run goes on but will exit 1. */
static void __attribute__((format(PRINTF_FORMAT, 2, 3)))
bench_error(struct bench *bench, const char *fmt, ...)
{
	va_list	ap;

	if (bench->errors++ >= BENCH_MAX_ERRORS_SHOWN)
		return;
	va_start(ap, fmt);
	fputs("bench-host: wrong reply: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Sets O_NONBLOCK on a descriptor. */
static void
bench_set_nonblocking(int fd)
{
	int	flags = fcntl(fd, F_GETFL);

	if (flags != -1)
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/*
 * Starts the host binary with argv, its stdin and stdout on pipes and its
 * stderr on the log. Returns the pid, or -1.
 */
static pid_t
bench_spawn(struct bench *bench, char *const argv[], int *to_child,
    int *from_child)
{
	int	in_pipe[2], out_pipe[2];
	pid_t	pid;

	if (pipe2(in_pipe, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(out_pipe, O_CLOEXEC) != 0) {
		close(in_pipe[0]);
		close(in_pipe[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		/* dup2 clears close-on-exec on the copies. */
		if (dup2(in_pipe[0], STDIN_FILENO) == -1 ||
		    dup2(out_pipe[1], STDOUT_FILENO) == -1 ||
		    dup2(bench->log_fd, STDERR_FILENO) == -1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in_pipe[0]);
	close(out_pipe[1]);
	if (pid == -1) {
		close(in_pipe[1]);
		close(out_pipe[0]);
		return -1;
	}
	*to_child = in_pipe[1];
	*from_child = out_pipe[0];
	return pid;
}

/*
 * Waits up to limit_ms for a child to exit; kills it after that. Returns
 * its wait status, or -1 if it had to be killed.
 */
static int
bench_reap(pid_t pid, int limit_ms)
{
	uint64_t		deadline = bench_now_ns() +
				    (uint64_t)limit_ms * 1000000u;
	struct timespec		ts = { 0, 200000 };
	int			status;
	pid_t			rc;

	for (;;) {
		rc = waitpid(pid, &status, WNOHANG);
		if (rc == pid)
			return status;
		if (rc == -1 && errno != EINTR)
			return -1;
		if (bench_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
}

/* Describes a wait status for a message. */
static char *
bench_describe_status(int status)
{
	if (status == -1)
		return xstrdup("did not exit in time and was killed");
	if (WIFEXITED(status))
		return xasprintf("exited with status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return xasprintf("was killed by signal %d", WTERMSIG(status));
	return xasprintf("ended with wait status %d", status);
}

/* Reads a /proc/PID/status field in kB; -1 if absent. */
static long
bench_proc_kb(pid_t pid, const char *field)
{
	char	 path[64], line[256];
	FILE	*f;
	size_t	 len = strlen(field);
	long	 value = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, field, len) == 0 && line[len] == ':') {
			value = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return value;
}

/*
 * Returns the CPU time a process used, in ns, and the kernel's part of it
 * in *system_ns; 0 if unknown.
 */
static uint64_t
bench_proc_cpu_ns(pid_t pid, uint64_t *system_ns)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 utime, stime, tick_ns;
	FILE			*f;
	long			 ticks = sysconf(_SC_CLK_TCK);
	size_t			 n;

	*system_ns = 0;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Fields 14 and 15, counted after the ")" that ends the name. */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %*d %*d "
	    "%*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2 ||
	    ticks <= 0)
		return 0;
	tick_ns = 1000000000ull / (unsigned long long)ticks;
	*system_ns = stime * tick_ns;
	return (utime + stime) * tick_ns;
}

/* Returns the CPU time this process used, in ns. */
static uint64_t
bench_self_cpu_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Returns the CPU time the machine spent busy, in ns, from /proc/stat, and
 * the time the hypervisor took from it (steal) in *steal_ns; 0 if unknown.
 */
static uint64_t
bench_machine_busy_ns(uint64_t *steal_ns)
{
	unsigned long long	 user, nice, sys, idle, iowait, irq, softirq;
	unsigned long long	 steal, tick_ns;
	long			 ticks = sysconf(_SC_CLK_TCK);
	FILE			*f;
	int			 n;

	*steal_ns = 0;
	if ((f = fopen("/proc/stat", "r")) == NULL)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user,
	    &nice, &sys, &idle, &iowait, &irq, &softirq, &steal);
	fclose(f);
	if (n != 8 || ticks <= 0)
		return 0;
	tick_ns = 1000000000ull / (unsigned long long)ticks;
	*steal_ns = steal * tick_ns;
	return (user + nice + sys + irq + softirq) * tick_ns;
}

/* Removes one entry of the temporary tree. */
static int
bench_remove_entry(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

/* Copies the host's log to stderr, for a failed run. */
static void
bench_show_log(struct bench *bench)
{
	char	buf[4096];
	ssize_t	n;
	int	fd;

	if ((fd = open(bench->log_path, O_RDONLY|O_CLOEXEC)) == -1)
		return;
	fputs("bench-host: the host's log:\n", stderr);
	fflush(stderr);
	while ((n = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, stderr);
	close(fd);
}

/* Prints the host's bearer token via `browser-bridge token`. */
static int
bench_read_token(struct bench *bench)
{
	char	*argv[] = { (char *)bench->binary, (char *)"token", NULL };
	char	 buf[256], *end, *why;
	size_t	 len = 0;
	ssize_t	 n;
	int	 to_child, from_child, status;
	pid_t	 pid;

	if ((pid = bench_spawn(bench, argv, &to_child, &from_child)) == -1) {
		bench_fail(bench, "cannot start %s: %s", bench->binary,
		    strerror(errno));
		return -1;
	}
	close(to_child);
	while (len < sizeof buf - 1 &&
	    (n = read(from_child, buf + len, sizeof buf - 1 - len)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(from_child);
	status = bench_reap(pid, BENCH_EXIT_LIMIT_MS);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		why = bench_describe_status(status);
		bench_fail(bench, "`browser-bridge token` %s", why);
		free(why);
		return -1;
	}
	if ((end = strchr(buf, '\n')) != NULL)
		*end = '\0';
	if (strlen(buf) < 16) {
		bench_fail(bench, "`browser-bridge token` printed \"%s\", "
		    "not a token", buf);
		return -1;
	}
	bench->token = xstrdup(buf);
	return 0;
}

/* Returns a loopback port that is free right now, or -1. */
static int
bench_free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd, port = -1;

	if ((fd = socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* Connects a blocking TCP socket to 127.0.0.1:port; -1 and errno if not. */
static int
bench_connect(int port)
{
	struct sockaddr_in	sin;
	int			fd, saved;

	if ((fd = socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/*
 * Reads an HTTP response to a Connection: close request until EOF, waiting
 * up to limit_ms. Returns the bytes read (a new string), or NULL.
 */
static char *
bench_read_all(int fd, int limit_ms, uint64_t *first_ns)
{
	struct pollfd	 pfd = { .fd = fd, .events = POLLIN };
	char		*buf = NULL;
	size_t		 len = 0, size = 0;
	ssize_t		 n;

	*first_ns = 0;
	for (;;) {
		if (poll(&pfd, 1, limit_ms) <= 0)
			break;
		if (len + 4096 + 1 > size) {
			size = size == 0 ? 8192 : size * 2;
			buf = xrealloc(buf, size);
		}
		n = read(fd, buf + len, size - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 && len > 0) {
				buf[len] = '\0';
				return buf;
			}
			break;
		}
		len += (size_t)n;
		buf[len] = '\0';
		if (*first_ns == 0 && strstr(buf, "\r\n\r\n") != NULL)
			*first_ns = bench_now_ns();
	}
	free(buf);
	return NULL;
}

/* Checks a /health response: 200 and {"status":"ok"}. */
static int
bench_check_health(const char *response, char **cause)
{
	const char	*body;
	json_t		*json;
	int		 rc = -1;

	if (strncmp(response, "HTTP/1.1 200 ", 13) != 0) {
		*cause = xasprintf("GET /health answered \"%.40s\"", response);
		return -1;
	}
	if ((body = strstr(response, "\r\n\r\n")) == NULL) {
		*cause = xstrdup("GET /health: no end of headers");
		return -1;
	}
	json = json_loads(body + 4, 0, NULL);
	if (json != NULL && json_is_string(json_object_get(json, "status")) &&
	    strcmp(json_string_value(json_object_get(json, "status")),
	    "ok") == 0)
		rc = 0;
	else
		*cause = xasprintf("GET /health body \"%.80s\" has no "
		    "\"status\":\"ok\"", body + 4);
	json_decref(json);
	return rc;
}

/* Sorts latencies. */
static int
bench_compare_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts doubles. */
static int
bench_compare_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Returns the nearest-rank percentile q (0..1) of sorted values. */
static uint32_t
bench_percentile(const uint32_t *sorted, size_t n, double q)
{
	size_t	rank;

	if (n == 0)
		return 0;
	rank = (size_t)(q * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* Reads or writes exactly one byte, retrying on EINTR; -1 on EOF or error. */
static int
bench_byte(int fd, bool write_it)
{
	char	c = 'x';
	ssize_t	n;

	do
		n = write_it ? write(fd, &c, 1) : read(fd, &c, 1);
	while (n == -1 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* The floor's child: echoes TCP to pipe and pipe back to TCP until EOF. */
static void __attribute__((noreturn))
bench_floor_child(int port, int to_parent, int from_parent)
{
	int	fd, one = 1;

	if ((fd = bench_connect(port)) == -1)
		_exit(1);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	while (bench_byte(fd, false) == 0 &&
	    bench_byte(to_parent, true) == 0 &&
	    bench_byte(from_parent, false) == 0 &&
	    bench_byte(fd, true) == 0)
		/* nothing */;
	_exit(0);
}

/*
 * Measures the floor under a tools/call at concurrency 1: the same four
 * hops between two processes (TCP there, pipe there, pipe back, TCP back)
 * carrying one byte each and doing no work. On a VM the wakeups between
 * CPUs can cost more than the host's own work.
 */
static int
bench_floor(struct bench *bench)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	uint32_t		*samples;
	uint64_t		 t0, deadline;
	int			 listener, fd = -1, one = 1, status, i, n = 0;
	bool			 broken = true;
	int			 down[2], up[2];
	pid_t			 pid;

	listener = socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (listener == -1 || bind(listener, (struct sockaddr *)&sin,
	    sizeof sin) != 0 || listen(listener, 1) != 0 ||
	    getsockname(listener, (struct sockaddr *)&sin, &len) != 0 ||
	    pipe2(down, O_CLOEXEC) != 0) {
		bench_fail(bench, "floor: cannot set up: %s", strerror(errno));
		if (listener != -1)
			close(listener);
		return -1;
	}
	if (pipe2(up, O_CLOEXEC) != 0 || (pid = fork()) == -1) {
		bench_fail(bench, "floor: cannot fork: %s", strerror(errno));
		close(listener);
		return -1;
	}
	if (pid == 0)
		bench_floor_child(ntohs(sin.sin_port), up[1], down[0]);
	close(up[1]);
	close(down[0]);
	fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	close(listener);
	samples = xcalloc(BENCH_CALLS_1, sizeof *samples);
	if (fd != -1) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		deadline = bench_now_ns() +
		    (uint64_t)BENCH_SECONDS_1 * 1000000000u;
		broken = false;
		for (i = 0; i < BENCH_WARMUP_1 + BENCH_CALLS_1 && !broken &&
		    (n == 0 || bench_now_ns() < deadline); i++) {
			t0 = bench_now_ns();
			broken = bench_byte(fd, true) != 0 ||
			    bench_byte(up[0], false) != 0 ||
			    bench_byte(down[1], true) != 0 ||
			    bench_byte(fd, false) != 0;
			if (!broken && i >= BENCH_WARMUP_1)
				samples[n++] = (uint32_t)(bench_now_ns() - t0);
		}
		close(fd);
	}
	close(up[0]);
	close(down[1]);
	status = bench_reap(pid, BENCH_EXIT_LIMIT_MS);
	if (broken || n == 0 || status == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		bench_fail(bench, "floor: the echo child failed after %d "
		    "round trips", n);
		free(samples);
		return -1;
	}
	qsort(samples, (size_t)n, sizeof samples[0], bench_compare_u32);
	bench->floor_p50_us = bench_percentile(samples, (size_t)n, 0.50) / 1e3;
	free(samples);
	return 0;
}

/*
 * Measures start-to-serving: from fork until GET /health answers 200,
 * polling connect every 100 µs; then closes stdin and times the exit. Each
 * start uses a port that was free a moment before.
 */
static int
bench_starts(struct bench *bench)
{
	double		 serving[BENCH_STARTS], exiting[BENCH_STARTS];
	struct timespec	 ts = { 0, BENCH_START_POLL_US * 1000 };
	char		 port_text[16], request[128], *response, *cause, *why;
	char		*argv[] = { (char *)bench->binary, (char *)"--port",
			    port_text, NULL };
	uint64_t	 t0, t_serving, t_eof;
	int		 i, port, fd, to_host, from_host, status;
	pid_t		 pid;

	for (i = 0; i < BENCH_STARTS; i++) {
		if ((port = bench_free_port()) == -1) {
			bench_fail(bench, "no free port: %s", strerror(errno));
			return -1;
		}
		snprintf(port_text, sizeof port_text, "%d", port);
		snprintf(request, sizeof request, "GET /health HTTP/1.1\r\n"
		    "Host: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", port);

		t0 = bench_now_ns();
		if ((pid = bench_spawn(bench, argv, &to_host,
		    &from_host)) == -1) {
			bench_fail(bench, "cannot start %s: %s", bench->binary,
			    strerror(errno));
			return -1;
		}
		response = NULL;
		for (;;) {
			if (bench_now_ns() - t0 >
			    (uint64_t)BENCH_START_LIMIT_MS * 1000000u)
				break;
			if (waitpid(pid, &status, WNOHANG) == pid) {
				why = bench_describe_status(status);
				bench_fail(bench, "start %d: the host %s before "
				    "serving", i + 1, why);
				free(why);
				close(to_host);
				close(from_host);
				return -1;
			}
			if ((fd = bench_connect(port)) == -1) {
				if (errno != ECONNREFUSED) {
					bench_fail(bench, "connect to port %d: "
					    "%s", port, strerror(errno));
					break;
				}
				nanosleep(&ts, NULL);
				continue;
			}
			if (write(fd, request, strlen(request)) !=
			    (ssize_t)strlen(request)) {
				close(fd);
				break;
			}
			response = bench_read_all(fd, BENCH_START_LIMIT_MS,
			    &t_serving);
			close(fd);
			break;
		}
		if (response == NULL || t_serving == 0) {
			if (!bench->failed)
				bench_fail(bench, "start %d: GET /health on port "
				    "%d got no answer within %d ms", i + 1, port,
				    BENCH_START_LIMIT_MS);
			free(response);
			kill(pid, SIGKILL);
			bench_reap(pid, BENCH_EXIT_LIMIT_MS);
			close(to_host);
			close(from_host);
			return -1;
		}
		serving[i] = (double)(t_serving - t0) / 1e6;
		if (bench_check_health(response, &cause) != 0) {
			bench_fail(bench, "start %d: %s", i + 1, cause);
			free(cause);
		}
		free(response);

		t_eof = bench_now_ns();
		close(to_host);
		status = bench_reap(pid, BENCH_EXIT_LIMIT_MS);
		exiting[i] = (double)(bench_now_ns() - t_eof) / 1e6;
		close(from_host);
		if (status == -1 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			why = bench_describe_status(status);
			bench_fail(bench, "start %d: after EOF on stdin the host "
			    "%s", i + 1, why);
			free(why);
		}
		if (bench->failed)
			return -1;
	}
	qsort(serving, BENCH_STARTS, sizeof serving[0], bench_compare_double);
	qsort(exiting, BENCH_STARTS, sizeof exiting[0], bench_compare_double);
	bench->start_ms = (serving[(BENCH_STARTS - 1) / 2] +
	    serving[BENCH_STARTS / 2]) / 2;
	bench->start_max_ms = serving[BENCH_STARTS - 1];
	bench->exit_ms = (exiting[(BENCH_STARTS - 1) / 2] +
	    exiting[BENCH_STARTS / 2]) / 2;
	return 0;
}

/* Writes what is queued for the host's stdin; waits for room if need be. */
static void
bench_host_flush(struct bench *bench)
{
	struct bench_host	*host = &bench->host;

	if (evbuffer_get_length(host->out) == 0)
		return;
	if (evbuffer_write(host->out, host->to_host) == -1 &&
	    errno != EAGAIN && errno != EINTR) {
		bench_fail(bench, "writing to the host's stdin: %s",
		    strerror(errno));
		return;
	}
	if (evbuffer_get_length(host->out) > 0)
		event_add(host->write_event, NULL);
}

/* The host's stdin has room again. */
static void
bench_host_writable(evutil_socket_t fd, short events, void *arg)
{
	(void)fd;
	(void)events;
	bench_host_flush(arg);
}

/* Queues one native-messaging frame for the host. */
static void
bench_host_send(struct bench *bench, const char *json, size_t len)
{
	uint8_t	header[NM_FRAME_HEADER_SIZE];

	nm_frame_header_encode(header, (uint32_t)len);
	evbuffer_add(bench->host.out, header, sizeof header);
	evbuffer_add(bench->host.out, json, len);
}

/* Checks the welcome and takes the port from it. */
static void
bench_host_welcome(struct bench *bench, json_t *message)
{
	json_t	*port = json_object_get(message, "port");

	if (json_object_get(message, "error") != NULL ||
	    json_integer_value(json_object_get(message, "protocol")) != 1 ||
	    !json_is_integer(port) || json_integer_value(port) <= 0 ||
	    json_integer_value(port) > 65535) {
		bench_fail(bench, "the welcome has no usable port or a "
		    "protocol error");
		return;
	}
	if (!json_is_true(json_object_get(message, "auth")))
		bench_fail(bench, "the welcome says auth is off; the bench "
		    "runs the host with its token");
	bench->host.port = (int)json_integer_value(port);
	bench->host.welcomed = true;
}

/* Answers one request from the host at once, as the extension would. */
static void
bench_host_request(struct bench *bench, json_t *message)
{
	json_t		*id = json_object_get(message, "id");
	json_t		*params = json_object_get(message, "params");
	const char	*method;
	const char	*url;
	char		 reply[256];
	int		 len;

	method = json_string_value(json_object_get(message, "method"));
	url = json_string_value(json_object_get(params, "url"));
	if (!json_is_integer(id)) {
		bench_fail(bench, "a request from the host has no integer id");
		return;
	}
	if (method == NULL || strcmp(method, BENCH_TOOL) != 0 || url == NULL ||
	    strcmp(url, BENCH_URL) != 0 ||
	    !json_is_integer(json_object_get(message, "timeout_ms")))
		bench_error(bench, "the host asked the extension for %s (url "
		    "%s)", method != NULL ? method : "(no method)",
		    url != NULL ? url : "(none)");
	len = snprintf(reply, sizeof reply, "{\"type\":\"response\",\"id\":%"
	    JSON_INTEGER_FORMAT ",\"result\":{\"content\":[{\"type\":"
	    "\"text\",\"text\":\"ok\"}]}}", json_integer_value(id));
	bench_host_send(bench, reply, (size_t)len);
	bench->host.requests++;
}

/* Handles one message from the host. */
static void
bench_host_message(struct bench *bench, json_t *message)
{
	const char	*type;

	type = json_string_value(json_object_get(message, "type"));
	if (type == NULL)
		bench_error(bench, "a host message has no type");
	else if (strcmp(type, "request") == 0)
		bench_host_request(bench, message);
	else if (strcmp(type, "welcome") == 0)
		bench_host_welcome(bench, message);
	else if (strcmp(type, "cancel") == 0)
		bench_error(bench, "the host cancelled call %" JSON_INTEGER_FORMAT
		    " (%s)", json_integer_value(json_object_get(message, "id")),
		    json_string_value(json_object_get(message, "reason")));
	else
		bench_error(bench, "unexpected host message type %s", type);
}

/* The host wrote to its stdout: split frames, answer them, flush. */
static void
bench_host_readable(evutil_socket_t fd, short events, void *arg)
{
	struct bench		*bench = arg;
	struct bench_host	*host = &bench->host;
	const uint8_t		*data, *payload;
	size_t			 len, payload_len, consumed, offset = 0;
	uint32_t		 declared;
	json_t			*message;
	char			*cause = NULL;
	int			 n;

	(void)events;
	n = evbuffer_read(host->in, fd, -1);
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		event_del(host->read_event);
		if (!host->closing)
			bench_fail(bench, "the host closed its stdout "
			    "unexpectedly (did it die?)");
		event_base_loopbreak(bench->base);
		return;
	}
	len = evbuffer_get_length(host->in);
	data = evbuffer_pullup(host->in, -1);
	while (offset < len) {
		switch (nm_frame_parse(data + offset, len - offset,
		    BENCH_MAX_BODY, &payload, &payload_len, &consumed,
		    &declared)) {
		case NM_FRAME_NEED_MORE:
			goto out;
		case NM_FRAME_OK:
			message = nm_frame_decode(payload, payload_len, &cause);
			if (message == NULL) {
				bench_error(bench, "a frame from the host: %s",
				    cause);
				free(cause);
				cause = NULL;
			} else {
				bench_host_message(bench, message);
				json_decref(message);
			}
			break;
		default:
			bench_fail(bench, "a frame of %" PRIu32 " bytes from "
			    "the host is empty or too large", declared);
			return;
		}
		offset += consumed;
	}
out:
	evbuffer_drain(host->in, offset);
	bench_host_flush(bench);
}

/* Starts the host for the load phases and does the extension's hello. */
static int
bench_host_start(struct bench *bench)
{
	struct bench_host	*host = &bench->host;
	char			*argv[] = { (char *)bench->binary,
				    (char *)"--port", (char *)"0", NULL };
	static const char	 hello[] = "{\"type\":\"hello\",\"protocol\":1,"
				    "\"version\":\"bench\",\"capabilities\":[]}";

	host->pid = bench_spawn(bench, argv, &host->to_host, &host->from_host);
	if (host->pid == -1) {
		bench_fail(bench, "cannot start %s: %s", bench->binary,
		    strerror(errno));
		return -1;
	}
	bench_set_nonblocking(host->to_host);
	bench_set_nonblocking(host->from_host);
	host->in = evbuffer_new();
	host->out = evbuffer_new();
	host->read_event = event_new(bench->base, host->from_host,
	    EV_READ|EV_PERSIST, bench_host_readable, bench);
	host->write_event = event_new(bench->base, host->to_host, EV_WRITE,
	    bench_host_writable, bench);
	event_add(host->read_event, NULL);
	bench_host_send(bench, hello, sizeof hello - 1);
	bench_host_flush(bench);
	return 0;
}

/* Closes the host's stdin, waits for it to exit and checks it did cleanly. */
static void
bench_host_stop(struct bench *bench)
{
	struct bench_host	*host = &bench->host;
	char			*why;
	int			 status;

	if (host->pid <= 0)
		return;
	host->closing = true;
	if (host->to_host != -1) {
		close(host->to_host);
		host->to_host = -1;
	}
	status = bench_reap(host->pid, BENCH_EXIT_LIMIT_MS);
	host->pid = 0;
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		why = bench_describe_status(status);
		bench_fail(bench, "after EOF on stdin the host %s", why);
		free(why);
	}
	if (host->read_event != NULL)
		event_free(host->read_event);
	if (host->write_event != NULL)
		event_free(host->write_event);
	host->read_event = host->write_event = NULL;
	if (host->from_host != -1)
		close(host->from_host);
	host->from_host = -1;
	if (host->in != NULL)
		evbuffer_free(host->in);
	if (host->out != NULL)
		evbuffer_free(host->out);
	host->in = host->out = NULL;
}

/* A phase's time limit ran out. */
static void
bench_phase_timeout(evutil_socket_t fd, short events, void *arg)
{
	struct bench	*bench = arg;

	(void)fd;
	(void)events;
	bench_fail(bench, "a phase did not finish within %d s",
	    BENCH_PHASE_LIMIT_S);
}

/* Runs the loop until *done, a failure, or the phase limit. */
static void
bench_loop_until(struct bench *bench, const bool *done)
{
	struct timeval	 tv = { BENCH_PHASE_LIMIT_S, 0 };
	struct event	*timer;

	timer = evtimer_new(bench->base, bench_phase_timeout, bench);
	evtimer_add(timer, &tv);
	while (!*done && !bench->failed)
		event_base_loop(bench->base, EVLOOP_ONCE);
	event_free(timer);
}

/* Queues an MCP POST with the headers a client sends after initialize. */
static void
bench_client_post(struct bench_client *client, const char *body, int len)
{
	struct bench	*bench = client->bench;

	evbuffer_add_printf(client->out, "POST /mcp HTTP/1.1\r\n"
	    "Host: 127.0.0.1:%d\r\n"
	    "Content-Type: application/json\r\n"
	    "Accept: application/json, text/event-stream\r\n"
	    "Authorization: Bearer %s\r\n"
	    "%s%s%s%s%s"
	    "Content-Length: %d\r\n\r\n%s", bench->host.port, bench->token,
	    client->session_id != NULL ? "Mcp-Session-Id: " : "",
	    client->session_id != NULL ? client->session_id : "",
	    client->session_id != NULL ? "\r\n" : "",
	    client->session_id != NULL ? "MCP-Protocol-Version: " : "",
	    client->session_id != NULL ? BENCH_PROTOCOL "\r\n" : "",
	    len, body);
}

/* Writes what is queued on a client connection. */
static void
bench_client_flush(struct bench_client *client)
{
	if (evbuffer_write(client->out, client->fd) == -1 &&
	    errno != EAGAIN && errno != EINTR) {
		bench_fail(client->bench, "writing to the MCP connection: %s",
		    strerror(errno));
		return;
	}
	if (evbuffer_get_length(client->out) > 0)
		event_add(client->write_event, NULL);
}

/* A client connection has room again. */
static void
bench_client_writable(evutil_socket_t fd, short events, void *arg)
{
	(void)fd;
	(void)events;
	bench_client_flush(arg);
}

/* Sends one tools/call and notes when. */
static void
bench_client_call(struct bench_client *client)
{
	struct bench_load	*load = client->load;
	char			 body[256];
	int			 len;

	client->expected_id = client->next_id++;
	len = snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%"
	    JSON_INTEGER_FORMAT ",\"method\":\"tools/call\",\"params\":{"
	    "\"name\":\"" BENCH_TOOL "\",\"arguments\":{\"url\":\""
	    BENCH_URL "\"}}}", client->expected_id);
	bench_client_post(client, body, len);
	client->state = BENCH_CLIENT_CALLING;
	load->in_flight++;
	client->sent_ns = bench_now_ns();
	bench_client_flush(client);
}

/* Checks a JSON-RPC reply's envelope: version, id and a result object. */
static json_t *
bench_check_envelope(struct bench *bench, const char *body, size_t len,
    json_int_t id, const char *what)
{
	json_t	*json, *result;

	json = json_loadb(body, len, 0, NULL);
	if (json == NULL) {
		bench_error(bench, "%s: the body is not JSON: %.*s", what,
		    (int)(len > 200 ? 200 : len), body);
		return NULL;
	}
	result = json_object_get(json, "result");
	if (!json_is_string(json_object_get(json, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(json, "jsonrpc")),
	    "2.0") != 0 ||
	    !json_is_integer(json_object_get(json, "id")) ||
	    json_integer_value(json_object_get(json, "id")) != id ||
	    !json_is_object(result)) {
		bench_error(bench, "%s: wanted id %" JSON_INTEGER_FORMAT " and "
		    "a result: %.*s", what, id, (int)(len > 200 ? 200 : len),
		    body);
		json_decref(json);
		return NULL;
	}
	return json;
}

/* Checks a tools/call result: not an error, and the extension's "ok". */
static void
bench_check_call(struct bench *bench, const char *body, size_t len,
    json_int_t id)
{
	json_t		*json, *result, *first;
	const char	*text;

	if ((json = bench_check_envelope(bench, body, len, id,
	    "tools/call")) == NULL)
		return;
	result = json_object_get(json, "result");
	first = json_array_get(json_object_get(result, "content"), 0);
	text = json_string_value(json_object_get(first, "text"));
	if (json_is_true(json_object_get(result, "isError")) || text == NULL ||
	    strcmp(text, "ok") != 0)
		bench_error(bench, "tools/call: wanted the extension's \"ok\": "
		    "%.*s", (int)(len > 200 ? 200 : len), body);
	json_decref(json);
}

/* Ends the measured window of a load. */
static void
bench_load_stop(struct bench_load *load, uint64_t now)
{
	struct bench	*bench = load->bench;
	double		 wall = (double)(now - load->start_ns);
	double		 host, self;
	uint64_t	 sys, steal;

	load->stopping = true;
	load->end_ns = now;
	host = (double)(bench_proc_cpu_ns(bench->host.pid, &sys) -
	    load->host_cpu_start_ns);
	load->host_sys_us = (double)(sys - load->host_sys_start_ns) / 1e3 /
	    (double)load->measured;
	self = (double)(bench_self_cpu_ns() - load->bench_cpu_start_ns);
	load->host_cpu_us = host / 1e3 / (double)load->measured;
	load->host_busy = host / wall;
	load->bench_busy = self / wall;
	load->others_busy = ((double)(bench_machine_busy_ns(&steal) -
	    load->machine_start_ns) - host - self) / wall;
	load->steal = (double)(steal - load->steal_start_ns) / wall;
	if (load->others_busy < 0)
		load->others_busy = 0;
}

/* Counts one answered call and decides whether to send the next. */
static void
bench_load_completed(struct bench_client *client, uint64_t now)
{
	struct bench_load	*load = client->load;

	load->in_flight--;
	load->completed++;
	client->state = BENCH_CLIENT_IDLE;
	if (load->measuring && !load->stopping) {
		load->samples[load->measured++] =
		    (uint32_t)(now - client->sent_ns);
		if (load->measured >= load->calls ||
		    now - load->start_ns >= load->limit_ns)
			bench_load_stop(load, now);
	} else if (!load->measuring && load->completed >= load->warmup) {
		load->measuring = true;
		load->start_ns = now;
		load->host_cpu_start_ns = bench_proc_cpu_ns(
		    load->bench->host.pid, &load->host_sys_start_ns);
		load->bench_cpu_start_ns = bench_self_cpu_ns();
		load->machine_start_ns = bench_machine_busy_ns(
		    &load->steal_start_ns);
	}
	if (!load->stopping)
		bench_client_call(client);
	else if (load->in_flight == 0)
		load->done = true;
}

/* One complete HTTP response on a client connection. */
static void
bench_client_response(struct bench_client *client, int status,
    const char *type, const char *session_id, const char *body, size_t len,
    uint64_t now)
{
	struct bench		*bench = client->bench;
	struct bench_load	*load = client->load;
	json_t			*json;
	static const char	 initialized[] = "{\"jsonrpc\":\"2.0\","
				    "\"method\":\"notifications/initialized\"}";
	size_t			 i;

	switch (client->state) {
	case BENCH_CLIENT_INITIALIZE:
		if (status != 200 || session_id == NULL) {
			bench_fail(bench, "initialize answered %d %s", status,
			    session_id == NULL ? "without Mcp-Session-Id" : "");
			return;
		}
		json = bench_check_envelope(bench, body, len, 1, "initialize");
		if (json == NULL) {
			bench_fail(bench, "initialize failed");
			return;
		}
		json_decref(json);
		client->session_id = xstrdup(session_id);
		bench_client_post(client, initialized, sizeof initialized - 1);
		client->state = BENCH_CLIENT_INITIALIZED;
		bench_client_flush(client);
		break;
	case BENCH_CLIENT_INITIALIZED:
		if (status != 202) {
			bench_fail(bench, "notifications/initialized answered "
			    "%d, not 202", status);
			return;
		}
		client->state = BENCH_CLIENT_IDLE;
		if (++load->ready < load->concurrency)
			break;
		for (i = 0; i < load->concurrency; i++)
			bench_client_call(load->clients[i]);
		break;
	case BENCH_CLIENT_CALLING:
		if (status != 200)
			bench_error(bench, "tools/call answered %d: %.*s", status,
			    (int)(len > 200 ? 200 : len), body);
		else if (type == NULL ||
		    strncasecmp(type, "application/json", 16) != 0)
			bench_error(bench, "tools/call answered with "
			    "Content-Type %s", type != NULL ? type : "(none)");
		else
			bench_check_call(bench, body, len, client->expected_id);
		bench_load_completed(client, now);
		break;
	case BENCH_CLIENT_IDLE:
		bench_fail(bench, "a response nobody asked for (status %d)",
		    status);
		break;
	}
}

/* Returns a header's value (trimmed copy into out), or NULL if absent. */
static const char *
bench_header(const char *headers, size_t len, const char *name, char *out,
    size_t size)
{
	const char	*line = headers, *end = headers + len, *eol, *v;
	size_t		 name_len = strlen(name), n;

	while (line < end) {
		eol = memmem(line, (size_t)(end - line), "\r\n", 2);
		if (eol == NULL)
			eol = end;
		if ((size_t)(eol - line) > name_len && line[name_len] == ':' &&
		    strncasecmp(line, name, name_len) == 0) {
			v = line + name_len + 1;
			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			n = (size_t)(eol - v);
			if (n >= size)
				n = size - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			return out;
		}
		line = eol + 2;
	}
	return NULL;
}

/*
 * Parses as many whole responses as the client's buffer holds. Only
 * Content-Length bodies: the host answers every POST that way.
 */
static void
bench_client_parse(struct bench_client *client, uint64_t now)
{
	struct bench	*bench = client->bench;
	const char	*data, *end, *type, *session_id;
	char		 length_text[32], type_text[128], session_text[256];
	char		 encoding[64];
	size_t		 len, header_len, body_len;
	char		*endp;
	int		 status;

	while ((len = evbuffer_get_length(client->in)) > 0 && !bench->failed) {
		data = (const char *)evbuffer_pullup(client->in, -1);
		end = memmem(data, len, "\r\n\r\n", 4);
		if (end == NULL) {
			if (len > BENCH_MAX_HEADER)
				bench_fail(bench, "a response header longer "
				    "than %d bytes", BENCH_MAX_HEADER);
			return;
		}
		header_len = (size_t)(end - data) + 4;
		if (len < 13 || strncmp(data, "HTTP/1.1 ", 9) != 0) {
			bench_fail(bench, "not an HTTP/1.1 response: %.40s",
			    data);
			return;
		}
		status = atoi(data + 9);
		if (bench_header(data, header_len - 2, "Transfer-Encoding",
		    encoding, sizeof encoding) != NULL ||
		    bench_header(data, header_len - 2, "Content-Length",
		    length_text, sizeof length_text) == NULL) {
			bench_fail(bench, "a response without Content-Length "
			    "(status %d)", status);
			return;
		}
		body_len = strtoul(length_text, &endp, 10);
		if (*endp != '\0' || body_len > BENCH_MAX_BODY) {
			bench_fail(bench, "Content-Length \"%s\"", length_text);
			return;
		}
		if (len < header_len + body_len)
			return;
		type = bench_header(data, header_len - 2, "Content-Type",
		    type_text, sizeof type_text);
		session_id = bench_header(data, header_len - 2,
		    "Mcp-Session-Id", session_text, sizeof session_text);
		if (bench_header(data, header_len - 2, "Connection",
		    encoding, sizeof encoding) != NULL &&
		    strcasecmp(encoding, "close") == 0)
			bench_error(bench, "the host closes the connection after "
			    "a %d", status);
		bench_client_response(client, status, type, session_id,
		    data + header_len, body_len, now);
		evbuffer_drain(client->in, header_len + body_len);
	}
}

/* A client connection has bytes to read. */
static void
bench_client_readable(evutil_socket_t fd, short events, void *arg)
{
	struct bench_client	*client = arg;
	uint64_t		 now;
	int			 n;

	(void)events;
	n = evbuffer_read(client->in, fd, -1);
	now = bench_now_ns();
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		event_del(client->read_event);
		bench_fail(client->bench, "the host closed an MCP connection "
		    "(%s)", n == 0 ? "EOF" : strerror(errno));
		return;
	}
	bench_client_parse(client, now);
}

/* Opens one MCP client connection and sends initialize. */
static struct bench_client *
bench_client_new(struct bench_load *load)
{
	struct bench		*bench = load->bench;
	struct bench_client	*client;
	static const char	 initialize[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
				    "\"method\":\"initialize\",\"params\":{"
				    "\"protocolVersion\":\"" BENCH_PROTOCOL "\","
				    "\"capabilities\":{},\"clientInfo\":{"
				    "\"name\":\"bench\",\"version\":\"1\"}}}";
	int			 fd, one = 1;

	if ((fd = bench_connect(bench->host.port)) == -1) {
		bench_fail(bench, "connect to the host's port %d: %s",
		    bench->host.port, strerror(errno));
		return NULL;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	bench_set_nonblocking(fd);
	client = xcalloc(1, sizeof *client);
	client->bench = bench;
	client->load = load;
	client->fd = fd;
	client->next_id = 2;
	client->in = evbuffer_new();
	client->out = evbuffer_new();
	client->read_event = event_new(bench->base, fd, EV_READ|EV_PERSIST,
	    bench_client_readable, client);
	client->write_event = event_new(bench->base, fd, EV_WRITE,
	    bench_client_writable, client);
	event_add(client->read_event, NULL);
	client->state = BENCH_CLIENT_INITIALIZE;
	bench_client_post(client, initialize, sizeof initialize - 1);
	bench_client_flush(client);
	return client;
}

/* Closes a client connection. */
static void
bench_client_free(struct bench_client *client)
{
	if (client == NULL)
		return;
	event_free(client->read_event);
	event_free(client->write_event);
	evbuffer_free(client->in);
	evbuffer_free(client->out);
	close(client->fd);
	free(client->session_id);
	free(client);
}

/* Runs one load phase to the end and computes its results. */
static int
bench_load_run(struct bench_load *load)
{
	struct bench	*bench = load->bench;
	size_t		 i;

	load->clients = xcalloc(load->concurrency, sizeof *load->clients);
	load->samples = xcalloc(load->calls, sizeof *load->samples);
	for (i = 0; i < load->concurrency && !bench->failed; i++)
		load->clients[i] = bench_client_new(load);
	if (!bench->failed)
		bench_loop_until(bench, &load->done);
	for (i = 0; i < load->concurrency; i++)
		bench_client_free(load->clients[i]);
	free(load->clients);
	load->clients = NULL;
	if (bench->failed || load->measured == 0) {
		free(load->samples);
		if (!bench->failed)
			bench_fail(bench, "%s: no call was measured", load->name);
		return -1;
	}
	qsort(load->samples, load->measured, sizeof load->samples[0],
	    bench_compare_u32);
	load->calls_per_s = (double)load->measured /
	    ((double)(load->end_ns - load->start_ns) / 1e9);
	load->p50_us = bench_percentile(load->samples, load->measured, 0.50) /
	    1e3;
	load->p99_us = bench_percentile(load->samples, load->measured, 0.99) /
	    1e3;
	free(load->samples);
	load->samples = NULL;
	return 0;
}

/* Prints text padded to width columns (µ and — are one column each). */
static void
bench_cell(const char *text, int width)
{
	const char	*p;
	int		 columns = 0;

	for (p = text; *p != '\0'; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80)
			columns++;
	}
	fputs(text, stdout);
	while (columns++ < width)
		fputc(' ', stdout);
}

/* Prints one table row; target NULL for none. */
static void
bench_row(const char *metric, const char *value, const char *target,
    int pass)
{
	bench_cell(metric, 32);
	bench_cell(value, 11);
	bench_cell(target != NULL ? target : "\xe2\x80\x94", 11);
	if (pass == -1)
		fputs("result", stdout);
	else if (target != NULL)
		fputs(pass ? "PASS" : "MISS", stdout);
	fputc('\n', stdout);
}

/* Prints a number row. */
static void
bench_row_number(const char *metric, int decimals, double value,
    const char *target, int pass)
{
	char	text[64];

	snprintf(text, sizeof text, "%.*f", decimals, value);
	bench_row(metric, text, target, pass);
}

/* Prints the results table. */
static void
bench_report(struct bench *bench, struct bench_load *one,
    struct bench_load *many)
{
	double	idle_mb = bench->idle_rss_kb / 1024.0;
	double	peak_mb = bench->peak_hwm_kb / 1024.0;
	char	text[64];

	printf("\nbrowser-bridge host overhead (%ld CPUs shared by the host "
	    "and this load generator)\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("tools/call %s over Streamable HTTP, keep-alive HTTP/1.1, "
	    "bearer auth on,\nfake extension answering at once over native "
	    "messaging.\n", BENCH_TOOL);
	printf("@1: %zu calls measured after %zu warm-up; @%zu: %zu calls "
	    "measured in %.2f s after %zu warm-up.\n\n", one->measured,
	    one->warmup, many->concurrency, many->measured,
	    (double)(many->end_ns - many->start_ns) / 1e9, many->warmup);

	bench_row("metric", "value", "target", -1);
	printf("\n");
	bench_row_number("calls/s @1", 0, one->calls_per_s, NULL, 0);
	bench_row_number("p50 @1 (\xc2\xb5s)", 1, one->p50_us, "< 100",
	    one->p50_us < BENCH_TARGET_P50_1_US);
	bench_row_number("p99 @1 (\xc2\xb5s)", 1, one->p99_us, NULL, 0);
	bench_row_number("  4-hop wakeup floor p50 (\xc2\xb5s)", 1,
	    bench->floor_p50_us, NULL, 0);
	bench_row_number("calls/s @64", 0, many->calls_per_s,
	    ">= 30000", many->calls_per_s >= BENCH_TARGET_CPS_64);
	bench_row_number("p50 @64 (\xc2\xb5s)", 1, many->p50_us, NULL, 0);
	bench_row_number("p99 @64 (\xc2\xb5s)", 1, many->p99_us, NULL, 0);
	bench_row_number("host CPU per call @1 (\xc2\xb5s)", 1, one->host_cpu_us,
	    NULL, 0);
	bench_row_number("host CPU per call @64 (\xc2\xb5s)", 1,
	    many->host_cpu_us, NULL, 0);
	bench_row_number("  of which in the kernel (\xc2\xb5s)", 1,
	    many->host_sys_us, NULL, 0);
	bench_row_number("host CPU busy @64 (%)", 0, many->host_busy * 100,
	    NULL, 0);
	bench_row_number("load generator CPU busy @64 (%)", 0,
	    many->bench_busy * 100, NULL, 0);
	bench_row_number("other processes' CPU @64 (%)", 0,
	    many->others_busy * 100, NULL, 0);
	bench_row_number("hypervisor steal @64 (%)", 0,
	    many->steal * 100, NULL, 0);
	bench_row_number("idle RSS (MB)", 2, idle_mb, "< 4",
	    bench->idle_rss_kb >= 0 && idle_mb < BENCH_TARGET_IDLE_MB);
	bench_row_number("idle VmHWM (MB)", 2,
	    bench->idle_hwm_kb / 1024.0, NULL, 0);
	bench_row_number("peak RSS, VmHWM (MB)", 2, peak_mb, "< 8",
	    bench->peak_hwm_kb >= 0 && peak_mb < BENCH_TARGET_PEAK_MB);
	bench_row_number("RSS after the loads (MB)", 2,
	    bench->after_rss_kb / 1024.0, NULL, 0);
	bench_row_number("start to serving, median (ms)", 2,
	    bench->start_ms, "< 10", bench->start_ms < BENCH_TARGET_START_MS);
	bench_row_number("start to serving, max (ms)", 2,
	    bench->start_max_ms, NULL, 0);
	bench_row_number("EOF to exit, median (ms)", 1, bench->exit_ms,
	    NULL, 0);
	snprintf(text, sizeof text, "%zu", bench->errors);
	bench_row("wrong replies", text, "0", bench->errors == 0);
	fflush(stdout);
}

/*
 * Makes the temporary config and runtime directories and points XDG there.
 * The runtime directory goes on tmpfs (/dev/shm) when there is one, as a
 * real XDG_RUNTIME_DIR is: the host fsyncs its runtime file at start.
 */
static int
bench_setup(struct bench *bench)
{
	char	*config;

	bench->tmpdir = xstrdup("/tmp/bench-host.XXXXXX");
	if (mkdtemp(bench->tmpdir) == NULL) {
		free(bench->tmpdir);
		bench->tmpdir = NULL;
		bench_fail(bench, "cannot make a temporary directory: %s",
		    strerror(errno));
		return -1;
	}
	bench->rundir = xstrdup("/dev/shm/bench-host-run.XXXXXX");
	if (mkdtemp(bench->rundir) == NULL) {
		free(bench->rundir);
		bench->rundir = xasprintf("%s/run", bench->tmpdir);
		mkdir(bench->rundir, 0700);
	}
	config = xasprintf("%s/config", bench->tmpdir);
	mkdir(config, 0700);
	setenv("HOME", bench->tmpdir, 1);
	setenv("XDG_CONFIG_HOME", config, 1);
	setenv("XDG_RUNTIME_DIR", bench->rundir, 1);
	unsetenv("XDG_STATE_HOME");
	free(config);
	bench->log_path = xasprintf("%s/host.log", bench->tmpdir);
	bench->log_fd = open(bench->log_path, O_WRONLY|O_CREAT|O_APPEND|
	    O_CLOEXEC, 0600);
	if (bench->log_fd == -1) {
		bench_fail(bench, "cannot open %s: %s", bench->log_path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* Runs the phases in order: starts, handshake, @1, @64, memory, exit. */
static void
bench_run(struct bench *bench, struct bench_load *one,
    struct bench_load *many)
{
	if (bench_setup(bench) != 0 || bench_read_token(bench) != 0)
		return;
	fprintf(stderr, "bench-host: %d starts...\n", BENCH_STARTS);
	if (bench_starts(bench) != 0)
		return;

	bench->base = event_base_new();
	bench->host.to_host = bench->host.from_host = -1;
	if (bench_host_start(bench) != 0)
		return;
	bench_loop_until(bench, &bench->host.welcomed);
	if (bench->failed)
		return;
	bench->idle_rss_kb = bench_proc_kb(bench->host.pid, "VmRSS");
	bench->idle_hwm_kb = bench_proc_kb(bench->host.pid, "VmHWM");

	fprintf(stderr, "bench-host: the wakeup floor...\n");
	if (bench_floor(bench) != 0)
		return;
	fprintf(stderr, "bench-host: concurrency 1...\n");
	if (bench_load_run(one) != 0)
		return;
	fprintf(stderr, "bench-host: concurrency %zu...\n", many->concurrency);
	if (bench_load_run(many) != 0)
		return;
	bench->after_rss_kb = bench_proc_kb(bench->host.pid, "VmRSS");
	bench->peak_hwm_kb = bench_proc_kb(bench->host.pid, "VmHWM");
	if (bench->host.requests != one->completed + many->completed)
		bench_error(bench, "the extension saw %zu requests for %zu "
		    "calls", bench->host.requests,
		    one->completed + many->completed);
}

int
main(int argc, char **argv)
{
	struct bench		bench;
	struct bench_load	one = {
		.bench = &bench, .name = "concurrency 1", .concurrency = 1,
		.warmup = BENCH_WARMUP_1, .calls = BENCH_CALLS_1,
		.limit_ns = (uint64_t)BENCH_SECONDS_1 * 1000000000u,
	};
	struct bench_load	many = {
		.bench = &bench, .name = "concurrency 64",
		.concurrency = BENCH_CONCURRENCY, .warmup = BENCH_WARMUP_64,
		.calls = BENCH_CALLS_64,
		.limit_ns = (uint64_t)BENCH_SECONDS_64 * 1000000000u,
	};
	int			rc;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-host PATH-TO-BROWSER-BRIDGE\n");
		return 2;
	}
	memset(&bench, 0, sizeof bench);
	bench.binary = argv[1];
	bench.log_fd = -1;
	bench.host.to_host = bench.host.from_host = -1;
	bench.idle_rss_kb = bench.idle_hwm_kb = -1;
	bench.after_rss_kb = bench.peak_hwm_kb = -1;
	signal(SIGPIPE, SIG_IGN);

	bench_run(&bench, &one, &many);
	bench_host_stop(&bench);
	if (!bench.failed)
		bench_report(&bench, &one, &many);
	if (bench.failed || bench.errors > 0)
		bench_show_log(&bench);

	if (bench.log_fd != -1)
		close(bench.log_fd);
	if (bench.rundir != NULL)
		nftw(bench.rundir, bench_remove_entry, 16, FTW_DEPTH|FTW_PHYS);
	if (bench.tmpdir != NULL)
		nftw(bench.tmpdir, bench_remove_entry, 16, FTW_DEPTH|FTW_PHYS);
	if (bench.base != NULL)
		event_base_free(bench.base);
	rc = bench.failed || bench.errors > 0 ? 1 : 0;
	if (bench.failed)
		fprintf(stderr, "bench-host: FAILED: %s\n", bench.failure);
	else if (bench.errors > 0)
		fprintf(stderr, "bench-host: FAILED: %zu wrong replies\n",
		    bench.errors);
	free(bench.failure);
	free(bench.token);
	free(bench.tmpdir);
	free(bench.rundir);
	free(bench.log_path);
	return rc;
}
