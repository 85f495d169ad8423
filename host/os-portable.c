/*
 * The OS layer's part for a POSIX system it knows nothing more about (os.h),
 * and for `configure --with-os=portable` on Linux, which builds the code
 * paths macOS and the BSDs take: no /proc. Where Linux reads /proc, this
 * file does what POSIX alone allows: the program's path from argv[0] and
 * PATH, another process's command line from ps(1), and an opened file's
 * real path by walking its directory from the root.
 */
#include "os.h"
#include "os-posix.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

/* Longest command line read (Chrome's are a few KiB). */
#define OS_ARGUMENTS_MAX	(256 * 1024)

/* The POSIX start; nothing more to do. */
void
os_start(const char *argv0)
{
	os_posix_start(argv0);
}

/* The BSDs follow the XDG conventions, like Linux. */
enum os_family
os_family(void)
{
	return OS_FAMILY_XDG;
}

/* "POSIX". */
const char *
os_name(void)
{
	return "POSIX";
}

/* No per-session runtime directory is known to exist. */
char *
os_session_runtime_dir(void)
{
	return NULL;
}

/*
 * The first executable file called name in a directory of PATH (heap, links
 * resolved), or NULL.
 */
static char *
os_search_path(const char *name)
{
	const char	*path = getenv("PATH"), *start, *end;
	char		*candidate, *resolved = NULL;

	for (start = path; start != NULL && resolved == NULL;
	    start = *end != '\0' ? end + 1 : NULL) {
		end = start + strcspn(start, ":");
		candidate = xasprintf("%.*s/%s", (int)(end - start), start,
		    name);
		if (*candidate == '/' && access(candidate, X_OK) == 0)
			resolved = realpath(candidate, NULL);
		free(candidate);
	}
	return resolved;
}

/*
 * argv[0] resolved as the shell found it: a path when it holds a slash
 * (relative to the directory the program started in), else a name looked
 * up on PATH.
 */
char *
os_self_path(char **cause)
{
	const char	*argv0 = os_posix_argv0();
	char		*path;

	if (argv0 == NULL || *argv0 == '\0') {
		*cause = xstrdup("cannot find this program's path: it was "
		    "started without argv[0]; run it by its path");
		return NULL;
	}
	if (strchr(argv0, '/') != NULL)
		path = realpath(argv0, NULL);
	else
		path = os_search_path(argv0);
	if (path == NULL)
		*cause = xasprintf("cannot find this program's path from its "
		    "name %s; run it by its absolute path", argv0);
	return path;
}

/*
 * ps(1)'s args of the process (POSIX: -o args, no terminal width when
 * piped), split at spaces: an argument that holds a space comes out as
 * two, which the instance name's browser and --user-data-dir seldom do.
 */
char *
os_process_arguments(long pid, size_t *len)
{
	char	*command, *buf;
	FILE	*ps;
	size_t	 i;

	if (pid <= 0)
		return NULL;
	command = xasprintf("/bin/ps -o args= -p %ld 2>/dev/null", pid);
	ps = popen(command, "r");
	free(command);
	if (ps == NULL)
		return NULL;
	buf = xmalloc(OS_ARGUMENTS_MAX + 1);
	*len = fread(buf, 1, OS_ARGUMENTS_MAX, ps);
	(void)pclose(ps);
	while (*len > 0 && (buf[*len - 1] == '\n' || buf[*len - 1] == ' '))
		(*len)--;
	if (*len == 0) {
		free(buf);
		return NULL;
	}
	buf[(*len)++] = '\0';
	for (i = 0; i < *len; i++) {
		if (buf[i] == ' ')
			buf[i] = '\0';
	}
	return buf;
}

/*
 * Opens the directory real (a real path, so without links) one component
 * at a time from the root, never following a link: -1 with errno (ELOOP
 * when a link took a component's place after real was resolved).
 */
static int
os_open_real_dir(const char *real)
{
	char	*copy, *component, *save = NULL;
	int	 at, next;

	if ((at = open("/", O_RDONLY|O_DIRECTORY|O_CLOEXEC)) == -1)
		return -1;
	copy = xstrdup(real);
	for (component = strtok_r(copy, "/", &save); component != NULL;
	    component = strtok_r(NULL, "/", &save)) {
		next = openat(at, component,
		    O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC);
		close(at);
		if ((at = next) == -1)
			break;
	}
	free(copy);
	return at;
}

/*
 * given's directory resolved (realpath), then walked from the root without
 * following links; the path is fd's when the entry found there at given's
 * file name is fd's file (device and inode), not a link or another file.
 * ENOENT when it is not.
 */
char *
os_opened_path(int fd, const char *given)
{
	struct stat	 opened, found;
	const char	*name;
	char		*dir, *real, *path = NULL;
	int		 dir_fd, saved;

	if (!os_path_is_absolute(given) || fstat(fd, &opened) == -1) {
		errno = EINVAL;
		return NULL;
	}
	name = strrchr(given, '/') + 1;
	dir = name - 1 == given ? xstrdup("/") :
	    xasprintf("%.*s", (int)(name - 1 - given), given);
	real = realpath(dir, NULL);
	free(dir);
	if (real == NULL)
		return NULL;
	if ((dir_fd = os_open_real_dir(real)) == -1) {
		saved = errno;
		free(real);
		errno = saved;
		return NULL;
	}
	if (fstatat(dir_fd, name, &found, AT_SYMLINK_NOFOLLOW) == 0 &&
	    found.st_dev == opened.st_dev && found.st_ino == opened.st_ino)
		path = xasprintf("%s/%s", strcmp(real, "/") == 0 ? "" : real,
		    name);
	else
		errno = ENOENT;
	saved = errno;
	close(dir_fd);
	free(real);
	errno = saved;
	return path;
}

/* POSIX has no way to name the process at a TCP connection's other end. */
int
os_loopback_peer(evutil_socket_t fd, struct os_peer *peer)
{
	peer->pid = 0;
	peer->other_user = false;
	return -1;
}
