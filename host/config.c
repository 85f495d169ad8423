/* Settings: defaults, the user's config file, then the command line. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "nm-frame.h"
#include "os.h"
#include "rpc.h"
#include "xmalloc.h"

/* Every command-line option; cli.c prints them per command. */
const struct config_option config_options[] = {
	{ "port", "N", "MCP port on 127.0.0.1 (default 9333, 0: any free)",
	  CONFIG_OPTIONS_HOST },
	{ "no-auth", NULL, "accept MCP requests without the bearer token",
	  CONFIG_OPTIONS_HOST },
	{ "allow-evaluate", NULL, "let the evaluate_script tool run page "
	  "scripts", CONFIG_OPTIONS_HOST },
	{ "log", "FILE", "also append the log to FILE", CONFIG_OPTIONS_HOST },
	{ "log-level", "LEVEL", "error, warn, info (default) or debug",
	  CONFIG_OPTIONS_HOST },
	{ "max-frame", "BYTES", "largest message accepted from the browser",
	  CONFIG_OPTIONS_HOST },
	{ "max-body", "BYTES", "largest HTTP request body",
	  CONFIG_OPTIONS_HOST },
	{ "max-sessions", "N", "MCP sessions kept at once",
	  CONFIG_OPTIONS_HOST },
	{ "max-connections", "N", "HTTP connections open at once",
	  CONFIG_OPTIONS_HOST },
	{ "head-timeout", "MS", "time a client has to send a request's "
	  "headers", CONFIG_OPTIONS_HOST },
	{ "session-idle", "MS", "idle time after which a session expires",
	  CONFIG_OPTIONS_HOST },
	{ "hello-grace", "MS", "how long calls wait for the extension to "
	  "connect", CONFIG_OPTIONS_HOST },
	{ "keepalive", "MS", "how often idle SSE streams get a keepalive "
	  "comment", CONFIG_OPTIONS_HOST },
	{ "tools-page-size", "N", "tools per tools/list page (0: all)",
	  CONFIG_OPTIONS_HOST },
	{ "parent-window", "HANDLE", NULL, CONFIG_OPTIONS_HOST },
	{ "browser", "NAME", "chrome, chromium, edge, brave, vivaldi or all "
	  "(repeatable; default: every browser found)",
	  CONFIG_OPTIONS_INSTALL },
	{ "system", NULL, "every user's browsers (needs root)",
	  CONFIG_OPTIONS_INSTALL },
	{ "extension-id", "ID", "also allow this extension ID (repeatable)",
	  CONFIG_OPTIONS_INSTALL },
	{ "user-data-dir", "DIR", "the profile a browser runs with "
	  "--user-data-dir=DIR", CONFIG_OPTIONS_INSTALL },
	{ "instance", "NAME", "the running host to use when several run: its "
	  "name, browser, profile directory or pid, as status lists them "
	  "(default: the first)", CONFIG_OPTIONS_INSTANCE },
	{ "help", NULL, "show this help", CONFIG_OPTIONS_ANY },
	{ "version", NULL, "print the version", CONFIG_OPTIONS_ANY },
	{ "markdown", NULL, NULL, CONFIG_OPTIONS_ANY },
	{ NULL, NULL, NULL, 0 },
};

/* Fills in the defaults. */
void
config_defaults(struct config *config)
{
	memset(config, 0, sizeof *config);
	config->port = CONFIG_DEFAULT_PORT;
	config->auth = true;
	config->oauth = true;
	config->log_level = LOG_LEVEL_INFO;
	config->max_frame = NM_FRAME_DEFAULT_MAX;
	config->max_body = CONFIG_DEFAULT_MAX_BODY;
	config->max_headers = CONFIG_DEFAULT_MAX_HEADERS;
	config->max_sessions = CONFIG_DEFAULT_MAX_SESSIONS;
	config->max_connections = CONFIG_DEFAULT_MAX_CONNECTIONS;
	config->head_timeout_ms = CONFIG_DEFAULT_HEAD_TIMEOUT_MS;
	config->session_idle_ms = CONFIG_DEFAULT_SESSION_IDLE_MS;
	config->keepalive_ms = CONFIG_DEFAULT_KEEPALIVE_MS;
	config->hello_grace_ms = RPC_DEFAULT_HELLO_GRACE_MS;
	config->http_timeout_s = 60;
}

/* Appends a copy of value to a list of strings. */
static void
config_append(char ***list, size_t *count, const char *value)
{
	*list = xrealloc(*list, (*count + 1) * sizeof **list);
	(*list)[(*count)++] = xstrdup(value);
}

/* Frees what the config owns. */
void
config_clear(struct config *config)
{
	free(config->log_file);
	free(config->extension_origin);
	free(config->config_dir);
	free(config->token_file);
	free(config->clients_file);
	free(config->file_error);
	xfree_strings(config->browsers, config->browser_count);
	xfree_strings(config->extension_ids, config->extension_id_count);
	xfree_strings(config->allowed_origins, config->allowed_origin_count);
	xfree_strings(config->upload_roots, config->upload_root_count);
	free(config->user_data_dir);
	free(config->instance);
	memset(config, 0, sizeof *config);
}

/* Returns the user's configuration directory's browser-bridge. */
char *
config_dir_path(char **cause)
{
	char	*base, *dir, *why = NULL;

	if ((base = os_user_dir(OS_USER_CONFIG, &why)) == NULL) {
		*cause = xasprintf("%s so the host can keep its token", why);
		free(why);
		return NULL;
	}
	dir = xasprintf("%s/browser-bridge", base);
	free(base);
	return dir;
}

/* Parses a non-negative integer option no larger than max. */
static int
config_number(const char *name, const char *text, long long max,
    long long *out, char **cause)
{
	char		*end;
	long long	 value;

	errno = 0;
	value = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || value < 0 ||
	    value > max) {
		*cause = xasprintf("%s must be a whole number from 0 to %lld, "
		    "not \"%s\"", name, max, text);
		return -1;
	}
	*out = value;
	return 0;
}

/* Applies one setting by name, from the file or the command line. */
static int
config_set(struct config *config, const char *name, const char *value,
    char **cause)
{
	long long	n;

	if (strcmp(name, "log-level") == 0) {
		if (log_level_parse(value, &config->log_level) != 0) {
			*cause = xasprintf("log-level must be error, warn, info "
			    "or debug, not \"%s\"", value);
			return -1;
		}
		return 0;
	}
	if (strcmp(name, "log") == 0) {
		free(config->log_file);
		config->log_file = xstrdup(value);
		return 0;
	}
	if (strcmp(name, "port") == 0) {
		if (config_number(name, value, 65535, &n, cause) != 0)
			return -1;
		config->port = (int)n;
	} else if (strcmp(name, "max-frame") == 0) {
		if (config_number(name, value, NM_FRAME_MAX_SKIP, &n,
		    cause) != 0)
			return -1;
		config->max_frame = (size_t)n;
	} else if (strcmp(name, "max-body") == 0) {
		if (config_number(name, value, INT_MAX, &n, cause) != 0)
			return -1;
		config->max_body = (size_t)n;
	} else if (strcmp(name, "max-sessions") == 0) {
		if (config_number(name, value, 100000, &n, cause) != 0)
			return -1;
		config->max_sessions = (size_t)n;
	} else if (strcmp(name, "max-connections") == 0) {
		if (config_number(name, value, 100000, &n, cause) != 0)
			return -1;
		if (n < 1) {
			*cause = xstrdup("max-connections must be at least 1");
			return -1;
		}
		config->max_connections = (size_t)n;
	} else if (strcmp(name, "head-timeout") == 0) {
		if (config_number(name, value, INT_MAX, &n, cause) != 0)
			return -1;
		if (n < 10) {
			*cause = xstrdup("head-timeout must be at least 10 ms");
			return -1;
		}
		config->head_timeout_ms = (int)n;
	} else if (strcmp(name, "session-idle") == 0) {
		if (config_number(name, value, INT_MAX, &n, cause) != 0)
			return -1;
		config->session_idle_ms = (int)n;
	} else if (strcmp(name, "keepalive") == 0) {
		if (config_number(name, value, INT_MAX, &n, cause) != 0)
			return -1;
		if (n < 10) {
			*cause = xstrdup("keepalive must be at least 10 ms");
			return -1;
		}
		config->keepalive_ms = (int)n;
	} else if (strcmp(name, "hello-grace") == 0) {
		if (config_number(name, value, INT_MAX, &n, cause) != 0)
			return -1;
		config->hello_grace_ms = (int)n;
	} else if (strcmp(name, "tools-page-size") == 0) {
		if (config_number(name, value, 1000, &n, cause) != 0)
			return -1;
		config->tools_page_size = (size_t)n;
	} else {
		*cause = xasprintf("unknown setting \"%s\"", name);
		return -1;
	}
	return 0;
}

/* The setting a boolean key of config.json sets, or NULL. */
static bool *
config_file_flag(struct config *config, const char *key)
{
	if (strcmp(key, "auth") == 0)
		return &config->auth;
	if (strcmp(key, "oauth") == 0)
		return &config->oauth;
	if (strcmp(key, "evaluate_script") == 0)
		return &config->evaluate_script;
	if (strcmp(key, "allow_file_urls") == 0)
		return &config->allow_file_urls;
	if (strcmp(key, "reveal_network_secrets") == 0)
		return &config->reveal_network_secrets;
	return NULL;
}

/*
 * Reads "allowed_origins": the web origins (scheme://host[:port]) a
 * browser-based MCP client may call from, with CORS. -1 with *cause set
 * when it is not an array of such strings.
 */
static int
config_read_origins(struct config *config, const json_t *value,
    const char *path, char **cause)
{
	const json_t	*origin;
	const char	*text;
	size_t		 i;

	if (!json_is_array(value))
		goto bad;
	json_array_foreach(value, i, origin) {
		text = json_string_value(origin);
		if (text == NULL || (strncmp(text, "http://", 7) != 0 &&
		    strncmp(text, "https://", 8) != 0) ||
		    strchr(strchr(text, ':') + 3, '/') != NULL ||
		    strlen(text) != json_string_length(origin))
			goto bad;
		config_append(&config->allowed_origins,
		    &config->allowed_origin_count, text);
	}
	return 0;
bad:
	*cause = xasprintf("%s: \"allowed_origins\" must be a list of web "
	    "origins such as \"http://localhost:6274\" (scheme, host and "
	    "port, no path)", path);
	return -1;
}

/*
 * Reads "upload_roots": the directories upload_file may take files from,
 * absolute (as the OS writes it: "/...", "C:\...") or under "~/" (the
 * home directory). -1 with *cause set when it is not an array of such
 * paths. An empty array turns uploads off.
 */
static int
config_read_upload_roots(struct config *config, const json_t *value,
    const char *path, char **cause)
{
	const json_t	*root;
	const char	*text;
	char		*expanded, *home = os_home_dir();
	size_t		 i;

	if (!json_is_array(value))
		goto bad;
	xfree_strings(config->upload_roots, config->upload_root_count);
	config->upload_roots = NULL;
	config->upload_root_count = 0;
	json_array_foreach(value, i, root) {
		text = json_string_value(root);
		if (text == NULL || strlen(text) != json_string_length(root))
			goto bad;
		if (strncmp(text, "~/", 2) == 0 && home != NULL)
			expanded = xasprintf("%s/%s", home, text + 2);
		else if (os_path_is_absolute(text))
			expanded = xstrdup(text);
		else
			goto bad;
		config_append(&config->upload_roots, &config->upload_root_count,
		    expanded);
		free(expanded);
	}
	free(home);
	return 0;
bad:
	free(home);
	*cause = xasprintf("%s: \"upload_roots\" must be a list of "
	    "directories, absolute or under \"~/\", e.g. [\"~/Downloads\"]",
	    path);
	return -1;
}

/*
 * Reads config.json in the config directory, if there is one. Keys are the
 * long option names with "_" or "-" ("log_level"), plus the booleans
 * "auth", "oauth", "evaluate_script", "allow_file_urls" and
 * "reveal_network_secrets", and the lists "allowed_origins" and
 * "upload_roots".
 */
static int
config_read_file(struct config *config, char **cause)
{
	json_error_t	 error;
	json_t		*root, *value;
	const char	*key;
	char		*path, *name, *text, *p, *why = NULL;
	bool		*flag;
	int		 rc = 0;

	path = xasprintf("%s/config.json", config->config_dir);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &error);
	if (root == NULL) {
		if (access(path, F_OK) != 0) {
			free(path);
			return 0;	/* no file: defaults */
		}
		*cause = xasprintf("%s line %d: %s", path, error.line,
		    error.text);
		free(path);
		return -1;
	}
	if (!json_is_object(root)) {
		*cause = xasprintf("%s must hold a JSON object", path);
		rc = -1;
	}
	json_object_foreach(root, key, value) {
		if (rc != 0)
			break;
		if ((flag = config_file_flag(config, key)) != NULL) {
			if (!json_is_boolean(value)) {
				*cause = xasprintf("%s: \"%s\" must be true or "
				    "false", path, key);
				rc = -1;
			} else
				*flag = json_is_true(value);
			continue;
		}
		if (strcmp(key, "allowed_origins") == 0) {
			rc = config_read_origins(config, value, path, cause);
			continue;
		}
		if (strcmp(key, "upload_roots") == 0) {
			rc = config_read_upload_roots(config, value, path, cause);
			continue;
		}
		name = xstrdup(key);
		for (p = name; *p != '\0'; p++) {
			if (*p == '_')
				*p = '-';
		}
		if (strcmp(name, "log-file") == 0)
			strcpy(name, "log");
		if (json_is_string(value))
			text = xstrdup(json_string_value(value));
		else if (json_is_integer(value))
			text = xasprintf("%lld", (long long)json_integer_value(value));
		else
			text = xstrdup("(not a string or number)");
		if (config_set(config, name, text, &why) != 0) {
			*cause = xasprintf("%s: %s", path, why);
			free(why);
			rc = -1;
		}
		free(text);
		free(name);
	}
	json_decref(root);
	free(path);
	return rc;
}

/*
 * Sets the config directory and the token path under it, and the default
 * upload root, ~/Downloads (%USERPROFILE%\Downloads on Windows;
 * config.json's "upload_roots" replaces it).
 */
static int
config_locate(struct config *config, char **cause)
{
	char	*home, *downloads;

	if ((config->config_dir = config_dir_path(cause)) == NULL)
		return -1;
	config->token_file = xasprintf("%s/token", config->config_dir);
	config->clients_file = xasprintf("%s/clients.json", config->config_dir);
	if ((home = os_home_dir()) != NULL) {
		downloads = xasprintf("%s/Downloads", home);
		config_append(&config->upload_roots,
		    &config->upload_root_count, downloads);
		free(downloads);
		free(home);
	}
	return 0;
}

/*
 * Says whether a command depends on config.json's settings, so a broken
 * file stops it. The others (doctor above all) keep the problem in
 * file_error and report it.
 */
static bool
config_needs_file(const char *command)
{
	return command == NULL || strcmp(command, "serve") == 0 ||
	    strcmp(command, "token") == 0;
}

/* Notes which group an option belongs to, and the first of each group. */
static void
config_note_option(struct config *config, const struct config_option *option)
{
	unsigned	i;

	for (i = 0; i < CONFIG_OPTION_GROUPS; i++) {
		if (option->group == (1u << i) &&
		    config->group_option[i] == NULL)
			config->group_option[i] = option->name;
	}
	config->option_groups |= option->group;
}

/* Applies one option from the command line. */
static int
config_apply(struct config *config, const struct config_option *option,
    const char *value, char **cause)
{
	const char	*name = option->name;

	if (strcmp(name, "no-auth") == 0)
		config->auth = false;
	else if (strcmp(name, "allow-evaluate") == 0)
		config->evaluate_script = true;
	else if (strcmp(name, "parent-window") == 0)
		;	/* Windows: Chrome's parent window handle */
	else if (strcmp(name, "browser") == 0)
		config_append(&config->browsers, &config->browser_count, value);
	else if (strcmp(name, "system") == 0)
		config->system = true;
	else if (strcmp(name, "extension-id") == 0) {
		config_append(&config->extension_ids,
		    &config->extension_id_count, value);
	} else if (strcmp(name, "user-data-dir") == 0) {
		free(config->user_data_dir);
		config->user_data_dir = xstrdup(value);
	} else if (strcmp(name, "instance") == 0) {
		free(config->instance);
		config->instance = xstrdup(value);
	} else if (strcmp(name, "help") == 0)
		config->help = true;
	else if (strcmp(name, "version") == 0)
		config->version = true;
	else if (strcmp(name, "markdown") == 0)
		config->markdown = true;
	else
		return config_set(config, name, value, cause);
	return 0;
}

/* Loads the whole configuration: defaults, file, then argv. */
int
config_load(struct config *config, int argc, char **argv, char **cause)
{
	struct option	 options[sizeof config_options / sizeof
			     config_options[0] + 1];
	size_t		 n;
	int		 c, i;

	for (n = 0; config_options[n].name != NULL; n++) {
		options[n].name = config_options[n].name;
		options[n].has_arg = config_options[n].argument != NULL ?
		    required_argument : no_argument;
		options[n].flag = NULL;
		options[n].val = 256 + (int)n;
	}
	memset(&options[n], 0, sizeof options[n]);
	config_defaults(config);
	if (config_locate(config, cause) != 0)
		return -1;
	(void)config_read_file(config, &config->file_error);
	optind = 0;	/* 0, not 1: GNU getopt forgets the last argv only then */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == 'h') {
			config->help = true;
			continue;
		}
		if (c == '?' || c == ':') {
			*cause = xasprintf("%s option %s", c == ':' ?
			    "missing value for the" : "unknown",
			    argv[optind - 1]);
			return -1;
		}
		config_note_option(config, &config_options[c - 256]);
		if (config_apply(config, &config_options[c - 256], optarg,
		    cause) != 0)
			return -1;
	}
	for (i = optind; i < argc; i++) {
		if (strncmp(argv[i], "chrome-extension://", 19) == 0) {
			free(config->extension_origin);
			config->extension_origin = xstrdup(argv[i]);
		} else if (config->command == NULL)
			config->command = argv[i];
		else if (strcmp(config->command, "help") == 0 &&
		    config->help_topic == NULL)
			config->help_topic = argv[i];
		else {
			*cause = xasprintf("unexpected argument \"%s\"",
			    argv[i]);
			return -1;
		}
	}
	if (config->file_error != NULL && config_needs_file(config->command) &&
	    !config->help && !config->version) {
		*cause = config->file_error;
		config->file_error = NULL;
		return -1;
	}
	return 0;
}
