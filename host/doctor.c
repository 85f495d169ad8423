/* browser-bridge doctor and status: check the setup, describe the host. */
#include "doctor.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "clock.h"
#include "config.h"
#include "files.h"
#include "install.h"
#include "probe.h"
#include "runtime-file.h"
#include "token.h"
#include "xmalloc.h"

/* How long `PATH --version` may take. */
#define DOCTOR_VERSION_TIMEOUT_MS	5000

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
    __attribute__((format(printf, 2, 3)));

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
    __attribute__((format(printf, 2, 3)));

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
    __attribute__((format(printf, 3, 4)));

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
	struct pollfd	 pfd;
	char		 buf[256], *nl;
	size_t		 used = 0;
	long long	 deadline = (long long)clock_now_ms(clock_monotonic()) +
			    timeout_ms;
	ssize_t		 n;
	pid_t		 pid;
	int		 fds[2], status, null_fd, left;
	bool		 timed_out = false;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		*cause = xasprintf("pipe: %s", strerror(errno));
		return NULL;
	}
	if ((pid = fork()) == -1) {
		*cause = xasprintf("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		null_fd = open("/dev/null", O_RDWR);
		dup2(null_fd, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
		execl(path, path, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	while (used < sizeof buf - 1) {
		left = (int)(deadline -
		    (long long)clock_now_ms(clock_monotonic()));
		if (left <= 0 || (n = poll(&pfd, 1, left)) == 0) {
			timed_out = true;
			break;
		}
		if (n == -1 && errno == EINTR)
			continue;
		n = read(fds[0], buf + used, sizeof buf - 1 - used);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	buf[used] = '\0';
	if (timed_out) {
		*cause = xasprintf("`%s --version` did not finish within %d "
		    "ms", path, timeout_ms);
		return NULL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*cause = xasprintf("`%s --version` failed (%s %d)", path,
		    WIFEXITED(status) ? "exit status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return NULL;
	}
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	return xstrdup(buf);
}

/* Checks the manifest's path: absolute, existing, executable, same version. */
static void
doctor_manifest_path(struct doctor *d, const struct install_target *t,
    const char *path, const char *install_fix)
{
	struct stat	 sb;
	char		*version, *cause = NULL, *fix, *quoted;

	if (path == NULL || *path != '/') {
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

/* Checks one browser's (or profile's) manifest. */
static void
doctor_manifest(struct doctor *d, const struct install_target *t,
    char **ids, size_t nids)
{
	json_error_t	 error;
	json_t		*manifest, *origins, *value;
	const char	*name, *type;
	char		*fix, *origin;
	size_t		 i, j;
	bool		 allowed;

	if (!t->found && !t->named && access(t->path, F_OK) != 0) {
		doctor_note(d, "%s: not installed (%s)", t->title, t->missing);
		return;
	}
	fix = install_fix_command(d->config, d->self, "install", t);
	if (access(t->path, F_OK) != 0) {
		doctor_fail(d, fix, "%s: no manifest at %s", t->title, t->path);
		free(fix);
		return;
	}
	manifest = json_load_file(t->path, JSON_REJECT_DUPLICATES, &error);
	if (manifest == NULL) {
		doctor_fail(d, fix, "%s: manifest %s is not valid JSON (line "
		    "%d: %s)", t->title, t->path, error.line, error.text);
		free(fix);
		return;
	}
	if (!json_is_object(manifest)) {
		doctor_fail(d, fix, "%s: manifest %s is not a JSON object",
		    t->title, t->path);
		json_decref(manifest);
		free(fix);
		return;
	}
	name = json_string_value(json_object_get(manifest, "name"));
	type = json_string_value(json_object_get(manifest, "type"));
	if (name == NULL || strcmp(name, INSTALL_HOST_NAME) != 0) {
		doctor_fail(d, fix, "%s: manifest %s names \"%s\", not "
		    INSTALL_HOST_NAME, t->title, t->path,
		    name != NULL ? name : "(nothing)");
	} else if (type == NULL || strcmp(type, "stdio") != 0) {
		doctor_fail(d, fix, "%s: manifest %s has type \"%s\", not "
		    "stdio", t->title, t->path, type != NULL ? type : "");
	} else
		doctor_ok(d, "%s: manifest %s", t->title, t->path);
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
			    "extension", t->title, t->path, origin);
		}
		free(origin);
	}
	json_decref(manifest);
	free(fix);
}

/* Checks every browser's manifest. */
static void
doctor_browsers(struct doctor *d)
{
	struct install_target	*targets;
	char			**ids = NULL, *cause = NULL, *fix;
	size_t			 count = 0, nids = 0, i, found = 0;

	if (install_allowed_ids(d->config, &ids, &nids, &cause) != 0 ||
	    install_targets(d->config, &targets, &count, &cause) != 0) {
		doctor_fail(d, "browser-bridge --help", "%s", cause);
		free(cause);
		if (ids != NULL) {
			for (i = 0; i < nids; i++)
				free(ids[i]);
			free(ids);
		}
		return;
	}
	for (i = 0; i < count; i++) {
		if (targets[i].found || targets[i].named)
			found++;
		doctor_manifest(d, &targets[i], ids, nids);
	}
	if (found == 0) {
		fix = xasprintf("install a Chrome-family browser, or register "
		    "ahead of its first start: %s install --browser chromium",
		    d->command);
		doctor_fail(d, fix, "no Chrome-family browser found (Chrome, "
		    "Chromium, Edge, Brave or Vivaldi)");
		free(fix);
	}
	install_targets_free(targets, count);
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
}

/* Checks the config directory, config.json and the token file. */
static void
doctor_config(struct doctor *d)
{
	struct config	*config = d->config;
	struct stat	 sb;
	char		*quoted, *fix, *token, *cause = NULL, *file;

	quoted = install_shell_quote(config->config_dir);
	if (stat(config->config_dir, &sb) == -1 || !S_ISDIR(sb.st_mode)) {
		fix = xasprintf("%s token", d->command);
		doctor_fail(d, fix, "no config directory %s (the host makes it "
		    "on its first start)", config->config_dir);
		free(fix);
		free(quoted);
		return;
	}
	if ((sb.st_mode & 077) != 0) {
		fix = xasprintf("chmod 700 %s", quoted);
		doctor_fail(d, fix, "config directory %s is open to other "
		    "users (mode %03o)", config->config_dir,
		    (unsigned)(sb.st_mode & 0777));
		free(fix);
	} else {
		doctor_ok(d, "config directory %s (mode %03o)",
		    config->config_dir, (unsigned)(sb.st_mode & 0777));
	}
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
	} else if (S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
	    (sb.st_mode & 077) != 0) {
		fix = xasprintf("chmod 600 %s", quoted);
		doctor_fail(d, fix, "token file %s is open to other users "
		    "(mode %03o)", config->token_file,
		    (unsigned)(sb.st_mode & 0777));
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

/* Checks the runtime file, the host behind it and the extension. */
static void
doctor_host(struct doctor *d)
{
	struct probe_runtime	 runtime;
	json_t			*health;
	char			*path, *cause = NULL, *quoted, *fix, *token;
	const char		*version;

	if ((path = runtime_file_find(&cause)) == NULL) {
		doctor_fail(d, "export HOME or XDG_RUNTIME_DIR", "%s", cause);
		free(cause);
		return;
	}
	quoted = install_shell_quote(path);
	if (probe_runtime_read(path, &runtime, &cause) != 0) {
		if (access(path, F_OK) != 0) {
			doctor_fail(d, DOCTOR_START_HOST, "no host is running "
			    "(no runtime file %s)", path);
		} else {
			fix = xasprintf("rm %s, then %s", quoted,
			    DOCTOR_START_HOST);
			doctor_fail(d, fix, "%s", cause);
			free(fix);
		}
		free(cause);
		goto out;
	}
	if (!probe_pid_alive(runtime.pid)) {
		fix = xasprintf("rm %s, then %s", quoted, DOCTOR_START_HOST);
		doctor_fail(d, fix, "no host is running: runtime file %s names "
		    "pid %ld, which has exited", path, runtime.pid);
		free(fix);
		goto out_runtime;
	}
	doctor_ok(d, "host pid %ld is running (runtime file %s)", runtime.pid,
	    path);
	token = doctor_token(d->config);
	health = probe_health(runtime.port, token, PROBE_TIMEOUT_MS, &cause);
	free(token);
	if (health == NULL) {
		fix = xasprintf("restart the browser, which restarts the host; "
		    "if it stays stuck: kill %ld", runtime.pid);
		doctor_fail(d, fix, "host pid %ld does not answer: %s",
		    runtime.pid, cause);
		free(fix);
		free(cause);
		goto out_runtime;
	}
	version = json_string_value(json_object_get(health, "version"));
	if (version == NULL || strcmp(version, PACKAGE_VERSION) != 0) {
		doctor_fail(d, "restart the browser so it starts this version "
		    "of the host", "the running host is version %s, this "
		    "program is " PACKAGE_VERSION, version != NULL ? version :
		    "(unknown)");
	} else {
		doctor_ok(d, "host answers on 127.0.0.1:%d (version %s, %lld "
		    "MCP sessions)", runtime.port, version, (long long)
		    json_integer_value(json_object_get(health, "sessions")));
	}
	doctor_port(d, health);
	if (json_is_true(json_object_get(health, "extension_connected")))
		doctor_ok(d, "the extension is connected to the host");
	else {
		doctor_fail(d, "open chrome://extensions and reload Browser "
		    "Bridge (or restart the browser)", "the extension is not "
		    "connected to the host");
	}
	json_decref(health);
out_runtime:
	probe_runtime_clear(&runtime);
out:
	free(quoted);
	free(path);
}

/* doctor: runs every check; exit status 0 only when all pass. */
int
doctor_run(struct config *config, int out_fd)
{
	struct doctor	 d;
	char		*cause = NULL;

	memset(&d, 0, sizeof d);
	d.config = config;
	d.out_fd = out_fd;
	if ((d.self = install_self_path(&cause)) == NULL) {
		fprintf(stderr, "browser-bridge doctor: %s\n", cause);
		free(cause);
		return 1;
	}
	d.command = install_command_name(d.self);
	files_printf(out_fd, "browser-bridge " PACKAGE_VERSION " at %s\n",
	    d.self);
	doctor_browsers(&d);
	doctor_config(&d);
	doctor_host(&d);
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

/* status: the running host's port, version, sessions and extension. */
int
doctor_status_run(struct config *config, int out_fd)
{
	struct probe_runtime	 runtime;
	json_t			*health;
	const char		*version;
	char			*path, *cause = NULL, *token;
	int			 rc = 1;

	if ((path = runtime_file_find(&cause)) == NULL) {
		fprintf(stderr, "browser-bridge status: %s\n", cause);
		free(cause);
		return 1;
	}
	if (probe_runtime_read(path, &runtime, &cause) != 0) {
		files_printf(out_fd, "No Browser Bridge host is running (%s).\n"
		    "To start one, " DOCTOR_START_HOST ".\n`browser-bridge "
		    "doctor` checks the whole setup.\n", cause);
		free(cause);
		free(path);
		return 1;
	}
	token = doctor_token(config);
	if (!probe_pid_alive(runtime.pid)) {
		files_printf(out_fd, "No Browser Bridge host is running: %s "
		    "names pid %ld, which has exited.\nTo start one, "
		    DOCTOR_START_HOST ".\n", path, runtime.pid);
	} else if ((health = probe_health(runtime.port, token,
	    PROBE_TIMEOUT_MS, &cause)) == NULL) {
		files_printf(out_fd, "The Browser Bridge host (pid %ld) does "
		    "not answer: %s.\nRestart the browser, which restarts the "
		    "host.\n", runtime.pid, cause);
		free(cause);
	} else {
		version = json_string_value(json_object_get(health, "version"));
		files_printf(out_fd, "Browser Bridge host %s (pid %ld)\n"
		    "  MCP URL:    %s\n"
		    "  port:       %d\n"
		    "  sessions:   %lld\n"
		    "  extension:  %s\n",
		    version != NULL ? version : "(unknown version)",
		    runtime.pid, runtime.url != NULL ? runtime.url : "",
		    runtime.port, (long long)json_integer_value(
		    json_object_get(health, "sessions")),
		    json_is_true(json_object_get(health,
		    "extension_connected")) ? "connected" : "not connected "
		    "(open chrome://extensions and reload Browser Bridge)");
		rc = doctor_status_port(health, out_fd);
		json_decref(health);
	}
	free(token);
	probe_runtime_clear(&runtime);
	free(path);
	return rc;
}
