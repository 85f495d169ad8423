/*
 * browser-bridge: the native-messaging host Chrome starts, serving MCP on
 * 127.0.0.1, and the commands around it (cli.c). stdout belongs to the
 * native-messaging channel alone, so the first thing main does is move it
 * out of reach of stray prints.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "config.h"
#include "os.h"
#include "stdout-guard.h"

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
	os_start(argv[0]);
	if (config_load(&config, argc, argv, &cause) != 0) {
		fprintf(stderr, "browser-bridge: %s (see browser-bridge "
		    "--help)\n", cause);
		free(cause);
		config_clear(&config);
		return CLI_USAGE_ERROR;
	}
	rc = cli_run(&config, out_fd);
	config_clear(&config);
	return rc;
}
