/* Moves the real stdout aside for the channel and sends fd 1 to stderr. */
#include "stdout-guard.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "os.h"
#include "xmalloc.h"

/*
 * Returns a private close-on-exec descriptor for the real stdout and points
 * descriptor 1 at stderr; -1 and a cause on failure.
 */
int
stdout_guard_install(char **cause)
{
	int	fd;

	fd = os_dup_private(STDOUT_FILENO);
	if (fd == -1) {
		*cause = xasprintf("cannot duplicate stdout: %s",
		    strerror(errno));
		return -1;
	}
	if (dup2(STDERR_FILENO, STDOUT_FILENO) == -1) {
		*cause = xasprintf("cannot point stdout at stderr: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	/*
	 * Flushed only now: anything stdio still buffers is stray output and
	 * goes to stderr with the rest, never ahead of the first frame.
	 */
	fflush(stdout);
	return fd;
}
