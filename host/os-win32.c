/*
 * The OS layer (os.h) for Windows. Strings are UTF-8 everywhere else in
 * the host; they become UTF-16 only here, at the Windows calls. Files'
 * privacy is their owner SID and DACL; links are reparse points.
 */
#include <winsock2.h>
#include <windows.h>
#include <aclapi.h>
#include <io.h>
#include <iphlpapi.h>
#include <sddl.h>
#include <shellapi.h>
#include <shlobj.h>
#include <tlhelp32.h>
#include <winternl.h>

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <event2/event.h>
#include <event2/util.h>

#include "clock.h"
#include "os.h"
#include "xmalloc.h"

/* Longest path the wide calls here are given room for. */
#define OS_WIN32_PATH_MAX	32768

/* Sets errno from a Windows error code. */
static void
os_win32_set_errno(DWORD error)
{
	switch (error) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH:
		errno = ENOENT;
		break;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		errno = EEXIST;
		break;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
	case ERROR_PRIVILEGE_NOT_HELD:
		errno = EACCES;
		break;
	case ERROR_DIRECTORY:
		errno = ENOTDIR;
		break;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		errno = ENOMEM;
		break;
	case ERROR_FILENAME_EXCED_RANGE:
		errno = ENAMETOOLONG;
		break;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		errno = ENOSPC;
		break;
	case ERROR_CANT_RESOLVE_FILENAME:
		errno = ELOOP;
		break;
	default:
		errno = EIO;
		break;
	}
}

/* A UTF-16 copy of a UTF-8 string (heap), or NULL with errno EINVAL. */
static wchar_t *
os_win32_wide(const char *text)
{
	wchar_t	*wide;
	int	 n;

	n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1,
	    NULL, 0);
	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	wide = xcalloc((size_t)n, sizeof *wide);
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, wide, n);
	return wide;
}

/* A UTF-8 copy of a UTF-16 string (heap). */
static char *
os_win32_utf8(const wchar_t *wide)
{
	char	*text;
	int	 n;

	n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
	if (n <= 0)
		return xstrdup("");
	text = xmalloc((size_t)n);
	WideCharToMultiByte(CP_UTF8, 0, wide, -1, text, n, NULL, NULL);
	return text;
}

/* The message Windows has for an error code (heap, no trailing newline). */
static char *
os_win32_strerror(DWORD error)
{
	wchar_t	*message = NULL;
	char	*text;
	size_t	 len;

	if (FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER|
	    FORMAT_MESSAGE_FROM_SYSTEM|FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
	    error, 0, (wchar_t *)&message, 0, NULL) == 0)
		return xasprintf("Windows error %lu", (unsigned long)error);
	text = os_win32_utf8(message);
	LocalFree(message);
	len = strlen(text);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
	    text[len - 1] == '.'))
		text[--len] = '\0';
	return text;
}

/*
 * Binary standard streams (text mode would turn a frame's 0x0A into 0D 0A
 * and read 0x1A as the end), binary files by default, and Winsock.
 */
void
os_start(const char *argv0)
{
	WSADATA	wsa;

	_fmode = _O_BINARY;
	(void)_setmode(0, _O_BINARY);
	(void)_setmode(1, _O_BINARY);
	(void)_setmode(2, _O_BINARY);
	(void)WSAStartup(MAKEWORD(2, 2), &wsa);
}

/* The registry and %LOCALAPPDATA%. */
enum os_family
os_family(void)
{
	return OS_FAMILY_WINDOWS;
}

/* "Windows". */
const char *
os_name(void)
{
	return "Windows";
}

/* PATH's directories are separated by semicolons. */
char
os_path_list_separator(void)
{
	return ';';
}

/* "C:\..." or "C:/..." (a drive's root), or "\\server\..." (UNC). */
bool
os_path_is_absolute(const char *path)
{
	if (path == NULL)
		return false;
	if (((path[0] >= 'A' && path[0] <= 'Z') ||
	    (path[0] >= 'a' && path[0] <= 'z')) && path[1] == ':' &&
	    (path[2] == '\\' || path[2] == '/'))
		return true;
	return (path[0] == '\\' || path[0] == '/') &&
	    (path[1] == '\\' || path[1] == '/');
}

/* An environment variable's value in UTF-8 (heap), or NULL if unset. */
static char *
os_win32_getenv(const wchar_t *name)
{
	const wchar_t	*value = _wgetenv(name);

	return value != NULL && *value != L'\0' ? os_win32_utf8(value) : NULL;
}

/* The slash and the backslash. */
bool
os_path_is_separator(char c)
{
	return c == '/' || c == '\\';
}

/* %USERPROFILE%, or the profile known folder when it is not set. */
char *
os_home_dir(void)
{
	wchar_t	*found = NULL;
	char	*dir;

	if ((dir = os_win32_getenv(L"USERPROFILE")) != NULL) {
		if (os_path_is_absolute(dir))
			return dir;
		free(dir);
	}
	if (SHGetKnownFolderPath(&FOLDERID_Profile, 0, NULL, &found) != S_OK) {
		CoTaskMemFree(found);
		return NULL;
	}
	dir = os_win32_utf8(found);
	CoTaskMemFree(found);
	return dir;
}

/*
 * %APPDATA% (config) and %LOCALAPPDATA% (state), the shell's known folders
 * when the variables are unset; no runtime directory of its own (NULL).
 */
char *
os_user_dir(enum os_user_dir which, char **cause)
{
	const KNOWNFOLDERID	*folder;
	const wchar_t		*variable;
	const char		*name;
	wchar_t			*found = NULL;
	char			*dir;

	switch (which) {
	case OS_USER_CONFIG:
		variable = L"APPDATA";
		name = "APPDATA";
		folder = &FOLDERID_RoamingAppData;
		break;
	case OS_USER_STATE:
		variable = L"LOCALAPPDATA";
		name = "LOCALAPPDATA";
		folder = &FOLDERID_LocalAppData;
		break;
	default:
		return NULL;
	}
	if ((dir = os_win32_getenv(variable)) != NULL) {
		if (os_path_is_absolute(dir))
			return dir;
		free(dir);
	}
	if (SHGetKnownFolderPath(folder, 0, NULL, &found) != S_OK) {
		CoTaskMemFree(found);
		*cause = xasprintf("%%%s%% is not set and Windows names no "
		    "such folder for this user; set %s", name, name);
		return NULL;
	}
	dir = os_win32_utf8(found);
	CoTaskMemFree(found);
	return dir;
}

/*
 * The same as os_user_dir: the variables and the known folders agree, so
 * there is no other place a program started without them wrote.
 */
char *
os_user_dir_default(enum os_user_dir which)
{
	char	*cause = NULL, *dir;

	dir = os_user_dir(which, &cause);
	free(cause);
	return dir;
}

/* Windows has no per-session runtime directory. */
char *
os_session_runtime_dir(void)
{
	return NULL;
}

/* GetModuleFileNameW of the program. */
char *
os_self_path(char **cause)
{
	wchar_t	*buf = xcalloc(OS_WIN32_PATH_MAX, sizeof *buf);
	char	*path;
	DWORD	 n;

	n = GetModuleFileNameW(NULL, buf, OS_WIN32_PATH_MAX);
	if (n == 0 || n >= OS_WIN32_PATH_MAX) {
		free(buf);
		*cause = xasprintf("cannot find this program's path (Windows "
		    "error %lu)", (unsigned long)GetLastError());
		return NULL;
	}
	path = os_win32_utf8(buf);
	free(buf);
	return path;
}

/* This process's id. */
long
os_pid(void)
{
	return (long)GetCurrentProcessId();
}

/* The parent's id, from a snapshot of the processes; 0 when not found. */
long
os_parent_pid(void)
{
	PROCESSENTRY32W	 entry = { .dwSize = sizeof entry };
	HANDLE		 snapshot;
	DWORD		 self = GetCurrentProcessId();
	long		 parent = 0;

	snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	if (snapshot == INVALID_HANDLE_VALUE)
		return 0;
	if (Process32FirstW(snapshot, &entry)) {
		do {
			if (entry.th32ProcessID == self) {
				parent = (long)entry.th32ParentProcessID;
				break;
			}
		} while (Process32NextW(snapshot, &entry));
	}
	CloseHandle(snapshot);
	return parent;
}

/*
 * OpenProcess and GetExitCodeProcess: STILL_ACTIVE while it runs; denied
 * access means it exists and belongs to someone else.
 */
bool
os_process_alive(long pid)
{
	HANDLE	process;
	DWORD	code;
	bool	alive;

	if (pid <= 0)
		return false;
	process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
	    (DWORD)pid);
	if (process == NULL)
		return GetLastError() == ERROR_ACCESS_DENIED;
	alive = GetExitCodeProcess(process, &code) && code == STILL_ACTIVE;
	CloseHandle(process);
	return alive;
}

/* ntdll's query, declared here: winternl.h leaves it to the DDK. */
typedef NTSTATUS (NTAPI *os_win32_query_process)(HANDLE, ULONG, PVOID,
    ULONG, PULONG);
/* NtQueryInformationProcess's class for the command line (Windows 8.1+). */
#define OS_WIN32_PROCESS_COMMAND_LINE	60

/*
 * The command line Windows keeps for the process, split the way the C
 * runtime splits it (CommandLineToArgvW), each argument ending in a NUL.
 */
char *
os_process_arguments(long pid, size_t *len)
{
	os_win32_query_process	 query;
	UNICODE_STRING		*line;
	HANDLE			 process;
	ULONG			 size = 64 * 1024;
	wchar_t			*copy, **argv;
	char			*out = NULL, *arg;
	size_t			 used = 0, n;
	int			 argc, i;

	query = (os_win32_query_process)(void *)GetProcAddress(
	    GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationProcess");
	process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
	    (DWORD)pid);
	if (query == NULL || process == NULL) {
		if (process != NULL)
			CloseHandle(process);
		return NULL;
	}
	line = xmalloc(size);
	if (query(process, OS_WIN32_PROCESS_COMMAND_LINE, line, size,
	    &size) < 0 || line->Buffer == NULL || line->Length == 0) {
		CloseHandle(process);
		free(line);
		return NULL;
	}
	CloseHandle(process);
	copy = xcalloc(line->Length / sizeof (wchar_t) + 1, sizeof *copy);
	memcpy(copy, line->Buffer, line->Length);
	free(line);
	argv = CommandLineToArgvW(copy, &argc);
	free(copy);
	if (argv == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		arg = os_win32_utf8(argv[i]);
		n = strlen(arg) + 1;
		out = xrealloc(out, used + n + 1);
		memcpy(out + used, arg, n);
		used += n;
		free(arg);
	}
	LocalFree(argv);
	if (out == NULL)
		return NULL;
	out[used] = '\0';
	*len = used;
	return out;
}

/*
 * Quotes one argument for a command line the C runtime splits back:
 * backslashes double before a quote (which gets one more) and at the end.
 */
static void
os_win32_quote(wchar_t *out, size_t *used, const wchar_t *arg)
{
	size_t	backslashes;

	out[(*used)++] = L'"';
	for (;; arg++) {
		for (backslashes = 0; *arg == L'\\'; arg++)
			backslashes++;
		if (*arg == L'\0' || *arg == L'"')
			backslashes = 2 * backslashes + (*arg == L'"');
		while (backslashes-- > 0)
			out[(*used)++] = L'\\';
		if (*arg == L'\0')
			break;
		out[(*used)++] = *arg;
	}
	out[(*used)++] = L'"';
}

/* "PROGRAM" "ARGUMENT" as one wide command line (heap). */
static wchar_t *
os_win32_command_line(const wchar_t *program, const wchar_t *argument)
{
	wchar_t	*line;
	size_t	 used = 0;

	line = xcalloc(2 * (wcslen(program) + wcslen(argument)) + 8,
	    sizeof *line);
	os_win32_quote(line, &used, program);
	line[used++] = L' ';
	os_win32_quote(line, &used, argument);
	line[used] = L'\0';
	return line;
}

/* An inheritable handle on the null device, or INVALID_HANDLE_VALUE. */
static HANDLE
os_win32_null_device(void)
{
	SECURITY_ATTRIBUTES	sa = { sizeof sa, NULL, TRUE };

	return CreateFileW(L"NUL", GENERIC_READ|GENERIC_WRITE,
	    FILE_SHARE_READ|FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
}

/*
 * Reads what the child writes to the pipe until it closes it, max bytes
 * are in or the deadline passes; false on the deadline.
 */
static bool
os_win32_run_read(HANDLE pipe, char *buf, size_t max, size_t *used,
    long long deadline)
{
	DWORD	available, n;

	for (;;) {
		if (!PeekNamedPipe(pipe, NULL, 0, NULL, &available, NULL))
			return true;	/* the child closed its end */
		if (available == 0) {
			if ((long long)clock_now_ms(clock_monotonic()) >=
			    deadline)
				return false;
			Sleep(10);
			continue;
		}
		if (available > max - *used)
			available = (DWORD)(max - *used);
		if (available == 0)
			return true;
		if (!ReadFile(pipe, buf + *used, available, &n, NULL))
			return true;
		*used += n;
	}
}

/*
 * CreateProcessW with stdout on a pipe, stdin and stderr on NUL; killed
 * (TerminateProcess) past the deadline.
 */
int
os_run(const char *program, const char *argument, int timeout_ms,
    size_t max_output, struct os_run_result *result, char **cause)
{
	SECURITY_ATTRIBUTES	 sa = { sizeof sa, NULL, TRUE };
	STARTUPINFOW		 start = { .cb = sizeof start };
	PROCESS_INFORMATION	 child;
	long long		 deadline;
	HANDLE			 read_end, write_end, null_device;
	wchar_t			*wide_program, *wide_argument, *line;
	char			*buf, *message;
	size_t			 used = 0;
	DWORD			 code, left;
	bool			 finished;
	BOOL			 started;

	deadline = (long long)clock_now_ms(clock_monotonic()) + timeout_ms;
	if ((wide_program = os_win32_wide(program)) == NULL ||
	    (wide_argument = os_win32_wide(argument)) == NULL) {
		free(wide_program);
		*cause = xasprintf("`%s`: not a UTF-8 name", program);
		return -1;
	}
	if (!CreatePipe(&read_end, &write_end, &sa, 0)) {
		free(wide_program);
		free(wide_argument);
		*cause = xasprintf("cannot make a pipe (Windows error %lu)",
		    (unsigned long)GetLastError());
		return -1;
	}
	SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
	null_device = os_win32_null_device();
	start.dwFlags = STARTF_USESTDHANDLES;
	start.hStdInput = null_device;
	start.hStdOutput = write_end;
	start.hStdError = null_device;
	line = os_win32_command_line(wide_program, wide_argument);
	started = CreateProcessW(wide_program, line, NULL, NULL, TRUE,
	    CREATE_NO_WINDOW, NULL, NULL, &start, &child);
	code = GetLastError();
	free(line);
	free(wide_program);
	free(wide_argument);
	CloseHandle(write_end);
	if (null_device != INVALID_HANDLE_VALUE)
		CloseHandle(null_device);
	if (!started) {
		CloseHandle(read_end);
		message = os_win32_strerror(code);
		*cause = xasprintf("cannot run %s: %s", program, message);
		free(message);
		return -1;
	}
	CloseHandle(child.hThread);
	buf = xmalloc(max_output + 1);
	finished = os_win32_run_read(read_end, buf, max_output, &used,
	    deadline);
	CloseHandle(read_end);
	if (finished) {
		left = (DWORD)(deadline -
		    (long long)clock_now_ms(clock_monotonic()));
		finished = (long long)left > 0 &&
		    WaitForSingleObject(child.hProcess, left) == WAIT_OBJECT_0;
	}
	if (!finished) {
		TerminateProcess(child.hProcess, 1);
		WaitForSingleObject(child.hProcess, INFINITE);
		CloseHandle(child.hProcess);
		free(buf);
		*cause = xasprintf("`%s %s` did not finish within %d ms",
		    program, argument, timeout_ms);
		return -1;
	}
	if (!GetExitCodeProcess(child.hProcess, &code))
		code = 1;
	CloseHandle(child.hProcess);
	buf[used] = '\0';
	result->exited = true;
	result->status = (int)code;
	result->output = buf;
	result->output_len = used;
	return 0;
}

/*
 * Console control events (Ctrl-C, Ctrl-Break, the console closed, logoff,
 * shutdown) arrive on a thread of their own: the handler writes the event
 * into a socket pair the loop watches. One at a time per process.
 */
struct os_termination {
	struct event	*event;
	evutil_socket_t	 pair[2];
	HANDLE		 finished;	/* set when the owner is done */
	void		(*done)(const char *what, void *arg);
	void		*arg;
};
static struct os_termination *os_win32_termination;

/* Passes a console control event to the loop; for the ones after which
 * Windows ends the process, waits a little for the host to finish first. */
static BOOL WINAPI
os_win32_console_handler(DWORD type)
{
	struct os_termination	*termination = os_win32_termination;
	char			 byte = (char)type;

	if (termination == NULL)
		return FALSE;
	(void)send(termination->pair[1], &byte, 1, 0);
	if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
		(void)WaitForSingleObject(termination->finished, 4000);
	return TRUE;
}

/* A control event arrived: Ctrl-C and Ctrl-Break interrupt, others end. */
static void
os_win32_termination_read(evutil_socket_t fd, short events, void *arg)
{
	struct os_termination	*termination = arg;
	char			 byte;

	if (recv(fd, &byte, 1, 0) != 1)
		return;
	termination->done(byte == CTRL_C_EVENT || byte == CTRL_BREAK_EVENT ?
	    "interrupted" : "terminated", termination->arg);
}

/* Watches console control events in base's loop. */
struct os_termination *
os_termination_new(struct event_base *base,
    void (*done)(const char *what, void *arg), void *arg)
{
	struct os_termination	*termination;

	termination = xcalloc(1, sizeof *termination);
	termination->done = done;
	termination->arg = arg;
	if (evutil_socketpair(AF_INET, SOCK_STREAM, 0, termination->pair)
	    == -1) {
		free(termination);
		return NULL;
	}
	evutil_make_socket_nonblocking(termination->pair[0]);
	termination->finished = CreateEventW(NULL, TRUE, FALSE, NULL);
	termination->event = event_new(base, termination->pair[0],
	    EV_READ|EV_PERSIST, os_win32_termination_read, termination);
	event_add(termination->event, NULL);
	os_win32_termination = termination;
	SetConsoleCtrlHandler(os_win32_console_handler, TRUE);
	return termination;
}

/* Stops watching, and lets a waiting control handler return. */
void
os_termination_free(struct os_termination *termination)
{
	if (termination == NULL)
		return;
	SetConsoleCtrlHandler(os_win32_console_handler, FALSE);
	os_win32_termination = NULL;
	SetEvent(termination->finished);
	event_free(termination->event);
	evutil_closesocket(termination->pair[0]);
	evutil_closesocket(termination->pair[1]);
	CloseHandle(termination->finished);
	free(termination);
}

/* An elevated token (run as administrator). */
bool
os_privileged(void)
{
	TOKEN_ELEVATION	elevation = { 0 };
	HANDLE		token;
	DWORD		size = sizeof elevation;
	bool		elevated;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return false;
	elevated = GetTokenInformation(token, TokenElevation, &elevation,
	    size, &size) && elevation.TokenIsElevated != 0;
	CloseHandle(token);
	return elevated;
}

/* DuplicateHandle, not inheritable, as a new C runtime descriptor. */
int
os_dup_private(int fd)
{
	HANDLE	handle = (HANDLE)_get_osfhandle(fd), copy;
	int	copy_fd;

	if (handle == INVALID_HANDLE_VALUE)
		return -1;
	if (!DuplicateHandle(GetCurrentProcess(), handle, GetCurrentProcess(),
	    &copy, 0, FALSE, DUPLICATE_SAME_ACCESS)) {
		os_win32_set_errno(GetLastError());
		return -1;
	}
	if ((copy_fd = _open_osfhandle((intptr_t)copy, 0)) == -1) {
		CloseHandle(copy);
		return -1;
	}
	(void)_setmode(copy_fd, _O_BINARY);
	return copy_fd;
}

/* The current user's SID (heap, a copy), or NULL. */
static PSID
os_win32_user_sid(void)
{
	HANDLE		 token;
	TOKEN_USER	*user;
	DWORD		 size = 0;
	PSID		 sid = NULL;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return NULL;
	GetTokenInformation(token, TokenUser, NULL, 0, &size);
	user = xmalloc(size);
	if (GetTokenInformation(token, TokenUser, user, size, &size)) {
		sid = xmalloc(GetLengthSid(user->User.Sid));
		CopySid(GetLengthSid(user->User.Sid), sid, user->User.Sid);
	}
	free(user);
	CloseHandle(token);
	return sid;
}

/*
 * A security descriptor whose protected DACL gives the user alone full
 * control (inherited by what a directory holds); LocalFree it.
 */
static PSECURITY_DESCRIPTOR
os_win32_private_descriptor(bool directory)
{
	PSECURITY_DESCRIPTOR	 descriptor = NULL;
	PSID			 user;
	wchar_t			*sid_text = NULL, sddl[256];

	if ((user = os_win32_user_sid()) == NULL)
		return NULL;
	if (ConvertSidToStringSidW(user, &sid_text)) {
		_snwprintf(sddl, sizeof sddl / sizeof sddl[0],
		    L"D:P(A;%ls;FA;;;%ls)", directory ? L"OICI" : L"",
		    sid_text);
		sddl[sizeof sddl / sizeof sddl[0] - 1] = L'\0';
		if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl,
		    SDDL_REVISION_1, &descriptor, NULL))
			descriptor = NULL;
		LocalFree(sid_text);
	}
	free(user);
	return descriptor;
}

/*
 * CreateFileW without following a reparse point (a symbolic link or a
 * junction: ELOOP), shareable for a rename over it, as a C runtime
 * descriptor. A new file whose mode has no bits for others gets a DACL
 * for the user alone.
 */
int
os_open_nofollow(const char *path, int flags, int mode)
{
	SECURITY_ATTRIBUTES		 sa = { sizeof sa, NULL, FALSE };
	FILE_ATTRIBUTE_TAG_INFO		 tag;
	HANDLE				 handle;
	wchar_t				*wide;
	DWORD				 access, disposition, error;
	int				 fd, crt_flags;

	if ((wide = os_win32_wide(path)) == NULL)
		return -1;
	access = FILE_READ_ATTRIBUTES|READ_CONTROL|SYNCHRONIZE;
	switch (flags & O_ACCMODE) {
	case O_WRONLY:
		access |= GENERIC_WRITE;
		break;
	case O_RDWR:
		access |= GENERIC_READ|GENERIC_WRITE;
		break;
	default:
		access |= GENERIC_READ;
		break;
	}
	if ((flags & O_APPEND) != 0)
		access = (access & ~(DWORD)GENERIC_WRITE) | FILE_APPEND_DATA;
	if ((flags & O_CREAT) != 0 && (flags & O_EXCL) != 0)
		disposition = CREATE_NEW;
	else if ((flags & O_CREAT) != 0)
		disposition = (flags & O_TRUNC) != 0 ? CREATE_ALWAYS :
		    OPEN_ALWAYS;
	else
		disposition = (flags & O_TRUNC) != 0 ? TRUNCATE_EXISTING :
		    OPEN_EXISTING;
	if ((flags & O_CREAT) != 0 && (mode & 077) == 0)
		sa.lpSecurityDescriptor = os_win32_private_descriptor(false);
	handle = CreateFileW(wide, access,
	    FILE_SHARE_READ|FILE_SHARE_WRITE|FILE_SHARE_DELETE, &sa,
	    disposition, FILE_ATTRIBUTE_NORMAL|FILE_FLAG_OPEN_REPARSE_POINT|
	    FILE_FLAG_BACKUP_SEMANTICS, NULL);
	error = GetLastError();
	LocalFree(sa.lpSecurityDescriptor);
	free(wide);
	if (handle == INVALID_HANDLE_VALUE) {
		os_win32_set_errno(error);
		return -1;
	}
	if (!GetFileInformationByHandleEx(handle, FileAttributeTagInfo, &tag,
	    sizeof tag) ||
	    (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
		CloseHandle(handle);
		errno = ELOOP;
		return -1;
	}
	/* The C runtime's fstat cannot tell a directory's handle: ask here. */
	if ((flags & O_DIRECTORY) != 0 &&
	    (tag.FileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0) {
		CloseHandle(handle);
		errno = ENOTDIR;
		return -1;
	}
	crt_flags = (flags & O_ACCMODE) | (flags & O_APPEND);
	if ((fd = _open_osfhandle((intptr_t)handle, crt_flags)) == -1) {
		CloseHandle(handle);
		return -1;
	}
	(void)_setmode(fd, _O_BINARY);
	return fd;
}

/* Whether an access mask lets its holder change the object. */
static bool
os_win32_mask_writes(ACCESS_MASK mask)
{
	return (mask & (GENERIC_ALL|GENERIC_WRITE|FILE_WRITE_DATA|
	    FILE_APPEND_DATA|FILE_DELETE_CHILD|DELETE|WRITE_DAC|WRITE_OWNER))
	    != 0;
}

/* Whether an access mask lets its holder read the object's contents. */
static bool
os_win32_mask_reads(ACCESS_MASK mask)
{
	return (mask & (GENERIC_ALL|GENERIC_READ|FILE_READ_DATA)) != 0;
}

/*
 * Whether an ACE's trustee is one the user trusts anyway: the user, the
 * file's owner, LocalSystem and the Administrators, who can take any file
 * (as root can on POSIX), and OWNER RIGHTS.
 */
static bool
os_win32_trusted(PSID sid, PSID user, PSID owner)
{
	return EqualSid(sid, user) || EqualSid(sid, owner) ||
	    IsWellKnownSid(sid, WinLocalSystemSid) ||
	    IsWellKnownSid(sid, WinBuiltinAdministratorsSid) ||
	    IsWellKnownSid(sid, WinCreatorOwnerRightsSid);
}

/* An account's name ("DOMAIN\name"), its SID string if it has none (heap). */
static char *
os_win32_account(PSID sid)
{
	wchar_t		 name[256], domain[256], *text;
	DWORD		 name_len = 256, domain_len = 256;
	SID_NAME_USE	 use;
	char		*a, *b, *out;

	if (LookupAccountSidW(NULL, sid, name, &name_len, domain,
	    &domain_len, &use)) {
		a = os_win32_utf8(domain);
		b = os_win32_utf8(name);
		out = *a != '\0' ? xasprintf("%s\\%s", a, b) : xstrdup(b);
		free(a);
		free(b);
		return out;
	}
	if (!ConvertSidToStringSidW(sid, &text))
		return xstrdup("an unknown account");
	out = os_win32_utf8(text);
	LocalFree(text);
	return out;
}

/*
 * The owner SID must be the user's; then every ACE that allows an account
 * besides the trusted ones (os_win32_trusted) to change or read the file
 * counts against it. A missing DACL lets everyone in.
 */
enum os_privacy
os_privacy_check(int fd, char **detail)
{
	PSECURITY_DESCRIPTOR	 descriptor = NULL;
	ACCESS_ALLOWED_ACE	*ace;
	enum os_privacy		 privacy = OS_PRIVATE;
	HANDLE			 handle = (HANDLE)_get_osfhandle(fd);
	PSID			 owner, user, sid;
	PACL			 dacl;
	DWORD			 error, i;
	char			*who, *you;

	if (handle == INVALID_HANDLE_VALUE)
		return OS_PRIVACY_UNKNOWN;
	error = GetSecurityInfo(handle, SE_FILE_OBJECT,
	    OWNER_SECURITY_INFORMATION|DACL_SECURITY_INFORMATION, &owner, NULL,
	    &dacl, NULL, &descriptor);
	if (error != ERROR_SUCCESS) {
		os_win32_set_errno(error);
		return OS_PRIVACY_UNKNOWN;
	}
	if ((user = os_win32_user_sid()) == NULL) {
		LocalFree(descriptor);
		errno = EACCES;
		return OS_PRIVACY_UNKNOWN;
	}
	if (!EqualSid(owner, user)) {
		who = os_win32_account(owner);
		you = os_win32_account(user);
		*detail = xasprintf("belongs to %s, not to you (%s)", who, you);
		free(who);
		free(you);
		privacy = OS_OWNED_BY_OTHER;
	} else if (dacl == NULL) {
		*detail = xstrdup("no access control list, so everyone may "
		    "change it");
		privacy = OS_WRITABLE_BY_OTHERS;
	}
	for (i = 0; privacy == OS_PRIVATE || privacy == OS_READABLE_BY_OTHERS;
	    i++) {
		if (dacl == NULL || i >= dacl->AceCount ||
		    !GetAce(dacl, i, (void **)&ace))
			break;
		if (ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    (ace->Header.AceFlags & INHERIT_ONLY_ACE) != 0)
			continue;
		sid = (PSID)&ace->SidStart;
		if (os_win32_trusted(sid, user, owner))
			continue;
		if (os_win32_mask_writes(ace->Mask)) {
			free(*detail);
			who = os_win32_account(sid);
			*detail = xasprintf("its access list lets %s change "
			    "it", who);
			free(who);
			privacy = OS_WRITABLE_BY_OTHERS;
		} else if (privacy == OS_PRIVATE &&
		    os_win32_mask_reads(ace->Mask)) {
			who = os_win32_account(sid);
			*detail = xasprintf("its access list lets %s read it",
			    who);
			free(who);
			privacy = OS_READABLE_BY_OTHERS;
		}
	}
	free(user);
	LocalFree(descriptor);
	return privacy;
}

/* icacls: no inherited entries, full control for the user alone. */
char *
os_privacy_fix(const char *path, bool directory)
{
	return xasprintf("icacls \"%s\" /inheritance:r /grant:r "
	    "\"%%USERNAME%%:%s\"", path, directory ? "(OI)(CI)F" : "F");
}

/* CreateDirectoryW with the given descriptor (NULL: inherited). */
static int
os_win32_make_dir(const char *path, PSECURITY_DESCRIPTOR descriptor)
{
	SECURITY_ATTRIBUTES	 sa = { sizeof sa, descriptor, FALSE };
	wchar_t			*wide;
	BOOL			 made;
	DWORD			 error;

	if ((wide = os_win32_wide(path)) == NULL)
		return -1;
	made = CreateDirectoryW(wide, &sa);
	error = GetLastError();
	free(wide);
	if (!made) {
		os_win32_set_errno(error);
		return -1;
	}
	return 0;
}

/* A directory whose protected DACL gives the user alone full control. */
int
os_make_private_dir(const char *path)
{
	PSECURITY_DESCRIPTOR	descriptor;
	int			rc;

	if ((descriptor = os_win32_private_descriptor(true)) == NULL) {
		errno = EACCES;
		return -1;
	}
	rc = os_win32_make_dir(path, descriptor);
	LocalFree(descriptor);
	return rc;
}

/* A directory with the access its parent hands down. */
int
os_make_shared_dir(const char *path)
{
	return os_win32_make_dir(path, NULL);
}

/* MoveFileExW with MOVEFILE_REPLACE_EXISTING, written through. */
int
os_replace_file(const char *from, const char *to)
{
	wchar_t	*wide_from, *wide_to;
	BOOL	 moved;
	DWORD	 error;

	if ((wide_from = os_win32_wide(from)) == NULL)
		return -1;
	if ((wide_to = os_win32_wide(to)) == NULL) {
		free(wide_from);
		return -1;
	}
	moved = MoveFileExW(wide_from, wide_to,
	    MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH);
	error = GetLastError();
	free(wide_from);
	free(wide_to);
	if (!moved) {
		os_win32_set_errno(error);
		return -1;
	}
	return 0;
}

/* NTFS journals its directories: nothing to flush. */
void
os_sync_dir(const char *dir)
{
}

/* The C runtime's stat keeps whole seconds. */
long long
os_modified_ns(const struct stat *sb)
{
	return (long long)sb->st_mtime * 1000000000LL;
}

/* LockFileEx over the whole file, waiting. */
int
os_lock(int fd)
{
	OVERLAPPED	overlapped = { 0 };
	HANDLE		handle = (HANDLE)_get_osfhandle(fd);

	if (handle == INVALID_HANDLE_VALUE)
		return -1;
	if (!LockFileEx(handle, LOCKFILE_EXCLUSIVE_LOCK, 0, MAXDWORD,
	    MAXDWORD, &overlapped)) {
		os_win32_set_errno(GetLastError());
		return -1;
	}
	return 0;
}

/* UnlockFileEx over the whole file. */
int
os_unlock(int fd)
{
	OVERLAPPED	overlapped = { 0 };
	HANDLE		handle = (HANDLE)_get_osfhandle(fd);

	if (handle == INVALID_HANDLE_VALUE)
		return -1;
	if (!UnlockFileEx(handle, 0, MAXDWORD, MAXDWORD, &overlapped)) {
		os_win32_set_errno(GetLastError());
		return -1;
	}
	return 0;
}

/*
 * GetFinalPathNameByHandleW: the path Windows has for the open file, every
 * link resolved, without the \\?\ prefix (\\?\UNC\ becomes \\).
 */
char *
os_opened_path(int fd, const char *given)
{
	HANDLE	 handle = (HANDLE)_get_osfhandle(fd);
	wchar_t	*buf, *start;
	char	*path;
	DWORD	 n;

	if (handle == INVALID_HANDLE_VALUE)
		return NULL;
	buf = xcalloc(OS_WIN32_PATH_MAX, sizeof *buf);
	n = GetFinalPathNameByHandleW(handle, buf, OS_WIN32_PATH_MAX,
	    FILE_NAME_NORMALIZED|VOLUME_NAME_DOS);
	if (n == 0 || n >= OS_WIN32_PATH_MAX) {
		os_win32_set_errno(GetLastError());
		free(buf);
		return NULL;
	}
	start = buf;
	if (wcsncmp(start, L"\\\\?\\UNC\\", 8) == 0) {
		start += 6;
		*start = L'\\';
	} else if (wcsncmp(start, L"\\\\?\\", 4) == 0)
		start += 4;
	path = os_win32_utf8(start);
	free(buf);
	return path;
}

/* "cannot WHAT the registry key HKCU\KEY: MESSAGE" (heap). */
static char *
os_win32_registry_cause(const char *what, const char *key, LSTATUS error)
{
	char	*message, *cause;

	message = os_win32_strerror((DWORD)error);
	cause = xasprintf("cannot %s the registry key HKCU\\%s: %s", what, key,
	    message);
	free(message);
	return cause;
}

/*
 * RegGetValueW of key's default value, a string (REG_SZ); no such key or
 * value is 0, a value of another type an error.
 */
int
os_registry_read(const char *key, char **value, char **cause)
{
	wchar_t	*wide, *buf = NULL;
	DWORD	 size = 0;
	LSTATUS	 error;

	*value = NULL;
	if ((wide = os_win32_wide(key)) == NULL) {
		*cause = xasprintf("the registry key %s is not UTF-8", key);
		return -1;
	}
	do {	/* again if the value grew between the two calls */
		error = RegGetValueW(HKEY_CURRENT_USER, wide, NULL,
		    RRF_RT_REG_SZ, NULL, NULL, &size);
		if (error != ERROR_SUCCESS)
			break;
		free(buf);
		buf = xmalloc(size + sizeof *buf);
		error = RegGetValueW(HKEY_CURRENT_USER, wide, NULL,
		    RRF_RT_REG_SZ, NULL, buf, &size);
	} while (error == ERROR_MORE_DATA);
	free(wide);
	if (error == ERROR_FILE_NOT_FOUND) {
		free(buf);
		return 0;
	}
	if (error != ERROR_SUCCESS) {
		free(buf);
		*cause = os_win32_registry_cause("read", key, error);
		return -1;
	}
	*value = os_win32_utf8(buf);
	free(buf);
	return 1;
}

/* RegCreateKeyExW, then RegSetValueExW of the default value (REG_SZ). */
int
os_registry_write(const char *key, const char *value, char **cause)
{
	wchar_t	*wide_key, *wide_value;
	HKEY	 handle;
	LSTATUS	 error;

	if ((wide_key = os_win32_wide(key)) == NULL ||
	    (wide_value = os_win32_wide(value)) == NULL) {
		free(wide_key);
		*cause = xasprintf("the registry key %s or its value %s is not "
		    "UTF-8", key, value);
		return -1;
	}
	error = RegCreateKeyExW(HKEY_CURRENT_USER, wide_key, 0, NULL,
	    REG_OPTION_NON_VOLATILE, KEY_SET_VALUE, NULL, &handle, NULL);
	if (error == ERROR_SUCCESS) {
		error = RegSetValueExW(handle, NULL, 0, REG_SZ,
		    (const BYTE *)wide_value,
		    (DWORD)((wcslen(wide_value) + 1) * sizeof *wide_value));
		RegCloseKey(handle);
	}
	free(wide_key);
	free(wide_value);
	if (error != ERROR_SUCCESS) {
		*cause = os_win32_registry_cause("write", key, error);
		return -1;
	}
	return 0;
}

/* RegDeleteTreeW of the key itself; a key already gone is no error. */
int
os_registry_delete(const char *key, char **cause)
{
	wchar_t	*wide;
	LSTATUS	 error;

	if ((wide = os_win32_wide(key)) == NULL) {
		*cause = xasprintf("the registry key %s is not UTF-8", key);
		return -1;
	}
	error = RegDeleteTreeW(HKEY_CURRENT_USER, wide);
	free(wide);
	if (error != ERROR_SUCCESS && error != ERROR_FILE_NOT_FOUND) {
		*cause = os_win32_registry_cause("remove", key, error);
		return -1;
	}
	return 0;
}

/*
 * The native-messaging pipes, bridged to sockets the loop can watch
 * (libevent's Windows backend watches sockets only: event_add on a pipe
 * fails with WSAENOTSOCK). A reader thread copies the input pipe into one
 * socket pair, a writer thread the other pair into the output pipe.
 */
struct os_stdio {
	evutil_socket_t	 input[2];	/* [0] the loop reads, [1] the reader writes */
	evutil_socket_t	 output[2];	/* [0] the loop writes, [1] the writer reads */
	HANDLE		 in_handle;
	HANDLE		 out_handle;
	HANDLE		 reader;
	HANDLE		 writer;
};

/* Most bytes one copy between a pipe and a socket moves. */
#define OS_STDIO_COPY_SIZE	(64 * 1024)
/* How long os_stdio_free waits for the last output to reach the pipe. */
#define OS_STDIO_FLUSH_MS	5000

/* Sends all of buf on a blocking socket; false when the other end is gone. */
static bool
os_stdio_send_all(evutil_socket_t sock, const char *buf, size_t len)
{
	int	n;

	while (len > 0) {
		n = send(sock, buf, len > INT_MAX ? INT_MAX : (int)len, 0);
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* Copies the input pipe into the loop's socket; at its end, ends that too. */
static DWORD WINAPI
os_stdio_reader(void *arg)
{
	struct os_stdio	*stdio = arg;
	char		*buf = xmalloc(OS_STDIO_COPY_SIZE);
	DWORD		 n;

	while (ReadFile(stdio->in_handle, buf, OS_STDIO_COPY_SIZE, &n, NULL) &&
	    n > 0) {
		if (!os_stdio_send_all(stdio->input[1], buf, n))
			break;
	}
	free(buf);
	shutdown(stdio->input[1], SD_SEND);
	return 0;
}

/* Copies what the loop sends into the output pipe, until the loop's end
 * closes; when the pipe breaks, closes the socket so the loop's sends fail. */
static DWORD WINAPI
os_stdio_writer(void *arg)
{
	struct os_stdio	*stdio = arg;
	char		*buf = xmalloc(OS_STDIO_COPY_SIZE);
	DWORD		 written, done;
	int		 n;

	while ((n = recv(stdio->output[1], buf, OS_STDIO_COPY_SIZE, 0)) > 0) {
		for (done = 0; done < (DWORD)n; done += written) {
			if (!WriteFile(stdio->out_handle, buf + done,
			    (DWORD)n - done, &written, NULL))
				goto broken;
		}
	}
	free(buf);
	return 0;
broken:
	free(buf);
	shutdown(stdio->output[1], SD_BOTH);
	return 0;
}

/* A socket pair whose first end is non-blocking, for the loop. */
static int
os_stdio_pair(evutil_socket_t pair[2])
{
	if (evutil_socketpair(AF_INET, SOCK_STREAM, 0, pair) == -1)
		return -1;
	evutil_make_socket_nonblocking(pair[0]);
	return 0;
}

/* Starts the two threads between in_fd, out_fd and the loop's sockets. */
struct os_stdio *
os_stdio_new(int in_fd, int out_fd, char **cause)
{
	struct os_stdio	*stdio = xcalloc(1, sizeof *stdio);

	stdio->input[0] = stdio->input[1] = EVUTIL_INVALID_SOCKET;
	stdio->output[0] = stdio->output[1] = EVUTIL_INVALID_SOCKET;
	stdio->in_handle = (HANDLE)_get_osfhandle(in_fd);
	stdio->out_handle = (HANDLE)_get_osfhandle(out_fd);
	if (stdio->in_handle == INVALID_HANDLE_VALUE ||
	    stdio->out_handle == INVALID_HANDLE_VALUE) {
		*cause = xstrdup("standard input or output is not open");
		goto fail;
	}
	if (os_stdio_pair(stdio->input) == -1 ||
	    os_stdio_pair(stdio->output) == -1) {
		*cause = xasprintf("cannot make a socket pair: %s",
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		goto fail;
	}
	stdio->reader = CreateThread(NULL, 0, os_stdio_reader, stdio, 0, NULL);
	stdio->writer = CreateThread(NULL, 0, os_stdio_writer, stdio, 0, NULL);
	if (stdio->reader == NULL || stdio->writer == NULL) {
		*cause = xasprintf("cannot start the threads that move "
		    "standard input and output (Windows error %lu)",
		    (unsigned long)GetLastError());
		goto fail;
	}
	return stdio;
fail:
	os_stdio_free(stdio);
	return NULL;
}

/* The socket the loop reads the input from. */
evutil_socket_t
os_stdio_input(const struct os_stdio *stdio)
{
	return stdio->input[0];
}

/* The socket the loop writes the output to. */
evutil_socket_t
os_stdio_output(const struct os_stdio *stdio)
{
	return stdio->output[0];
}

/* ioctlsocket FIONBIO off on the loop's end of the output. */
void
os_stdio_output_blocking(struct os_stdio *stdio)
{
	u_long	off = 0;

	(void)ioctlsocket(stdio->output[0], FIONBIO, &off);
}

/* Closes a socket unless it is already. */
static void
os_stdio_close(evutil_socket_t *sock)
{
	if (*sock != (evutil_socket_t)EVUTIL_INVALID_SOCKET)
		evutil_closesocket(*sock);
	*sock = EVUTIL_INVALID_SOCKET;
}

/*
 * Lets the writer pass on what is still queued and waits for it (a while),
 * stops the reader's wait on the pipe, then frees the sockets.
 */
void
os_stdio_free(struct os_stdio *stdio)
{
	if (stdio == NULL)
		return;
	if (stdio->output[0] != (evutil_socket_t)EVUTIL_INVALID_SOCKET)
		shutdown(stdio->output[0], SD_SEND);
	if (stdio->writer != NULL) {
		(void)WaitForSingleObject(stdio->writer, OS_STDIO_FLUSH_MS);
		CloseHandle(stdio->writer);
	}
	if (stdio->reader != NULL) {
		(void)CancelSynchronousIo(stdio->reader);
		(void)WaitForSingleObject(stdio->reader, 100);
		CloseHandle(stdio->reader);
	}
	os_stdio_close(&stdio->input[0]);
	os_stdio_close(&stdio->input[1]);
	os_stdio_close(&stdio->output[0]);
	os_stdio_close(&stdio->output[1]);
	free(stdio);
}

/* WSAEWOULDBLOCK and WSAEINTR: try the socket call again later. */
bool
os_io_again(int error)
{
	return error == WSAEWOULDBLOCK || error == WSAEINTR ||
	    error == WSAEINPROGRESS;
}

/*
 * GetExtendedTcpTable lists the IPv4 connections with the process owning
 * each; the other end of fd is the row from fd's peer to fd's own end
 * (ports in network order, in the low 16 bits). The table does not say
 * the process's user: other_user stays false.
 */
int
os_loopback_peer(evutil_socket_t fd, struct os_peer *peer)
{
	struct sockaddr_in	 mine, theirs;
	int			 mine_len = sizeof mine, theirs_len = sizeof theirs;
	MIB_TCPTABLE_OWNER_PID	*table = NULL;
	const MIB_TCPROW_OWNER_PID *row;
	DWORD			 size = 0, rc = ERROR_INSUFFICIENT_BUFFER, i;
	int			 tries;

	peer->pid = 0;
	peer->other_user = false;
	if (getsockname(fd, (struct sockaddr *)&mine, &mine_len) != 0 ||
	    getpeername(fd, (struct sockaddr *)&theirs, &theirs_len) != 0 ||
	    mine.sin_family != AF_INET || theirs.sin_family != AF_INET)
		return -1;
	/* The table can grow between asking its size and reading it. */
	for (tries = 0; tries < 3 && rc == ERROR_INSUFFICIENT_BUFFER;
	    tries++) {
		rc = GetExtendedTcpTable(table, &size, FALSE, AF_INET,
		    TCP_TABLE_OWNER_PID_CONNECTIONS, 0);
		if (rc == ERROR_INSUFFICIENT_BUFFER) {
			free(table);
			table = xmalloc(size);
		}
	}
	for (i = 0; rc == NO_ERROR && i < table->dwNumEntries; i++) {
		row = &table->table[i];
		if (row->dwLocalAddr == theirs.sin_addr.s_addr &&
		    (u_short)row->dwLocalPort == theirs.sin_port &&
		    row->dwRemoteAddr == mine.sin_addr.s_addr &&
		    (u_short)row->dwRemotePort == mine.sin_port) {
			peer->pid = (long)row->dwOwningPid;
			break;
		}
	}
	free(table);
	return peer->pid != 0 ? 0 : -1;
}
