/*
 * The OS layer (host/os.h) as the build configured it: the same tests run
 * in the Linux build (/proc) and the portable one (no /proc), and say
 * what each must do where the two differ.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "check-helpers.h"
#include "instance.h"
#include "os.h"
#include "xmalloc.h"

/* A scratch directory per test (real path: no link on the way). */
static char	*scratch;
/* argv[0] of this program, as main got it. */
static const char *test_argv0;

/* Makes the scratch directory. */
static void
scratch_setup(void)
{
	char	template[] = "/tmp/check-os-XXXXXX", *made;

	ck_assert_ptr_nonnull(made = mkdtemp(template));
	ck_assert_ptr_nonnull(scratch = realpath(made, NULL));
}

/* Removes the scratch directory. */
static void
scratch_teardown(void)
{
	char	*command = xasprintf("rm -rf '%s'", scratch);

	ck_assert_int_eq(system(command), 0);
	free(command);
	free(scratch);
}

/* Makes a file under the scratch directory with mode; returns its path. */
static char *
scratch_file(const char *name, mode_t mode)
{
	char	*path = xasprintf("%s/%s", scratch, name);
	int	 fd;

	ck_assert_int_ne(fd = open(path, O_WRONLY|O_CREAT|O_EXCL, 0600), -1);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

/* Whether this build is the portable one (no /proc, no session directory). */
static bool
os_is_portable(void)
{
	return strcmp(os_name(), "POSIX") == 0;
}

/*
 * Starts `sh -c "read line" sh --user-data-dir=/tmp/profile`, which waits
 * on the pipe whose write end *feed gets; returns its pid once it runs sh
 * (its arguments are no longer this program's).
 */
static pid_t
start_waiting_shell(int *feed)
{
	char	*args;
	size_t	 len;
	pid_t	 pid;
	int	 fds[2], tries;

	ck_assert_int_eq(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl("/bin/sh", "sh", "-c", "read line", "sh",
		    "--user-data-dir=/tmp/profile", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	*feed = fds[1];
	for (tries = 0; tries < 500; tries++) {
		args = os_process_arguments(pid, &len);
		if (args != NULL && strcmp(args, "sh") == 0) {
			free(args);
			break;
		}
		free(args);
		usleep(10 * 1000);
	}
	return pid;
}

/* Ends the shell start_waiting_shell started. */
static void
stop_waiting_shell(pid_t pid, int feed)
{
	int	status;

	close(feed);	/* read sees the end and the shell exits */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

/*
 * Another process's arguments, from which instance names the browser and
 * profile: Linux reads them exactly; the portable layer reads ps(1)'s
 * line, where an argument with a space comes out as two.
 */
START_TEST(test_process_arguments)
{
	static const char	 exact[] = "sh\0-c\0read line\0sh\0"
				    "--user-data-dir=/tmp/profile";
	static const char	 split[] = "sh\0-c\0read\0line\0sh\0"
				    "--user-data-dir=/tmp/profile";
	const char		*expected = os_is_portable() ? split : exact;
	size_t			 expected_len = os_is_portable() ?
				    sizeof split : sizeof exact;
	json_t			*identity;
	char			*args;
	size_t			 len = 0;
	pid_t			 pid;
	int			 feed;

	pid = start_waiting_shell(&feed);
	args = os_process_arguments(pid, &len);
	identity = instance_identity(pid);
	ck_assert_ptr_nonnull(args);
	ck_assert_uint_eq(len, expected_len);
	ck_assert_mem_eq(args, expected, expected_len);
	ck_assert_str_eq(json_string_value(json_object_get(identity, "name")),
	    "sh:profile");
	json_decref(identity);
	free(args);
	stop_waiting_shell(pid, feed);
}
END_TEST

/* The session's runtime directory: /run/user/UID on Linux, none elsewhere. */
START_TEST(test_session_runtime_dir)
{
	char	*dir = os_session_runtime_dir(), *expected;

	if (os_is_portable())
		ck_assert_ptr_null(dir);
	else {
		expected = xasprintf("/run/user/%lu", (unsigned long)getuid());
		ck_assert_str_eq(dir, expected);
		free(expected);
	}
	free(dir);
}
END_TEST

/* The real path of an open file opened through a link to its directory. */
START_TEST(test_opened_path_through_linked_dir)
{
	char	*dir, *file, *link, *given, *expected, *got;
	int	 fd;

	dir = xasprintf("%s/real", scratch);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	file = scratch_file("real/file", 0600);
	link = xasprintf("%s/link", scratch);
	ck_assert_int_eq(symlink(dir, link), 0);
	given = xasprintf("%s/file", link);
	ck_assert_int_ne(fd = os_open_nofollow(given, O_RDONLY, 0), -1);
	got = os_opened_path(fd, given);
	ck_assert_msg(got != NULL, "os_opened_path: %s", strerror(errno));
	expected = xasprintf("%s/real/file", scratch);
	ck_assert_str_eq(got, expected);
	close(fd);
	free(got);
	free(expected);
	free(given);
	free(link);
	free(file);
	free(dir);
}
END_TEST

/*
 * A file moved after it was opened: Linux names where it lies now; the
 * portable walk finds another file (or a link) at the name it was opened
 * by and refuses to say, rather than name the wrong one.
 */
START_TEST(test_opened_path_after_a_swap)
{
	char	*file, *moved, *target, *got;
	int	 fd;

	file = scratch_file("file", 0600);
	moved = xasprintf("%s/moved", scratch);
	ck_assert_int_ne(fd = os_open_nofollow(file, O_RDONLY, 0), -1);
	ck_assert_int_eq(rename(file, moved), 0);
	target = scratch_file("target", 0600);
	ck_assert_int_eq(symlink(target, file), 0);	/* a link takes its name */
	got = os_opened_path(fd, file);
	if (os_is_portable()) {
		ck_assert_ptr_null(got);
		ck_assert_int_eq(errno, ENOENT);
	} else
		ck_assert_str_eq(got, moved);
	close(fd);
	free(got);
	free(target);
	free(moved);
	free(file);
}
END_TEST

/* The last component is never followed: a link opens as ELOOP. */
START_TEST(test_open_nofollow_refuses_a_link)
{
	char	*file, *link;

	file = scratch_file("file", 0600);
	link = xasprintf("%s/link", scratch);
	ck_assert_int_eq(symlink(file, link), 0);
	ck_assert_int_eq(os_open_nofollow(link, O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, ELOOP);
	free(link);
	free(file);
}
END_TEST

/* Who may use a file, from its mode: read, write, or the user alone. */
START_TEST(test_privacy_from_mode)
{
	static const struct {
		mode_t		 mode;
		enum os_privacy	 privacy;
		const char	*detail;
	} cases[] = {
		{ 0600, OS_PRIVATE, NULL },
		{ 0644, OS_READABLE_BY_OTHERS, "mode 644" },
		{ 0620, OS_WRITABLE_BY_OTHERS, "mode 620" },
		{ 0606, OS_WRITABLE_BY_OTHERS, "mode 606" },
	};
	char	*file, *name, *detail;
	size_t	 i;
	int	 fd;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		name = xasprintf("file%zu", i);
		file = scratch_file(name, cases[i].mode);
		ck_assert_int_ne(fd = open(file, O_RDONLY), -1);
		detail = NULL;
		ck_assert_int_eq(os_privacy_check(fd, &detail),
		    cases[i].privacy);
		if (cases[i].detail == NULL)
			ck_assert_ptr_null(detail);
		else
			ck_assert_str_eq(detail, cases[i].detail);
		close(fd);
		free(detail);
		free(file);
		free(name);
	}
}
END_TEST

/* A directory os_make_private_dir makes is private despite any umask. */
START_TEST(test_private_dir_despite_umask)
{
	char	*dir = xasprintf("%s/private", scratch), *detail = NULL;
	mode_t	 saved = umask(0);
	int	 fd;

	ck_assert_int_eq(os_make_private_dir(dir), 0);
	umask(saved);
	ck_assert_int_ne(fd = open(dir, O_RDONLY), -1);
	ck_assert_int_eq(os_privacy_check(fd, &detail), OS_PRIVATE);
	ck_assert_int_eq(os_make_private_dir(dir), -1);
	ck_assert_int_eq(errno, EEXIST);
	close(fd);
	free(dir);
}
END_TEST

/* The modification time to the nanosecond (st_mtim, st_mtimespec). */
START_TEST(test_modified_ns)
{
	struct timespec	 times[2] = {
		{ .tv_sec = 1700000000, .tv_nsec = 123456789 },
		{ .tv_sec = 1700000000, .tv_nsec = 123456789 },
	};
	struct stat	 sb;
	char		*file = scratch_file("file", 0600);

	ck_assert_int_eq(utimensat(AT_FDCWD, file, times, 0), 0);
	ck_assert_int_eq(stat(file, &sb), 0);
	ck_assert(os_modified_ns(&sb) == 1700000000123456789LL);
	free(file);
}
END_TEST

/*
 * The program's own path: Linux reads /proc whatever argv[0] says; the
 * portable layer resolves argv[0], a bare name looked up on PATH (here sh,
 * found past a directory that does not exist) and refused when no
 * directory of PATH has it.
 */
START_TEST(test_self_path_from_argv0)
{
	char	*cause = NULL, *self, *expected;

	ck_assert_int_eq(setenv("PATH", "/nonexistent:/bin", 1), 0);
	os_start("sh");
	self = os_self_path(&cause);
	ck_assert_msg(self != NULL, "%s", cause);
	expected = realpath(os_is_portable() ? "/bin/sh" : test_argv0, NULL);
	ck_assert_str_eq(self, expected);
	free(expected);
	free(self);

	os_start("no-such-program-anywhere");
	self = os_self_path(&cause);
	if (os_is_portable()) {
		ck_assert_ptr_null(self);
		ck_assert_ptr_nonnull(strstr(cause, "no-such-program-anywhere"));
		free(cause);
	} else
		free(self);
	os_start(test_argv0);
}
END_TEST

/* Listens on 127.0.0.1 at a port the system picks; *addr says where. */
static int
loopback_listener(struct sockaddr_in *addr)
{
	socklen_t	 len = sizeof *addr;
	int		 listener;

	memset(addr, 0, sizeof *addr);
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ne(listener = socket(AF_INET, SOCK_STREAM, 0), -1);
	ck_assert_int_eq(bind(listener, (struct sockaddr *)addr, sizeof *addr),
	    0);
	ck_assert_int_eq(listen(listener, 4), 0);
	ck_assert_int_eq(getsockname(listener, (struct sockaddr *)addr, &len),
	    0);
	return listener;
}

/*
 * Starts a child that (as uid, unless -1) connects to addr and waits on
 * the pipe whose write end *feed gets; returns its pid.
 */
static pid_t
start_connecting_child(const struct sockaddr_in *addr, long uid, int *feed)
{
	pid_t	pid;
	int	fds[2], fd;
	char	c;

	ck_assert_int_eq(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		close(fds[1]);
		if (uid != -1 && setuid((uid_t)uid) != 0)
			_exit(1);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (const struct sockaddr *)addr, sizeof *addr) !=
		    0)
			_exit(1);
		(void)!read(fds[0], &c, 1);
		_exit(0);
	}
	ck_assert_int_ne(pid, -1);
	close(fds[0]);
	*feed = fds[1];
	return pid;
}

/* Ends the child start_connecting_child started; it must have connected. */
static void
stop_connecting_child(pid_t pid, int feed)
{
	int	status;

	close(feed);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * The process at the other end of a loopback connection: this one when
 * it connected to itself, a child when the child did, and another user's
 * process is said to be one (Linux; the test can make one when it runs
 * as root). The portable layer cannot tell.
 */
START_TEST(test_loopback_peer)
{
	struct sockaddr_in	 addr;
	struct os_peer		 peer;
	int			 listener, own, accepted, feed;
	pid_t			 child;

	listener = loopback_listener(&addr);
	ck_assert_int_ne(own = socket(AF_INET, SOCK_STREAM, 0), -1);
	ck_assert_int_eq(connect(own, (struct sockaddr *)&addr, sizeof addr),
	    0);
	ck_assert_int_ne(accepted = accept(listener, NULL, NULL), -1);
	peer.pid = 1;
	peer.other_user = true;
	if (os_is_portable()) {
		ck_assert_int_eq(os_loopback_peer(accepted, &peer), -1);
		ck_assert_int_eq(peer.pid, 0);
		ck_assert(!peer.other_user);
		goto out;
	}
	ck_assert_int_eq(os_loopback_peer(accepted, &peer), 0);
	ck_assert_int_eq(peer.pid, getpid());
	ck_assert(!peer.other_user);
	/* Our own end of it is held by us too, and found as such. */
	ck_assert_int_eq(os_loopback_peer(own, &peer), 0);
	ck_assert_int_eq(peer.pid, getpid());
	close(accepted);

	child = start_connecting_child(&addr, -1, &feed);
	ck_assert_int_ne(accepted = accept(listener, NULL, NULL), -1);
	ck_assert_int_eq(os_loopback_peer(accepted, &peer), 0);
	ck_assert_int_eq(peer.pid, child);
	ck_assert(!peer.other_user);
	close(accepted);
	stop_connecting_child(child, feed);

	/* Only root can make a process of another user (nobody) here. */
	if (geteuid() == 0) {
		child = start_connecting_child(&addr, 65534, &feed);
		ck_assert_int_ne(accepted = accept(listener, NULL, NULL), -1);
		ck_assert_int_eq(os_loopback_peer(accepted, &peer), -1);
		ck_assert_int_eq(peer.pid, 0);
		ck_assert(peer.other_user);
		close(accepted);
		stop_connecting_child(child, feed);
	}
out:
	close(own);
	close(listener);
}
END_TEST

/* The OS layer's suite. */
static Suite *
os_suite(void)
{
	Suite	*s = suite_create("os");
	TCase	*tc = tcase_create("os");

	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, test_process_arguments);
	tcase_add_test(tc, test_session_runtime_dir);
	tcase_add_test(tc, test_opened_path_through_linked_dir);
	tcase_add_test(tc, test_opened_path_after_a_swap);
	tcase_add_test(tc, test_open_nofollow_refuses_a_link);
	tcase_add_test(tc, test_privacy_from_mode);
	tcase_add_test(tc, test_private_dir_despite_umask);
	tcase_add_test(tc, test_modified_ns);
	tcase_add_test(tc, test_self_path_from_argv0);
	tcase_add_test(tc, test_loopback_peer);
	suite_add_tcase(s, tc);
	return s;
}

/* Runs the suite. */
int
main(int argc, char **argv)
{
	test_argv0 = argv[0];
	os_start(argv[0]);
	return check_run_suite(os_suite());
}
