/*
 * Declarations of the C library functions compat/ supplies where the
 * system's headers (in the mode the build uses) declare none; configure
 * decides (AC_CHECK_DECLS) and compiles compat/NAME.c for each. Every
 * source file gets this header first (Makefile.am's AM_CPPFLAGS).
 */
#ifndef COMPAT_H
#define COMPAT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * The archetype of the host's printf-like functions' format attributes.
 * mingw-w64 builds use its own C99 printf (configure defines
 * __USE_MINGW_ANSI_STDIO), which takes GNU's formats; there plain
 * "printf" would mean msvcrt's, which knows no %zu or %jd.
 */
#ifdef __MINGW32__
#define PRINTF_FORMAT	gnu_printf
#else
#define PRINTF_FORMAT	printf
#endif

#if !HAVE_DECL_MEMMEM
/* Finds the first needle_len bytes of needle in haystack, or NULL. */
void	*memmem(const void *haystack, size_t haystack_len, const void *needle,
	    size_t needle_len);
#endif

#if !HAVE_DECL_STRNDUP
/* A heap copy of at most n bytes of s, NUL-terminated; NULL with ENOMEM. */
char	*strndup(const char *s, size_t n);
#endif

#if !HAVE_DECL_MKOSTEMP
/* mkstemp(3) whose descriptor also gets flags (O_CLOEXEC, O_APPEND). */
int	 mkostemp(char *template, int flags);
#endif

#if !HAVE_DECL_VASPRINTF
/* Formats into a new heap string *out; its length, or -1. */
int	 vasprintf(char **out, const char *fmt, va_list ap);
#endif

#if !HAVE_DECL_GETENTROPY
/* Fills buf with len (at most 256) random bytes; -1 with errno. */
int	 getentropy(void *buf, size_t len);
#endif

#if !HAVE_DECL_REALPATH
/* The absolute path of an existing file, in a new heap string (resolved
 * must be NULL); NULL with errno. */
char	*realpath(const char *path, char *resolved);
#endif

#if !HAVE_DECL_FDOPENDIR
#include <dirent.h>
/* A directory stream on the open directory fd, which it then owns. */
DIR	*fdopendir(int fd);
#endif

#if !HAVE_DECL_LINK
/* Makes new_name a second name of existing (a hard link); -1 with errno. */
int	 link(const char *existing, const char *new_name);
#endif

#if !HAVE_DECL_OPENAT
#include <sys/types.h>
#include <sys/stat.h>
/* The directory-relative calls, for name in the open directory dirfd. */
#define O_NOFOLLOW		0x10000000	/* outside the C runtime's */
#define O_DIRECTORY		0x20000000
#define AT_REMOVEDIR		0x200
#define AT_SYMLINK_NOFOLLOW	0x100
int	 openat(int dirfd, const char *name, int flags, ...);
int	 mkdirat(int dirfd, const char *name, mode_t mode);
int	 unlinkat(int dirfd, const char *name, int flags);
int	 fstatat(int dirfd, const char *name, struct stat *sb, int flags);
#endif

#ifdef _WIN32
/*
 * Windows' C runtime. Children inherit a descriptor unless it has
 * O_NOINHERIT. There are no controlling terminals and no FIFOs to open,
 * so O_NOCTTY and O_NONBLOCK ask for nothing. Its stat follows links and
 * shows none, nor sockets (os_open_nofollow refuses reparse points);
 * _commit flushes a file to disk. Modes are not permissions there: a new
 * file takes its directory's access list, and os_privacy_check reads it.
 */
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#define O_CLOEXEC	O_NOINHERIT
#define O_NOCTTY	0
#define O_NONBLOCK	0
#define S_ISLNK(mode)	0
#define S_ISSOCK(mode)	0
#define lstat(path, sb)	stat(path, sb)
#define fsync(fd)	_commit(fd)
#define fchmod(fd, mode)	0
#endif

#if !HAVE_DECL_ASPRINTF
/* Formats into a new heap string *out; its length, or -1. */
int	 asprintf(char **out, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
#endif

#endif
