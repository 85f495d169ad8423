/* Checking the files upload_file may send (upload.h). */
#include "upload.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* Whether path is dir or lies below it (both real paths). */
static bool
upload_inside(const char *path, const char *dir)
{
	size_t	len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, len) == 0 &&
	    (path[len] == '/' || path[len] == '\0');
}

/* Whether a real path lies under any of dirs (resolved here). */
static bool
upload_under_any(const char *path, char *const *dirs, size_t count)
{
	char	 real[PATH_MAX];
	size_t	 i;

	for (i = 0; i < count; i++) {
		if (realpath(dirs[i], real) != NULL && upload_inside(path, real))
			return true;
	}
	return false;
}

/* Whether a real path lies in one of the protected directories. */
static bool
upload_protected(const char *path, const json_t *protected_dirs)
{
	const json_t	*dir;
	char		 real[PATH_MAX];
	size_t		 i;

	json_array_foreach(protected_dirs, i, dir) {
		if (json_is_string(dir) &&
		    realpath(json_string_value(dir), real) != NULL &&
		    upload_inside(path, real))
			return true;
	}
	return false;
}

/*
 * Resolves paths (an array of absolute paths) to the real paths of files
 * that may be uploaded: a new array, or NULL with *why (heap) naming the
 * first that may not and the roots that apply.
 */
json_t *
upload_check(const json_t *paths, char *const *roots, size_t nroots,
    const json_t *protected_dirs, char **why)
{
	const json_t	*item;
	const char	*path;
	struct stat	 sb;
	char		 real[PATH_MAX];
	json_t		*resolved = json_array();
	size_t		 i;

	if (nroots == 0) {
		*why = xstrdup("uploads are off: config.json's \"upload_roots\" "
		    "is empty; list the directories files may come from");
		goto fail;
	}
	json_array_foreach(paths, i, item) {
		path = json_string_value(item);
		if (path == NULL || *path != '/') {
			*why = xasprintf("\"%s\" is not an absolute path",
			    path != NULL ? path : "(not a string)");
			goto fail;
		}
		if (realpath(path, real) == NULL || stat(real, &sb) == -1) {
			*why = xasprintf("%s: %s", path, strerror(errno));
			goto fail;
		}
		if (!S_ISREG(sb.st_mode)) {
			*why = xasprintf("%s is not a regular file", path);
			goto fail;
		}
		if (!upload_under_any(real, roots, nroots) ||
		    upload_protected(real, protected_dirs)) {
			*why = xasprintf("%s is outside the directories uploads "
			    "may come from (\"upload_roots\" in config.json: "
			    "%s%s)", path, roots[0], nroots > 1 ? ", ..." : "");
			goto fail;
		}
		json_array_append_new(resolved, json_string(real));
	}
	return resolved;
fail:
	json_decref(resolved);
	return NULL;
}
