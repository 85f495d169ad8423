/*
 * upload_file's files: which the extension may hand to a page. Each must be
 * a regular file whose real path (links resolved) lies under one of the
 * upload roots (config.json "upload_roots", default ~/Downloads) and
 * outside the host's own directories.
 */
#ifndef UPLOAD_H
#define UPLOAD_H

#include <stddef.h>

#include <jansson.h>

json_t	*upload_check(const json_t *paths, char *const *roots, size_t nroots,
	    const json_t *protected_dirs, char **why);

#endif
