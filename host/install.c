/*
 * Registering the host: path tables, the manifest, install and uninstall.
 * Over 600 lines on purpose: the per-OS, per-browser path tables and the
 * two commands that walk them change together (doctor.c reads them
 * through install.h).
 */
#include "install.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "config.h"
#include "files.h"
#include "os.h"
#include "xmalloc.h"

/* Largest manifest file read back (ours are a few hundred bytes). */
#define INSTALL_READ_MAX	(1024 * 1024)

/*
 * Where each browser reads manifests. docs/install.md says which entries
 * come from the browsers' documentation and which from packagers' practice;
 * on Windows the data directory is below %LOCALAPPDATA% and the key below
 * HKCU. Vivaldi has no registry key of its own on Windows: it reads
 * Chrome's.
 */
const struct install_browser install_browsers[] = {
	{
		.name = "chrome",
		.title = "Google Chrome",
		.linux_user = "google-chrome",
		.linux_system = "/etc/opt/chrome/native-messaging-hosts",
		.macos_user = "Google/Chrome",
		.macos_system = "/Library/Google/Chrome/NativeMessagingHosts",
		.windows_user = "Google\\Chrome\\User Data",
		.windows_key = "Software\\Google\\Chrome\\NativeMessagingHosts",
		.programs = { "google-chrome", "google-chrome-stable",
		    "google-chrome-beta", "/opt/google/chrome/chrome",
		    "/Applications/Google Chrome.app" },
	},
	{
		.name = "chromium",
		.title = "Chromium",
		.linux_user = "chromium",
		.linux_system = "/etc/chromium/native-messaging-hosts",
		.macos_user = "Chromium",
		.macos_system =
		    "/Library/Application Support/Chromium/NativeMessagingHosts",
		.windows_user = "Chromium\\User Data",
		.windows_key = "Software\\Chromium\\NativeMessagingHosts",
		.programs = { "chromium", "chromium-browser", "/snap/bin/chromium",
		    "/var/lib/flatpak/exports/bin/org.chromium.Chromium",
		    "/Applications/Chromium.app" },
	},
	{
		.name = "edge",
		.title = "Microsoft Edge",
		.linux_user = "microsoft-edge",
		.linux_system = "/etc/opt/edge/native-messaging-hosts",
		.macos_user = "Microsoft Edge",
		.macos_system = "/Library/Microsoft/Edge/NativeMessagingHosts",
		.windows_user = "Microsoft\\Edge\\User Data",
		.windows_key = "Software\\Microsoft\\Edge\\NativeMessagingHosts",
		.programs = { "microsoft-edge", "microsoft-edge-stable",
		    "/var/lib/flatpak/exports/bin/com.microsoft.Edge",
		    "/Applications/Microsoft Edge.app" },
	},
	{
		.name = "brave",
		.title = "Brave",
		.linux_user = "BraveSoftware/Brave-Browser",
		.linux_system = "/etc/brave/native-messaging-hosts",
		.macos_user = "BraveSoftware/Brave-Browser",
		.macos_system = "/Library/Application Support/BraveSoftware/"
		    "Brave-Browser/NativeMessagingHosts",
		.windows_user = "BraveSoftware\\Brave-Browser\\User Data",
		.windows_key =
		    "Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts",
		.programs = { "brave-browser", "brave", "/snap/bin/brave",
		    "/var/lib/flatpak/exports/bin/com.brave.Browser",
		    "/Applications/Brave Browser.app" },
	},
	{
		.name = "vivaldi",
		.title = "Vivaldi",
		.linux_user = "vivaldi",
		.linux_system = "/etc/opt/vivaldi/native-messaging-hosts",
		.macos_user = "Vivaldi",
		.macos_system =
		    "/Library/Application Support/Vivaldi/NativeMessagingHosts",
		.windows_user = "Vivaldi\\User Data",
		.windows_key = "Software\\Google\\Chrome\\NativeMessagingHosts",
		.programs = { "vivaldi", "vivaldi-stable",
		    "/Applications/Vivaldi.app" },
	},
};
const size_t install_browser_count =
    sizeof install_browsers / sizeof install_browsers[0];

/* Whether path is an executable file, or (a macOS app bundle) a directory. */
static bool
install_program_exists(const char *path)
{
	struct stat	sb;

	if (stat(path, &sb) == -1)
		return false;
	return S_ISDIR(sb.st_mode) ? strstr(path, ".app") != NULL :
	    access(path, X_OK) == 0;
}

/*
 * Returns where a browser's program is installed (heap), or NULL: a name
 * is looked for on PATH and in the directories distributions use, an
 * absolute path (snap, flatpak, a macOS app bundle) as it is.
 */
char *
install_browser_program(const struct install_browser *browser)
{
	const char	*path = getenv("PATH");
	char		*dirs, *dir, *save = NULL, *candidate;
	char		 separator[2] = { os_path_list_separator(), '\0' };
	size_t		 i;

	for (i = 0; i < INSTALL_PROGRAMS_MAX &&
	    browser->programs[i] != NULL; i++) {
		if (*browser->programs[i] == '/') {
			if (install_program_exists(browser->programs[i]))
				return xstrdup(browser->programs[i]);
			continue;
		}
		dirs = xasprintf("%s%s/usr/bin%s/usr/local/bin%s/snap/bin",
		    path != NULL ? path : "", separator, separator, separator);
		for (dir = strtok_r(dirs, separator, &save); dir != NULL;
		    dir = strtok_r(NULL, separator, &save)) {
			if (!os_path_is_absolute(dir))
				continue;
			candidate = xasprintf("%s/%s", dir,
			    browser->programs[i]);
			if (install_program_exists(candidate)) {
				free(dirs);
				return candidate;
			}
			free(candidate);
		}
		free(dirs);
	}
	return NULL;
}

/* Returns the OS this binary was built for. */
enum install_os
install_current_os(void)
{
	switch (os_family()) {
	case OS_FAMILY_MACOS:
		return INSTALL_OS_MACOS;
	case OS_FAMILY_WINDOWS:
		return INSTALL_OS_WINDOWS;
	default:
		return INSTALL_OS_LINUX;
	}
}

/* Returns dir's file name as os writes it: "DIR/NAME", "DIR\NAME". */
static char *
install_join(enum install_os os, const char *dir, const char *name)
{
	return xasprintf("%s%c%s", dir, os == INSTALL_OS_WINDOWS ? '\\' : '/',
	    name);
}

/* Finds a browser by its --browser name. */
const struct install_browser *
install_browser_find(const char *name)
{
	size_t	i;

	for (i = 0; i < install_browser_count; i++) {
		if (strcmp(install_browsers[i].name, name) == 0)
			return &install_browsers[i];
	}
	return NULL;
}

/*
 * Returns the browser's default user data directory. On Linux config_home
 * is $XDG_CONFIG_HOME (NULL or relative: ~/.config), as Chrome reads it;
 * on Windows home is %LOCALAPPDATA%.
 */
char *
install_browser_data_dir(const struct install_browser *browser,
    enum install_os os, const char *home, const char *config_home)
{
	if (os == INSTALL_OS_WINDOWS)
		return install_join(os, home, browser->windows_user);
	if (os == INSTALL_OS_MACOS) {
		return xasprintf("%s/Library/Application Support/%s", home,
		    browser->macos_user);
	}
	if (config_home != NULL && *config_home == '/')
		return xasprintf("%s/%s", config_home, browser->linux_user);
	return xasprintf("%s/.config/%s", home, browser->linux_user);
}

/*
 * Returns the directory a browser reads manifests from; on Windows, where
 * the browsers find the manifest through the registry, the one folder
 * install keeps it in for every browser, %LOCALAPPDATA%\BrowserBridge
 * (home is %LOCALAPPDATA% there).
 */
char *
install_manifest_dir(const struct install_browser *browser, enum install_os os,
    enum install_scope scope, const char *home, const char *config_home)
{
	char	*data, *dir;

	if (os == INSTALL_OS_WINDOWS)
		return install_join(os, home, INSTALL_WINDOWS_DIR);
	if (scope == INSTALL_SCOPE_SYSTEM) {
		return xstrdup(os == INSTALL_OS_MACOS ? browser->macos_system :
		    browser->linux_system);
	}
	data = install_browser_data_dir(browser, os, home, config_home);
	dir = xasprintf("%s/NativeMessagingHosts", data);
	free(data);
	return dir;
}

/* Returns the manifest directory of a browser run with --user-data-dir. */
char *
install_profile_manifest_dir(const char *user_data_dir)
{
	size_t	len = strlen(user_data_dir);

	while (len > 1 && user_data_dir[len - 1] == '/')
		len--;
	return xasprintf("%.*s/NativeMessagingHosts", (int)len, user_data_dir);
}

/* Returns the registry key (below HKCU) that names the manifest on Windows. */
char *
install_registry_key(const struct install_browser *browser)
{
	return xasprintf("%s\\%s", browser->windows_key, INSTALL_HOST_NAME);
}

/* Says whether id is an extension ID: 32 letters from a to p. */
bool
install_extension_id_valid(const char *id)
{
	size_t	i;

	for (i = 0; id[i] != '\0'; i++) {
		if (id[i] < 'a' || id[i] > 'p')
			return false;
	}
	return i == INSTALL_EXTENSION_ID_LENGTH;
}

/* Returns the origin Chrome gives an extension ID. */
char *
install_origin(const char *id)
{
	return xasprintf("chrome-extension://%s/", id);
}

/*
 * Returns the manifest's exact text: indented JSON in a fixed key order and
 * a final newline, the same text manifests/org.browserbridge.host.json.in
 * gives with its placeholders filled.
 */
char *
install_manifest_text(const char *path, const char *const *ids, size_t count)
{
	json_t	*manifest, *origins;
	char	*text, *line;
	size_t	 i;

	origins = json_array();
	for (i = 0; i < count; i++) {
		line = install_origin(ids[i]);
		json_array_append_new(origins, json_string(line));
		free(line);
	}
	manifest = json_pack("{s:s,s:s,s:s,s:s,s:o}",
	    "name", INSTALL_HOST_NAME,
	    "description", INSTALL_DESCRIPTION,
	    "path", path,
	    "type", "stdio",
	    "allowed_origins", origins);
	if (manifest == NULL)
		return NULL;	/* path is not UTF-8 */
	text = json_dumps(manifest, JSON_INDENT(2)|JSON_PRESERVE_ORDER);
	json_decref(manifest);
	line = xasprintf("%s\n", text);
	free(text);
	return line;
}

/*
 * Says whether c needs no quoting in a POSIX shell word (on Windows, in a
 * command prompt's, where a backslash is a plain character).
 */
static bool
install_shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c) != NULL ||
	    (c == '\\' && os_family() == OS_FAMILY_WINDOWS);
}

/*
 * Returns text quoted for a POSIX shell, unchanged when it needs none; on
 * Windows in double quotes, which no Windows file name holds.
 */
char *
install_shell_quote(const char *text)
{
	const char	*p;
	char		*out, *q;
	bool		 safe = *text != '\0';

	for (p = text; *p != '\0'; p++) {
		if (!install_shell_safe((unsigned char)*p))
			safe = false;
	}
	if (safe)
		return xstrdup(text);
	if (os_family() == OS_FAMILY_WINDOWS)
		return xasprintf("\"%s\"", text);
	out = q = xmalloc(strlen(text) * 4 + 3);
	*q++ = '\'';
	for (p = text; *p != '\0'; p++) {
		if (*p == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else
			*q++ = *p;
	}
	*q++ = '\'';
	*q = '\0';
	return out;
}

/*
 * Returns how a user types this program: "browser-bridge" when that name
 * on PATH is this binary, else its quoted absolute path.
 */
char *
install_command_name(const char *self)
{
	const char	*path = getenv("PATH"), *start, *end;
	char		*candidate, *resolved;
	bool		 same = false;

	for (start = path; start != NULL && !same; start = end) {
		end = strchr(start, os_path_list_separator());
		candidate = xasprintf("%.*s/browser-bridge", end == NULL ?
		    (int)strlen(start) : (int)(end - start), start);
		if (os_path_is_absolute(candidate) &&
		    (resolved = realpath(candidate, NULL)) != NULL) {
			same = strcmp(resolved, self) == 0;
			free(resolved);
			free(candidate);
			break;	/* the first one on PATH is what runs */
		}
		free(candidate);
		if (end != NULL)
			end++;
	}
	return same ? xstrdup("browser-bridge") : install_shell_quote(self);
}

/* Collects the allowed extension IDs: the default one, then each option's. */
int
install_allowed_ids(const struct config *config, char ***ids, size_t *count,
    char **cause)
{
	size_t	i, j;
	bool	seen;

	*ids = xcalloc(config->extension_id_count + 1, sizeof **ids);
	*count = 0;
	(*ids)[(*count)++] = xstrdup(INSTALL_EXTENSION_ID);
	for (i = 0; i < config->extension_id_count; i++) {
		const char *id = config->extension_ids[i];

		if (!install_extension_id_valid(id)) {
			*cause = xasprintf("--extension-id \"%s\" is not an "
			    "extension ID: an ID is 32 letters from a to p, as "
			    "chrome://extensions shows it in Developer mode",
			    id);
			for (j = 0; j < *count; j++)
				free((*ids)[j]);
			free(*ids);
			*ids = NULL;
			*count = 0;
			return -1;
		}
		seen = false;
		for (j = 0; j < *count; j++)
			seen = seen || strcmp((*ids)[j], id) == 0;
		if (!seen)
			(*ids)[(*count)++] = xstrdup(id);
	}
	return 0;
}

/* Says whether path is a directory. */
static bool
install_is_dir(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/*
 * Whether a browser's data directory holds a profile someone uses: its
 * "Local State" (every profile root has one) or a manifest directory of
 * its own (NULL: none, as on Windows). The directory alone is not enough:
 * Chromium makes it (for crash reports) even when it runs with a
 * --user-data-dir elsewhere.
 */
static bool
install_browser_used(const char *data, const char *manifest_dir)
{
	char	*local_state;
	bool	 used;

	if (!install_is_dir(data))
		return false;
	local_state = xasprintf("%s/Local State", data);
	used = access(local_state, F_OK) == 0 ||
	    (manifest_dir != NULL && install_is_dir(manifest_dir));
	free(local_state);
	return used;
}

/*
 * Whether a registry key for this host is there (Windows): registered
 * ahead of a browser's first start, it counts as found, as a manifest
 * directory does elsewhere.
 */
static bool
install_registered(const char *key)
{
	char	*value = NULL, *cause = NULL;
	int	 found;

	found = os_registry_read(key, &value, &cause);
	free(value);
	free(cause);
	return found == 1;
}

/* Fills in a browser target: its directory and whether it is installed. */
static void
install_target_browser(struct install_target *target,
    const struct install_browser *browser, enum install_os os,
    enum install_scope scope, const char *home, const char *config_home)
{
	char	*data, *parent;

	target->browser = browser;
	target->title = xstrdup(browser->title);
	target->dir = install_manifest_dir(browser, os, scope, home,
	    config_home);
	target->path = install_join(os, target->dir, INSTALL_MANIFEST_FILE);
	if (os == INSTALL_OS_WINDOWS)
		target->key = install_registry_key(browser);
	data = install_browser_data_dir(browser, os, home, config_home);
	target->found = target->key != NULL ? install_browser_used(data, NULL) ||
	    install_registered(target->key) :
	    install_browser_used(data, target->dir);
	if (!target->found && scope == INSTALL_SCOPE_SYSTEM) {
		parent = files_dirname(target->dir);
		target->found = install_is_dir(parent);
		free(parent);
	}
	if (!target->found) {
		target->missing = xasprintf("no %s", data);
		target->program = install_browser_program(browser);
	}
	free(data);
}

/* Returns DIR as an absolute path (relative to the current directory). */
static char *
install_absolute(const char *dir)
{
	char	cwd[PATH_MAX];

	if (*dir == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return xstrdup(dir);
	return xasprintf("%s/%s", cwd, dir);
}

/*
 * What install cannot do on Windows, in words (heap), or NULL: the
 * browsers there read no profile's folder, and every user's registration
 * (HKLM) is not written.
 */
static char *
install_windows_refusal(const struct config *config)
{
	if (config->system)
		return xstrdup("on Windows install registers the host for "
		    "this user (HKCU) only; --system (HKLM, every user) is not "
		    "supported, so run it without --system as each user");
	if (config->user_data_dir != NULL)
		return xstrdup("on Windows the browsers find the manifest "
		    "through the registry only, never in a profile's "
		    "NativeMessagingHosts folder, so --user-data-dir has "
		    "nothing to write; run it without --user-data-dir");
	return NULL;
}

/*
 * The directory the browsers' places are found from (heap): $HOME, or
 * %LOCALAPPDATA% on Windows; NULL with *cause when it is not known.
 */
static char *
install_home(enum install_os os, char **cause)
{
	const char	*home;

	if (os == INSTALL_OS_WINDOWS)
		return os_user_dir(OS_USER_STATE, cause);
	if ((home = getenv("HOME")) == NULL || *home != '/') {
		*cause = xstrdup("HOME is not set to an absolute path, so the "
		    "browsers' directories cannot be found; set HOME");
		return NULL;
	}
	return xstrdup(home);
}

/*
 * Lists where manifests go. --user-data-dir names a profile; --browser names
 * browsers ("all": every one), which are then written even when not found;
 * with neither, every known browser is listed with whether it was found.
 */
int
install_targets(const struct config *config, struct install_target **targets,
    size_t *count, char **cause)
{
	enum install_os		 os = install_current_os();
	enum install_scope	 scope;
	const char		*config_home = getenv("XDG_CONFIG_HOME");
	const struct install_browser *browser;
	struct install_target	*t;
	bool			 want[16] = { false }, named;
	size_t			 i, j;
	char			*dir, *home;

	*targets = NULL;
	*count = 0;
	if (os == INSTALL_OS_WINDOWS &&
	    (*cause = install_windows_refusal(config)) != NULL)
		return -1;
	scope = config->system ? INSTALL_SCOPE_SYSTEM : INSTALL_SCOPE_USER;
	*targets = xcalloc(install_browser_count + 1, sizeof **targets);
	named = config->browser_count > 0;
	for (i = 0; i < config->browser_count; i++) {
		if (strcmp(config->browsers[i], "all") == 0) {
			for (j = 0; j < install_browser_count; j++)
				want[j] = true;
			continue;
		}
		if ((browser = install_browser_find(config->browsers[i])) ==
		    NULL) {
			*cause = xasprintf("unknown browser \"%s\": use chrome, "
			    "chromium, edge, brave, vivaldi or all",
			    config->browsers[i]);
			free(*targets);
			*targets = NULL;
			return -1;
		}
		want[browser - install_browsers] = true;
	}
	if (config->user_data_dir != NULL) {
		t = &(*targets)[(*count)++];
		dir = install_absolute(config->user_data_dir);
		t->title = xasprintf("Profile %s", dir);
		t->dir = install_profile_manifest_dir(dir);
		t->path = xasprintf("%s/%s", t->dir, INSTALL_MANIFEST_FILE);
		t->found = true;
		t->named = true;
		free(dir);
		if (!named)
			return 0;
	}
	if ((home = install_home(os, cause)) == NULL) {
		install_targets_free(*targets, *count);
		*targets = NULL;
		*count = 0;
		return -1;
	}
	for (i = 0; i < install_browser_count; i++) {
		if (named && !want[i])
			continue;
		t = &(*targets)[(*count)++];
		install_target_browser(t, &install_browsers[i], os, scope, home,
		    config_home);
		t->named = named;
	}
	free(home);
	return 0;
}

/* Frees a target list. */
void
install_targets_free(struct install_target *targets, size_t count)
{
	size_t	i;

	for (i = 0; i < count; i++) {
		free(targets[i].title);
		free(targets[i].dir);
		free(targets[i].path);
		free(targets[i].key);
		free(targets[i].missing);
		free(targets[i].program);
	}
	free(targets);
}

/*
 * Returns the command that (re)does verb ("install" or "uninstall") for one
 * target with the options this run was given, ready to paste.
 */
char *
install_fix_command(const struct config *config, const char *self,
    const char *verb, const struct install_target *target)
{
	char	*name, *out, *next, *quoted;
	size_t	 i;

	name = install_command_name(self);
	out = xasprintf("%s%s %s%s", config->system ? "sudo " : "", name,
	    verb, config->system ? " --system" : "");
	free(name);
	if (target != NULL && target->browser != NULL) {
		next = xasprintf("%s --browser %s", out, target->browser->name);
		free(out);
		out = next;
	} else if (target != NULL) {
		quoted = install_shell_quote(config->user_data_dir);
		next = xasprintf("%s --user-data-dir %s", out, quoted);
		free(quoted);
		free(out);
		out = next;
	}
	for (i = 0; i < config->extension_id_count; i++) {
		next = xasprintf("%s --extension-id %s", out,
		    config->extension_ids[i]);
		free(out);
		out = next;
	}
	return out;
}

/*
 * Reads a small regular file whole; NULL with errno set when it cannot
 * (EINVAL for a FIFO, device or directory, which are never waited on).
 */
static char *
install_read_file(const char *path, size_t *len)
{
	struct stat	 sb;
	char		*buf;
	size_t		 used = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY|O_CLOEXEC|O_NOCTTY|O_NONBLOCK)) == -1)
		return NULL;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	buf = xmalloc(INSTALL_READ_MAX + 1);
	while (used < INSTALL_READ_MAX) {
		n = read(fd, buf + used, INSTALL_READ_MAX - used);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	*len = used;
	return buf;
}

enum install_outcome {
	INSTALL_WROTE,
	INSTALL_UPDATED,
	INSTALL_UNCHANGED,
};

/* Writes the manifest into place atomically unless it is already there. */
static int
install_write(const struct install_target *target, const char *text,
    mode_t dir_mode, enum install_outcome *outcome, char **cause)
{
	struct stat	 sb;
	char		*old, *tmp;
	size_t		 len, old_len;
	int		 fd, rc = -1;

	len = strlen(text);
	if (lstat(target->path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		*cause = xasprintf("%s exists and is not a regular file (a "
		    "FIFO, device, directory or link); move it away and run "
		    "install again", target->path);
		return -1;
	}
	if ((old = install_read_file(target->path, &old_len)) != NULL) {
		if (old_len == len && memcmp(old, text, len) == 0) {
			free(old);
			*outcome = INSTALL_UNCHANGED;
			return 0;
		}
		free(old);
		*outcome = INSTALL_UPDATED;
	} else
		*outcome = INSTALL_WROTE;
	if (files_make_dirs(target->dir, dir_mode, "so the manifest can be "
	    "written there", cause) != 0)
		return -1;
	tmp = xasprintf("%s/.%s.XXXXXX", target->dir, INSTALL_MANIFEST_FILE);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		*cause = xasprintf("cannot write in %s: %s", target->dir,
		    strerror(errno));
		free(tmp);
		return -1;
	}
	if (files_write_all(fd, text, len) == -1 || fchmod(fd, 0644) == -1) {
		*cause = xasprintf("cannot write %s: %s", tmp,
		    strerror(errno));
		close(fd);
	} else if (close(fd) == -1 || os_replace_file(tmp, target->path) == -1)
		*cause = xasprintf("cannot write %s: %s", target->path,
		    strerror(errno));
	else
		rc = 0;
	if (rc != 0)
		(void)unlink(tmp);
	free(tmp);
	return rc;
}

/*
 * Points t's registry key at its manifest unless it names it already;
 * *outcome says which (INSTALL_UPDATED: it named another file).
 */
static int
install_register(const struct install_target *t,
    enum install_outcome *outcome, char **cause)
{
	char	*old = NULL;
	int	 found;

	if ((found = os_registry_read(t->key, &old, cause)) == -1)
		return -1;
	*outcome = found == 0 ? INSTALL_WROTE : strcmp(old, t->path) == 0 ?
	    INSTALL_UNCHANGED : INSTALL_UPDATED;
	free(old);
	if (*outcome == INSTALL_UNCHANGED)
		return 0;
	return os_registry_write(t->key, t->path, cause);
}

/*
 * For --system: the program every user's browser will start must be
 * owned by root and writable by nobody else, or whoever can change it
 * runs code as each of those users. NULL when it is fine, else why.
 */
char *
install_system_binary_problem(const char *path)
{
	struct stat	sb;

	if (stat(path, &sb) == -1)
		return xasprintf("cannot check %s: %s", path, strerror(errno));
	if (sb.st_uid != 0 || (sb.st_mode & (S_IWGRP|S_IWOTH)) != 0)
		return xasprintf("%s is %s%s, so a system-wide manifest would "
		    "let others change what every user's browser starts; "
		    "install it owned by root and writable only by root "
		    "(sudo make install), then run install --system from there",
		    path, sb.st_uid != 0 ? "not owned by root" : "",
		    (sb.st_mode & (S_IWGRP|S_IWOTH)) != 0 ? (sb.st_uid != 0 ?
		    " and writable by others" : "writable by others") : "");
	return NULL;
}

/* install: writes the manifest for every browser found or named. */
int
install_run(struct config *config, int out_fd)
{
	static const char *const outcomes[] = { "wrote", "updated",
	    "unchanged" };
	static const char *const key_outcomes[] = { "set to it",
	    "changed to it", "names it already" };
	struct install_target	*targets = NULL;
	enum install_outcome	 outcome, key_outcome = INSTALL_WROTE;
	char			**ids = NULL, *self = NULL, *text = NULL;
	char			*cause = NULL, *fix;
	size_t			 count = 0, nids = 0, i, done = 0, failed = 0;
	int			 rc = 1;

	if (install_allowed_ids(config, &ids, &nids, &cause) != 0 ||
	    (self = os_self_path(&cause)) == NULL ||
	    install_targets(config, &targets, &count, &cause) != 0 ||
	    (config->system && config->user_data_dir == NULL &&
	    (cause = install_system_binary_problem(self)) != NULL))
		goto out;
	text = install_manifest_text(self, (const char *const *)ids, nids);
	if (text == NULL) {
		cause = xasprintf("this program's path is not valid UTF-8: %s",
		    self);
		goto out;
	}
	for (i = 0; i < count; i++) {
		struct install_target *t = &targets[i];

		if (!t->named && !t->found) {
			fix = install_fix_command(config, self, "install", t);
			files_printf(out_fd, "%s: skipped, not found (%s); "
			    "to register anyway: %s\n", t->title, t->missing,
			    fix);
			free(fix);
			continue;
		}
		if (install_write(t, text, config->system ? 0755 : 0700,
		    &outcome, &cause) != 0 || (t->key != NULL &&
		    install_register(t, &key_outcome, &cause) != 0)) {
			files_printf(out_fd, "%s: FAILED: %s%s\n", t->title,
			    cause, config->system && !os_privileged() ?
			    " (--system needs root: run it with sudo)" : "");
			free(cause);
			cause = NULL;
			failed++;
			continue;
		}
		files_printf(out_fd, "%s: %s %s", t->title, outcomes[outcome],
		    t->path);
		if (t->key != NULL)
			files_printf(out_fd, "; HKCU\\%s %s", t->key,
			    key_outcomes[key_outcome]);
		files_printf(out_fd, "\n");
		done++;
	}
	if (done == 0 && failed == 0) {
		cause = xstrdup("no Chrome-family browser found; name one "
		    "with --browser (chrome, chromium, edge, brave, vivaldi "
		    "or all) to register it before its first start");
		goto out;
	}
	if (done > 0) {
		files_printf(out_fd, "The manifest starts %s for", self);
		for (i = 0; i < nids; i++)
			files_printf(out_fd, " chrome-extension://%s/", ids[i]);
		files_printf(out_fd, "\nRestart the browser (or reload the "
		    "extension) to pick it up; `browser-bridge doctor` checks "
		    "the whole setup.\n");
	}
	rc = failed == 0 ? 0 : 1;

out:
	if (cause != NULL) {
		fprintf(stderr, "browser-bridge install: %s\n", cause);
		free(cause);
	}
	install_targets_free(targets, count);
	xfree_strings(ids, nids);
	free(text);
	free(self);
	return rc;
}

/* Says whether a manifest file is ours (by its name); *why when not. */
static bool
install_is_ours(const char *path, char **why)
{
	json_error_t	 error;
	json_t		*manifest;
	const char	*name;
	bool		 ours;

	manifest = json_load_file(path, 0, &error);
	if (manifest == NULL) {
		*why = xasprintf("it is not valid JSON (%s)", error.text);
		return false;
	}
	name = json_string_value(json_object_get(manifest, "name"));
	ours = name != NULL && strcmp(name, INSTALL_HOST_NAME) == 0;
	if (!ours)
		*why = xasprintf("its name is \"%s\", not " INSTALL_HOST_NAME,
		    name != NULL ? name : "(none)");
	json_decref(manifest);
	return ours;
}

/*
 * Removes t's registry key if it names this host's manifest: the file
 * install writes, or any file whose name is ours. A key naming another
 * file is kept, and said so. Returns -1 when removing failed.
 */
static int
install_unregister(const struct install_target *t, int out_fd)
{
	char	*value = NULL, *cause = NULL, *why = NULL;
	int	 found, rc = 0;

	if ((found = os_registry_read(t->key, &value, &cause)) == -1) {
		files_printf(out_fd, "%s: FAILED: %s\n", t->title, cause);
		free(cause);
		return -1;
	}
	if (found == 0)
		files_printf(out_fd, "%s: nothing to remove (no HKCU\\%s)\n",
		    t->title, t->key);
	else if (strcmp(value, t->path) != 0 && !install_is_ours(value, &why)) {
		files_printf(out_fd, "%s: kept HKCU\\%s: it names %s, not this "
		    "host's manifest (%s)\n", t->title, t->key, value, why);
		free(why);
	} else if (os_registry_delete(t->key, &cause) == -1) {
		files_printf(out_fd, "%s: FAILED: %s\n", t->title, cause);
		free(cause);
		rc = -1;
	} else
		files_printf(out_fd, "%s: removed HKCU\\%s\n", t->title, t->key);
	free(value);
	return rc;
}

/*
 * After the keys: removes the manifest file on Windows when it is ours and
 * no browser's key names it any more (one file serves them all).
 */
static int
install_unregister_manifest(const char *path, int out_fd)
{
	char	*key, *value = NULL, *cause = NULL, *why = NULL;
	size_t	 i;
	int	 rc = 0;

	if (access(path, F_OK) != 0)
		return 0;
	for (i = 0; i < install_browser_count; i++) {
		key = install_registry_key(&install_browsers[i]);
		if (os_registry_read(key, &value, &cause) == 1 &&
		    strcmp(value, path) == 0) {
			files_printf(out_fd, "kept %s: HKCU\\%s still names "
			    "it\n", path, key);
			free(value);
			free(key);
			return 0;
		}
		free(value);
		value = NULL;
		free(cause);
		cause = NULL;
		free(key);
	}
	if (!install_is_ours(path, &why)) {
		files_printf(out_fd, "kept %s: %s\n", path, why);
		free(why);
	} else if (unlink(path) == -1) {
		files_printf(out_fd, "FAILED to remove %s: %s\n", path,
		    strerror(errno));
		rc = -1;
	} else
		files_printf(out_fd, "removed %s\n", path);
	return rc;
}

/*
 * uninstall: removes the manifests install wrote, and only those; on
 * Windows the registry keys naming this host's manifest, then that file.
 */
int
install_uninstall_run(struct config *config, int out_fd)
{
	struct install_target	*targets = NULL;
	struct stat		 sb;
	char			*cause = NULL, *why = NULL;
	size_t			 count = 0, i;
	int			 rc = 0;

	if (install_targets(config, &targets, &count, &cause) != 0) {
		fprintf(stderr, "browser-bridge uninstall: %s\n", cause);
		free(cause);
		return 1;
	}
	for (i = 0; i < count; i++) {
		struct install_target *t = &targets[i];

		if (t->key != NULL) {
			if (install_unregister(t, out_fd) == -1)
				rc = 1;
			continue;
		}
		if (lstat(t->path, &sb) == -1 && errno == ENOENT) {
			files_printf(out_fd, "%s: nothing to remove\n",
			    t->title);
			continue;
		}
		if (!install_is_ours(t->path, &why)) {
			files_printf(out_fd, "%s: kept %s: %s\n", t->title,
			    t->path, why);
			free(why);
			why = NULL;
			continue;
		}
		if (unlink(t->path) == -1) {
			files_printf(out_fd, "%s: FAILED to remove %s: %s%s\n",
			    t->title, t->path, strerror(errno),
			    config->system && !os_privileged() ?
			    " (--system needs root: run it with sudo)" : "");
			rc = 1;
			continue;
		}
		files_printf(out_fd, "%s: removed %s\n", t->title, t->path);
	}
	if (count > 0 && targets[0].key != NULL &&
	    install_unregister_manifest(targets[0].path, out_fd) == -1)
		rc = 1;
	install_targets_free(targets, count);
	return rc;
}
