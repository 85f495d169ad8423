/*
 * Finding a running host from the outside: whether its process lives, and a blocking GET over loopback (libevent's HTTP
 * client) for /health. Used by doctor, status and the stdio bridge, and
 * by the host at start to learn who holds its configured port.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>

#include <jansson.h>

#define PROBE_TIMEOUT_MS	2000

int	 probe_http_get(int port, const char *path, int timeout_ms,
	    int *status, char **body, char **cause);
json_t	*probe_health(int port, const char *token, int timeout_ms,
	    char **cause);
json_t	*probe_clients(int port, const char *token, int timeout_ms);

#endif
