/*
 * What differs between operating systems, behind one interface. Callers
 * never test for an OS: configure picks the files that implement this.
 *
 *   host/os-posix.c     what every POSIX system shares (Linux, macOS, BSDs)
 *   host/os-linux.c     Linux: /proc, mallopt
 *   host/os-darwin.c    macOS: fcntl(F_GETPATH), sysctl(KERN_PROCARGS2),
 *                       _NSGetExecutablePath, libproc
 *   host/os-portable.c  any other POSIX system (and `configure
 *                       --with-os=portable` on Linux): no /proc, the
 *                       fallbacks described at each function below
 *   host/os-win32.c     Windows (all of it: no os-posix.c there)
 *
 * C library functions some systems lack (memmem, mkostemp, ...) are not
 * here: compat/ supplies them, one per file (compat/compat.h).
 *
 * Conventions: functions that can fail return -1 or NULL and set *cause
 * (heap, says what happened and what to do) when they take one, errno
 * otherwise. Descriptors are C runtime descriptors on every system (on
 * Windows, _open_osfhandle/_get_osfhandle translate).
 */
#ifndef OS_H
#define OS_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct stat;

/*
 * Process start, before anything else runs: SIGPIPE ignored (POSIX),
 * binary stdin and stdout and Winsock started (Windows), allocator tuning
 * (glibc). argv0 is kept for os_self_path where the system cannot say.
 */
void		 os_start(const char *argv0);

/* Which conventions the system follows, for the paths install writes. */
enum os_family {
	OS_FAMILY_XDG,		/* Linux and the BSDs: ~/.config, /etc */
	OS_FAMILY_MACOS,	/* ~/Library/Application Support */
	OS_FAMILY_WINDOWS,	/* the registry, %LOCALAPPDATA% */
};
enum os_family	 os_family(void);
/* The system's name in messages: "Linux", "macOS", "POSIX", "Windows". */
const char	*os_name(void);

/* ---------------------------------------------------------- paths */

/* The character between the directories of PATH: ':' or ';'. */
char		 os_path_list_separator(void);
/* Whether path is absolute: "/..." on POSIX, "C:\..." or "\\..." on Windows. */
bool		 os_path_is_absolute(const char *path);
/* Whether c separates a path's parts: '/'; '/' or '\' on Windows. */
bool		 os_path_is_separator(char c);
/*
 * The user's home directory (heap): $HOME when it is absolute; on Windows
 * %USERPROFILE%, else the profile folder Windows names. NULL when none.
 */
char		*os_home_dir(void);

/* The per-user base directories; the host's own go below, in "browser-bridge". */
enum os_user_dir {
	OS_USER_CONFIG,		/* $XDG_CONFIG_HOME or ~/.config; %APPDATA% */
	OS_USER_STATE,		/* $XDG_STATE_HOME or ~/.local/state; %LOCALAPPDATA% */
	OS_USER_RUNTIME,	/* $XDG_RUNTIME_DIR; NULL when not set (no cause) */
};
/*
 * Returns a per-user base directory (heap, absolute), or NULL with *cause
 * when the environment names none (OS_USER_RUNTIME: NULL and no cause).
 */
char		*os_user_dir(enum os_user_dir which, char **cause);
/*
 * Where that directory is when the environment does not move it ($HOME's
 * default, ignoring $XDG_...), for readers that look where a program
 * started without the variable wrote; NULL when there is none (as for
 * OS_USER_RUNTIME) or no HOME.
 */
char		*os_user_dir_default(enum os_user_dir which);
/*
 * The runtime directory the user's login session has even where the
 * variable naming it is unset (systemd's /run/user/UID on Linux), for
 * readers started outside the session; NULL where there is no such
 * convention.
 */
char		*os_session_runtime_dir(void);

/* Returns the absolute path of the running program (heap), or NULL with *cause. */
char		*os_self_path(char **cause);

/* ---------------------------------------------------------- processes */

/* This process's id, and its parent's (the browser that started a host). */
long		 os_pid(void);
long		 os_parent_pid(void);
/* Whether a process with this id exists (one of another user's counts). */
bool		 os_process_alive(long pid);
/*
 * The arguments process pid was started with, each ending in a NUL
 * (argv[0] first), *len bytes in all; NULL when the system does not say
 * (instance names then say "unknown"). Portable POSIX reads ps(1)'s line,
 * split at spaces.
 */
char		*os_process_arguments(long pid, size_t *len);

/* What os_run found. */
struct os_run_result {
	bool		 exited;	/* ended by itself (not by a signal) */
	int		 status;	/* its exit status, or the signal */
	char		*output;	/* its stdout, NUL-terminated (heap) */
	size_t		 output_len;
};
/*
 * Runs program with one argument, stdin and stderr on the null device,
 * reading at most max_output bytes of its stdout; kills it past
 * timeout_ms. Returns 0 when it ran and ended (result filled; free
 * result->output), -1 with *cause when it could not start or timed out.
 */
int		 os_run(const char *program, const char *argument,
		     int timeout_ms, size_t max_output,
		     struct os_run_result *result, char **cause);

/*
 * Calls done(arg) from the loop when the user or the system asks the
 * process to end (SIGINT or SIGTERM; Ctrl-C, close or logoff on Windows).
 * what is "interrupted" or "terminated". os_termination_free stops it.
 */
struct os_termination;
struct os_termination *os_termination_new(struct event_base *base,
		     void (*done)(const char *what, void *arg), void *arg);
void		 os_termination_free(struct os_termination *termination);

/*
 * Whether the process has the system's full rights, as writing for every
 * user (install --system) needs: root; on Windows an elevated token.
 */
bool		 os_privileged(void);
/*
 * A new descriptor for the open file fd, numbered 3 or higher, that
 * child processes do not inherit (F_DUPFD_CLOEXEC); -1 with errno.
 */
int		 os_dup_private(int fd);

/* ---------------------------------------------------------- files */

/*
 * Opens path without following a link at its last part (ELOOP then), never
 * as a controlling terminal, never inherited by children, and never waiting
 * to open (a FIFO planted there opens at once or fails; O_NONBLOCK, which
 * changes nothing for a regular file). flags are open(2)'s
 * O_RDONLY/O_WRONLY/O_RDWR/O_CREAT/O_EXCL/O_TRUNC/O_APPEND, and
 * O_DIRECTORY for a directory only (ENOTDIR); mode as open(2)'s for a
 * new file.
 */
int		 os_open_nofollow(const char *path, int flags, int mode);

/* Who besides the user may use a file or directory (os_privacy_check). */
enum os_privacy {
	OS_PRIVATE,		/* the user alone */
	OS_OWNED_BY_OTHER,	/* another user owns it */
	OS_WRITABLE_BY_OTHERS,	/* others may change it */
	OS_READABLE_BY_OTHERS,	/* others may read it, not change it */
	OS_PRIVACY_UNKNOWN,	/* cannot tell: errno */
};
/*
 * Says who may use the open file or directory fd (mode bits and owner on
 * POSIX, owner SID and DACL on Windows). For anything but OS_PRIVATE and
 * OS_PRIVACY_UNKNOWN, *detail (heap) says it in words: for
 * OS_OWNED_BY_OTHER a clause that follows the name ("belongs to uid 1001,
 * not to you (uid 1000)"), for the others what lets them in ("mode 644").
 */
enum os_privacy	 os_privacy_check(int fd, char **detail);
/* The command that makes path the user's alone ("chmod 600 PATH"), heap. */
char		*os_privacy_fix(const char *path, bool directory);
/*
 * Makes a directory only the user can use (mode 0700; on Windows a DACL
 * for the user alone). -1 with errno (EEXIST when something is there).
 */
int		 os_make_private_dir(const char *path);
/*
 * Makes a directory others may read (mode 0755), for the manifests a
 * browser running as another user reads. -1 with errno.
 */
int		 os_make_shared_dir(const char *path);

/*
 * Moves from onto to, replacing a file at to in one step (rename(2);
 * MoveFileEx with MOVEFILE_REPLACE_EXISTING on Windows). -1 with errno.
 */
int		 os_replace_file(const char *from, const char *to);
/* Flushes a directory so a rename or link in it survives a crash (no-op where none is needed). */
void		 os_sync_dir(const char *dir);

/*
 * A file's last modification time in nanoseconds since 1970 (st_mtim;
 * st_mtimespec on macOS; whole seconds where the system keeps no more).
 */
long long	 os_modified_ns(const struct stat *sb);

/* Takes (waiting) and gives back an exclusive lock on the open file fd. -1 with errno. */
int		 os_lock(int fd);
int		 os_unlock(int fd);

/*
 * The real path of the open file fd, which was opened as given (an
 * absolute path): every link resolved, as the system names the file now
 * (Linux /proc/self/fd, macOS F_GETPATH, Windows
 * GetFinalPathNameByHandle). Portable POSIX walks given's real directory
 * from the root one component at a time without following links and
 * accepts it only when the file it reaches there is fd's (device and
 * inode). For a file with one link that is the only place it has. NULL
 * with errno when it cannot tell.
 */
char		*os_opened_path(int fd, const char *given);

/* ---------------------------------------------------------- registry */

/*
 * The user's registry (HKEY_CURRENT_USER), where Windows' Chrome-family
 * browsers find a native-messaging host's manifest: the default value of
 * a key below HKCU ("Software\Google\Chrome\NativeMessagingHosts\NAME").
 * Systems without a registry have none of these keys: reading finds
 * nothing, writing and deleting fail and say so.
 */
/*
 * Reads key's default value (a string) into *value (heap): 1 when it has
 * one, 0 when there is no such key or it has no default string value,
 * -1 with *cause when it cannot be read.
 */
int		 os_registry_read(const char *key, char **value, char **cause);
/*
 * Creates key (and the keys above it) and sets its default value to
 * value. -1 with *cause.
 */
int		 os_registry_write(const char *key, const char *value,
		     char **cause);
/* Removes key with everything below it. -1 with *cause. */
int		 os_registry_delete(const char *key, char **cause);

/* ---------------------------------------------------------- streams */

#include <event2/util.h>	/* evutil_socket_t */

/*
 * The two ends of a channel (native messaging's stdin and stdout, the
 * stdio command's) as descriptors the event loop can watch, non-blocking.
 * On POSIX they are in_fd and out_fd themselves. Windows' loop watches
 * sockets only (a pipe: WSAENOTSOCK), so there each is one end of a
 * socket pair that a thread copies from in_fd or to out_fd; what comes
 * through is byte for byte what the pipe carries.
 */
struct os_stdio;
/* Starts the streams; NULL with *cause when they cannot be watched. */
struct os_stdio	*os_stdio_new(int in_fd, int out_fd, char **cause);
/* What the loop reads the input from and writes the output to. */
evutil_socket_t	 os_stdio_input(const struct os_stdio *stdio);
evutil_socket_t	 os_stdio_output(const struct os_stdio *stdio);
/* Makes the output blocking again, for a last flush before the end. */
void		 os_stdio_output_blocking(struct os_stdio *stdio);
/*
 * Passes on what was written to the output (Windows: waits a while for
 * the thread), then gives in_fd and out_fd back as they were (NULL: none).
 */
void		 os_stdio_free(struct os_stdio *stdio);

/*
 * Whether a failed read or write on a socket or an os_stdio end (its
 * error: EVUTIL_SOCKET_ERROR()) is one to retry when the loop says so:
 * EAGAIN, EWOULDBLOCK, EINTR; WSAEWOULDBLOCK, WSAEINTR on Windows.
 */
bool		 os_io_again(int error);

/* ---------------------------------------------------------- peers */

/* Who holds the other end of a loopback connection (os_loopback_peer). */
struct os_peer {
	long	 pid;		/* its process; 0 when unknown */
	bool	 other_user;	/* a process of another user than this one */
};
/*
 * Finds who is at the other end of fd, a TCP connection over 127.0.0.1
 * that this process accepted: the process holding the other end's socket,
 * and whether it runs as another user. Linux reads the socket's owner and
 * inode from /proc/net/tcp, then looks for the inode among the fds of
 * that user's processes (/proc/PID/fd); Windows asks
 * GetExtendedTcpTable, which names the owning process (not its user);
 * macOS looks among the user's own processes with libproc (another
 * user's stay unknown); portable POSIX cannot tell. Returns 0 with
 * peer->pid set, or -1 when the process is unknown (peer->pid 0;
 * peer->other_user may still be true: Linux knows the owner first).
 * Costs a walk of the processes: call it for rare requests only.
 */
int		 os_loopback_peer(evutil_socket_t fd, struct os_peer *peer);

#endif
