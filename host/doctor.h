/*
 * browser-bridge doctor: checks every piece the setup needs (each browser's
 * manifest, the config and token files, the runtime file, the running host
 * and the extension) and prints one line per check, each problem with the
 * command that fixes it. browser-bridge status: the running host in brief.
 */
#ifndef DOCTOR_H
#define DOCTOR_H

struct config;

int	doctor_run(struct config *config, int out_fd);
int	doctor_status_run(struct config *config, int out_fd);
char	*doctor_program_version(const char *path, int timeout_ms,
	    char **cause);

#endif
