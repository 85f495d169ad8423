/* The runtime files that tell other tools where the running hosts listen. */
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

#include "files.h"
#include "os.h"
#include "xmalloc.h"

#define RUNTIME_DIR_NAME	"browser-bridge/hosts"

/*
 * Returns the directory this process writes its runtime file in: under the
 * session's runtime directory, else the user's state directory.
 */
static char *
runtime_file_dir(char **cause)
{
	char	*base, *dir;

	if ((base = os_user_dir(OS_USER_RUNTIME, cause)) == NULL &&
	    (base = os_user_dir(OS_USER_STATE, cause)) == NULL) {
		free(*cause);
		*cause = xstrdup("cannot place the runtime file: neither "
		    "XDG_RUNTIME_DIR nor HOME is set; set one of them");
		return NULL;
	}
	dir = xasprintf("%s/%s", base, RUNTIME_DIR_NAME);
	free(base);
	return dir;
}

/* Returns this host's runtime file path (named by its pid); creates nothing. */
char *
runtime_file_path(char **cause)
{
	char	*dir, *path;

	if ((dir = runtime_file_dir(cause)) == NULL)
		return NULL;
	path = xasprintf("%s/%ld.json", dir, (long)getpid());
	free(dir);
	return path;
}

/*
 * Fills dirs (heap strings) with every directory a host may have written
 * its runtime file in, in the order readers prefer: $XDG_RUNTIME_DIR, or
 * when it is not set the session's runtime directory where the system has
 * one (/run/user/UID on systemd systems, for readers started without the
 * variable, as MCP clients start stdio servers; a reader that names its own
 * runtime directory sees only that session's hosts), then the user's state
 * directory ($XDG_STATE_HOME) and its default ($HOME/.local/state); each
 * once. Returns how many.
 */
size_t
runtime_file_dirs(char *dirs[RUNTIME_FILE_DIRS_MAX])
{
	char		*candidates[RUNTIME_FILE_DIRS_MAX], *base, *cause = NULL;
	size_t		 n = 0, count = 0, i, j;
	bool		 seen;

	if ((base = os_user_dir(OS_USER_RUNTIME, &cause)) == NULL)
		base = os_session_runtime_dir();
	if (base != NULL) {
		candidates[n++] = xasprintf("%s/%s", base, RUNTIME_DIR_NAME);
		free(base);
	}
	if ((base = os_user_dir(OS_USER_STATE, &cause)) != NULL) {
		candidates[n++] = xasprintf("%s/%s", base, RUNTIME_DIR_NAME);
		free(base);
	}
	free(cause);
	if ((base = os_user_dir_default(OS_USER_STATE)) != NULL) {
		candidates[n++] = xasprintf("%s/%s", base, RUNTIME_DIR_NAME);
		free(base);
	}
	for (i = 0; i < n; i++) {
		seen = false;
		for (j = 0; j < count; j++)
			seen = seen || strcmp(dirs[j], candidates[i]) == 0;
		if (seen)
			free(candidates[i]);
		else
			dirs[count++] = candidates[i];
	}
	return count;
}

/*
 * Makes or checks the directories the runtime file at path goes in (its
 * own and the one above it, browser-bridge), each the user's alone, and
 * returns the upper one; NULL with *cause saying how to fix them.
 */
char *
runtime_file_prepare(const char *path, char **cause)
{
	char	*hosts = files_dirname(path), *base = files_dirname(hosts);
	int	 fd = -1;

	if ((fd = files_private_dir(base, "so the host's runtime files can "
	    "be kept there", cause)) != -1) {
		close(fd);
		fd = files_private_dir(hosts, "so the runtime file can be "
		    "written there", cause);
	}
	free(hosts);
	if (fd == -1) {
		free(base);
		return NULL;
	}
	close(fd);
	return base;
}

/* Writes contents as indented JSON to path through a temporary file. */
int
runtime_file_write(const char *path, const json_t *contents, char **cause)
{
	char	*dir, *tmp = NULL, *text = NULL, *line = NULL;
	int	 result = -1, fd;

	dir = files_dirname(path);
	if ((fd = files_private_dir(dir, "so the runtime file can be written "
	    "there", cause)) == -1)
		goto out;
	close(fd);
	text = json_dumps(contents, JSON_INDENT(2));
	if (text == NULL) {
		*cause = xstrdup("cannot encode the runtime file's contents");
		goto out;
	}
	line = xasprintf("%s\n", text);

	if ((tmp = files_write_temp(path, "runtime file", line, strlen(line),
	    cause)) == NULL)
		goto out;
	if (os_replace_file(tmp, path) == -1) {
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

	fd = os_open_nofollow(path, O_RDONLY, 0);
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
