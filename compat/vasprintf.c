/* vasprintf(3) for C libraries that do not declare it (compat.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Formats into a new heap string *out; its length, or -1 (*out NULL). */
int
vasprintf(char **out, const char *fmt, va_list ap)
{
	va_list	 copy;
	int	 len;

	*out = NULL;
	va_copy(copy, ap);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0)
		return -1;
	if ((*out = malloc((size_t)len + 1)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (vsnprintf(*out, (size_t)len + 1, fmt, ap) != len) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return len;
}
