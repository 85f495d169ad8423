/*
 * What host/os-posix.c gives the file of one POSIX family (os-linux.c,
 * os-darwin.c, os-portable.c), which calls it, never the other way.
 */
#ifndef OS_POSIX_H
#define OS_POSIX_H

/* The start every POSIX system needs; each family's os_start calls it. */
void		 os_posix_start(const char *argv0);
/* argv[0] as os_start was given it, or NULL before. */
const char	*os_posix_argv0(void);

#endif
