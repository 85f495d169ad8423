/*
 * Keeps stray output off the native-messaging stream: moves the real stdout
 * to a private descriptor for the channel and points descriptor 1 (and the
 * stdio stdout stream) at stderr, so a stray printf cannot corrupt a frame.
 */
#ifndef STDOUT_GUARD_H
#define STDOUT_GUARD_H

int	stdout_guard_install(char **cause);

#endif
