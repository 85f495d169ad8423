/*
 * The runtime file other tools read to find a running host:
 * $XDG_RUNTIME_DIR/browser-bridge/host.json, or, without XDG_RUNTIME_DIR,
 * ${XDG_STATE_HOME:-$HOME/.local/state}/browser-bridge/host.json.
 * It holds {"pid","port","version","url","started"} and is written
 * atomically (temporary file and rename), mode 0600 in a 0700 directory.
 * Readers look in every place a host may have written it, since an MCP
 * client may start them with an environment that lacks XDG_RUNTIME_DIR.
 */
#ifndef RUNTIME_FILE_H
#define RUNTIME_FILE_H

#include <jansson.h>

char	*runtime_file_path(char **cause);
char	*runtime_file_find(char **cause);
int	 runtime_file_write(const char *path, const json_t *contents,
	    char **cause);
/* Removes the file only if it still names this pid. */
void	 runtime_file_remove(const char *path, long pid);

#endif
