/*
 * Between host/os-posix.c and the file of one POSIX family (os-linux.c,
 * os-darwin.c, os-portable.c): what the shared part asks of the family's.
 */
#ifndef OS_POSIX_H
#define OS_POSIX_H

/* The family's own start-up, from os_start (allocator tuning on glibc). */
void		 os_posix_start(void);
/* argv[0] as os_start was given it, or NULL before. */
const char	*os_posix_argv0(void);

#endif
