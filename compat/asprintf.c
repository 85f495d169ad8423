/* asprintf(3) for C libraries that do not declare it (compat.h). */
#include <stdarg.h>
#include <stdio.h>

/* Formats into a new heap string *out; its length, or -1 (*out NULL). */
int
asprintf(char **out, const char *fmt, ...)
{
	va_list	ap;
	int	len;

	va_start(ap, fmt);
	len = vasprintf(out, fmt, ap);
	va_end(ap);
	return len;
}
