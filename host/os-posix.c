/* The OS layer (os.h) as every POSIX system has it: Linux, macOS, BSDs. */
#include "os.h"
#include "os-posix.h"

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "xmalloc.h"

/* argv[0] as main was given it, for os_self_path where nothing else says. */
static const char *os_argv0;

/* Ignores SIGPIPE (a closed pipe or socket is an error, not death). */
void
os_posix_start(const char *argv0)
{
	os_argv0 = argv0;
	signal(SIGPIPE, SIG_IGN);
}

/* argv[0] as os_start was given it, or NULL before. */
const char *
os_posix_argv0(void)
{
	return os_argv0;
}

/* PATH's directories are separated by colons. */
char
os_path_list_separator(void)
{
	return ':';
}

/* An absolute path starts at the root. */
bool
os_path_is_absolute(const char *path)
{
	return path != NULL && *path == '/';
}

/* Only the slash. */
bool
os_path_is_separator(char c)
{
	return c == '/';
}

/* $HOME, when it is an absolute path. */
char *
os_home_dir(void)
{
	const char	*home = getenv("HOME");

	return os_path_is_absolute(home) ? xstrdup(home) : NULL;
}

/* An XDG base directory variable, or NULL if unset, empty or relative. */
static const char *
os_xdg_dir(const char *name)
{
	const char	*value = getenv(name);

	return os_path_is_absolute(value) ? value : NULL;
}

/* The XDG base directories' variables, and their defaults under $HOME. */
static const struct {
	const char	*variable;
	const char	*below_home;
} os_xdg_dirs[] = {
	[OS_USER_CONFIG] = { "XDG_CONFIG_HOME", ".config" },
	[OS_USER_STATE] = { "XDG_STATE_HOME", ".local/state" },
	[OS_USER_RUNTIME] = { "XDG_RUNTIME_DIR", NULL },
};

/* The XDG base directory, $HOME's default when the variable is unset. */
char *
os_user_dir(enum os_user_dir which, char **cause)
{
	const char	*dir;
	char		*home_dir;

	if ((dir = os_xdg_dir(os_xdg_dirs[which].variable)) != NULL)
		return xstrdup(dir);
	if (os_xdg_dirs[which].below_home == NULL)
		return NULL;
	if ((home_dir = os_user_dir_default(which)) == NULL)
		*cause = xasprintf("neither %s nor HOME is set; set HOME",
		    os_xdg_dirs[which].variable);
	return home_dir;
}

/* $HOME/.config or $HOME/.local/state. */
char *
os_user_dir_default(enum os_user_dir which)
{
	const char	*home = getenv("HOME");

	if (os_xdg_dirs[which].below_home == NULL || home == NULL ||
	    *home == '\0')
		return NULL;
	return xasprintf("%s/%s", home, os_xdg_dirs[which].below_home);
}

/* This process's id. */
long
os_pid(void)
{
	return (long)getpid();
}

/* The parent process's id. */
long
os_parent_pid(void)
{
	return (long)getppid();
}

/* kill(pid, 0): EPERM means it exists but belongs to another user. */
bool
os_process_alive(long pid)
{
	if (pid <= 0)
		return false;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Makes a pipe whose two ends children do not inherit (no pipe2 on macOS). */
static int
os_cloexec_pipe(int fds[2])
{
	if (pipe(fds) == -1)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(fds[1], F_SETFD, FD_CLOEXEC) == -1) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	return 0;
}

/* Reads the child's stdout from fd until it ends, is full or the deadline. */
static bool
os_run_read(int fd, char *buf, size_t size, size_t *used, long long deadline)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLIN };
	ssize_t		n;
	int		left;

	while (*used < size) {
		left = (int)(deadline -
		    (long long)clock_now_ms(clock_monotonic()));
		if (left <= 0 || (n = poll(&pfd, 1, left)) == 0)
			return false;
		if (n == -1 && errno == EINTR)
			continue;
		n = read(fd, buf + *used, size - *used);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*used += (size_t)n;
	}
	return true;
}

/* fork and exec with the child's stdout on a pipe, killed past the deadline. */
int
os_run(const char *program, const char *argument, int timeout_ms,
    size_t max_output, struct os_run_result *result, char **cause)
{
	long long	 deadline = (long long)clock_now_ms(clock_monotonic()) +
			    timeout_ms;
	char		*buf;
	size_t		 used = 0;
	pid_t		 pid;
	int		 fds[2], status, null_fd;
	bool		 finished;

	if (os_cloexec_pipe(fds) == -1) {
		*cause = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		*cause = xasprintf("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		null_fd = open("/dev/null", O_RDWR);
		dup2(null_fd, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
		execl(program, program, argument, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	buf = xmalloc(max_output + 1);
	finished = os_run_read(fds[0], buf, max_output, &used, deadline);
	close(fds[0]);
	if (!finished)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!finished) {
		free(buf);
		*cause = xasprintf("`%s %s` did not finish within %d ms",
		    program, argument, timeout_ms);
		return -1;
	}
	buf[used] = '\0';
	result->exited = WIFEXITED(status);
	result->status = WIFEXITED(status) ? WEXITSTATUS(status) :
	    WTERMSIG(status);
	result->output = buf;
	result->output_len = used;
	return 0;
}

/* SIGINT and SIGTERM, watched by the loop. */
struct os_termination {
	struct event	*interrupt;
	struct event	*terminate;
	void		(*done)(const char *what, void *arg);
	void		*arg;
};

/* One of the two signals came: say which. */
static void
os_termination_signal(evutil_socket_t sig, short events, void *arg)
{
	struct os_termination	*termination = arg;

	termination->done(sig == SIGINT ? "interrupted" : "terminated",
	    termination->arg);
}

/* Watches SIGINT and SIGTERM in base's loop. */
struct os_termination *
os_termination_new(struct event_base *base,
    void (*done)(const char *what, void *arg), void *arg)
{
	struct os_termination	*termination;

	termination = xcalloc(1, sizeof *termination);
	termination->done = done;
	termination->arg = arg;
	termination->interrupt = evsignal_new(base, SIGINT,
	    os_termination_signal, termination);
	termination->terminate = evsignal_new(base, SIGTERM,
	    os_termination_signal, termination);
	evsignal_add(termination->interrupt, NULL);
	evsignal_add(termination->terminate, NULL);
	return termination;
}

/* Stops watching the signals. */
void
os_termination_free(struct os_termination *termination)
{
	if (termination == NULL)
		return;
	event_free(termination->interrupt);
	event_free(termination->terminate);
	free(termination);
}

/* Root. */
bool
os_privileged(void)
{
	return geteuid() == 0;
}

/* fcntl(2) F_DUPFD_CLOEXEC. */
int
os_dup_private(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* open(2) with O_NOFOLLOW, O_NONBLOCK, O_NOCTTY and O_CLOEXEC. */
int
os_open_nofollow(const char *path, int flags, int mode)
{
	return open(path, flags|O_NOFOLLOW|O_NONBLOCK|O_NOCTTY|O_CLOEXEC,
	    mode);
}

/* Owner and mode bits: others' write before others' read. */
enum os_privacy
os_privacy_check(int fd, char **detail)
{
	struct stat	sb;

	if (fstat(fd, &sb) == -1)
		return OS_PRIVACY_UNKNOWN;
	if (sb.st_uid != geteuid()) {
		*detail = xasprintf("belongs to uid %lu, not to you (uid %lu)",
		    (unsigned long)sb.st_uid, (unsigned long)geteuid());
		return OS_OWNED_BY_OTHER;
	}
	if ((sb.st_mode & (S_IRWXG|S_IRWXO)) == 0)
		return OS_PRIVATE;
	*detail = xasprintf("mode %03o", (unsigned)(sb.st_mode & 0777));
	if ((sb.st_mode & (S_IWGRP|S_IWOTH)) != 0)
		return OS_WRITABLE_BY_OTHERS;
	return OS_READABLE_BY_OTHERS;
}

/* chmod 700 for a directory, 600 for a file. */
char *
os_privacy_fix(const char *path, bool directory)
{
	return xasprintf("chmod %s %s", directory ? "700" : "600", path);
}

/* mkdir with mode, then chmod, as the umask may have taken bits away. */
static int
os_make_dir(const char *path, mode_t mode)
{
	if (mkdir(path, mode) == -1)
		return -1;
	return chmod(path, mode);
}

/* A directory of mode 0700. */
int
os_make_private_dir(const char *path)
{
	return os_make_dir(path, 0700);
}

/* A directory of mode 0755. */
int
os_make_shared_dir(const char *path)
{
	return os_make_dir(path, 0755);
}

/* rename(2) replaces to in one step. */
int
os_replace_file(const char *from, const char *to)
{
	return rename(from, to);
}

/* fsync(2) of the directory itself. */
void
os_sync_dir(const char *dir)
{
	int	fd;

	fd = open(dir, O_RDONLY|O_DIRECTORY|O_CLOEXEC);
	if (fd != -1) {
		(void)fsync(fd);
		close(fd);
	}
}

/* st_mtim as POSIX.1-2008 names it, st_mtimespec on macOS. */
long long
os_modified_ns(const struct stat *sb)
{
#ifdef HAVE_STRUCT_STAT_ST_MTIMESPEC
	const struct timespec	*mtime = &sb->st_mtimespec;
#else
	const struct timespec	*mtime = &sb->st_mtim;
#endif

	return (long long)mtime->tv_sec * 1000000000LL + mtime->tv_nsec;
}

/* flock(2) LOCK_EX, again after a signal. */
int
os_lock(int fd)
{
	int	rc;

	while ((rc = flock(fd, LOCK_EX)) == -1 && errno == EINTR)
		;
	return rc;
}

/* flock(2) LOCK_UN. */
int
os_unlock(int fd)
{
	return flock(fd, LOCK_UN);
}

/* No registry: no key is there. */
int
os_registry_read(const char *key, char **value, char **cause)
{
	*value = NULL;
	return 0;
}

/* No registry to write: the browsers read manifests from directories. */
int
os_registry_write(const char *key, const char *value, char **cause)
{
	*cause = xasprintf("this system has no registry to write %s in; the "
	    "browsers here read manifests from directories", key);
	return -1;
}

/* No registry to remove a key from. */
int
os_registry_delete(const char *key, char **cause)
{
	*cause = xasprintf("this system has no registry to remove %s from",
	    key);
	return -1;
}

/* The channel's descriptors, and their status flags before os_stdio_new. */
struct os_stdio {
	int	in_fd;
	int	out_fd;
	int	in_flags;
	int	out_flags;
};

/* Sets or clears O_NONBLOCK on fd, if it has flags at all. */
static void
os_stdio_set_nonblocking(int fd, int flags, bool on)
{
	if (flags != -1)
		(void)fcntl(fd, F_SETFL, on ? flags|O_NONBLOCK :
		    flags & ~O_NONBLOCK);
}

/* The loop watches pipes and sockets as they are: made non-blocking. */
struct os_stdio *
os_stdio_new(int in_fd, int out_fd, char **cause)
{
	struct os_stdio	*stdio = xcalloc(1, sizeof *stdio);

	stdio->in_fd = in_fd;
	stdio->out_fd = out_fd;
	stdio->in_flags = fcntl(in_fd, F_GETFL);
	stdio->out_flags = fcntl(out_fd, F_GETFL);
	os_stdio_set_nonblocking(in_fd, stdio->in_flags, true);
	os_stdio_set_nonblocking(out_fd, stdio->out_flags, true);
	return stdio;
}

/* in_fd itself. */
evutil_socket_t
os_stdio_input(const struct os_stdio *stdio)
{
	return stdio->in_fd;
}

/* out_fd itself. */
evutil_socket_t
os_stdio_output(const struct os_stdio *stdio)
{
	return stdio->out_fd;
}

/* Clears O_NONBLOCK on out_fd. */
void
os_stdio_output_blocking(struct os_stdio *stdio)
{
	os_stdio_set_nonblocking(stdio->out_fd, stdio->out_flags, false);
}

/* Puts both descriptors' flags back. */
void
os_stdio_free(struct os_stdio *stdio)
{
	if (stdio == NULL)
		return;
	if (stdio->in_flags != -1)
		(void)fcntl(stdio->in_fd, F_SETFL, stdio->in_flags);
	if (stdio->out_flags != -1)
		(void)fcntl(stdio->out_fd, F_SETFL, stdio->out_flags);
	free(stdio);
}

/* EAGAIN, EWOULDBLOCK and EINTR. */
bool
os_io_again(int error)
{
	return error == EAGAIN || error == EWOULDBLOCK || error == EINTR;
}
