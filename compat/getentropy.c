/* getentropy(3) for C libraries that have none (compat.h): Windows. */
#include <errno.h>
#include <stddef.h>

#include <sodium.h>

/*
 * libsodium's generator, which the host links anyway: the system's own
 * (RtlGenRandom on Windows, getrandom or /dev/urandom elsewhere).
 */
int
getentropy(void *buf, size_t len)
{
	if (len > 256) {
		errno = EIO;
		return -1;
	}
	randombytes_buf(buf, len);
	return 0;
}
