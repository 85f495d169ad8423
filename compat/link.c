/* link(2) for C libraries that have none (compat.h): Windows. */
#include <windows.h>

#include <errno.h>
#include <stdlib.h>

/* A UTF-16 copy of a UTF-8 path (heap), or NULL. */
static wchar_t *
link_wide(const char *path)
{
	wchar_t	*wide;
	int	 n;

	n = MultiByteToWideChar(CP_UTF8, 0, path, -1, NULL, 0);
	if (n <= 0 || (wide = calloc((size_t)n, sizeof *wide)) == NULL)
		return NULL;
	MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, n);
	return wide;
}

/*
 * CreateHardLinkW: a second name for an existing file, refused (EEXIST)
 * when the new name exists; EPERM where the file system has no hard links
 * (FAT), which callers treat as link(2)'s "not here".
 */
int
link(const char *existing, const char *new_name)
{
	wchar_t	*from = link_wide(existing), *to = link_wide(new_name);
	BOOL	 made = FALSE;
	DWORD	 error = ERROR_NOT_ENOUGH_MEMORY;

	if (from != NULL && to != NULL) {
		made = CreateHardLinkW(to, from, NULL);
		error = GetLastError();
	}
	free(from);
	free(to);
	if (made)
		return 0;
	switch (error) {
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		errno = EEXIST;
		break;
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		errno = ENOENT;
		break;
	case ERROR_NOT_ENOUGH_MEMORY:
		errno = ENOMEM;
		break;
	case ERROR_ACCESS_DENIED:
		errno = EACCES;
		break;
	default:
		errno = EPERM;
		break;
	}
	return -1;
}
