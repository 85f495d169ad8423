/*
 * The running hosts ("instances"), one per browser profile that runs the
 * extension: what a host says about itself in its runtime file (which
 * browser and profile started it), and how status, doctor and the stdio
 * bridge list them and pick one.
 */
#ifndef INSTANCE_H
#define INSTANCE_H

#include <stddef.h>

#include <jansson.h>

/* What one runtime file says. */
struct instance {
	char		*path;		/* its runtime file */
	long		 pid;
	int		 port;
	long long	 started;	/* seconds since the epoch */
	char		*version;	/* NULL if absent */
	char		*url;		/* NULL if absent */
	char		*browser;	/* "chromium", "chrome", ...; "unknown" */
	char		*profile;	/* its --user-data-dir, or "default" */
	char		*name;		/* browser, or browser:profile-dir */
};

json_t		*instance_identity(long parent_pid);
int		 instance_read(const char *path, struct instance *instance,
		    char **cause);
void		 instance_clear(struct instance *instance);
size_t		 instance_list(struct instance **list);
void		 instance_list_free(struct instance *list, size_t count);
const struct instance *instance_pick(const struct instance *list,
		    size_t count, const char *wanted, char **cause);

#endif
