/*
 * Client names as the person sees them. A client names itself at
 * registration and the store keeps that name as sent; whatever shows it
 * (the popup, the approval page, status, doctor, the log) shows its safe
 * form: every control or format character (Unicode Cc and Cf, bidi
 * overrides among them, and the line and paragraph separators) replaced
 * by U+FFFD, at most OAUTH_NAME_SHOWN_MAX characters. Two names resemble
 * each other when they are the same but for case, spaces, invisible
 * characters, full-width forms and the look-alikes 0/o and 1/l/i/|.
 */
#ifndef OAUTH_NAME_H
#define OAUTH_NAME_H

#include <stdbool.h>

#define OAUTH_NAME_SHOWN_MAX	100	/* characters shown */
#define OAUTH_NAME_STORED_MAX	400	/* characters kept as sent */

char	*oauth_name_stored(const char *name);
char	*oauth_name_shown(const char *name);
bool	 oauth_name_resembles(const char *a, const char *b);

#endif
