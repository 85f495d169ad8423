/*
 * The commands of browser-bridge, in one table (like tmux's cmd_entry):
 * the usage text, each command's --help, the dispatch and the commands
 * reference in docs/commands.md all come from it.
 */
#ifndef CLI_H
#define CLI_H

#include "config.h"

/* Exit status of a usage error (unknown command, option or value). */
#define CLI_USAGE_ERROR	2

/* One command. */
struct cli_command {
	const char	*name;
	const char	*arguments;	/* after the name, for the usage line */
	const char	*summary;	/* one line */
	unsigned	 options;	/* CONFIG_OPTIONS_* it takes */
	int		(*run)(struct config *config, int out_fd);
};

const struct cli_command *cli_find(const char *name);
char	*cli_usage(void);
char	*cli_command_help(const struct cli_command *command);
char	*cli_markdown(void);
int	 cli_run(struct config *config, int out_fd);

#endif
