/* memmem(3) for C libraries that do not declare it (compat.h). */
#include <string.h>

/* Finds the first needle_len bytes of needle in haystack, or NULL. */
void *
memmem(const void *haystack, size_t haystack_len, const void *needle,
    size_t needle_len)
{
	const unsigned char	*at = haystack, *last;

	if (needle_len == 0)
		return (void *)haystack;
	if (haystack_len < needle_len)
		return NULL;
	last = at + (haystack_len - needle_len);
	for (; at <= last; at++) {
		if (*at == *(const unsigned char *)needle &&
		    memcmp(at, needle, needle_len) == 0)
			return (void *)at;
	}
	return NULL;
}
