/* fdopendir(3) for C libraries that have none (compat.h): Windows. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "os.h"

/*
 * Opens the directory at the path the open directory fd has now
 * (os_opened_path: a rename after the open is followed) and, as fdopendir
 * takes fd over, closes fd.
 */
DIR *
fdopendir(int fd)
{
	DIR	*d;
	char	*path;
	int	 saved;

	if ((path = os_opened_path(fd, NULL)) == NULL)
		return NULL;
	d = opendir(path);
	saved = errno;
	free(path);
	if (d != NULL)
		close(fd);
	errno = saved;
	return d;
}
