/*
 * The bearer token MCP clients present. Made with a CSPRNG on first use and
 * kept in a file only the user can read (mode 0600, in a 0700 directory).
 */
#ifndef TOKEN_H
#define TOKEN_H

#include <stdbool.h>
#include <stddef.h>

#define TOKEN_HEX_LENGTH	64	/* 32 random bytes */

char	*token_load_or_create(const char *path, char **cause);
bool	 token_equal(const char *expected, const char *given, size_t given_len);

#endif
