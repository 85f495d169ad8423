/* The bearer token: made once with a CSPRNG and kept in a private file. */
#include "token.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "os.h"
#include "random.h"
#include "xmalloc.h"

#define TOKEN_MAX_LENGTH	256
#define TOKEN_CREATE_TRIES	3

enum token_read_result {
	TOKEN_READ_OK,
	TOKEN_READ_MISSING,	/* no file yet: make one */
	TOKEN_READ_FAILED,	/* *cause says what is wrong and how to fix it */
};

/* Says whether c may appear in a token: printable ASCII other than space. */
static bool
token_char_valid(unsigned char c)
{
	return c > 0x20 && c < 0x7f;
}

/* Says whether c is whitespace that may trail the token in its file. */
static bool
token_char_trailing(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Reads an existing token file, refusing one others could read or change. */
static enum token_read_result
token_read(const char *path, char **token, char **cause)
{
	struct stat	 sb;
	char		 buf[TOKEN_MAX_LENGTH + 64], *detail = NULL, *fix = NULL;
	size_t		 len = 0, i;
	ssize_t		 n;
	int		 fd;

	fd = os_open_nofollow(path, O_RDONLY, 0);
	if (fd == -1) {
		/* ENOTDIR: token_create says which part is in the way. */
		if (errno == ENOENT || errno == ENOTDIR)
			return TOKEN_READ_MISSING;
		if (errno == ELOOP) {
			*cause = xasprintf("token file %s is a symbolic link; "
			    "delete it and a new one is made", path);
		} else {
			*cause = xasprintf("cannot open token file %s: %s",
			    path, strerror(errno));
		}
		return TOKEN_READ_FAILED;
	}
	if (fstat(fd, &sb) == -1) {
		*cause = xasprintf("cannot stat token file %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		*cause = xasprintf("token file %s is not a regular file; "
		    "delete it and a new one is made", path);
		goto fail;
	}
	switch (os_privacy_check(fd, &detail)) {
	case OS_PRIVATE:
		break;
	case OS_OWNED_BY_OTHER:
		*cause = xasprintf("token file %s %s; delete it and a new one "
		    "is made", path, detail);
		goto fail;
	case OS_WRITABLE_BY_OTHERS:
	case OS_READABLE_BY_OTHERS:
		fix = os_privacy_fix(path, false);
		*cause = xasprintf("token file %s is open to other users (%s); "
		    "run: %s", path, detail, fix);
		goto fail;
	case OS_PRIVACY_UNKNOWN:
		*cause = xasprintf("cannot tell who may read token file %s: "
		    "%s", path, strerror(errno));
		goto fail;
	}

	while (len < sizeof buf) {
		n = read(fd, buf + len, sizeof buf - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			*cause = xasprintf("cannot read token file %s: %s",
			    path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);

	if (len == sizeof buf)
		goto malformed;
	while (len > 0 && token_char_trailing((unsigned char)buf[len - 1]))
		len--;
	if (len < TOKEN_HEX_LENGTH || len > TOKEN_MAX_LENGTH)
		goto malformed;
	for (i = 0; i < len; i++) {
		if (!token_char_valid((unsigned char)buf[i]))
			goto malformed;
	}
	*token = xstrndup(buf, len);
	return TOKEN_READ_OK;

malformed:
	*cause = xasprintf("token file %s is malformed (it must hold %d to %d "
	    "printable characters without spaces); delete it and a new one is "
	    "made", path, TOKEN_HEX_LENGTH, TOKEN_MAX_LENGTH);
	return TOKEN_READ_FAILED;

fail:
	close(fd);
	free(detail);
	free(fix);
	return TOKEN_READ_FAILED;
}

/*
 * Makes a new token file: the token goes into a temporary file, then link(2)
 * puts it at path only if nothing is there yet, so two hosts starting at
 * once agree on one token. Returns 0 when made, 1 when another process made
 * the file first (read that one), -1 on error.
 */
static int
token_create(const char *path, char **token, char **cause)
{
	char	 text[TOKEN_HEX_LENGTH + 2];
	char	*dir, *tmp = NULL;
	int	 result = -1, fd;

	dir = files_dirname(path);
	if ((fd = files_private_dir(dir, "so the token can be stored there",
	    cause)) == -1) {
		free(dir);
		return -1;
	}
	close(fd);
	if (random_hex(text, TOKEN_HEX_LENGTH / 2) == -1) {
		*cause = xasprintf("cannot make a random token: %s",
		    strerror(errno));
		free(dir);
		return -1;
	}
	text[TOKEN_HEX_LENGTH] = '\n';
	text[TOKEN_HEX_LENGTH + 1] = '\0';

	if ((tmp = files_write_temp(path, "token file", text,
	    TOKEN_HEX_LENGTH + 1, cause)) == NULL)
		goto out;

	if (link(tmp, path) == 0)
		result = 0;
	else if (errno == EEXIST)
		result = 1;
	else if (errno == EPERM || errno == ENOTSUP || errno == ENOSYS ||
	    errno == EMLINK) {
		/* No hard links here: rename, unless the file appeared. */
		if (access(path, F_OK) == 0)
			result = 1;
		else if (os_replace_file(tmp, path) == 0)
			result = 0;
	}
	if (result == -1) {
		*cause = xasprintf("cannot create token file %s: %s", path,
		    strerror(errno));
	}
	unlink(tmp);
	if (result == 0) {
		os_sync_dir(dir);
		*token = xstrndup(text, TOKEN_HEX_LENGTH);
	}

out:
	free(tmp);
	free(dir);
	return result;
}

/*
 * Returns the token stored at path, making the file first if it is missing;
 * its directory must be the user's alone.
 */
char *
token_load_or_create(const char *path, char **cause)
{
	char	*token = NULL, *dir = files_dirname(path);
	int	 tries, rc;

	rc = files_check_private_dir(dir, cause);
	free(dir);
	if (rc == -1)
		return NULL;
	for (tries = 0; tries < TOKEN_CREATE_TRIES; tries++) {
		switch (token_read(path, &token, cause)) {
		case TOKEN_READ_OK:
			return token;
		case TOKEN_READ_FAILED:
			return NULL;
		case TOKEN_READ_MISSING:
			break;
		}
		switch (token_create(path, &token, cause)) {
		case 0:
			return token;
		case -1:
			return NULL;
		}
		/* Another process made the file first: read its token. */
	}
	*cause = xasprintf("token file %s keeps appearing and disappearing; "
	    "stop whatever else is changing it and try again", path);
	return NULL;
}

/*
 * Compares a token in time that depends only on the lengths, not on where
 * the first difference is.
 */
bool
token_equal(const char *expected, const char *given, size_t given_len)
{
	volatile unsigned char	 diff;
	size_t			 expected_len, longest, i;
	unsigned char		 a, b;

	if (expected == NULL || given == NULL)
		return false;
	expected_len = strlen(expected);
	longest = expected_len > given_len ? expected_len : given_len;
	diff = expected_len != given_len;
	for (i = 0; i < longest; i++) {
		a = i < expected_len ? (unsigned char)expected[i] : 0;
		b = i < given_len ? (unsigned char)given[i] : 0;
		diff |= a ^ b;
	}
	return diff == 0;
}
