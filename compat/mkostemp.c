/* mkostemp(3) for C libraries that do not declare it (compat.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os.h"

/* Tries at most this many names before giving up (EEXIST). */
#define MKOSTEMP_TRIES	100

/*
 * Replaces the template's trailing XXXXXX with letters and digits and
 * creates that file with O_CREAT|O_EXCL, mode 0600 (on Windows an access
 * list for the user alone) and flags in the one call (os_open_nofollow,
 * whose descriptors children never inherit: O_CLOEXEC), trying another
 * name while one exists. O_EXCL, not the name, makes it safe: a name taken by someone
 * else is never opened.
 */
int
mkostemp(char *template, int flags)
{
	static const char	 letters[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static uint64_t		 counter;
	size_t			 len = strlen(template), i;
	uint64_t		 value;
	char			*x;
	int			 fd, try;

	if ((flags & ~(O_CLOEXEC|O_APPEND)) != 0 || len < 6 ||
	    strcmp(template + len - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return -1;
	}
	x = template + len - 6;
	for (try = 0; try < MKOSTEMP_TRIES; try++) {
		value = ((uint64_t)time(NULL) << 20) ^
		    ((uint64_t)os_pid() << 40) ^ (uint64_t)(uintptr_t)template ^
		    (++counter * 0x9e3779b97f4a7c15ULL);
		for (i = 0; i < 6; i++, value /= sizeof letters - 1)
			x[i] = letters[value % (sizeof letters - 1)];
		fd = os_open_nofollow(template, O_RDWR|O_CREAT|O_EXCL|
		    (flags & O_APPEND), 0600);
		if (fd != -1 || errno != EEXIST)
			return fd;
	}
	return -1;
}
