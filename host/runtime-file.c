/* The runtime file that tells other tools where a running host listens. */
#include "runtime-file.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

#define RUNTIME_FILE_NAME	"browser-bridge/host.json"

/* Returns an XDG base directory variable, or NULL if unset, empty or relative. */
static const char *
runtime_file_xdg_dir(const char *name)
{
	const char	*value = getenv(name);

	if (value == NULL || *value != '/')
		return NULL;
	return value;
}

/* Returns the runtime file's path; creates nothing. */
char *
runtime_file_path(char **cause)
{
	const char	*dir, *home;

	if ((dir = runtime_file_xdg_dir("XDG_RUNTIME_DIR")) != NULL)
		return xasprintf("%s/%s", dir, RUNTIME_FILE_NAME);
	if ((dir = runtime_file_xdg_dir("XDG_STATE_HOME")) != NULL)
		return xasprintf("%s/%s", dir, RUNTIME_FILE_NAME);
	home = getenv("HOME");
	if (home != NULL && *home != '\0')
		return xasprintf("%s/.local/state/%s", home, RUNTIME_FILE_NAME);
	*cause = xstrdup("cannot place the runtime file: neither "
	    "XDG_RUNTIME_DIR nor HOME is set; set one of them");
	return NULL;
}

/* Returns the directory part of path as a new string. */
static char *
runtime_file_dirname(const char *path)
{
	const char	*slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* Creates dir and any missing parents, each new one with mode 0700. */
static int
runtime_file_make_dirs(const char *dir, char **cause)
{
	struct stat	 sb;
	char		*copy, *p, saved;

	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	copy = xstrdup(dir);
	for (p = copy + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		saved = *p;
		*p = '\0';
		if (mkdir(copy, 0700) == -1 && errno != EEXIST) {
			*cause = xasprintf("cannot create directory %s: %s",
			    copy, strerror(errno));
			free(copy);
			return -1;
		}
		if (saved == '\0')
			break;
		*p = saved;
	}
	free(copy);
	if (stat(dir, &sb) == -1 || !S_ISDIR(sb.st_mode)) {
		*cause = xasprintf("%s is not a directory; move it away so the "
		    "runtime file can be written there", dir);
		return -1;
	}
	return 0;
}

/* Writes all of buf to fd. */
static int
runtime_file_write_all(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes contents as indented JSON to path through a temporary file. */
int
runtime_file_write(const char *path, const json_t *contents, char **cause)
{
	char	*dir, *tmp = NULL, *text = NULL, *line = NULL;
	int	 fd, result = -1;

	dir = runtime_file_dirname(path);
	if (runtime_file_make_dirs(dir, cause) == -1)
		goto out;
	text = json_dumps(contents, JSON_INDENT(2));
	if (text == NULL) {
		*cause = xstrdup("cannot encode the runtime file's contents");
		goto out;
	}
	line = xasprintf("%s\n", text);

	/* mkostemp opens with O_CREAT|O_EXCL and mode 0600. */
	tmp = xasprintf("%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd == -1) {
		*cause = xasprintf("cannot create runtime file in %s: %s", dir,
		    strerror(errno));
		goto out;
	}
	if (runtime_file_write_all(fd, line, strlen(line)) == -1 ||
	    fsync(fd) == -1) {
		*cause = xasprintf("cannot write runtime file %s: %s", tmp,
		    strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) == -1) {
		*cause = xasprintf("cannot write runtime file %s: %s", tmp,
		    strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) == -1) {
		*cause = xasprintf("cannot rename %s to %s: %s", tmp, path,
		    strerror(errno));
		unlink(tmp);
		goto out;
	}
	result = 0;

out:
	free(line);
	free(text);
	free(tmp);
	free(dir);
	return result;
}

/* Removes the runtime file only if it still names this pid. */
void
runtime_file_remove(const char *path, long pid)
{
	struct stat	 opened, now;
	json_t		*root, *value;
	json_error_t	 error;
	bool		 ours;
	int		 fd;

	fd = open(path, O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_NOCTTY|O_CLOEXEC);
	if (fd == -1)
		return;
	if (fstat(fd, &opened) == -1 || !S_ISREG(opened.st_mode)) {
		close(fd);
		return;
	}
	root = json_loadfd(fd, 0, &error);
	close(fd);
	if (root == NULL)
		return;
	value = json_object_get(root, "pid");
	ours = json_is_integer(value) && json_integer_value(value) == pid;
	json_decref(root);
	if (!ours)
		return;

	/* A newer host may have renamed its own file into place meanwhile. */
	if (lstat(path, &now) == -1 || now.st_dev != opened.st_dev ||
	    now.st_ino != opened.st_ino)
		return;
	(void)unlink(path);
}
