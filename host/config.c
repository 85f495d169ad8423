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
#include "rpc.h"
#include "xmalloc.h"

static const char config_usage_text[] =
"usage: browser-bridge [chrome-extension://ID/] [options]\n"
"       browser-bridge serve [options]   run the host (Chrome starts it)\n"
"       browser-bridge token             print the MCP bearer token\n"
"       browser-bridge install [--browser NAME|all] [--system]\n"
"                      [--extension-id ID]... [--user-data-dir DIR]\n"
"                                        register the host with the browsers\n"
"       browser-bridge uninstall [same options]\n"
"                                        remove what install wrote\n"
"       browser-bridge doctor            check the setup; say how to fix it\n"
"       browser-bridge status            describe the running host\n"
"       browser-bridge stdio             MCP on stdin/stdout for clients that\n"
"                                        only start stdio servers\n"
"       browser-bridge --version | --help\n"
"\n"
"options (each may also be set in ~/.config/browser-bridge/config.json):\n"
"  --port N             MCP port on 127.0.0.1 (default 9333, 0: any free)\n"
"  --no-auth            accept MCP requests without the bearer token\n"
"  --allow-evaluate     let the evaluate_script tool run page scripts\n"
"  --log FILE           also append the log to FILE\n"
"  --log-level LEVEL    error, warn, info (default) or debug\n"
"  --max-frame BYTES    largest message accepted from the browser\n"
"  --max-body BYTES     largest HTTP request body\n"
"  --max-sessions N     MCP sessions kept at once\n"
"  --session-idle MS    idle time after which a session expires\n"
"  --hello-grace MS     how long calls wait for the extension to connect\n"
"  --keepalive MS       how often idle SSE streams get a keepalive comment\n"
"  --tools-page-size N  tools per tools/list page (0: all)\n"
"\n"
"install, uninstall and doctor options:\n"
"  --browser NAME       chrome, chromium, edge, brave, vivaldi or all\n"
"                       (repeatable; default: every browser found)\n"
"  --system             every user's browsers (needs root)\n"
"  --extension-id ID    also allow this extension ID (repeatable)\n"
"  --user-data-dir DIR  the profile a browser runs with --user-data-dir=DIR\n";

/* Returns the usage text. */
const char *
config_usage(void)
{
	return config_usage_text;
}

/* Fills in the defaults. */
void
config_defaults(struct config *config)
{
	memset(config, 0, sizeof *config);
	config->command = CONFIG_COMMAND_SERVE;
	config->port = CONFIG_DEFAULT_PORT;
	config->auth = true;
	config->log_level = LOG_LEVEL_INFO;
	config->max_frame = NM_FRAME_DEFAULT_MAX;
	config->max_body = CONFIG_DEFAULT_MAX_BODY;
	config->max_headers = CONFIG_DEFAULT_MAX_HEADERS;
	config->max_sessions = CONFIG_DEFAULT_MAX_SESSIONS;
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
	free(config->file_error);
	xfree_strings(config->browsers, config->browser_count);
	xfree_strings(config->extension_ids, config->extension_id_count);
	free(config->user_data_dir);
	memset(config, 0, sizeof *config);
}

/* Returns ${XDG_CONFIG_HOME:-$HOME/.config}/browser-bridge. */
char *
config_dir_path(char **cause)
{
	const char	*xdg = getenv("XDG_CONFIG_HOME");
	const char	*home = getenv("HOME");

	if (xdg != NULL && *xdg == '/')
		return xasprintf("%s/browser-bridge", xdg);
	if (home == NULL || *home == '\0') {
		*cause = xstrdup("neither XDG_CONFIG_HOME nor HOME is set; "
		    "set HOME so the host can keep its token");
		return NULL;
	}
	return xasprintf("%s/.config/browser-bridge", home);
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

/*
 * Reads config.json in the config directory, if there is one. Keys are the
 * long option names with "_" or "-" ("log_level"), plus "auth" and
 * "evaluate_script" (booleans).
 */
static int
config_read_file(struct config *config, char **cause)
{
	json_error_t	 error;
	json_t		*root, *value;
	const char	*key;
	char		*path, *name, *text, *p, *why = NULL;
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
		if (strcmp(key, "auth") == 0) {
			if (!json_is_boolean(value)) {
				*cause = xasprintf("%s: \"auth\" must be true "
				    "or false", path);
				rc = -1;
			} else
				config->auth = json_is_true(value);
			continue;
		}
		if (strcmp(key, "evaluate_script") == 0) {
			if (!json_is_boolean(value)) {
				*cause = xasprintf("%s: \"evaluate_script\" "
				    "must be true or false", path);
				rc = -1;
			} else
				config->evaluate_script = json_is_true(value);
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

/* Sets the config directory and the token path under it. */
static int
config_locate(struct config *config, char **cause)
{
	if ((config->config_dir = config_dir_path(cause)) == NULL)
		return -1;
	config->token_file = xasprintf("%s/token", config->config_dir);
	return 0;
}

/*
 * Says whether a command depends on config.json's settings, so a broken
 * file stops it. The others (doctor above all) keep the problem in
 * file_error and report it.
 */
static bool
config_needs_file(enum config_command command)
{
	return command == CONFIG_COMMAND_SERVE || command == CONFIG_COMMAND_TOKEN;
}

/* Loads the whole configuration: defaults, file, then argv. */
int
config_load(struct config *config, int argc, char **argv, char **cause)
{
	static const struct option options[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "no-auth", no_argument, NULL, 'n' },
		{ "allow-evaluate", no_argument, NULL, 'e' },
		{ "log", required_argument, NULL, 'l' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "max-frame", required_argument, NULL, 'f' },
		{ "max-body", required_argument, NULL, 'b' },
		{ "max-sessions", required_argument, NULL, 's' },
		{ "session-idle", required_argument, NULL, 'i' },
		{ "hello-grace", required_argument, NULL, 'g' },
		{ "keepalive", required_argument, NULL, 'k' },
		{ "tools-page-size", required_argument, NULL, 't' },
		{ "parent-window", required_argument, NULL, 'w' },
		{ "browser", required_argument, NULL, 'B' },
		{ "system", no_argument, NULL, 'S' },
		{ "extension-id", required_argument, NULL, 'E' },
		{ "user-data-dir", required_argument, NULL, 'U' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int	 c, i;

	config_defaults(config);
	if (config_locate(config, cause) != 0)
		return -1;
	(void)config_read_file(config, &config->file_error);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'n':
			config->auth = false;
			break;
		case 'e':
			config->evaluate_script = true;
			break;
		case 'w':
			break;	/* Windows: Chrome's parent window handle */
		case 'B':
			config_append(&config->browsers, &config->browser_count,
			    optarg);
			break;
		case 'S':
			config->system = true;
			break;
		case 'E':
			config_append(&config->extension_ids,
			    &config->extension_id_count, optarg);
			break;
		case 'U':
			free(config->user_data_dir);
			config->user_data_dir = xstrdup(optarg);
			break;
		case 'V':
			config->command = CONFIG_COMMAND_VERSION;
			break;
		case 'h':
			config->command = CONFIG_COMMAND_HELP;
			break;
		case '?':
			*cause = xasprintf("unknown option %s; see "
			    "browser-bridge --help", argv[optind - 1]);
			return -1;
		default:
			for (i = 0; options[i].name != NULL; i++) {
				if (options[i].val == c)
					break;
			}
			if (config_set(config, options[i].name, optarg,
			    cause) != 0)
				return -1;
			break;
		}
	}
	for (i = optind; i < argc; i++) {
		if (strncmp(argv[i], "chrome-extension://", 19) == 0) {
			free(config->extension_origin);
			config->extension_origin = xstrdup(argv[i]);
		} else if (strcmp(argv[i], "serve") == 0)
			config->command = CONFIG_COMMAND_SERVE;
		else if (strcmp(argv[i], "token") == 0)
			config->command = CONFIG_COMMAND_TOKEN;
		else if (strcmp(argv[i], "install") == 0)
			config->command = CONFIG_COMMAND_INSTALL;
		else if (strcmp(argv[i], "uninstall") == 0)
			config->command = CONFIG_COMMAND_UNINSTALL;
		else if (strcmp(argv[i], "doctor") == 0)
			config->command = CONFIG_COMMAND_DOCTOR;
		else if (strcmp(argv[i], "status") == 0)
			config->command = CONFIG_COMMAND_STATUS;
		else if (strcmp(argv[i], "stdio") == 0)
			config->command = CONFIG_COMMAND_STDIO;
		else if (strncmp(argv[i], "--parent-window", 15) != 0) {
			*cause = xasprintf("unknown command \"%s\"; see "
			    "browser-bridge --help", argv[i]);
			return -1;
		}
	}
	if (config->file_error != NULL && config_needs_file(config->command)) {
		*cause = config->file_error;
		config->file_error = NULL;
		return -1;
	}
	return 0;
}
