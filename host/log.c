/* Logging: timestamped lines to stderr and an optional append-only file. */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "os.h"
#include "xmalloc.h"

struct log {
	enum log_level	 level;
	int		 file_fd;	/* -1 without a log file */
};

static const char *const log_level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARN] = "warn",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

/*
 * libevent's log callback carries no argument, so the log that receives its
 * messages is the one process-wide pointer; log_route_libevent sets it.
 */
static struct log *log_libevent_target;

/*
 * Opens a log at the given level, appending to path when it is not NULL
 * (never through a symbolic link).
 */
struct log *
log_open(enum log_level level, const char *path, char **cause)
{
	struct log	*log;
	int		 fd = -1;

	if (path != NULL) {
		/* A link could point the appends at any file of the user's. */
		fd = os_open_nofollow(path, O_WRONLY|O_CREAT|O_APPEND, 0600);
		if (fd == -1 && errno == ELOOP) {
			*cause = xasprintf("log file %s is a symbolic link; give "
			    "--log the path of the file itself, or remove the "
			    "link (rm %s) and a new log file is made", path,
			    path);
			return NULL;
		}
		if (fd == -1) {
			*cause = xasprintf("cannot open log file %s: %s",
			    path, strerror(errno));
			return NULL;
		}
	}
	log = xcalloc(1, sizeof *log);
	log->level = level;
	log->file_fd = fd;
	return log;
}

/* Closes a log and its file. */
void
log_close(struct log *log)
{
	if (log == NULL)
		return;
	if (log_libevent_target == log) {
		event_set_log_callback(NULL);
		log_libevent_target = NULL;
	}
	if (log->file_fd != -1)
		close(log->file_fd);
	free(log);
}

/* Changes the most detailed level written. */
void
log_set_level(struct log *log, enum log_level level)
{
	if (log != NULL)
		log->level = level;
}

/* Returns the most detailed level written. */
enum log_level
log_get_level(const struct log *log)
{
	return log == NULL ? LOG_LEVEL_ERROR : log->level;
}

/* Writes one line, all at once so lines from one write never interleave. */
void
log_vwrite(struct log *log, enum log_level level, const char *fmt, va_list ap)
{
	char		 line[4096];
	struct timeval	 tv;
	struct tm	 tm;
	time_t		 seconds;
	int		 n, m;

	if (log == NULL || level > log->level)
		return;
	gettimeofday(&tv, NULL);
	seconds = tv.tv_sec;	/* a long, not a time_t, on Windows */
	gmtime_r(&seconds, &tm);
	n = snprintf(line, sizeof line,
	    "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ browser-bridge[%ld] %s: ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (long)tv.tv_usec / 1000, (long)getpid(),
	    log_level_names[level]);
	m = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	if ((size_t)m > sizeof line - n - 2)
		m = sizeof line - n - 2;
	n += m;
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, n);
	if (log->file_fd != -1)
		(void)!write(log->file_fd, line, n);
}

/* Writes one line at the given level. */
void
log_write(struct log *log, enum log_level level, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(log, level, fmt, ap);
	va_end(ap);
}

/* Parses a level name (error, warn, info, debug); returns -1 if unknown. */
int
log_level_parse(const char *name, enum log_level *level)
{
	size_t	i;

	for (i = 0; i < sizeof log_level_names / sizeof *log_level_names; i++) {
		if (strcmp(name, log_level_names[i]) == 0) {
			*level = (enum log_level)i;
			return 0;
		}
	}
	if (strcmp(name, "warning") == 0) {
		*level = LOG_LEVEL_WARN;
		return 0;
	}
	return -1;
}

/* Returns a level's name. */
const char *
log_level_name(enum log_level level)
{
	return log_level_names[level];
}

/* Passes one libevent message to the routed log. */
static void
log_libevent_cb(int severity, const char *msg)
{
	enum log_level	level;

	switch (severity) {
	case EVENT_LOG_DEBUG:
		level = LOG_LEVEL_DEBUG;
		break;
	case EVENT_LOG_MSG:
		level = LOG_LEVEL_INFO;
		break;
	case EVENT_LOG_WARN:
		level = LOG_LEVEL_WARN;
		break;
	default:
		level = LOG_LEVEL_ERROR;
		break;
	}
	log_write(log_libevent_target, level, "libevent: %s", msg);
}

/* Sends libevent's own messages to this log. */
void
log_route_libevent(struct log *log)
{
	log_libevent_target = log;
	event_set_log_callback(log_libevent_cb);
}
