/* The command table and what comes from it: usage, help, dispatch, docs. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"
#include "doctor.h"
#include "files.h"
#include "install.h"
#include "stdio-bridge.h"
#include "token.h"
#include "xmalloc.h"

static int	cli_serve(struct config *, int);
static int	cli_token(struct config *, int);
static int	cli_help(struct config *, int);
static int	cli_version(struct config *, int);
static int	cli_usage_error(const char *, const char *);

/* The commands, in the order help lists them. */
static const struct cli_command cli_commands[] = {
	{ "serve", "[chrome-extension://ID/] [options]",
	  "run the host until its standard input ends (the browser starts "
	  "it, with a pipe; the default command)",
	  CONFIG_OPTIONS_HOST, cli_serve },
	{ "token", "", "print the MCP bearer token (created on first use)", 0,
	  cli_token },
	{ "install", "[--browser NAME|all]... [--system] [--extension-id ID]... "
	  "[--user-data-dir DIR]", "register the host with the browsers",
	  CONFIG_OPTIONS_INSTALL, install_run },
	{ "uninstall", "[--browser NAME|all]... [--system] [--user-data-dir "
	  "DIR]", "remove what install wrote", CONFIG_OPTIONS_INSTALL,
	  install_uninstall_run },
	{ "doctor", "[--browser NAME|all]... [--user-data-dir DIR] "
	  "[--instance NAME]", "check the setup, and say how to fix what is "
	  "wrong", CONFIG_OPTIONS_INSTALL|CONFIG_OPTIONS_INSTANCE, doctor_run },
	{ "status", "[--instance NAME]", "describe the running hosts (one per "
	  "browser profile), or one, and the approved OAuth clients",
	  CONFIG_OPTIONS_INSTANCE,
	  doctor_status_run },
	{ "stdio", "[--instance NAME]", "serve MCP on stdin/stdout, relayed to "
	  "a running host, for clients that only start stdio servers",
	  CONFIG_OPTIONS_INSTANCE, stdio_bridge_run },
	{ "help", "[COMMAND]", "show the commands, or one command's options",
	  0, cli_help },
	{ "version", "", "print the version", 0, cli_version },
};
#define CLI_COUNT (sizeof cli_commands / sizeof cli_commands[0])

/* What each option group is called in help. */
static const char *const cli_group_titles[] = {
	"host options (each may also be set in "
	"~/.config/browser-bridge/config.json)",
	"install, uninstall and doctor options",
	"status, stdio and doctor options",
};

/* Finds a command by name; NULL for none. */
const struct cli_command *
cli_find(const char *name)
{
	size_t	i;

	for (i = 0; i < CLI_COUNT; i++) {
		if (strcmp(cli_commands[i].name, name) == 0)
			return &cli_commands[i];
	}
	return NULL;
}

/* Appends printf-style text to a growing string. */
static void __attribute__((format(PRINTF_FORMAT, 2, 3)))
cli_append(char **text, const char *fmt, ...)
{
	va_list	 ap;
	char	*more, *joined;

	va_start(ap, fmt);
	more = xvasprintf(fmt, ap);
	va_end(ap);
	joined = xasprintf("%s%s", *text, more);
	free(*text);
	free(more);
	*text = joined;
}

/* Appends the options of one group, one per line. */
static void
cli_append_options(char **text, unsigned group)
{
	const struct config_option	*o;
	char				*left;

	for (o = config_options; o->name != NULL; o++) {
		if (o->group != group || o->help == NULL)
			continue;
		left = xasprintf("--%s%s%s", o->name, o->argument != NULL ?
		    " " : "", o->argument != NULL ? o->argument : "");
		cli_append(text, "  %-20s %s\n", left, o->help);
		free(left);
	}
}

/* The usage line of a command. */
static char *
cli_usage_line(const struct cli_command *command)
{
	return xasprintf("browser-bridge %s%s%s", command->name,
	    command->arguments[0] != '\0' ? " " : "", command->arguments);
}

/* The whole usage text: every command, then every option group. */
char *
cli_usage(void)
{
	char	*text = xstrdup("usage: browser-bridge [COMMAND] [options]\n\n"
		    "commands:\n"), *line;
	size_t	 i;

	for (i = 0; i < CLI_COUNT; i++) {
		line = cli_usage_line(&cli_commands[i]);
		cli_append(&text, "  %s\n      %s\n", line + 15,
		    cli_commands[i].summary);
		free(line);
	}
	for (i = 0; i < sizeof cli_group_titles / sizeof cli_group_titles[0];
	    i++) {
		cli_append(&text, "\n%s:\n", cli_group_titles[i]);
		cli_append_options(&text, 1u << i);
	}
	cli_append(&text, "\n`browser-bridge COMMAND --help` shows one "
	    "command's usage.\n");
	return text;
}

/* One command's help: its usage, summary and options. */
char *
cli_command_help(const struct cli_command *command)
{
	char	*line = cli_usage_line(command), *text;
	size_t	 i;

	text = xasprintf("usage: %s\n\n%s\n", line, command->summary);
	free(line);
	for (i = 0; i < sizeof cli_group_titles / sizeof cli_group_titles[0];
	    i++) {
		if ((command->options & (1u << i)) == 0)
			continue;
		cli_append(&text, "\n%s:\n", cli_group_titles[i]);
		cli_append_options(&text, 1u << i);
	}
	return text;
}

/* Escapes the pipes of a table cell. */
static char *
cli_cell(const char *text)
{
	char	*cell = xmalloc(2 * strlen(text) + 1), *out = cell;

	for (; *text != '\0'; text++) {
		if (*text == '|')
			*out++ = '\\';
		*out++ = *text;
	}
	*out = '\0';
	return cell;
}

/* docs/commands.md, as Markdown. */
char *
cli_markdown(void)
{
	const struct config_option	*o;
	char				*text, *line, *cell;
	size_t				 i;
	unsigned			 group;

	text = xstrdup("<!--\nGenerated from the command table in host/cli.c "
	    "by `browser-bridge help --markdown`\n(`make docs`); tests/docs.sh "
	    "fails while this file is out of date.\n-->\n# Commands\n\n"
	    "`browser-bridge COMMAND --help` prints one command's usage and "
	    "options.\nAn unknown command, option or value is a usage error: "
	    "a message and exit status 2.\n\n"
	    "| command | what it does |\n| --- | --- |\n");
	for (i = 0; i < CLI_COUNT; i++) {
		line = cli_usage_line(&cli_commands[i]);
		cell = cli_cell(line);
		cli_append(&text, "| `%s` | %s |\n", cell,
		    cli_commands[i].summary);
		free(cell);
		free(line);
	}
	for (group = 0; group < sizeof cli_group_titles /
	    sizeof cli_group_titles[0]; group++) {
		cli_append(&text, "\n%c%s:\n\n| option | meaning |\n| --- | --- "
		    "|\n", cli_group_titles[group][0] - 'a' + 'A',
		    cli_group_titles[group] + 1);
		for (o = config_options; o->name != NULL; o++) {
			if (o->group == 1u << group && o->help != NULL) {
				cli_append(&text, "| `--%s%s%s` | %s |\n",
				    o->name, o->argument != NULL ? " " : "",
				    o->argument != NULL ? o->argument : "",
				    o->help);
			}
		}
	}
	return text;
}

/* Writes a string to out_fd. */
static void
cli_print(int out_fd, const char *text)
{
	(void)files_write_all(out_fd, text, strlen(text));
}

/* Prints text and frees it; returns 0. */
static int
cli_print_free(int out_fd, char *text)
{
	cli_print(out_fd, text);
	free(text);
	return 0;
}

/* serve: runs the host until the browser closes the channel. */
static int
cli_serve(struct config *config, int out_fd)
{
	struct bridge	*bridge;
	char		*cause = NULL;
	int		 rc;

	if ((bridge = bridge_new(config, STDIN_FILENO, out_fd, &cause)) ==
	    NULL) {
		fprintf(stderr, "browser-bridge: %s\n", cause);
		free(cause);
		return 1;
	}
	rc = bridge_run(bridge);
	bridge_free(bridge);
	return rc == 0 ? 0 : 1;
}

/* token: prints the bearer token, creating it on first use. */
static int
cli_token(struct config *config, int out_fd)
{
	char	*cause = NULL, *token;

	if ((token = token_load_or_create(config->token_file, &cause)) ==
	    NULL) {
		fprintf(stderr, "browser-bridge: %s\n", cause);
		free(cause);
		return 1;
	}
	cli_print(out_fd, token);
	cli_print(out_fd, "\n");
	free(token);
	return 0;
}

/* help [COMMAND]: the usage, one command's help, or (--markdown) the docs. */
static int
cli_help(struct config *config, int out_fd)
{
	const struct cli_command	*topic;
	char				*what;
	int				 rc;

	if (config->markdown)
		return cli_print_free(out_fd, cli_markdown());
	if (config->help_topic == NULL)
		return cli_print_free(out_fd, cli_usage());
	if ((topic = cli_find(config->help_topic)) == NULL) {
		what = xasprintf("unknown command \"%s\"", config->help_topic);
		rc = cli_usage_error(NULL, what);
		free(what);
		return rc;
	}
	return cli_print_free(out_fd, cli_command_help(topic));
}

/* version: prints the version. */
static int
cli_version(struct config *config, int out_fd)
{
	cli_print(out_fd, "browser-bridge " PACKAGE_VERSION "\n");
	return 0;
}

/* Says a usage error on stderr; returns CLI_USAGE_ERROR. */
static int
cli_usage_error(const char *command, const char *what)
{
	fprintf(stderr, "browser-bridge%s%s: %s (see browser-bridge%s%s "
	    "--help)\n", command != NULL ? " " : "", command != NULL ?
	    command : "", what, command != NULL ? " " : "", command != NULL ?
	    command : "");
	return CLI_USAGE_ERROR;
}

/*
 * Runs the command the configuration names: checks that each option given
 * belongs to it and each value is known, answers --help and --version
 * without side effects.
 */
int
cli_run(struct config *config, int out_fd)
{
	const struct cli_command	*command;
	const char			*name = config->command;
	char				*what;
	unsigned			 i;
	int				 rc;

	command = cli_find(name != NULL ? name : "serve");
	if (command == NULL) {
		what = xasprintf("unknown command \"%s\"", name);
		rc = cli_usage_error(NULL, what);
		free(what);
		return rc;
	}
	if (config->version && !config->help)
		return cli_version(config, out_fd);
	if (config->help) {
		if (name == NULL)
			return cli_print_free(out_fd, cli_usage());
		return cli_print_free(out_fd, cli_command_help(command));
	}
	for (i = 0; i < CONFIG_OPTION_GROUPS; i++) {
		if ((config->option_groups & (1u << i)) == 0 ||
		    (command->options & (1u << i)) != 0 ||
		    (1u << i) == CONFIG_OPTIONS_ANY)
			continue;
		what = xasprintf("--%s is not an option of %s",
		    config->group_option[i], command->name);
		rc = cli_usage_error(command->name, what);
		free(what);
		return rc;
	}
	for (i = 0; i < config->browser_count; i++) {
		if (strcmp(config->browsers[i], "all") == 0 ||
		    install_browser_find(config->browsers[i]) != NULL)
			continue;
		what = xasprintf("unknown browser \"%s\": use chrome, chromium, "
		    "edge, brave, vivaldi or all", config->browsers[i]);
		rc = cli_usage_error(command->name, what);
		free(what);
		return rc;
	}
	return command->run(config, out_fd);
}
