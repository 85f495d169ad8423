/* The OS layer's Linux part (os.h): /proc, glibc's allocator. */
#include "os.h"
#include "os-posix.h"
#include "os-socket.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
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

/*
 * Finds the other end of the IPv4 connection fd in /proc/net/tcp: the
 * row whose local end is fd's peer and whose remote end is fd's own.
 * Returns 0 with its owner's uid and its socket's inode, -1 when none.
 */
static int
os_tcp_row(evutil_socket_t fd, uid_t *uid, unsigned long *inode)
{
	struct sockaddr_in	 mine, theirs;
	socklen_t		 mine_len = sizeof mine, theirs_len = sizeof theirs;
	unsigned		 local_addr, local_port, remote_addr, remote_port;
	unsigned long		 owner;
	char			 line[512];
	FILE			*table;
	int			 rc = -1;

	if (getsockname(fd, (struct sockaddr *)&mine, &mine_len) != 0 ||
	    getpeername(fd, (struct sockaddr *)&theirs, &theirs_len) != 0 ||
	    mine.sin_family != AF_INET || theirs.sin_family != AF_INET)
		return -1;
	if ((table = fopen("/proc/net/tcp", "re")) == NULL)
		return -1;
	/* Addresses as the kernel's 32-bit words print, ports in host order. */
	while (fgets(line, sizeof line, table) != NULL) {
		if (sscanf(line, "%*u: %x:%x %x:%x %*x %*x:%*x %*x:%*x %*x "
		    "%lu %*d %lu", &local_addr, &local_port, &remote_addr,
		    &remote_port, &owner, inode) != 6)
			continue;	/* the heading */
		if (local_addr == theirs.sin_addr.s_addr &&
		    local_port == ntohs(theirs.sin_port) &&
		    remote_addr == mine.sin_addr.s_addr &&
		    remote_port == ntohs(mine.sin_port)) {
			*uid = (uid_t)owner;
			rc = 0;
			break;
		}
	}
	fclose(table);
	return rc;
}

/* Says whether process pid of user uid holds the socket named want. */
static bool
os_process_holds(long pid, uid_t uid, const char *want)
{
	struct dirent	*entry;
	struct stat	 sb;
	char		 path[64], link[64];
	ssize_t		 n;
	bool		 found = false;
	DIR		*fds;

	(void)snprintf(path, sizeof path, "/proc/%ld/fd", pid);
	if ((fds = opendir(path)) == NULL)
		return false;	/* gone, or not ours to read */
	if (fstat(dirfd(fds), &sb) == 0 && sb.st_uid == uid) {
		while (!found && (entry = readdir(fds)) != NULL) {
			n = readlinkat(dirfd(fds), entry->d_name, link,
			    sizeof link - 1);
			if (n <= 0)
				continue;	/* "." and ".." */
			link[n] = '\0';
			found = strcmp(link, want) == 0;
		}
	}
	closedir(fds);
	return found;
}

/* How many of the processes found last os_loopback_peer tries first. */
#define OS_PEERS_RECENT	8

/*
 * /proc/net/tcp names the other end's owner and socket inode; the process
 * is the one of that user whose /proc/PID/fd holds "socket:[INODE]". The
 * processes found last are tried first: processes that register again and
 * again cost a directory each, not a walk of them all.
 */
int
os_loopback_peer(evutil_socket_t fd, struct os_peer *peer)
{
	static long	 recent[OS_PEERS_RECENT];
	static size_t	 next_recent;
	struct dirent	*entry;
	unsigned long	 inode;
	char		 want[64], *end;
	uid_t		 uid;
	long		 pid;
	size_t		 i;
	DIR		*proc;

	peer->pid = 0;
	peer->other_user = false;
	if (os_tcp_row(fd, &uid, &inode) != 0)
		return -1;
	if (uid != geteuid()) {
		peer->other_user = true;
		return -1;
	}
	(void)snprintf(want, sizeof want, "socket:[%lu]", inode);
	for (i = 0; i < OS_PEERS_RECENT; i++) {
		if (recent[i] != 0 && os_process_holds(recent[i], uid, want)) {
			peer->pid = recent[i];
			return 0;
		}
	}
	if ((proc = opendir("/proc")) == NULL)
		return -1;
	while (peer->pid == 0 && (entry = readdir(proc)) != NULL) {
		pid = strtol(entry->d_name, &end, 10);
		if (pid > 0 && *end == '\0' && os_process_holds(pid, uid, want))
			peer->pid = pid;
	}
	closedir(proc);
	if (peer->pid == 0)
		return -1;
	recent[next_recent++ % OS_PEERS_RECENT] = peer->pid;
	return 0;
}
