/* Allocation wrappers that exit on out-of-memory, so callers never check. */
#ifndef XMALLOC_H
#define XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	 xmalloc_fail(void) __attribute__((noreturn));
void	*xmalloc(size_t size);
void	*xcalloc(size_t count, size_t size);
void	*xrealloc(void *ptr, size_t size);
char	*xstrdup(const char *s);
char	*xstrndup(const char *s, size_t n);
char	*xasprintf(const char *fmt, ...) __attribute__((format(PRINTF_FORMAT, 1, 2)));
void	 xfree_strings(char **list, size_t count);
char	*xvasprintf(const char *fmt, va_list ap) __attribute__((format(PRINTF_FORMAT, 1, 0)));

#endif
