/* Checking and copying the files upload_file may send (upload.h). */
#include "upload.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "os.h"
#include "xmalloc.h"

/* How deep a staging directory goes: PID/N/file. */
#define UPLOAD_STAGE_DEPTH	2
/* Bytes read at a time while copying. */
#define UPLOAD_COPY_CHUNK	(64 * 1024)

/* The staging directory of this host: one subdirectory per copy. */
struct upload_stage {
	int		 parent_fd;	/* browser-bridge/uploads */
	int		 fd;		/* its PID subdirectory */
	char		*name;		/* "PID" */
	char		*dir;		/* the PID subdirectory's path */
	unsigned	 next;		/* the next copy's subdirectory */
	uint64_t	 bytes;		/* bytes of copies kept */
};

/*
 * Removes name (in the directory parent) and, for a directory, what it
 * holds up to depth levels down, never following a link.
 */
static void
upload_remove(int parent, const char *name, int depth)
{
	struct dirent	*entry;
	DIR		*d;
	int		 fd, copy;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT || depth == 0)
		return;
	fd = openat(parent, name, O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC);
	if (fd == -1)
		return;
	/* The stream reads a copy; fd stays for the *at calls below. */
	if ((copy = dup(fd)) == -1 || (d = fdopendir(copy)) == NULL) {
		if (copy != -1)
			close(copy);
		close(fd);
		return;
	}
	while ((entry = readdir(d)) != NULL) {
		if (strcmp(entry->d_name, ".") != 0 &&
		    strcmp(entry->d_name, "..") != 0)
			upload_remove(fd, entry->d_name, depth - 1);
	}
	closedir(d);
	close(fd);
	(void)unlinkat(parent, name, AT_REMOVEDIR);
}

/*
 * Removes the copies of hosts that are gone (a crash leaves them): every
 * PID subdirectory whose process is not running, or is this one (a pid
 * reused).
 */
static void
upload_stage_sweep(int parent_fd)
{
	struct dirent	*entry;
	DIR		*d;
	char		*end;
	long		 pid;
	int		 fd;

	if ((fd = dup(parent_fd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((entry = readdir(d)) != NULL) {
		errno = 0;
		pid = strtol(entry->d_name, &end, 10);
		if (entry->d_name[0] < '1' || entry->d_name[0] > '9' ||
		    *end != '\0' || errno != 0)
			continue;
		if (pid == os_pid() || !os_process_alive(pid))
			upload_remove(parent_fd, entry->d_name,
			    UPLOAD_STAGE_DEPTH);
	}
	closedir(d);
}

/*
 * Opens the staging directory under parent (browser-bridge/uploads, made
 * or checked to be the user's alone), removing the copies of hosts that
 * died; NULL with *cause when it cannot.
 */
struct upload_stage *
upload_stage_new(const char *parent, char **cause)
{
	struct upload_stage	*stage;
	int			 parent_fd, fd;
	char			*name;

	if ((parent_fd = files_private_dir(parent, "so uploads can be copied "
	    "there", cause)) == -1)
		return NULL;
	upload_stage_sweep(parent_fd);
	name = xasprintf("%ld", os_pid());
	if (mkdirat(parent_fd, name, 0700) == -1 ||
	    (fd = openat(parent_fd, name, O_RDONLY|O_DIRECTORY|O_NOFOLLOW|
	    O_CLOEXEC)) == -1) {
		*cause = xasprintf("cannot create directory %s/%s: %s", parent,
		    name, strerror(errno));
		free(name);
		close(parent_fd);
		return NULL;
	}
	stage = xcalloc(1, sizeof *stage);
	stage->parent_fd = parent_fd;
	stage->fd = fd;
	stage->name = name;
	stage->dir = xasprintf("%s/%s", parent, name);
	return stage;
}

/* Removes the staging directory and its copies. */
void
upload_stage_free(struct upload_stage *stage)
{
	if (stage == NULL)
		return;
	close(stage->fd);
	upload_remove(stage->parent_fd, stage->name, UPLOAD_STAGE_DEPTH);
	close(stage->parent_fd);
	free(stage->name);
	free(stage->dir);
	free(stage);
}

/*
 * Whether the real path lies in dir or below it, dir resolved here (every
 * link followed, as the system names it); a root ("/", "C:\") holds
 * every path that starts with it.
 */
static bool
upload_inside(const char *path, const char *dir)
{
	char	*real;
	size_t	 len;
	bool	 inside;

	if ((real = realpath(dir, NULL)) == NULL)
		return false;
	len = strlen(real);
	inside = strncmp(path, real, len) == 0 && (path[len] == '\0' ||
	    os_path_is_separator(path[len]) ||
	    (len > 0 && os_path_is_separator(real[len - 1])));
	free(real);
	return inside;
}

/* Whether a real path lies under any of dirs. */
static bool
upload_under_any(const char *path, char *const *dirs, size_t count)
{
	size_t	i;

	for (i = 0; i < count; i++) {
		if (upload_inside(path, dirs[i]))
			return true;
	}
	return false;
}

/* Whether a real path lies in one of the protected directories. */
static bool
upload_protected(const char *path, const json_t *protected_dirs)
{
	const json_t	*dir;
	size_t		 i;

	json_array_foreach(protected_dirs, i, dir) {
		if (json_is_string(dir) &&
		    upload_inside(path, json_string_value(dir)))
			return true;
	}
	return false;
}

/* The file name at the end of path (after its last separator). */
static const char *
upload_file_name(const char *path)
{
	const char	*name = path, *p;

	for (p = path; *p != '\0'; p++) {
		if (os_path_is_separator(*p))
			name = p + 1;
	}
	return name;
}

/*
 * Why path cannot name an upload (heap), or NULL: it must be absolute as
 * the system writes paths ("/..."; "C:\..." or "\\server\share\..."
 * on Windows) and end in a file name. Windows' device and verbatim forms
 * ("\\.\", "\\?\") skip the rules that make a name mean one file,
 * and a colon past the drive names a stream of a file: both refused.
 */
char *
upload_path_problem(const char *path)
{
	const char	*colon;

	if (!os_path_is_absolute(path) || *upload_file_name(path) == '\0')
		return xasprintf("\"%s\" is not an absolute path of a file",
		    path);
	if (os_path_is_separator(path[0]) && os_path_is_separator(path[1]) &&
	    (path[2] == '?' || path[2] == '.') &&
	    os_path_is_separator(path[3]))
		return xasprintf("\"%s\" is a device or verbatim path; give "
		    "the file's plain path (C:\\...)", path);
	if (os_family() == OS_FAMILY_WINDOWS &&
	    (colon = strchr(path + 2, ':')) != NULL)
		return xasprintf("\"%s\" names a stream of a file (the colon "
		    "after %.*s); give the file's own path", path,
		    (int)(colon - path), path);
	return NULL;
}

/*
 * Copies the open file src (named path, size bytes when checked) into a
 * new subdirectory of the staging directory under path's file name, which
 * the page sees; returns the copy's path, or NULL with *why.
 */
static char *
upload_copy(struct upload_stage *stage, int src, const char *path,
    char **why)
{
	const char	*name = upload_file_name(path);
	char		*sub = NULL, *buf = NULL, *copy = NULL;
	uint64_t	 total = 0;
	ssize_t		 n;
	int		 dir = -1, out = -1, rc;

	do {
		free(sub);
		sub = xasprintf("%u", stage->next++);
	} while ((rc = mkdirat(stage->fd, sub, 0700)) == -1 && errno == EEXIST);
	if (rc == -1 || (dir = openat(stage->fd, sub, O_RDONLY|O_DIRECTORY|
	    O_NOFOLLOW|O_CLOEXEC)) == -1 || (out = openat(dir, name,
	    O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600)) == -1) {
		*why = xasprintf("cannot copy %s into %s/%s: %s", path,
		    stage->dir, sub, strerror(errno));
		goto out;
	}
	buf = xmalloc(UPLOAD_COPY_CHUNK);
	for (;;) {
		n = read(src, buf, UPLOAD_COPY_CHUNK);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (uint64_t)n;
		if (total > UPLOAD_FILE_MAX) {
			*why = xasprintf("%s grew past %d MiB while it was "
			    "copied, more than upload_file takes; upload it "
			    "once it is complete and smaller",
			    path, UPLOAD_FILE_MAX / (1024 * 1024));
			goto out;
		}
		if (files_write_all(out, buf, (size_t)n) == -1)
			break;
	}
	if (n != 0 || close(out) == -1) {
		*why = xasprintf("cannot copy %s into %s/%s: %s", path,
		    stage->dir, sub, strerror(errno));
		out = -1;
		goto out;
	}
	out = -1;
	stage->bytes += total;
	copy = xasprintf("%s/%s/%s", stage->dir, sub, name);

out:
	if (out != -1)
		close(out);
	if (dir != -1)
		close(dir);
	if (copy == NULL)
		upload_remove(stage->fd, sub, UPLOAD_STAGE_DEPTH - 1);
	free(buf);
	free(sub);
	return copy;
}

/*
 * Checks one file and copies it into the staging directory: the copy's
 * path, or NULL with *why (heap) saying what is wrong and what to do.
 */
static char *
upload_stage_file(const char *path, char *const *roots, size_t nroots,
    const json_t *protected_dirs, struct upload_stage *stage, char **why)
{
	struct stat	 sb;
	char		*real = NULL, *copy = NULL;
	int		 fd;

	fd = os_open_nofollow(path, O_RDONLY, 0);
	if (fd == -1 && errno == ELOOP) {
		*why = xasprintf("%s is a symbolic link; upload_file takes a "
		    "file by its own path: give the path of the file it "
		    "points to (which must lie under the upload roots)", path);
		return NULL;
	}
	if (fd == -1 || fstat(fd, &sb) == -1) {
		*why = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		*why = xasprintf("%s is not a regular file", path);
		goto out;
	}
	if (sb.st_nlink != 1) {
		*why = xasprintf("%s has %lu hard links, and upload_file takes "
		    "only a file with one, whose place is certain; upload a "
		    "copy of it instead (cp %s COPY)", path,
		    (unsigned long)sb.st_nlink, path);
		goto out;
	}
	if (sb.st_size > UPLOAD_FILE_MAX) {
		*why = xasprintf("%s has %jd bytes, more than the %d MiB "
		    "upload_file copies; make it smaller (split or compress "
		    "it) or have the user attach it in the browser", path,
		    (intmax_t)sb.st_size, UPLOAD_FILE_MAX / (1024 * 1024));
		goto out;
	}
	if (stage->bytes + (uint64_t)sb.st_size > UPLOAD_STAGE_MAX) {
		*why = xasprintf("the host already keeps %ju bytes of copies "
		    "of uploaded files, and keeps at most %d MiB; they are "
		    "removed when it exits: close the browser or reload the "
		    "extension, then try again", (uintmax_t)stage->bytes,
		    UPLOAD_STAGE_MAX / (1024 * 1024));
		goto out;
	}
	/*
	 * Where the open file lies, not where the caller's name leads: that
	 * name can change between two looks, the open file cannot. A file
	 * with one link has no other place, so the bytes read from fd come
	 * from there.
	 */
	if ((real = os_opened_path(fd, path)) == NULL) {
		*why = xasprintf("cannot tell where %s lies (%s); upload a "
		    "file by its own path, not through a link", path,
		    strerror(errno));
		goto out;
	}
	if (!upload_under_any(real, roots, nroots) ||
	    upload_protected(real, protected_dirs)) {
		*why = xasprintf("%s is outside the directories uploads may "
		    "come from (\"upload_roots\" in config.json: %s%s)", path,
		    roots[0], nroots > 1 ? ", ..." : "");
		goto out;
	}
	copy = upload_copy(stage, fd, path, why);

out:
	if (fd != -1)
		close(fd);
	free(real);
	return copy;
}

/* Removes a copy upload_copy made (a path under stage->dir). */
static void
upload_discard(struct upload_stage *stage, const char *copy)
{
	struct stat	 sb;
	char		*sub;

	sub = xstrdup(copy + strlen(stage->dir) + 1);
	if (fstatat(stage->fd, sub, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (uint64_t)sb.st_size <= stage->bytes)
		stage->bytes -= (uint64_t)sb.st_size;
	*strchr(sub, '/') = '\0';
	upload_remove(stage->fd, sub, UPLOAD_STAGE_DEPTH - 1);
	free(sub);
}

/*
 * Checks paths (an array of absolute paths) and copies the files into the
 * staging directory: a new array of the copies' paths, or NULL with *why
 * (heap) naming the first that may not go and why. Copies of a refused
 * call's earlier files are removed.
 */
json_t *
upload_check(const json_t *paths, char *const *roots, size_t nroots,
    const json_t *protected_dirs, struct upload_stage *stage, char **why)
{
	const json_t	*item;
	const char	*path;
	char		*copy;
	json_t		*copies = json_array();
	size_t		 i;

	if (nroots == 0) {
		*why = xstrdup("uploads are off: config.json's \"upload_roots\" "
		    "is empty; list the directories files may come from");
		goto fail;
	}
	if (stage == NULL) {
		*why = xstrdup("uploads need a private directory for copies "
		    "and the host has none (neither XDG_RUNTIME_DIR nor HOME "
		    "is set); set one of them and restart the browser");
		goto fail;
	}
	json_array_foreach(paths, i, item) {
		path = json_string_value(item);
		if (path == NULL) {
			*why = xstrdup("a path is not a string");
			goto fail;
		}
		if ((*why = upload_path_problem(path)) != NULL)
			goto fail;
		if ((copy = upload_stage_file(path, roots, nroots,
		    protected_dirs, stage, why)) == NULL)
			goto fail;
		json_array_append_new(copies, json_string(copy));
		free(copy);
	}
	return copies;
fail:
	json_array_foreach(copies, i, item)
		upload_discard(stage, json_string_value(item));
	json_decref(copies);
	return NULL;
}
