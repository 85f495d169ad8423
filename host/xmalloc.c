/* Allocation wrappers: out of memory is fatal, reported on stderr. */
#include "xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes a fixed message to stderr and exits; never touches stdout. */
void
xmalloc_fail(void)
{
	static const char msg[] = "browser-bridge: out of memory\n";

	(void)!write(STDERR_FILENO, msg, sizeof msg - 1);
	_exit(1);
}

/* Allocates size bytes. */
void *
xmalloc(size_t size)
{
	void	*p = malloc(size ? size : 1);

	if (p == NULL)
		xmalloc_fail();
	return p;
}

/* Allocates a zeroed array. */
void *
xcalloc(size_t count, size_t size)
{
	void	*p = calloc(count ? count : 1, size ? size : 1);

	if (p == NULL)
		xmalloc_fail();
	return p;
}

/* Resizes an allocation. */
void *
xrealloc(void *ptr, size_t size)
{
	void	*p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		xmalloc_fail();
	return p;
}

/* Copies a string. */
char *
xstrdup(const char *s)
{
	char	*p = strdup(s);

	if (p == NULL)
		xmalloc_fail();
	return p;
}

/* Copies at most n bytes of a string and terminates the copy. */
char *
xstrndup(const char *s, size_t n)
{
	char	*p = strndup(s, n);

	if (p == NULL)
		xmalloc_fail();
	return p;
}

/* Formats into a new string. */
char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*p;

	if (vasprintf(&p, fmt, ap) < 0)
		xmalloc_fail();
	return p;
}

/* Formats into a new string. */
char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

/* Frees a list of count strings and the list itself. */
void
xfree_strings(char **list, size_t count)
{
	size_t	i;

	for (i = 0; i < count; i++)
		free(list[i]);
	free(list);
}
