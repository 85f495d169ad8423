/* Cryptographically secure random bytes from the kernel. */
#include "random.h"

#include <sys/types.h>
#ifdef HAVE_SYS_RANDOM_H
#include <sys/random.h>
#endif
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* Fills buf from /dev/urandom; only for kernels without getentropy's call. */
static int
random_bytes_urandom(unsigned char *buf, size_t len)
{
	struct stat	 sb;
	ssize_t		 n;
	int		 fd, saved;

	fd = open("/dev/urandom", O_RDONLY|O_CLOEXEC|O_NOCTTY);
	if (fd == -1)
		return -1;
	if (fstat(fd, &sb) == -1 || !S_ISCHR(sb.st_mode)) {
		close(fd);
		errno = EIO;
		return -1;
	}
	while (len > 0) {
		n = read(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n == 0 ? EIO : errno;
			close(fd);
			errno = saved;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	close(fd);
	return 0;
}

/*
 * Fills buf with len random bytes; returns -1 with errno set on failure.
 * getentropy(3) is in glibc (2.25), macOS (10.12) and the BSDs, and reads
 * the kernel's generator (getrandom(2) on Linux).
 */
int
random_bytes(void *buf, size_t len)
{
	unsigned char	*p = buf;
	size_t		 chunk;

	/* getentropy(3) hands out at most 256 bytes a call. */
	while (len > 0) {
		chunk = len > 256 ? 256 : len;
		if (getentropy(p, chunk) == -1) {
			if (errno == ENOSYS)
				return random_bytes_urandom(p, len);
			return -1;
		}
		p += chunk;
		len -= chunk;
	}
	return 0;
}

/* Writes 2 * nbytes random lowercase hex digits and a NUL to out. */
int
random_hex(char *out, size_t nbytes)
{
	static const char	 digits[] = "0123456789abcdef";
	unsigned char		 chunk[64];
	size_t			 i, todo;
	char			*p = out;

	while (nbytes > 0) {
		todo = nbytes > sizeof chunk ? sizeof chunk : nbytes;
		if (random_bytes(chunk, todo) == -1) {
			*out = '\0';
			return -1;
		}
		for (i = 0; i < todo; i++) {
			*p++ = digits[chunk[i] >> 4];
			*p++ = digits[chunk[i] & 0xf];
		}
		nbytes -= todo;
	}
	*p = '\0';
	return 0;
}
