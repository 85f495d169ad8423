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

#if !HAVE_DECL_ASPRINTF
/* Formats into a new heap string *out; its length, or -1. */
int	 asprintf(char **out, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
#endif

#endif
