/*
 * Fuzz target: the settings. The input is split at its first NUL: before
 * it, the text of config.json; after it, command-line arguments separated
 * by newlines. Loading either succeeds or fails with a reason; nothing
 * crashes or leaks.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#define FUZZ_ARGS	16

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char	fuzz_dir[] = "/tmp/browser-bridge-fuzz-XXXXXX";
static char	fuzz_file[sizeof fuzz_dir + 64];

/* Makes the private config directory the loads read, once. */
static void
fuzz_setup(void)
{
	char	config_dir[sizeof fuzz_dir + 32];

	if (fuzz_file[0] != '\0')
		return;
	if (mkdtemp(fuzz_dir) == NULL)
		abort();
	setenv("HOME", fuzz_dir, 1);
	setenv("XDG_CONFIG_HOME", fuzz_dir, 1);
	snprintf(config_dir, sizeof config_dir, "%s/browser-bridge", fuzz_dir);
	if (mkdir(config_dir, 0700) != 0)
		abort();
	snprintf(fuzz_file, sizeof fuzz_file, "%s/config.json", config_dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config	 config;
	char		*text, *args, *argv[FUZZ_ARGS + 2], *p, *cause = NULL;
	size_t		 json_len;
	int		 argc = 0, fd, rc;
	const uint8_t	*nul;

	fuzz_setup();
	nul = memchr(data, '\0', size);
	json_len = nul != NULL ? (size_t)(nul - data) : size;
	if ((fd = open(fuzz_file, O_WRONLY|O_CREAT|O_TRUNC, 0600)) == -1 ||
	    write(fd, data, json_len) != (ssize_t)json_len)
		abort();
	close(fd);
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	args = nul != NULL ? text + json_len + 1 : text + size;
	argv[argc++] = "browser-bridge";
	for (p = strtok(args, "\n"); p != NULL && argc <= FUZZ_ARGS;
	    p = strtok(NULL, "\n"))
		argv[argc++] = p;
	argv[argc] = NULL;
	rc = config_load(&config, argc, argv, &cause);
	if (rc != 0 && cause == NULL)
		abort();
	free(cause);
	config_clear(&config);
	free(text);
	return 0;
}
