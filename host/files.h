/*
 * File-system helpers the host's own files share: the token, the runtime
 * file and the manifests install writes.
 */
#ifndef FILES_H
#define FILES_H

#include <sys/types.h>

#include <stdarg.h>
#include <stddef.h>

char	*files_dirname(const char *path);
int	 files_make_dirs(const char *dir, mode_t mode, const char *purpose,
	    char **cause);
int	 files_open_private_dir(const char *dir, char **cause);
int	 files_check_private_dir(const char *dir, char **cause);
int	 files_private_dir(const char *dir, const char *purpose, char **cause);
int	 files_write_all(int fd, const void *buf, size_t len);
void	 files_vprintf(int fd, const char *fmt, va_list ap)
	    __attribute__((format(PRINTF_FORMAT, 2, 0)));
void	 files_printf(int fd, const char *fmt, ...)
	    __attribute__((format(PRINTF_FORMAT, 2, 3)));
char	*files_write_temp(const char *path, const char *what, const void *buf,
	    size_t len, char **cause);

#endif
