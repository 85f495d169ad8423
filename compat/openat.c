/*
 * openat, mkdirat, unlinkat and fstatat for C libraries that have none
 * (compat.h): Windows. Each joins the directory's path as Windows names
 * it now (os_opened_path of dirfd) with the name; the host uses them
 * only inside directories whose access list is the user's alone.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os.h"
#include "xmalloc.h"

/* DIR\NAME for the open directory dirfd (heap), or NULL with errno. */
static char *
openat_path(int dirfd, const char *name)
{
	char	*dir, *path;

	if ((dir = os_opened_path(dirfd, NULL)) == NULL)
		return NULL;
	path = xasprintf("%s\\%s", dir, name);
	free(dir);
	return path;
}

/*
 * open(2) of name in dirfd: with O_NOFOLLOW through os_open_nofollow (a
 * reparse point is refused), with O_DIRECTORY only a directory (ENOTDIR).
 */
int
openat(int dirfd, const char *name, int flags, ...)
{
	char	*path;
	int	 fd, saved;

	if ((path = openat_path(dirfd, name)) == NULL)
		return -1;
	fd = os_open_nofollow(path, flags & ~(O_NOFOLLOW|O_CLOEXEC), 0600);
	saved = errno;
	free(path);
	errno = saved;
	return fd;
}

/* mkdir(2) of name in dirfd, for the user alone (os_make_private_dir). */
int
mkdirat(int dirfd, const char *name, mode_t mode)
{
	char	*path;
	int	 rc, saved;

	if ((path = openat_path(dirfd, name)) == NULL)
		return -1;
	rc = os_make_private_dir(path);
	saved = errno;
	free(path);
	errno = saved;
	return rc;
}

/* unlink(2), or rmdir(2) with AT_REMOVEDIR, of name in dirfd. */
int
unlinkat(int dirfd, const char *name, int flags)
{
	char	*path;
	int	 rc, saved;

	if ((path = openat_path(dirfd, name)) == NULL)
		return -1;
	rc = (flags & AT_REMOVEDIR) != 0 ? rmdir(path) : unlink(path);
	saved = errno;
	free(path);
	errno = saved;
	return rc;
}

/* stat(2) of name in dirfd (the C runtime shows no links to not follow). */
int
fstatat(int dirfd, const char *name, struct stat *sb, int flags)
{
	char	*path;
	int	 rc, saved;

	if ((path = openat_path(dirfd, name)) == NULL)
		return -1;
	rc = stat(path, sb);
	saved = errno;
	free(path);
	errno = saved;
	return rc;
}
