/*
 * upload_file's files: which the extension may hand to a page, and the
 * private copies it hands over instead of the user's files. Each file must
 * be named without a symbolic link at its end, be a regular file with one
 * link, and lie (as opened, not as named) under one of the upload roots
 * (config.json "upload_roots", default ~/Downloads) and outside the host's
 * own directories. Chrome reads a chosen file's path only when the page
 * reads the file, so the page gets a copy in the host's staging directory
 * (browser-bridge/uploads/PID/ next to the runtime files, mode 0700): what
 * happens to the user's path after the check cannot change what the page
 * reads. The copies last while the host runs (a form may send them long
 * after upload_file returns), are removed when it exits, and copies of
 * hosts that died are removed when the next one starts.
 */
#ifndef UPLOAD_H
#define UPLOAD_H

#include <stddef.h>

#include <jansson.h>

/* Largest file upload_file copies. */
#define UPLOAD_FILE_MAX		(64 * 1024 * 1024)
/* Most bytes of copies one host keeps at once. */
#define UPLOAD_STAGE_MAX	(512 * 1024 * 1024)

struct upload_stage;

struct upload_stage *upload_stage_new(const char *parent, char **cause);
void	 upload_stage_free(struct upload_stage *stage);
char	*upload_path_problem(const char *path);
json_t	*upload_check(const json_t *paths, char *const *roots, size_t nroots,
	    const json_t *protected_dirs, struct upload_stage *stage,
	    char **why);

#endif
