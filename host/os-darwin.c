/*
 * The OS layer's macOS part (os.h): the calls Apple documents where Linux
 * has /proc. Compiled only on Darwin (configure picks it), so written
 * against Apple's headers: <mach-o/dyld.h> _NSGetExecutablePath,
 * <sys/fcntl.h> F_GETPATH, <sys/sysctl.h> KERN_ARGMAX and KERN_PROCARGS2,
 * <libproc.h> proc_listpids, proc_pidinfo and proc_pidfdinfo.
 */
#include "os.h"
#include "os-posix.h"
#include "os-socket.h"

#include <sys/types.h>
#include <sys/param.h>
#include <sys/proc_info.h>
#include <sys/sysctl.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libproc.h>
#include <mach-o/dyld.h>

#include "xmalloc.h"

/* The POSIX start; nothing more to do on macOS. */
void
os_start(const char *argv0)
{
	os_posix_start(argv0);
}

/* macOS keeps browsers' files under ~/Library/Application Support. */
enum os_family
os_family(void)
{
	return OS_FAMILY_MACOS;
}

/* "macOS". */
const char *
os_name(void)
{
	return "macOS";
}

/* macOS has no per-session runtime directory to fall back on. */
char *
os_session_runtime_dir(void)
{
	return NULL;
}

/* _NSGetExecutablePath, with its links resolved. */
char *
os_self_path(char **cause)
{
	char		*raw, *resolved;
	uint32_t	 size = PATH_MAX;

	raw = xmalloc(size);
	if (_NSGetExecutablePath(raw, &size) != 0) {
		/* Too small: size now holds the size it needs. */
		free(raw);
		raw = xmalloc(size);
		if (_NSGetExecutablePath(raw, &size) != 0) {
			free(raw);
			*cause = xstrdup("cannot find this program's path");
			return NULL;
		}
	}
	resolved = realpath(raw, NULL);
	free(raw);
	if (resolved == NULL)
		*cause = xasprintf("cannot resolve this program's path: %s",
		    strerror(errno));
	return resolved;
}

/*
 * sysctl(KERN_PROCARGS2) gives argc (an int), the executable's path, NULs
 * to align, then argc arguments each ending in a NUL, then the
 * environment: the arguments are copied out.
 */
char *
os_process_arguments(long pid, size_t *len)
{
	int	 mib[3] = { CTL_KERN, KERN_ARGMAX, 0 }, argmax, argc;
	size_t	 size = sizeof argmax, at, start;
	char	*buf, *args;

	if (sysctl(mib, 2, &argmax, &size, NULL, 0) == -1 || argmax <= 0)
		return NULL;
	buf = xmalloc((size_t)argmax);
	mib[1] = KERN_PROCARGS2;
	mib[2] = (int)pid;
	size = (size_t)argmax;
	if (sysctl(mib, 3, buf, &size, NULL, 0) == -1 ||
	    size <= sizeof argc) {
		free(buf);
		return NULL;
	}
	memcpy(&argc, buf, sizeof argc);
	at = sizeof argc;
	while (at < size && buf[at] != '\0')	/* the executable's path */
		at++;
	while (at < size && buf[at] == '\0')	/* its padding */
		at++;
	start = at;
	for (; argc > 0 && at < size; argc--) {
		while (at < size && buf[at] != '\0')
			at++;
		at++;				/* the argument's NUL */
	}
	if (at > size || at == start) {
		free(buf);
		return NULL;
	}
	*len = at - start;
	args = xmalloc(*len + 1);
	memcpy(args, buf + start, *len);
	args[*len] = '\0';
	free(buf);
	return args;
}

/* fcntl(F_GETPATH) names the file an open descriptor refers to. */
char *
os_opened_path(int fd, const char *given)
{
	char	buf[MAXPATHLEN];

	if (fcntl(fd, F_GETPATH, buf) == -1)
		return NULL;
	return xstrdup(buf);
}

/*
 * Says whether process pid holds a TCP socket from local (its end) to
 * remote, both IPv4 with ports in network order, as libproc reports its
 * sockets' ends.
 */
static bool
os_process_holds(pid_t pid, const struct sockaddr_in *local,
    const struct sockaddr_in *remote)
{
	struct proc_fdinfo	*fds;
	struct socket_fdinfo	 info;
	const struct in_sockinfo *ends;
	int			 size, n, i;
	bool			 found = false;

	if ((size = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, NULL, 0)) <= 0)
		return false;	/* gone, or another user's */
	fds = xmalloc((size_t)size);
	size = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, fds, size);
	n = size > 0 ? size / (int)sizeof *fds : 0;
	for (i = 0; i < n && !found; i++) {
		if (fds[i].proc_fdtype != PROX_FDTYPE_SOCKET ||
		    proc_pidfdinfo(pid, fds[i].proc_fd, PROC_PIDFDSOCKETINFO,
		    &info, sizeof info) != (int)sizeof info ||
		    info.psi.soi_family != AF_INET ||
		    info.psi.soi_kind != SOCKINFO_TCP)
			continue;
		ends = &info.psi.soi_proto.pri_tcp.tcpsi_ini;
		found = (in_port_t)ends->insi_lport == local->sin_port &&
		    (in_port_t)ends->insi_fport == remote->sin_port &&
		    ends->insi_laddr.ina_46.i46a_addr4.s_addr ==
		    local->sin_addr.s_addr &&
		    ends->insi_faddr.ina_46.i46a_addr4.s_addr ==
		    remote->sin_addr.s_addr;
	}
	free(fds);
	return found;
}

/*
 * libproc lists the user's processes and each one's sockets with their
 * ends; the one whose socket runs from fd's peer to fd's own end holds
 * the other end. Another user's processes cannot be read: unknown.
 */
int
os_loopback_peer(evutil_socket_t fd, struct os_peer *peer)
{
	struct sockaddr_in	 mine, theirs;
	socklen_t		 mine_len = sizeof mine, theirs_len = sizeof theirs;
	pid_t			*pids;
	int			 size, n, i;

	peer->pid = 0;
	peer->other_user = false;
	if (getsockname(fd, (struct sockaddr *)&mine, &mine_len) != 0 ||
	    getpeername(fd, (struct sockaddr *)&theirs, &theirs_len) != 0 ||
	    mine.sin_family != AF_INET || theirs.sin_family != AF_INET)
		return -1;
	if ((size = proc_listpids(PROC_UID_ONLY, geteuid(), NULL, 0)) <= 0)
		return -1;
	size += 16 * (int)sizeof *pids;	/* room for processes started since */
	pids = xmalloc((size_t)size);
	size = proc_listpids(PROC_UID_ONLY, geteuid(), pids, size);
	n = size > 0 ? size / (int)sizeof *pids : 0;
	for (i = 0; i < n && peer->pid == 0; i++) {
		if (pids[i] > 0 && os_process_holds(pids[i], &theirs, &mine))
			peer->pid = pids[i];
	}
	free(pids);
	return peer->pid != 0 ? 0 : -1;
}
