/*
 * browser-bridge doctor and status: check the setup, describe the host.
 * Over 600 lines on purpose: one function per check, in the order the
 * commands print them, around one way of printing a result.
 */
#include "doctor.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "clock.h"
#include "config.h"
#include "files.h"
#include "install.h"
#include "instance.h"
#include "os.h"
#include "oauth-store.h"
#include "probe.h"
#include "token.h"
#include "xmalloc.h"

/* How long `PATH --version` may take. */
#define DOCTOR_VERSION_TIMEOUT_MS	5000
/* Bytes of its --version output read (the first line is what counts). */
#define DOCTOR_VERSION_MAX		255

/* What the browser's user is told when no host runs. */
#define DOCTOR_START_HOST \
	"open the browser with the Browser Bridge extension loaded " \
	"(chrome://extensions); the extension starts the host"

struct doctor {
	struct config	*config;
	int		 out_fd;
	char		*self;		/* this program's absolute path */
	char		*command;	/* how the user types it */
	size_t		 checks;
	size_t		 failures;
};

/* Reports a check that passed. */
static void
doctor_ok(struct doctor *d, const char *fmt, ...)
    __attribute__((format(PRINTF_FORMAT, 2, 3)));

/* Reports a check that passed. */
static void
doctor_ok(struct doctor *d, const char *fmt, ...)
{
	va_list	ap;

	d->checks++;
	files_printf(d->out_fd, "ok    ");
	va_start(ap, fmt);
	files_vprintf(d->out_fd, fmt, ap);
	va_end(ap);
	files_printf(d->out_fd, "\n");
}

/* Reports something checked only for information (a browser not found). */
static void
doctor_note(struct doctor *d, const char *fmt, ...)
    __attribute__((format(PRINTF_FORMAT, 2, 3)));

/* Reports something checked only for information (a browser not found). */
static void
doctor_note(struct doctor *d, const char *fmt, ...)
{
	va_list	ap;

	files_printf(d->out_fd, "--    ");
	va_start(ap, fmt);
	files_vprintf(d->out_fd, fmt, ap);
	va_end(ap);
	files_printf(d->out_fd, "\n");
}

/* Reports a failed check and what fixes it. */
static void
doctor_fail(struct doctor *d, const char *fix, const char *fmt, ...)
    __attribute__((format(PRINTF_FORMAT, 3, 4)));

/* Reports a failed check and what fixes it. */
static void
doctor_fail(struct doctor *d, const char *fix, const char *fmt, ...)
{
	va_list	ap;

	d->checks++;
	d->failures++;
	files_printf(d->out_fd, "FAIL  ");
	va_start(ap, fmt);
	files_vprintf(d->out_fd, fmt, ap);
	va_end(ap);
	files_printf(d->out_fd, "\n      fix: %s\n", fix);
}

/*
 * Runs `path --version` and returns its first line of output, or NULL with
 * *cause when it cannot be run, fails or takes longer than timeout_ms.
 */
char *
doctor_program_version(const char *path, int timeout_ms, char **cause)
{
	struct os_run_result	 run;
	char			*nl;

	if (os_run(path, "--version", timeout_ms, DOCTOR_VERSION_MAX, &run,
	    cause) == -1)
		return NULL;
	if (!run.exited || run.status != 0) {
		*cause = xasprintf("`%s --version` failed (%s %d)", path,
		    run.exited ? "exit status" : "signal", run.status);
		free(run.output);
		return NULL;
	}
	if ((nl = strchr(run.output, '\n')) != NULL)
		*nl = '\0';
	return run.output;
}

/* Checks the manifest's path: absolute, existing, executable, same version. */
static void
doctor_manifest_path(struct doctor *d, const struct install_target *t,
    const char *path, const char *install_fix)
{
	struct stat	 sb;
	char		*version, *cause = NULL, *fix, *quoted;

	if (path == NULL || !os_path_is_absolute(path)) {
		doctor_fail(d, install_fix, "%s: the manifest's \"path\" (%s) "
		    "is not an absolute path", t->title,
		    path != NULL ? path : "missing");
		return;
	}
	if (stat(path, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		doctor_fail(d, install_fix, "%s: the manifest's \"path\" %s "
		    "%s", t->title, path, errno == ENOENT ? "does not exist" :
		    "is not a regular file");
		return;
	}
	if (access(path, X_OK) == -1) {
		quoted = install_shell_quote(path);
		fix = xasprintf("chmod +x %s", quoted);
		doctor_fail(d, fix, "%s: %s is not executable", t->title, path);
		free(fix);
		free(quoted);
		return;
	}
	version = doctor_program_version(path, DOCTOR_VERSION_TIMEOUT_MS,
	    &cause);
	if (version == NULL) {
		doctor_fail(d, install_fix, "%s: %s", t->title, cause);
		free(cause);
		return;
	}
	if (strcmp(version, "browser-bridge " PACKAGE_VERSION) != 0) {
		doctor_fail(d, install_fix, "%s: %s says \"%s\", this program "
		    "is browser-bridge " PACKAGE_VERSION, t->title, path,
		    version);
	} else
		doctor_ok(d, "%s: runs %s (%s)", t->title, path, version);
	free(version);
}

/*
 * Where the browser reads t's manifest (heap): t->path, or on Windows the
 * file t's registry key names (NULL: there is no key). -1 with *cause when
 * the key cannot be read.
 */
static int
doctor_manifest_place(const struct install_target *t, char **path,
    char **cause)
{
	*path = NULL;
	if (t->key == NULL) {
		*path = xstrdup(t->path);
		return 0;
	}
	return os_registry_read(t->key, path, cause) == -1 ? -1 : 0;
}

/*
 * Checks one browser's (or profile's) manifest; on Windows first the
 * registry key that names it, then the file it names.
 */
static void
doctor_manifest(struct doctor *d, const struct install_target *t,
    char **ids, size_t nids)
{
	json_error_t	 error;
	json_t		*manifest, *origins, *value;
	const char	*name, *type;
	char		*fix, *origin, *path, *cause = NULL;
	size_t		 i, j;
	bool		 allowed, registered;

	if (doctor_manifest_place(t, &path, &cause) == -1) {
		fix = install_fix_command(d->config, d->self, "install", t);
		doctor_fail(d, fix, "%s: %s", t->title, cause);
		free(fix);
		free(cause);
		return;
	}
	registered = t->key != NULL ? path != NULL :
	    access(path, F_OK) == 0;
	if (!t->found && !t->named && !registered) {
		free(path);
		if (t->program != NULL)
			doctor_note(d, "%s: installed (%s) but never started (%s); "
			    "after its first start run `%s install`, or now `%s "
			    "install --browser %s`", t->title, t->program,
			    t->missing, d->command, d->command,
			    t->browser->name);
		else
			doctor_note(d, "%s: not installed (%s)", t->title,
			    t->missing);
		return;
	}
	fix = install_fix_command(d->config, d->self, "install", t);
	if (t->key != NULL && path == NULL) {
		doctor_fail(d, fix, "%s: no registry key HKCU\\%s, through "
		    "which the browser finds the manifest", t->title, t->key);
		free(fix);
		return;
	}
	if (t->key != NULL)
		doctor_ok(d, "%s: HKCU\\%s names %s", t->title, t->key, path);
	if (access(path, F_OK) != 0) {
		doctor_fail(d, fix, "%s: no manifest at %s", t->title, path);
		free(path);
		free(fix);
		return;
	}
	manifest = json_load_file(path, JSON_REJECT_DUPLICATES, &error);
	if (manifest == NULL) {
		doctor_fail(d, fix, "%s: manifest %s is not valid JSON (line "
		    "%d: %s)", t->title, path, error.line, error.text);
		free(path);
		free(fix);
		return;
	}
	if (!json_is_object(manifest)) {
		doctor_fail(d, fix, "%s: manifest %s is not a JSON object",
		    t->title, path);
		json_decref(manifest);
		free(path);
		free(fix);
		return;
	}
	name = json_string_value(json_object_get(manifest, "name"));
	type = json_string_value(json_object_get(manifest, "type"));
	if (name == NULL || strcmp(name, INSTALL_HOST_NAME) != 0) {
		doctor_fail(d, fix, "%s: manifest %s names \"%s\", not "
		    INSTALL_HOST_NAME, t->title, path,
		    name != NULL ? name : "(nothing)");
	} else if (type == NULL || strcmp(type, "stdio") != 0) {
		doctor_fail(d, fix, "%s: manifest %s has type \"%s\", not "
		    "stdio", t->title, path, type != NULL ? type : "");
	} else
		doctor_ok(d, "%s: manifest %s", t->title, path);
	doctor_manifest_path(d, t,
	    json_string_value(json_object_get(manifest, "path")), fix);
	origins = json_object_get(manifest, "allowed_origins");
	for (i = 0; i < nids; i++) {
		origin = install_origin(ids[i]);
		allowed = false;
		json_array_foreach(origins, j, value) {
			if (json_is_string(value) &&
			    strcmp(json_string_value(value), origin) == 0)
				allowed = true;
		}
		if (allowed)
			doctor_ok(d, "%s: allows %s", t->title, origin);
		else {
			doctor_fail(d, fix, "%s: manifest %s does not allow %s, "
			    "so the browser refuses to start the host for the "
			    "extension", t->title, path, origin);
		}
		free(origin);
	}
	json_decref(manifest);
	free(path);
	free(fix);
}

/*
 * Checks the manifest of each running host's own profile (a browser
 * started with --user-data-dir, as run.sh starts one), unless it is the
 * profile --user-data-dir named, which the targets hold already. Returns
 * how many profiles it checked.
 */
static size_t
doctor_running_profiles(struct doctor *d, const struct instance *hosts,
    size_t count, char **ids, size_t nids)
{
	struct install_target	*targets;
	struct config		 profile, *saved;
	char			*cause = NULL;
	size_t			 i, n, checked = 0;

	for (i = 0; i < count; i++) {
		if (strcmp(hosts[i].profile, "default") == 0 ||
		    (d->config->user_data_dir != NULL &&
		    strcmp(d->config->user_data_dir, hosts[i].profile) == 0))
			continue;
		profile = *d->config;
		profile.user_data_dir = hosts[i].profile;
		profile.browser_count = 0;
		if (install_targets(&profile, &targets, &n, &cause) != 0) {
			free(cause);
			cause = NULL;
			continue;
		}
		saved = d->config;	/* its fix names the profile */
		d->config = &profile;
		doctor_manifest(d, &targets[0], ids, nids);
		d->config = saved;
		install_targets_free(targets, n);
		checked++;
	}
	return checked;
}

/*
 * Checks every browser's manifest, and those of the profiles the running
 * hosts were started with. A browser whose program is installed but that
 * was never started has no directory yet: a note, not a failure.
 */
static void
doctor_browsers(struct doctor *d, const struct instance *hosts, size_t count)
{
	struct install_target	*targets;
	char			**ids = NULL, *cause = NULL, *fix;
	size_t			 ntargets = 0, nids = 0, i, found = 0;

	if (install_allowed_ids(d->config, &ids, &nids, &cause) != 0 ||
	    install_targets(d->config, &targets, &ntargets, &cause) != 0) {
		doctor_fail(d, "browser-bridge --help", "%s", cause);
		free(cause);
		if (ids != NULL) {
			for (i = 0; i < nids; i++)
				free(ids[i]);
			free(ids);
		}
		return;
	}
	for (i = 0; i < ntargets; i++) {
		if (targets[i].found || targets[i].named ||
		    targets[i].program != NULL)
			found++;
		doctor_manifest(d, &targets[i], ids, nids);
	}
	found += doctor_running_profiles(d, hosts, count, ids, nids);
	if (found == 0) {
		fix = xasprintf("install a Chrome-family browser, or register "
		    "ahead of its first start: %s install --browser chromium",
		    d->command);
		doctor_fail(d, fix, "no Chrome-family browser found (Chrome, "
		    "Chromium, Edge, Brave or Vivaldi)");
		free(fix);
	}
	install_targets_free(targets, ntargets);
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
}

/* Writes a wall-clock time in milliseconds as "2026-11-26 02:42 UTC". */
static void
doctor_time(uint64_t ms, char *out, size_t size)
{
	time_t		t = (time_t)(ms / 1000);
	struct tm	tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, size, "%Y-%m-%d %H:%M UTC", &tm) == 0)
		(void)snprintf(out, size, "?");
}

/*
 * Returns the OAuth clients the person approved (clients.json, as
 * list_clients shows them), or NULL with *cause when the file cannot be
 * read.
 */
static json_t *
doctor_clients_read(const struct config *config, char **cause)
{
	struct oauth_store	*store;
	json_t			*list;

	if ((store = oauth_store_open(config->clients_file, cause)) == NULL)
		return NULL;
	list = oauth_store_list(store);
	oauth_store_free(store);
	return list;
}

/* Prints approved clients: name, scopes, when approved and last used. */
static void
doctor_clients_print(const json_t *list, int out_fd, const char *indent)
{
	const json_t	*client, *last;
	char		*scopes, approved[32], used[32];
	size_t		 i;

	json_array_foreach(list, i, client) {
		scopes = json_dumps(json_object_get(client, "scopes"),
		    JSON_COMPACT);
		doctor_time((uint64_t)json_integer_value(json_object_get(client,
		    "approved_at_ms")), approved, sizeof approved);
		last = json_object_get(client, "last_used_ms");
		if (json_is_integer(last))
			doctor_time((uint64_t)json_integer_value(last), used,
			    sizeof used);
		else
			(void)snprintf(used, sizeof used, "never");
		files_printf(out_fd, "%s\"%s\" (the name it gave) %s, approved "
		    "%s, last used %s\n", indent, json_string_value(
		    json_object_get(client, "client_name")), scopes, approved,
		    used);
		free(scopes);
	}
}

/* Checks clients.json and lists the approved OAuth clients. */
static void
doctor_clients(struct doctor *d)
{
	char	*cause = NULL, *fix, *quoted;
	json_t	*list;

	if (!d->config->auth || !d->config->oauth) {
		doctor_note(d, "OAuth is off: only the owner key (the token) "
		    "opens MCP");
		return;
	}
	if ((list = doctor_clients_read(d->config, &cause)) == NULL) {
		quoted = install_shell_quote(d->config->clients_file);
		fix = xasprintf("rm %s (then approve the clients again)",
		    quoted);
		doctor_fail(d, fix, "%s", cause);
		free(fix);
		free(quoted);
		free(cause);
		return;
	}
	doctor_ok(d, "%zu approved OAuth client%s (%s)", json_array_size(list),
	    json_array_size(list) == 1 ? "" : "s", d->config->clients_file);
	doctor_clients_print(list, d->out_fd, "    ");
	json_decref(list);
}

/*
 * Who besides the user may use path, opened without following a link
 * (os_privacy_check; *detail as it gives it).
 */
static enum os_privacy
doctor_privacy(const char *path, char **detail)
{
	enum os_privacy	privacy;
	int		fd;

	if ((fd = os_open_nofollow(path, O_RDONLY, 0)) == -1)
		return OS_PRIVACY_UNKNOWN;
	privacy = os_privacy_check(fd, detail);
	close(fd);
	return privacy;
}

/* Whether a privacy lets others read or change what the user owns. */
static bool
doctor_open_to_others(enum os_privacy privacy)
{
	return privacy == OS_READABLE_BY_OTHERS ||
	    privacy == OS_WRITABLE_BY_OTHERS;
}

/* Checks the config directory, config.json and the token file. */
static void
doctor_config(struct doctor *d)
{
	struct config	*config = d->config;
	struct stat	 sb;
	enum os_privacy	 privacy;
	char		*quoted, *fix, *token, *cause = NULL, *file;
	char		*detail = NULL;

	quoted = install_shell_quote(config->config_dir);
	if (stat(config->config_dir, &sb) == -1 || !S_ISDIR(sb.st_mode)) {
		fix = xasprintf("%s token", d->command);
		doctor_fail(d, fix, "no config directory %s (the host makes it "
		    "on its first start)", config->config_dir);
		free(fix);
		free(quoted);
		return;
	}
	privacy = doctor_privacy(config->config_dir, &detail);
	if (doctor_open_to_others(privacy)) {
		fix = os_privacy_fix(quoted, true);
		doctor_fail(d, fix, "config directory %s is open to other "
		    "users (%s)", config->config_dir, detail);
		free(fix);
	} else {
		doctor_ok(d, "config directory %s (mode %03o)",
		    config->config_dir, (unsigned)(sb.st_mode & 0777));
	}
	free(detail);
	detail = NULL;
	free(quoted);

	file = xasprintf("%s/config.json", config->config_dir);
	quoted = install_shell_quote(file);
	if (config->file_error != NULL) {
		fix = xasprintf("correct %s, or move it away: mv %s %s.bak",
		    file, quoted, quoted);
		doctor_fail(d, fix, "%s", config->file_error);
		free(fix);
	} else if (access(file, F_OK) == 0)
		doctor_ok(d, "settings %s", file);
	free(quoted);
	free(file);
	if (!config->auth) {
		doctor_note(d, "authentication is off (\"auth\": false or "
		    "--no-auth): any local process can drive the browser");
	}

	quoted = install_shell_quote(config->token_file);
	if (lstat(config->token_file, &sb) == -1) {
		fix = xasprintf("%s token", d->command);
		doctor_fail(d, fix, "no token file %s (the host makes it on its "
		    "first start)", config->token_file);
	} else if (S_ISREG(sb.st_mode) && doctor_open_to_others(privacy =
	    doctor_privacy(config->token_file, &detail))) {
		fix = os_privacy_fix(quoted, false);
		doctor_fail(d, fix, "token file %s is open to other users "
		    "(%s)", config->token_file, detail);
	} else if ((token = token_load_or_create(config->token_file,
	    &cause)) == NULL) {
		fix = xasprintf("rm %s && %s token", quoted, d->command);
		doctor_fail(d, fix, "%s", cause);
		free(cause);
	} else {
		fix = NULL;
		doctor_ok(d, "token file %s (mode %03o)", config->token_file,
		    (unsigned)(sb.st_mode & 0777));
		free(token);
	}
	free(fix);
	free(quoted);
	free(detail);
}

/*
 * The token our checks of the running host use to verify it (NULL when
 * auth is off or the token cannot be read: doctor_config reports that).
 */
static char *
doctor_token(const struct config *config)
{
	char	*cause = NULL, *token;

	if (!config->auth)
		return NULL;
	token = token_load_or_create(config->token_file, &cause);
	free(cause);
	return token;
}

/*
 * Reports why the host is not on its configured port, as its /health
 * says: a failure when a program that is not Browser Bridge holds it.
 */
static void
doctor_port(struct doctor *d, const json_t *health)
{
	const char	*note;

	note = json_string_value(json_object_get(health, "port_note"));
	if (note == NULL)
		return;
	if (json_is_true(json_object_get(health, "port_unsafe")))
		doctor_fail(d, "stop the program that holds the port, or set "
		    "\"port\" in config.json", "%s", note);
	else
		doctor_note(d, "%s", note);
}

/* Checks one running host: it answers, its version, its extension. */
static void
doctor_instance(struct doctor *d, const struct instance *host)
{
	json_t		*health;
	char		*cause = NULL, *fix, *token;
	const char	*version;

	doctor_ok(d, "host %s (pid %ld, profile %s) is running", host->name,
	    host->pid, host->profile);
	token = doctor_token(d->config);
	health = probe_health(host->port, token, PROBE_TIMEOUT_MS, &cause);
	free(token);
	if (health == NULL) {
		fix = xasprintf("restart the browser, which restarts the host; "
		    "if it stays stuck: kill %ld", host->pid);
		doctor_fail(d, fix, "host %s (pid %ld) does not answer: %s",
		    host->name, host->pid, cause);
		free(fix);
		free(cause);
		return;
	}
	version = json_string_value(json_object_get(health, "version"));
	if (version == NULL || strcmp(version, PACKAGE_VERSION) != 0) {
		doctor_fail(d, "restart the browser so it starts this version "
		    "of the host", "host %s is version %s, this program is "
		    PACKAGE_VERSION, host->name, version != NULL ? version :
		    "(unknown)");
	} else {
		doctor_ok(d, "host %s answers on 127.0.0.1:%d (version %s, "
		    "%lld MCP sessions)", host->name, host->port, version,
		    (long long)json_integer_value(json_object_get(health,
		    "sessions")));
	}
	doctor_port(d, health);
	if (json_is_true(json_object_get(health, "extension_connected")))
		doctor_ok(d, "host %s: the extension is connected", host->name);
	else {
		doctor_fail(d, "open chrome://extensions and reload Browser "
		    "Bridge (or restart the browser)", "host %s: the extension "
		    "is not connected to the host", host->name);
	}
	json_decref(health);
}

/*
 * Checks the running hosts (every one, or the one --instance names): each
 * answers and has its extension connected. No host at all is a failure.
 */
static void
doctor_hosts(struct doctor *d, const struct instance *list, size_t count)
{
	const struct instance	*host;
	char			*cause = NULL;
	size_t			 i;

	if (count == 0) {
		doctor_fail(d, DOCTOR_START_HOST, "no host is running");
		return;
	}
	if (d->config->instance != NULL) {
		if ((host = instance_pick(list, count, d->config->instance,
		    &cause)) == NULL) {
			doctor_fail(d, "browser-bridge status lists the running "
			    "hosts", "%s", cause);
			free(cause);
		} else
			doctor_instance(d, host);
		return;
	}
	for (i = 0; i < count; i++)
		doctor_instance(d, &list[i]);
}

/* doctor: runs every check; exit status 0 only when all pass. */
int
doctor_run(struct config *config, int out_fd)
{
	struct doctor	 d;
	struct instance	*hosts;
	char		*cause = NULL;
	size_t		 count;

	memset(&d, 0, sizeof d);
	d.config = config;
	d.out_fd = out_fd;
	if ((d.self = os_self_path(&cause)) == NULL) {
		fprintf(stderr, "browser-bridge doctor: %s\n", cause);
		free(cause);
		return 1;
	}
	d.command = install_command_name(d.self);
	files_printf(out_fd, "browser-bridge " PACKAGE_VERSION " at %s\n",
	    d.self);
	count = instance_list(&hosts);
	doctor_browsers(&d, hosts, count);
	doctor_config(&d);
	doctor_clients(&d);
	doctor_hosts(&d, hosts, count);
	instance_list_free(hosts, count);
	if (d.failures == 0)
		files_printf(out_fd, "All %zu checks passed.\n", d.checks);
	else {
		files_printf(out_fd, "%zu of %zu checks failed: run each fix "
		    "above, then `%s doctor` again.\n", d.failures, d.checks,
		    d.command);
	}
	free(d.command);
	free(d.self);
	return d.failures == 0 ? 0 : 1;
}

/*
 * Prints why the host is not on its configured port, if it says so;
 * returns 1 when a program that is not Browser Bridge holds that port.
 */
static int
doctor_status_port(const json_t *health, int out_fd)
{
	const char	*note;
	bool		 unsafe;

	note = json_string_value(json_object_get(health, "port_note"));
	if (note == NULL)
		return 0;
	unsafe = json_is_true(json_object_get(health, "port_unsafe"));
	files_printf(out_fd, "  %s    %s\n", unsafe ? "DANGER:" : "note:  ",
	    note);
	return unsafe ? 1 : 0;
}

/* Most clients status lists; the rest are counted. */
#define DOCTOR_STATUS_CLIENTS	10

/*
 * Prints the clients connected to a verified host, most recently active
 * first: what each said it is, its transport, and how long it has been
 * idle (a 1.x SDK client never says goodbye; its session ends idle).
 */
static void
doctor_status_clients(const struct instance *host, const char *token,
    int out_fd)
{
	json_t		*clients, *client;
	size_t		 i;
	json_int_t	 idle_s;

	if (token == NULL ||
	    (clients = probe_clients(host->port, token, PROBE_TIMEOUT_MS)) ==
	    NULL)
		return;
	if (json_array_size(clients) == 0)
		files_printf(out_fd, "  clients:    none\n");
	json_array_foreach(clients, i, client) {
		if (i == DOCTOR_STATUS_CLIENTS) {
			files_printf(out_fd, "              and %zu more\n",
			    json_array_size(clients) - i);
			break;
		}
		idle_s = json_integer_value(json_object_get(client,
		    "idle_ms")) / 1000;
		files_printf(out_fd, "  %s  %s (%s, %lld call%s running, "
		    "idle %lld s)\n", i == 0 ? "clients:  " : "          ",
		    json_string_value(json_object_get(client, "client")),
		    json_string_value(json_object_get(client, "transport")),
		    (long long)json_integer_value(json_object_get(client,
		    "calls")), json_integer_value(json_object_get(client,
		    "calls")) == 1 ? "" : "s", (long long)idle_s);
	}
	json_decref(clients);
}

/* Prints one running host as status shows it; returns 1 if it is unwell. */
static int
doctor_status_instance(const struct instance *host, const char *token,
    int out_fd)
{
	json_t		*health;
	const char	*version;
	char		*cause = NULL;
	int		 rc;

	if ((health = probe_health(host->port, token, PROBE_TIMEOUT_MS,
	    &cause)) == NULL) {
		files_printf(out_fd, "Browser Bridge host %s (pid %ld) does "
		    "not answer: %s.\nRestart the browser, which restarts the "
		    "host.\n", host->name, host->pid, cause);
		free(cause);
		return 1;
	}
	version = json_string_value(json_object_get(health, "version"));
	files_printf(out_fd, "Browser Bridge host %s (pid %ld)\n"
	    "  instance:   %s (browser %s, profile %s)\n"
	    "  MCP URL:    %s\n"
	    "  port:       %d\n"
	    "  sessions:   %lld\n"
	    "  extension:  %s\n",
	    version != NULL ? version : "(unknown version)", host->pid,
	    host->name, host->browser, host->profile,
	    host->url != NULL ? host->url : "", host->port,
	    (long long)json_integer_value(json_object_get(health, "sessions")),
	    json_is_true(json_object_get(health, "extension_connected")) ?
	    "connected" : "not connected (open chrome://extensions and "
	    "reload Browser Bridge)");
	doctor_status_clients(host, token, out_fd);
	rc = doctor_status_port(health, out_fd);
	json_decref(health);
	return rc;
}

/* Prints the approved OAuth clients for status (if any), or why it cannot. */
static void
doctor_status_approved(const struct config *config, int out_fd)
{
	char	*cause = NULL;
	json_t	*list;

	if (!config->auth || !config->oauth)
		return;
	if ((list = doctor_clients_read(config, &cause)) == NULL) {
		files_printf(out_fd, "Approved clients: unknown: %s\n", cause);
		free(cause);
		return;
	}
	if (json_array_size(list) > 0) {
		files_printf(out_fd, "Approved clients (revoke them in the "
		    "Browser Bridge popup):\n");
		doctor_clients_print(list, out_fd, "  ");
	}
	json_decref(list);
}

/*
 * status: every running host (one per browser profile with the
 * extension), or the one --instance names: port, version, sessions and
 * whether its extension is connected. Exit status 1 when none runs or one
 * is unwell.
 */
int
doctor_status_run(struct config *config, int out_fd)
{
	struct instance		*hosts;
	const struct instance	*host;
	char			*cause = NULL, *token;
	size_t			 count, i;
	int			 rc = 0;

	count = instance_list(&hosts);
	if (count == 0) {
		files_printf(out_fd, "No Browser Bridge host is running.\n"
		    "To start one, " DOCTOR_START_HOST ".\n`browser-bridge "
		    "doctor` checks the whole setup.\n");
		return 1;
	}
	token = doctor_token(config);
	if (config->instance != NULL) {
		if ((host = instance_pick(hosts, count, config->instance,
		    &cause)) == NULL) {
			files_printf(out_fd, "%s.\n", cause);
			free(cause);
			rc = 1;
		} else
			rc = doctor_status_instance(host, token, out_fd);
	} else {
		for (i = 0; i < count; i++)
			rc |= doctor_status_instance(&hosts[i], token, out_fd);
		if (count > 1)
			files_printf(out_fd, "%zu hosts run; `browser-bridge "
			    "stdio --instance NAME` picks one (default: the "
			    "first).\n", count);
	}
	doctor_status_approved(config, out_fd);
	free(token);
	instance_list_free(hosts, count);
	return rc;
}
