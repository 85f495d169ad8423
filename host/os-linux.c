/* The OS layer's Linux part (os.h): /proc, glibc's allocator. */
#include "os.h"
#include "os-posix.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef HAVE_MALLOPT
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

/* Longest command line read (Chrome's are a few KiB). */
#define OS_ARGUMENTS_MAX	(256 * 1024)

/*
 * The POSIX start, then glibc's allocator: big buffers (request bodies,
 * frames of a megabyte) are mapped and given back when freed. Left to
 * itself, glibc raises its mapping threshold after the first such free and
 * keeps later ones in the heap, so a burst of big calls would leave the
 * host holding up to 32 MiB it no longer uses.
 */
void
os_start(const char *argv0)
{
	os_posix_start(argv0);
#ifdef HAVE_MALLOPT
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

/* Linux and the BSDs share the XDG conventions. */
enum os_family
os_family(void)
{
	return OS_FAMILY_XDG;
}

/* "Linux". */
const char *
os_name(void)
{
	return "Linux";
}

/* systemd's /run/user/UID. */
char *
os_session_runtime_dir(void)
{
	return xasprintf("/run/user/%lu", (unsigned long)getuid());
}

/* Reads a link of /proc (heap), or NULL with errno. */
static char *
os_proc_link(const char *link)
{
	char	buf[PATH_MAX];
	ssize_t	n;

	if ((n = readlink(link, buf, sizeof buf - 1)) == -1)
		return NULL;
	if (n == (ssize_t)sizeof buf - 1) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	buf[n] = '\0';
	return xstrdup(buf);
}

/* /proc/self/exe. */
char *
os_self_path(char **cause)
{
	char	*path;

	if ((path = os_proc_link("/proc/self/exe")) == NULL)
		*cause = xasprintf("cannot read /proc/self/exe to find this "
		    "program's path: %s", strerror(errno));
	return path;
}

/* /proc/PID/cmdline. */
char *
os_process_arguments(long pid, size_t *len)
{
	char	*path, *buf;
	ssize_t	 n;
	int	 fd;

	path = xasprintf("/proc/%ld/cmdline", pid);
	fd = open(path, O_RDONLY|O_CLOEXEC);
	free(path);
	if (fd == -1)
		return NULL;
	buf = xmalloc(OS_ARGUMENTS_MAX + 1);
	*len = 0;
	while (*len < OS_ARGUMENTS_MAX && (n = read(fd, buf + *len,
	    OS_ARGUMENTS_MAX - *len)) > 0)
		*len += (size_t)n;
	close(fd);
	buf[*len] = '\0';
	if (*len == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * /proc/self/fd/N names the directory entry the file was opened through,
 * with every link on the way resolved, and follows renames after that.
 */
char *
os_opened_path(int fd, const char *given)
{
	char	link[64];

	(void)snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	return os_proc_link(link);
}
