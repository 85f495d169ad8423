/* The running hosts: who started each, their runtime files, picking one. */
#include "instance.h"

#include <sys/types.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "os.h"
#include "runtime-file.h"
#include "xmalloc.h"

/* The browsers' program names, and the name install and doctor use. */
static const struct {
	const char	*program;
	const char	*browser;
} instance_programs[] = {
	{ "chrome", "chrome" }, { "google-chrome", "chrome" },
	{ "google-chrome-stable", "chrome" }, { "google-chrome-beta", "chrome" },
	{ "chromium", "chromium" }, { "chromium-browser", "chromium" },
	{ "msedge", "edge" }, { "microsoft-edge", "edge" },
	{ "microsoft-edge-stable", "edge" }, { "brave", "brave" },
	{ "brave-browser", "brave" }, { "vivaldi", "vivaldi" },
	{ "vivaldi-bin", "vivaldi" },
};

/* The browser a program path names: its short name, or the file name. */
static char *
instance_browser(const char *program)
{
	const char	*base = strrchr(program, '/');
	size_t		 i;

	base = base != NULL ? base + 1 : program;
	for (i = 0; i < sizeof instance_programs / sizeof *instance_programs;
	    i++) {
		if (strcmp(base, instance_programs[i].program) == 0)
			return xstrdup(instance_programs[i].browser);
	}
	return xstrdup(*base != '\0' ? base : "unknown");
}

/* The name status lists: the browser, or browser:profile-directory. */
static char *
instance_name(const char *browser, const char *profile)
{
	char	*trimmed, *base, *name;
	size_t	 len;

	if (strcmp(profile, "default") == 0)
		return xstrdup(browser);
	trimmed = xstrdup(profile);
	while ((len = strlen(trimmed)) > 1 && trimmed[len - 1] == '/')
		trimmed[len - 1] = '\0';
	base = strrchr(trimmed, '/');
	name = xasprintf("%s:%s", browser, base != NULL ? base + 1 : trimmed);
	free(trimmed);
	return name;
}

/*
 * What this host says about itself: the browser that started it (the
 * parent process, where the system says how it was started: "unknown"
 * elsewhere) and that browser's profile
 * (its --user-data-dir, or "default"), as {"browser","profile","name"}.
 */
json_t *
instance_identity(long parent_pid)
{
	char	*cmdline, *browser, *profile = NULL, *name, *arg;
	size_t	 len = 0, at;
	json_t	*identity;

	cmdline = os_process_arguments(parent_pid, &len);
	browser = instance_browser(cmdline != NULL ? cmdline : "unknown");
	for (at = cmdline != NULL ? strlen(cmdline) + 1 : len; at < len;
	    at += strlen(arg) + 1) {
		arg = cmdline + at;
		if (strncmp(arg, "--user-data-dir=", 16) == 0) {
			free(profile);
			profile = xstrdup(arg + 16);
		} else if (strcmp(arg, "--user-data-dir") == 0 &&
		    at + strlen(arg) + 1 < len) {
			free(profile);
			profile = xstrdup(arg + strlen(arg) + 1);
		}
	}
	if (profile == NULL || *profile == '\0') {
		free(profile);
		profile = xstrdup("default");
	}
	name = instance_name(browser, profile);
	identity = json_pack("{s:s,s:s,s:s}", "browser", browser, "profile",
	    profile, "name", name);
	free(name);
	free(profile);
	free(browser);
	free(cmdline);
	return identity;
}

/* A string field of a runtime file, or fallback when it has none. */
static char *
instance_field(const json_t *root, const char *key, const char *fallback)
{
	const char	*value = json_string_value(json_object_get(root, key));

	if (value != NULL && *value != '\0')
		return xstrdup(value);
	return fallback != NULL ? xstrdup(fallback) : NULL;
}

/* Reads and checks one runtime file. */
int
instance_read(const char *path, struct instance *instance, char **cause)
{
	json_error_t	 error;
	json_t		*root, *pid, *port;

	memset(instance, 0, sizeof *instance);
	root = json_load_file(path, 0, &error);
	if (root == NULL) {
		*cause = xasprintf("%s is not valid JSON: %s", path,
		    error.text);
		return -1;
	}
	pid = json_object_get(root, "pid");
	port = json_object_get(root, "port");
	if (!json_is_integer(pid) || json_integer_value(pid) <= 0 ||
	    !json_is_integer(port) || json_integer_value(port) <= 0 ||
	    json_integer_value(port) > 65535) {
		*cause = xasprintf("%s lacks a valid \"pid\" and \"port\"",
		    path);
		json_decref(root);
		return -1;
	}
	instance->path = xstrdup(path);
	instance->pid = (long)json_integer_value(pid);
	instance->port = (int)json_integer_value(port);
	instance->started = json_integer_value(json_object_get(root,
	    "started"));
	instance->version = instance_field(root, "version", NULL);
	instance->url = instance_field(root, "url", NULL);
	instance->browser = instance_field(root, "browser", "unknown");
	instance->profile = instance_field(root, "profile", "default");
	instance->name = instance_field(root, "name", instance->browser);
	json_decref(root);
	return 0;
}

/* Frees what instance_read filled in. */
void
instance_clear(struct instance *instance)
{
	free(instance->path);
	free(instance->version);
	free(instance->url);
	free(instance->browser);
	free(instance->profile);
	free(instance->name);
	memset(instance, 0, sizeof *instance);
}

/* Orders instances oldest first (the first keeps the well-known port). */
static int
instance_compare(const void *a, const void *b)
{
	const struct instance	*x = a, *y = b;

	if (x->started != y->started)
		return x->started < y->started ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Adds the live instances of one directory; removes files of dead hosts.
 * A directory that is a link or that others may change (it and the one
 * above it) is skipped: its files could send clients and their token
 * anywhere.
 */
static void
instance_scan(const char *dir, struct instance **list, size_t *count)
{
	struct instance	 found;
	struct dirent	*entry;
	DIR		*d;
	char		*path, *cause = NULL, *base = files_dirname(dir);
	size_t		 len, i;
	bool		 known;
	int		 fd = -1;

	if (files_check_private_dir(base, &cause) == 0)
		fd = files_open_private_dir(dir, &cause);
	free(base);
	free(cause);
	cause = NULL;
	if (fd == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((entry = readdir(d)) != NULL) {
		len = strlen(entry->d_name);
		if (entry->d_name[0] == '.' || len < 6 ||
		    strcmp(entry->d_name + len - 5, ".json") != 0)
			continue;
		path = xasprintf("%s/%s", dir, entry->d_name);
		if (instance_read(path, &found, &cause) != 0) {
			free(cause);
			cause = NULL;
		} else if (!os_process_alive(found.pid)) {
			(void)unlink(path);	/* a host that crashed */
			instance_clear(&found);
		} else {
			known = false;
			for (i = 0; i < *count; i++)
				known = known || (*list)[i].pid == found.pid;
			if (known)
				instance_clear(&found);
			else {
				*list = xrealloc(*list, (*count + 1) *
				    sizeof **list);
				(*list)[(*count)++] = found;
			}
		}
		free(path);
	}
	closedir(d);
}

/*
 * Lists the running hosts, oldest first, from every directory a host may
 * have written to; files whose pid has exited are removed. Returns how
 * many; *list (NULL when none) is freed with instance_list_free.
 */
size_t
instance_list(struct instance **list)
{
	char	*dirs[RUNTIME_FILE_DIRS_MAX];
	size_t	 n, i, count = 0;

	*list = NULL;
	n = runtime_file_dirs(dirs);
	for (i = 0; i < n; i++) {
		instance_scan(dirs[i], list, &count);
		free(dirs[i]);
	}
	if (count > 1)
		qsort(*list, count, sizeof **list, instance_compare);
	return count;
}

/* Frees a list from instance_list. */
void
instance_list_free(struct instance *list, size_t count)
{
	size_t	i;

	for (i = 0; i < count; i++)
		instance_clear(&list[i]);
	free(list);
}

/* Whether an instance answers to what a user typed after --instance. */
static bool
instance_matches(const struct instance *instance, const char *wanted)
{
	char	*pid = xasprintf("%ld", instance->pid);
	bool	 match;

	match = strcmp(wanted, instance->name) == 0 ||
	    strcmp(wanted, instance->browser) == 0 ||
	    strcmp(wanted, instance->profile) == 0 || strcmp(wanted, pid) == 0;
	free(pid);
	return match;
}

/*
 * Picks an instance: the first (oldest) when wanted is NULL, else the
 * first whose name, browser, profile or pid is wanted. NULL with *cause
 * (heap) naming the running ones when none is.
 */
const struct instance *
instance_pick(const struct instance *list, size_t count, const char *wanted,
    char **cause)
{
	char	*names = xstrdup(""), *more;
	size_t	 i;

	for (i = 0; i < count; i++) {
		if (wanted == NULL || instance_matches(&list[i], wanted)) {
			free(names);
			return &list[i];
		}
		more = xasprintf("%s%s%s (pid %ld, port %d)", names,
		    i > 0 ? ", " : "", list[i].name, list[i].pid,
		    list[i].port);
		free(names);
		names = more;
	}
	if (count == 0)
		*cause = xstrdup("no Browser Bridge host is running");
	else
		*cause = xasprintf("no running Browser Bridge host is \"%s\"; "
		    "running: %s", wanted, names);
	free(names);
	return NULL;
}
