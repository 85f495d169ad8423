/* mkostemp(3) for C libraries that do not declare it (compat.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * mkstemp(3), then flags on the new descriptor: O_CLOEXEC as FD_CLOEXEC,
 * O_APPEND as a status flag. (Between the two a child forked by another
 * thread could inherit it; the host runs one thread.)
 */
int
mkostemp(char *template, int flags)
{
	int	fd, saved;

	if ((flags & ~(O_CLOEXEC|O_APPEND)) != 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = mkstemp(template)) == -1)
		return -1;
	if (((flags & O_CLOEXEC) != 0 &&
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) ||
	    ((flags & O_APPEND) != 0 &&
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_APPEND) == -1)) {
		saved = errno;
		(void)unlink(template);
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}
