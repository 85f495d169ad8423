/* realpath(3) for C libraries that have none (compat.h): Windows. */
#include <winsock2.h>	/* os.h includes it, and only before windows.h */
#include <windows.h>
#include <io.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "os.h"
#include "xmalloc.h"

/*
 * Opens the file or directory at path following every link (junctions and
 * symbolic links), and names it as Windows does now (os_opened_path:
 * GetFinalPathNameByHandleW, so the same spelling and case an opened
 * file's real path has); the file must exist, as realpath requires.
 */
char *
realpath(const char *path, char *resolved)
{
	HANDLE	 handle;
	wchar_t	*wide;
	char	*real;
	int	 n, fd, saved;

	if (resolved != NULL) {
		errno = EINVAL;
		return NULL;
	}
	n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL,
	    0);
	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	wide = xcalloc((size_t)n, sizeof *wide);
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide, n);
	handle = CreateFileW(wide, FILE_READ_ATTRIBUTES,
	    FILE_SHARE_READ|FILE_SHARE_WRITE|FILE_SHARE_DELETE, NULL,
	    OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(wide);
	if (handle == INVALID_HANDLE_VALUE) {
		errno = GetLastError() == ERROR_ACCESS_DENIED ? EACCES : ENOENT;
		return NULL;
	}
	if ((fd = _open_osfhandle((intptr_t)handle, O_RDONLY)) == -1) {
		CloseHandle(handle);
		return NULL;
	}
	real = os_opened_path(fd, path);
	saved = errno;
	close(fd);
	errno = saved;
	return real;
}
