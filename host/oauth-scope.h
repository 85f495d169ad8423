/*
 * The OAuth scopes a client's key may hold (docs/security.md): each a bit,
 * each tool in the catalogue names one, and resources and tasks methods need
 * pages:read and tasks. The owner key holds them all.
 */
#ifndef OAUTH_SCOPE_H
#define OAUTH_SCOPE_H

#include <jansson.h>

#define OAUTH_SCOPE_PAGES_READ	0x01u
#define OAUTH_SCOPE_PAGES_ACT	0x02u
#define OAUTH_SCOPE_TASKS	0x04u
#define OAUTH_SCOPE_NETWORK	0x08u
#define OAUTH_SCOPE_SCRIPTS	0x10u
#define OAUTH_SCOPE_ALL		0x1fu
/* What a client that asks for no scope is offered (the ticked boxes). */
#define OAUTH_SCOPE_DEFAULT	\
	(OAUTH_SCOPE_PAGES_READ|OAUTH_SCOPE_PAGES_ACT|OAUTH_SCOPE_TASKS)

unsigned	 oauth_scope_bit(const char *name);
const char	*oauth_scope_name(unsigned bit);
int		 oauth_scope_parse(const char *text, unsigned *scopes,
		    char **cause);
char		*oauth_scope_format(unsigned scopes);
json_t		*oauth_scope_array(unsigned scopes);
int		 oauth_scope_from_array(const json_t *array, unsigned *scopes);

#endif
