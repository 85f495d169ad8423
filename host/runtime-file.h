/*
 * The runtime files other tools read to find the running hosts: one per
 * host (one per browser profile with the extension), named by its pid, in
 * $XDG_RUNTIME_DIR/browser-bridge/hosts/, or, without XDG_RUNTIME_DIR,
 * ${XDG_STATE_HOME:-$HOME/.local/state}/browser-bridge/hosts/. Each holds
 * {"pid","port","version","url","started","browser","profile","name"} and
 * is written atomically (temporary file and rename), mode 0600 in a 0700
 * directory, and removed at exit. Readers look in every directory a host
 * may have written to, since an MCP client may start them with an
 * environment that lacks XDG_RUNTIME_DIR (instance.h reads them). The
 * host refuses to start when browser-bridge/ or hosts/ is a link or others
 * may change it, and readers skip such a directory.
 */
#ifndef RUNTIME_FILE_H
#define RUNTIME_FILE_H

#include <stddef.h>

#include <jansson.h>

#define RUNTIME_FILE_DIRS_MAX	4

char	*runtime_file_path(char **cause);
char	*runtime_file_prepare(const char *path, char **cause);
size_t	 runtime_file_dirs(char *dirs[RUNTIME_FILE_DIRS_MAX]);
int	 runtime_file_write(const char *path, const json_t *contents,
	    char **cause);
/* Removes the file only if it still names this pid. */
void	 runtime_file_remove(const char *path, long pid);

#endif
