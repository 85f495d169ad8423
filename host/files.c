/* File-system helpers: dirname, mkdir -p, whole and temporary writes. */
#include "files.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os.h"
#include "os.h"
#include "xmalloc.h"

/* Returns the directory part of path as a new string ("." if it has none). */
char *
files_dirname(const char *path)
{
	const char	*slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/*
 * Creates dir and any missing parents, each new one with mode. A part of the
 * path that exists but is not a directory is an error whose message ends
 * with purpose ("so the token can be stored there").
 */
int
files_make_dirs(const char *dir, mode_t mode, const char *purpose,
    char **cause)
{
	struct stat	 sb;
	char		*copy, *p, saved;
	int		 rc = 0;

	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	copy = xstrdup(dir);
	p = copy;
	do {
		p += strspn(p, "/");
		p += strcspn(p, "/");
		saved = *p;
		*p = '\0';
		/* Made with its mode whatever the umask: a browser running
		 * as another user must still read a system directory. */
		if (((mode & 077) == 0 ? os_make_private_dir(copy) :
		    os_make_shared_dir(copy)) == -1 && errno != EEXIST) {
			*cause = xasprintf("cannot create directory %s: %s",
			    copy, strerror(errno));
			rc = -1;
		}
		if (rc == 0 && (stat(copy, &sb) == -1 ||
		    !S_ISDIR(sb.st_mode))) {
			*cause = xasprintf("%s is not a directory; move it "
			    "away %s", copy, purpose);
			rc = -1;
		}
		*p = saved;
	} while (rc == 0 && *p != '\0');
	free(copy);
	return rc;
}

/*
 * Opens an existing directory of the host's own without following a link
 * and checks that only the user can change it: owned by the user, no group
 * or other write. Returns the open directory, or -1 with *cause saying how
 * to fix it; -1 with errno ENOENT or ENOTDIR and no cause when no directory
 * is there.
 */
int
files_open_private_dir(const char *dir, char **cause)
{
	struct stat	 sb;
	char		*detail = NULL, *fix;
	int		 fd;

	fd = os_open_nofollow(dir, O_RDONLY|O_DIRECTORY, 0);
	if (fd == -1) {
		if (errno == ELOOP ||
		    (lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode))) {
			*cause = xasprintf("%s is a symbolic link, and the host "
			    "keeps its files only in a directory of its own; "
			    "remove the link (rm %s) and the host makes the "
			    "directory", dir, dir);
			errno = ELOOP;
		} else if (errno != ENOENT && errno != ENOTDIR)
			*cause = xasprintf("cannot open directory %s: %s", dir,
			    strerror(errno));
		return -1;
	}
	switch (os_privacy_check(fd, &detail)) {
	case OS_PRIVATE:
	case OS_READABLE_BY_OTHERS:
		free(detail);
		return fd;
	case OS_OWNED_BY_OTHER:
		*cause = xasprintf("directory %s %s, so its owner could change "
		    "the host's files; remove it (or have its owner do so) and "
		    "the host makes its own", dir, detail);
		break;
	case OS_WRITABLE_BY_OTHERS:
		fix = os_privacy_fix(dir, true);
		*cause = xasprintf("directory %s can be changed by other users "
		    "(%s); run: %s", dir, detail, fix);
		free(fix);
		break;
	case OS_PRIVACY_UNKNOWN:
		*cause = xasprintf("cannot stat directory %s: %s", dir,
		    strerror(errno));
		break;
	}
	free(detail);
	close(fd);
	errno = EPERM;
	return -1;
}

/*
 * Checks a directory of the host's own if it exists (see
 * files_open_private_dir); a missing one is fine (making it says what is
 * in the way). Returns 0 or -1.
 */
int
files_check_private_dir(const char *dir, char **cause)
{
	int	fd;

	if ((fd = files_open_private_dir(dir, cause)) == -1)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	close(fd);
	return 0;
}

/*
 * Makes a directory of the host's own (mode 0700, missing parents too) or
 * checks the one there, and returns it open; -1 with *cause ending with
 * purpose when it cannot be made or is not private.
 */
int
files_private_dir(const char *dir, const char *purpose, char **cause)
{
	char	*parent = files_dirname(dir);
	int	 fd, rc;

	rc = files_make_dirs(parent, 0700, purpose, cause);
	free(parent);
	if (rc == -1)
		return -1;
	if (os_make_private_dir(dir) == -1 && errno != EEXIST) {
		*cause = xasprintf("cannot create directory %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	if ((fd = files_open_private_dir(dir, cause)) == -1 &&
	    (errno == ENOENT || errno == ENOTDIR))
		*cause = xasprintf("%s is not a directory; move it away %s",
		    dir, purpose);
	return fd;
}

/* Writes all of buf to fd, retrying after signals; -1 with errno on error. */
int
files_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Formats text and writes all of it to fd (user-facing command output). */
void
files_vprintf(int fd, const char *fmt, va_list ap)
{
	char	*text = xvasprintf(fmt, ap);

	(void)files_write_all(fd, text, strlen(text));
	free(text);
}

/* Formats text and writes all of it to fd. */
void
files_printf(int fd, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	files_vprintf(fd, fmt, ap);
	va_end(ap);
}

/*
 * Writes buf to a new file next to path (path.XXXXXX, mode 0600), flushed
 * to disk, and returns its name for the caller to move into place; what
 * names the file in messages ("token file").
 */
char *
files_write_temp(const char *path, const char *what, const void *buf,
    size_t len, char **cause)
{
	char	*tmp, *dir;
	int	 fd;

	/* mkostemp opens with O_CREAT|O_EXCL and mode 0600. */
	tmp = xasprintf("%s.XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		dir = files_dirname(path);
		*cause = xasprintf("cannot create %s in %s: %s", what, dir,
		    strerror(errno));
		free(dir);
		free(tmp);
		return NULL;
	}
	if (files_write_all(fd, buf, len) == -1 || fsync(fd) == -1) {
		*cause = xasprintf("cannot write %s %s: %s", what, tmp,
		    strerror(errno));
		close(fd);
		goto fail;
	}
	if (close(fd) == -1) {
		*cause = xasprintf("cannot write %s %s: %s", what, tmp,
		    strerror(errno));
		goto fail;
	}
	return tmp;

fail:
	unlink(tmp);
	free(tmp);
	return NULL;
}
