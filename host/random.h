/* Cryptographically secure random bytes and identifiers (getentropy). */
#ifndef RANDOM_H
#define RANDOM_H

#include <stddef.h>

int	random_bytes(void *buf, size_t len);
/* Writes 2 * nbytes lowercase hex digits and a NUL to out. */
int	random_hex(char *out, size_t nbytes);

#endif
