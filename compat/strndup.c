/* strndup(3) for C libraries that do not declare it (compat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A heap copy of at most n bytes of s, NUL-terminated; NULL with ENOMEM. */
char *
strndup(const char *s, size_t n)
{
	const char	*end = memchr(s, '\0', n);
	size_t		 len = end != NULL ? (size_t)(end - s) : n;
	char		*copy;

	if ((copy = malloc(len + 1)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}
