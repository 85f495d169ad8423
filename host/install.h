/*
 * Registering the host with Chrome-family browsers: where each browser looks
 * for native-messaging manifests (Linux and macOS directories, Windows
 * registry keys naming the manifest's file), the manifest's exact text, and
 * the install and uninstall commands built on them. The tables are pure data and the path functions
 * pure, so the tests check every OS wherever they run.
 */
#ifndef INSTALL_H
#define INSTALL_H

#include <stdbool.h>
#include <stddef.h>

struct config;

#define INSTALL_HOST_NAME	"org.browserbridge.host"
#define INSTALL_MANIFEST_FILE	INSTALL_HOST_NAME ".json"
#define INSTALL_EXTENSION_ID	"lbgfejnjcgkdeceohflfkdiejmokjlpk"
#define INSTALL_EXTENSION_ID_LENGTH 32
/* On Windows the manifest's folder, below %LOCALAPPDATA%. */
#define INSTALL_WINDOWS_DIR	"BrowserBridge"
#define INSTALL_DESCRIPTION \
	"Browser Bridge: lets MCP clients drive this browser"

enum install_os {
	INSTALL_OS_LINUX,
	INSTALL_OS_MACOS,
	INSTALL_OS_WINDOWS,
};

enum install_scope {
	INSTALL_SCOPE_USER,	/* this user's browser profile directory */
	INSTALL_SCOPE_SYSTEM,	/* every user (needs root) */
};

/* One Chrome-family browser and where it reads manifests. */
#define INSTALL_PROGRAMS_MAX	6

struct install_browser {
	const char	*name;		/* --browser NAME */
	const char	*title;		/* what the user reads */
	const char	*linux_user;	/* under ${XDG_CONFIG_HOME:-~/.config} */
	const char	*linux_system;	/* absolute manifest directory */
	const char	*macos_user;	/* under ~/Library/Application Support */
	const char	*macos_system;	/* absolute manifest directory */
	const char	*windows_user;	/* under %LOCALAPPDATA% */
	const char	*windows_key;	/* under HKCU or HKLM; + \NAME */
	/* Its program: names on PATH, or absolute paths (app bundles). */
	const char	*programs[INSTALL_PROGRAMS_MAX];
};

extern const struct install_browser install_browsers[];
extern const size_t install_browser_count;

/* The OS this binary was built for. */
enum install_os		 install_current_os(void);
const struct install_browser *install_browser_find(const char *name);
char			*install_browser_program(
			    const struct install_browser *browser);
char			*install_browser_data_dir(
			    const struct install_browser *browser,
			    enum install_os os, const char *home,
			    const char *config_home);
char			*install_manifest_dir(
			    const struct install_browser *browser,
			    enum install_os os, enum install_scope scope,
			    const char *home, const char *config_home);
char			*install_profile_manifest_dir(const char *user_data_dir);
char			*install_registry_key(
			    const struct install_browser *browser);
bool			 install_extension_id_valid(const char *id);
char			*install_origin(const char *id);
char			*install_manifest_text(const char *path,
			    const char *const *ids, size_t count);
char			*install_system_binary_problem(const char *path);
char			*install_shell_quote(const char *text);
char			*install_command_name(const char *self);

/* One place a manifest goes: a browser's directory or a profile's. */
struct install_target {
	const struct install_browser	*browser;	/* NULL: a profile */
	char				*title;
	char				*dir;		/* manifest directory */
	char				*path;		/* the manifest file */
	char				*key;		/* Windows: below HKCU,
							 * names path */
	bool				 found;		/* browser seen */
	bool				 named;		/* asked for by name */
	char				*missing;	/* why not found */
	char				*program;	/* not found: installed? */
};

int			 install_targets(const struct config *config,
			    struct install_target **targets, size_t *count,
			    char **cause);
void			 install_targets_free(struct install_target *targets,
			    size_t count);
int			 install_allowed_ids(const struct config *config,
			    char ***ids, size_t *count, char **cause);
char			*install_fix_command(const struct config *config,
			    const char *self, const char *verb,
			    const struct install_target *target);

int			 install_run(struct config *config, int out_fd);
int			 install_uninstall_run(struct config *config, int out_fd);

#endif
