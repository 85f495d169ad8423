/*
 * The OS layer's macOS part (os.h): the calls Apple documents where Linux
 * has /proc. Compiled only on Darwin (configure picks it), so written
 * against Apple's headers: <mach-o/dyld.h> _NSGetExecutablePath,
 * <sys/fcntl.h> F_GETPATH, <sys/sysctl.h> KERN_ARGMAX and KERN_PROCARGS2.
 */
#include "os.h"
#include "os-posix.h"

#include <sys/types.h>
#include <sys/param.h>
#include <sys/sysctl.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
