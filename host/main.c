/*
 * browser-bridge: the native-messaging host Chrome starts, serving MCP on
 * 127.0.0.1. stdout belongs to the native-messaging channel alone, so the
 * first thing main does is move it out of reach of stray prints.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"
#include "config.h"
#include "doctor.h"
#include "files.h"
#include "install.h"
#include "stdio-bridge.h"
#include "stdout-guard.h"
#include "token.h"

/* Writes text to the real stdout (not the native-messaging mode). */
static void
main_print(int fd, const char *text)
{
	(void)files_write_all(fd, text, strlen(text));
}

/* Prints the bearer token, creating it on first use. */
static int
main_token(struct config *config, int out_fd)
{
	char	*cause = NULL, *token;

	if ((token = token_load_or_create(config->token_file, &cause)) == NULL) {
		fprintf(stderr, "browser-bridge: %s\n", cause);
		free(cause);
		return 1;
	}
	main_print(out_fd, token);
	main_print(out_fd, "\n");
	free(token);
	return 0;
}

/* Runs the host until the browser closes the channel. */
static int
main_serve(struct config *config, int out_fd)
{
	struct bridge	*bridge;
	char		*cause = NULL;
	int		 rc;

	if ((bridge = bridge_new(config, STDIN_FILENO, out_fd, &cause)) == NULL) {
		fprintf(stderr, "browser-bridge: %s\n", cause);
		free(cause);
		return 1;
	}
	rc = bridge_run(bridge);
	bridge_free(bridge);
	return rc == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct config	 config;
	char		*cause = NULL;
	int		 out_fd, rc;

	if ((out_fd = stdout_guard_install(&cause)) == -1) {
		fprintf(stderr, "browser-bridge: %s\n", cause);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (config_load(&config, argc, argv, &cause) != 0) {
		fprintf(stderr, "browser-bridge: %s\n", cause);
		free(cause);
		config_clear(&config);
		return 2;
	}
	switch (config.command) {
	case CONFIG_COMMAND_VERSION:
		main_print(out_fd, "browser-bridge " PACKAGE_VERSION "\n");
		rc = 0;
		break;
	case CONFIG_COMMAND_HELP:
		main_print(out_fd, config_usage());
		rc = 0;
		break;
	case CONFIG_COMMAND_TOKEN:
		rc = main_token(&config, out_fd);
		break;
	case CONFIG_COMMAND_INSTALL:
		rc = install_run(&config, out_fd);
		break;
	case CONFIG_COMMAND_UNINSTALL:
		rc = install_uninstall_run(&config, out_fd);
		break;
	case CONFIG_COMMAND_DOCTOR:
		rc = doctor_run(&config, out_fd);
		break;
	case CONFIG_COMMAND_STATUS:
		rc = doctor_status_run(&config, out_fd);
		break;
	case CONFIG_COMMAND_STDIO:
		rc = stdio_bridge_run(&config, out_fd);
		break;
	default:
		rc = main_serve(&config, out_fd);
		break;
	}
	config_clear(&config);
	return rc;
}
