/* File-system helpers: dirname, mkdir -p, whole and temporary writes. */
#include "files.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		if (mkdir(copy, mode) == 0) {
			/* mkdir applies the umask; a browser running as
			 * another user must still read a system directory. */
			if (chmod(copy, mode) == -1) {
				*cause = xasprintf("cannot set the mode of %s: "
				    "%s", copy, strerror(errno));
				rc = -1;
			}
		} else if (errno != EEXIST) {
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
