/* realpath(3) for C libraries that have none (compat.h): Windows. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

/*
 * _fullpath makes the path absolute and removes "." and ".."; the file
 * must exist, as realpath requires. Links stay as they are (Windows'
 * C runtime cannot see them; os_opened_path resolves an open file's).
 */
char *
realpath(const char *path, char *resolved)
{
	struct stat	 sb;
	char		*full;

	if (resolved != NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (stat(path, &sb) == -1)
		return NULL;
	if ((full = _fullpath(NULL, path, 0)) == NULL)
		errno = ENAMETOOLONG;
	return full;
}
