/* Tests for the security pieces: random, token, HTTP guard, runtime file. */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>

#include "check-helpers.h"
#include "files.h"
#include "http-guard.h"
#include "instance.h"
#include "log.h"
#include "os.h"
#include "proof.h"
#include "random.h"
#include "runtime-file.h"
#include "upload.h"
#include "token.h"
#include "xmalloc.h"

#define nitems(a)	(sizeof (a) / sizeof (a)[0])

/* A fresh private directory per test, removed by the fixture. */
static char	*test_dir;

/* Removes one entry of the test directory tree. */
static int
test_remove_entry(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)remove(path);
	return 0;
}

/* Makes the per-test directory. */
static void
test_dir_setup(void)
{
	const char	*base = getenv("TMPDIR");

	if (base == NULL || *base == '\0')
		base = "/tmp";
	test_dir = xasprintf("%s/check-security-XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(test_dir));
}

/* Removes the per-test directory and everything in it. */
static void
test_dir_teardown(void)
{
	(void)nftw(test_dir, test_remove_entry, 16, FTW_DEPTH|FTW_PHYS);
	free(test_dir);
	test_dir = NULL;
}

/* Returns a path inside the test directory. */
static char *
test_path(const char *name)
{
	return xasprintf("%s/%s", test_dir, name);
}

/* Writes text to a new file with the given mode. */
static void
test_write_file(const char *path, const char *text, size_t len, mode_t mode)
{
	int	fd;

	fd = open(path, O_WRONLY|O_CREAT|O_TRUNC, 0600);
	ck_assert_msg(fd != -1, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	ck_assert_int_eq(close(fd), 0);
}

/* Reads a whole small file into a new string. */
static char *
test_read_file(const char *path)
{
	char	 buf[4096];
	ssize_t	 n;
	int	 fd;

	fd = open(path, O_RDONLY);
	ck_assert_msg(fd != -1, "open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof buf - 1);
	ck_assert_int_ge(n, 0);
	close(fd);
	buf[n] = '\0';
	return xstrdup(buf);
}

/* Returns the permission bits of path. */
static unsigned
test_mode(const char *path)
{
	struct stat	sb;

	ck_assert_msg(lstat(path, &sb) == 0, "stat %s: %s", path,
	    strerror(errno));
	return (unsigned)(sb.st_mode & 07777);
}

/* Counts the entries of a directory other than . and .. */
static int
test_count_entries(const char *path)
{
	DIR		*dir;
	struct dirent	*entry;
	int		 count = 0;

	dir = opendir(path);
	ck_assert_ptr_nonnull(dir);
	while ((entry = readdir(dir)) != NULL) {
		if (strcmp(entry->d_name, ".") != 0 &&
		    strcmp(entry->d_name, "..") != 0)
			count++;
	}
	closedir(dir);
	return count;
}

/* Says whether s holds only lowercase hex digits. */
static int
test_is_lower_hex(const char *s)
{
	return s[strspn(s, "0123456789abcdef")] == '\0';
}

/* ------------------------------------------------------------ random */

START_TEST(test_random_hex_length_and_charset)
{
	static const size_t	 sizes[] = { 0, 1, 16, 32, 64, 100 };
	char			 buf[2 * 100 + 2];
	size_t			 i, n;

	for (i = 0; i < nitems(sizes); i++) {
		n = sizes[i];
		memset(buf, 'X', sizeof buf);
		ck_assert_int_eq(random_hex(buf, n), 0);
		ck_assert_uint_eq(strlen(buf), 2 * n);
		ck_assert_msg(test_is_lower_hex(buf), "not lowercase hex: %s",
		    buf);
		ck_assert_msg(buf[2 * n + 1] == 'X',
		    "random_hex(%zu) wrote past its NUL", n);
	}
}
END_TEST

START_TEST(test_random_hex_two_calls_differ)
{
	char	a[65], b[65];

	ck_assert_int_eq(random_hex(a, 32), 0);
	ck_assert_int_eq(random_hex(b, 32), 0);
	ck_assert_str_ne(a, b);
}
END_TEST

START_TEST(test_random_hex_uses_every_digit)
{
	char	buf[2 * 2048 + 1];
	int	 i;

	ck_assert_int_eq(random_hex(buf, 2048), 0);
	for (i = 0; i < 16; i++) {
		ck_assert_msg(strchr(buf, "0123456789abcdef"[i]) != NULL,
		    "digit %c never appears in 4096 random hex digits",
		    "0123456789abcdef"[i]);
	}
}
END_TEST

START_TEST(test_random_bytes_fills_large_buffer)
{
	size_t		 len = 1024 * 1024, zeros = 0, i;
	unsigned char	*buf = xcalloc(1, len);

	ck_assert_int_eq(random_bytes(buf, len), 0);
	for (i = 0; i < len; i++)
		zeros += buf[i] == 0;
	/* About len/256 = 4096 zero bytes are expected. */
	ck_assert_msg(zeros > 3000 && zeros < 5200, "%zu zero bytes in 1 MiB",
	    zeros);
	ck_assert_msg(buf[len - 1] != 0 || buf[len - 2] != 0 ||
	    buf[len - 3] != 0, "the end of the buffer was not filled");
	free(buf);
}
END_TEST

/* ------------------------------------------------------------- token */

#define TEST_TOKEN_64 \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

START_TEST(test_token_created_private)
{
	char	*dir = test_path("config/browser-bridge");
	char	*parent = test_path("config");
	char	*path = test_path("config/browser-bridge/token");
	char	*token, *cause = NULL, *text, *expected;

	token = token_load_or_create(path, &cause);
	ck_assert_msg(token != NULL, "token_load_or_create: %s", cause);
	ck_assert_uint_eq(strlen(token), TOKEN_HEX_LENGTH);
	ck_assert_msg(test_is_lower_hex(token), "token not hex: %s", token);

	ck_assert_uint_eq(test_mode(path), 0600);
	ck_assert_uint_eq(test_mode(dir), 0700);
	ck_assert_uint_eq(test_mode(parent), 0700);
	text = test_read_file(path);
	expected = xasprintf("%s\n", token);
	ck_assert_str_eq(text, expected);
	ck_assert_int_eq(test_count_entries(dir), 1);	/* no temp file left */

	free(expected);
	free(text);
	free(token);
	free(path);
	free(parent);
	free(dir);
}
END_TEST

START_TEST(test_token_read_back_on_second_call)
{
	char	*path = test_path("token");
	char	*first, *second, *cause = NULL;

	first = token_load_or_create(path, &cause);
	ck_assert_msg(first != NULL, "first call: %s", cause);
	second = token_load_or_create(path, &cause);
	ck_assert_msg(second != NULL, "second call: %s", cause);
	ck_assert_str_eq(first, second);

	free(second);
	free(first);
	free(path);
}
END_TEST

START_TEST(test_token_two_files_differ)
{
	char	*path_a = test_path("a"), *path_b = test_path("b");
	char	*a, *b, *cause = NULL;

	a = token_load_or_create(path_a, &cause);
	b = token_load_or_create(path_b, &cause);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_ne(a, b);

	free(b);
	free(a);
	free(path_b);
	free(path_a);
}
END_TEST

START_TEST(test_token_refuses_open_modes)
{
	static const mode_t	 modes[] = { 0640, 0604, 0620, 0660, 0644 };
	char			*path = test_path("token");
	char			*cause, *text, *fix;
	size_t			 i;

	fix = xasprintf("chmod 600 %s", path);
	for (i = 0; i < nitems(modes); i++) {
		test_write_file(path, TEST_TOKEN_64 "\n",
		    strlen(TEST_TOKEN_64 "\n"), modes[i]);
		cause = NULL;
		ck_assert_msg(token_load_or_create(path, &cause) == NULL,
		    "mode %03o accepted", (unsigned)modes[i]);
		ck_assert_ptr_nonnull(cause);
		ck_assert_msg(strstr(cause, fix) != NULL,
		    "cause does not say how to fix mode %03o: %s",
		    (unsigned)modes[i], cause);
		free(cause);
		/* The refused file is left alone. */
		ck_assert_uint_eq(test_mode(path), modes[i]);
		text = test_read_file(path);
		ck_assert_str_eq(text, TEST_TOKEN_64 "\n");
		free(text);
	}
	free(fix);
	free(path);
}
END_TEST

START_TEST(test_token_refuses_symlink)
{
	char	*target = test_path("elsewhere");
	char	*path = test_path("token");
	char	*cause = NULL, *text;

	test_write_file(target, TEST_TOKEN_64 "\n", strlen(TEST_TOKEN_64 "\n"),
	    0600);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_ptr_null(token_load_or_create(path, &cause));
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "symbolic link") != NULL, "cause: %s",
	    cause);
	text = test_read_file(target);
	ck_assert_str_eq(text, TEST_TOKEN_64 "\n");

	free(text);
	free(cause);
	free(path);
	free(target);
}
END_TEST

START_TEST(test_token_refuses_dangling_symlink)
{
	char		*target = test_path("planted");
	char		*path = test_path("token");
	char		*cause = NULL;
	struct stat	 sb;

	/* A dangling link must not make the host write through it. */
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_ptr_null(token_load_or_create(path, &cause));
	ck_assert_ptr_nonnull(cause);
	ck_assert_int_eq(stat(target, &sb), -1);

	free(cause);
	free(path);
	free(target);
}
END_TEST

START_TEST(test_token_refuses_malformed)
{
	static const char	*contents[] = {
		"",
		"\n",
		"short\n",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n",
		"0123456789abcdef0123456789abcdef 123456789abcdef0123456789abcdef\n",
		"0123456789abcdef0123456789abcdef\001123456789abcdef0123456789abcdef\n",
		"0123456789abcdef0123456789abcdef\303\2513456789abcdef0123456789abcdef\n",
		" 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
	};
	char			*path = test_path("token");
	char			*cause, *text;
	size_t			 i;

	for (i = 0; i < nitems(contents); i++) {
		test_write_file(path, contents[i], strlen(contents[i]), 0600);
		cause = NULL;
		ck_assert_msg(token_load_or_create(path, &cause) == NULL,
		    "accepted malformed token file: \"%s\"", contents[i]);
		ck_assert_msg(cause != NULL && strstr(cause, "malformed") &&
		    strstr(cause, path), "cause: %s", cause);
		free(cause);
		text = test_read_file(path);
		ck_assert_str_eq(text, contents[i]);
		free(text);
	}
	free(path);
}
END_TEST

START_TEST(test_token_refuses_too_long)
{
	static const size_t	 lengths[] = { 257, 400, 3000 };
	char			*path = test_path("token");
	char			*cause, *text;
	size_t			 i;

	for (i = 0; i < nitems(lengths); i++) {
		text = xmalloc(lengths[i]);
		memset(text, 'a', lengths[i]);
		test_write_file(path, text, lengths[i], 0600);
		free(text);
		cause = NULL;
		ck_assert_msg(token_load_or_create(path, &cause) == NULL,
		    "accepted a %zu-character token", lengths[i]);
		ck_assert_msg(cause != NULL && strstr(cause, "malformed"),
		    "cause: %s", cause);
		free(cause);
	}
	free(path);
}
END_TEST

START_TEST(test_token_accepts_user_token_with_trailing_whitespace)
{
	char	*path = test_path("token");
	char	*token, *cause = NULL, *longest;
	char	 user[] = "Some-User_Chosen.Token~!#$%&*+/=?^`{|}0123456789ABCDEFGHIJKLMNOPQRSTUV";

	ck_assert_uint_ge(strlen(user), TOKEN_HEX_LENGTH);
	longest = xasprintf("%s \t\r\n\n", user);
	test_write_file(path, longest, strlen(longest), 0600);
	free(longest);
	token = token_load_or_create(path, &cause);
	ck_assert_msg(token != NULL, "refused: %s", cause);
	ck_assert_str_eq(token, user);
	free(token);

	/* Exactly 256 characters is the longest accepted. */
	longest = xmalloc(257);
	memset(longest, 'Z', 256);
	longest[256] = '\0';
	test_write_file(path, longest, 256, 0600);
	token = token_load_or_create(path, &cause);
	ck_assert_msg(token != NULL, "refused 256 characters: %s", cause);
	ck_assert_str_eq(token, longest);
	free(token);

	/* A read-only file is fine too. */
	test_write_file(path, TEST_TOKEN_64, strlen(TEST_TOKEN_64), 0400);
	token = token_load_or_create(path, &cause);
	ck_assert_msg(token != NULL, "refused mode 0400: %s", cause);
	ck_assert_str_eq(token, TEST_TOKEN_64);
	free(token);

	free(longest);
	free(path);
}
END_TEST

START_TEST(test_token_refuses_non_regular_files)
{
	char	*path = test_path("token");
	char	*cause = NULL;

	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_ptr_null(token_load_or_create(path, &cause));
	ck_assert_msg(cause != NULL && strstr(cause, "not a regular file"),
	    "directory: %s", cause);
	free(cause);
	ck_assert_int_eq(rmdir(path), 0);

	/* A FIFO must be refused, not block the host forever. */
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	cause = NULL;
	ck_assert_ptr_null(token_load_or_create(path, &cause));
	ck_assert_msg(cause != NULL && strstr(cause, "not a regular file"),
	    "fifo: %s", cause);
	free(cause);
	free(path);
}
END_TEST

START_TEST(test_token_reports_file_in_the_way)
{
	char	*blocker = test_path("config");
	char	*path = test_path("config/browser-bridge/token");
	char	*cause = NULL, *expected;

	/* Opening fails with ENOTDIR; the message names what to move. */
	test_write_file(blocker, "", 0, 0600);
	ck_assert_ptr_null(token_load_or_create(path, &cause));
	expected = xasprintf("%s is not a directory; move it away so the "
	    "token can be stored there", blocker);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, expected);

	free(expected);
	free(cause);
	free(path);
	free(blocker);
}
END_TEST

START_TEST(test_token_refuses_other_owner)
{
	char	*path, *cause = NULL;

	if (geteuid() == 0) {
		path = test_path("token");
		test_write_file(path, TEST_TOKEN_64 "\n",
		    strlen(TEST_TOKEN_64 "\n"), 0600);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
	} else {
		/* A file owned by root is not ours. */
		path = xstrdup("/etc/passwd");
	}
	ck_assert_ptr_null(token_load_or_create(path, &cause));
	ck_assert_msg(cause != NULL && strstr(cause, "belongs to uid"),
	    "cause: %s", cause);
	free(cause);
	free(path);
}
END_TEST

START_TEST(test_token_concurrent_creators_agree)
{
	enum { CREATORS = 8 };
	char	*path = test_path("config/token");
	char	 tokens[CREATORS][TOKEN_HEX_LENGTH + 1], *text, *cause;
	char	*token;
	pid_t	 pids[CREATORS];
	int	 gate[2], results[2], status, i;
	char	 c;

	ck_assert_int_eq(pipe(gate), 0);
	ck_assert_int_eq(pipe(results), 0);
	for (i = 0; i < CREATORS; i++) {
		pids[i] = fork();
		ck_assert_int_ne(pids[i], -1);
		if (pids[i] != 0)
			continue;
		close(gate[1]);
		(void)!read(gate[0], &c, 1);	/* wait for the gate to open */
		cause = NULL;
		token = token_load_or_create(path, &cause);
		status = token != NULL && strlen(token) == TOKEN_HEX_LENGTH &&
		    write(results[1], token, TOKEN_HEX_LENGTH) ==
		    TOKEN_HEX_LENGTH;
		/* Free everything so valgrind in the child stays quiet. */
		free(token);
		free(cause);
		free(path);
		_exit(status ? 0 : 1);
	}
	close(gate[0]);
	close(results[1]);
	close(gate[1]);		/* every creator starts now */

	for (i = 0; i < CREATORS; i++) {
		ck_assert_int_eq(read(results[0], tokens[i], TOKEN_HEX_LENGTH),
		    TOKEN_HEX_LENGTH);
		tokens[i][TOKEN_HEX_LENGTH] = '\0';
	}
	close(results[0]);
	for (i = 0; i < CREATORS; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "creator %d failed", i);
	}
	text = test_read_file(path);
	for (i = 0; i < CREATORS; i++) {
		ck_assert_msg(strncmp(text, tokens[i], TOKEN_HEX_LENGTH) == 0,
		    "creator %d uses %s but the file holds %s", i, tokens[i],
		    text);
	}
	free(text);
	free(path);
}
END_TEST

START_TEST(test_token_equal_table)
{
	static const struct {
		const char	*expected;
		const char	*given;
		size_t		 given_len;
		bool		 equal;
	} cases[] = {
		{ TEST_TOKEN_64, TEST_TOKEN_64, 64, true },
		/* Differs in the first byte and in the last. */
		{ TEST_TOKEN_64, "1123456789abcdef0123456789abcdef"
		    "0123456789abcdef0123456789abcdef", 64, false },
		{ TEST_TOKEN_64, "0123456789abcdef0123456789abcdef"
		    "0123456789abcdef0123456789abcdee", 64, false },
		/* A prefix of the token is not the token. */
		{ TEST_TOKEN_64, TEST_TOKEN_64, 63, false },
		{ TEST_TOKEN_64, TEST_TOKEN_64, 1, false },
		{ TEST_TOKEN_64, "", 0, false },
		/* Neither is the token with more after it. */
		{ TEST_TOKEN_64, TEST_TOKEN_64 "0", 65, false },
		{ "abc", "abc\0", 4, false },
		/* Only given_len bytes of given count. */
		{ "ab", "abc", 2, true },
		{ "abc", "abx", 2, false },
		{ "", "", 0, true },
	};
	size_t	i;

	for (i = 0; i < nitems(cases); i++) {
		ck_assert_msg(token_equal(cases[i].expected, cases[i].given,
		    cases[i].given_len) == cases[i].equal,
		    "case %zu: token_equal(\"%s\", \"%.*s\") should be %s", i,
		    cases[i].expected, (int)cases[i].given_len, cases[i].given,
		    cases[i].equal ? "true" : "false");
	}
	ck_assert(!token_equal(NULL, "x", 1));
	ck_assert(!token_equal("x", NULL, 0));
}
END_TEST

/* ------------------------------------------------------------- guard */

START_TEST(test_guard_host_table)
{
	static const struct {
		const char	*host;
		bool		 allowed;
	} cases[] = {
		{ "localhost", true },
		{ "LOCALHOST", true },
		{ "LocalHost:9333", true },
		{ "localhost:1", true },
		{ "localhost:65535", true },
		{ "127.0.0.1", true },
		{ "127.0.0.1:9333", true },
		{ "[::1]", true },
		{ "[::1]:9333", true },
		{ NULL, false },
		{ "", false },
		{ "::1", false },
		{ "::1:9333", false },
		{ "[::1", false },
		{ "localhost:", false },
		{ "localhost:123456", false },
		{ "localhost:80a", false },
		{ "localhost:+80", false },
		{ "localhost: 80", false },
		{ "localhost ", false },
		{ " localhost", false },
		{ "localhost.", false },
		{ "localhost:9333:9333", false },
		{ "localhost/", false },
		/* DNS rebinding: names that resolve to 127.0.0.1 elsewhere. */
		{ "localhost.evil.com", false },
		{ "localhost.evil.com:9333", false },
		{ "127.0.0.1.nip.io", false },
		{ "127.0.0.1.nip.io:9333", false },
		{ "evil.com", false },
		{ "attacker.localhost", false },
		{ "127.0.0.2", false },
		{ "127.1", false },
		{ "0.0.0.0", false },
		{ "[::ffff:127.0.0.1]", false },
		{ "2130706433", false },
		{ "localhost@evil.com", false },
	};
	size_t	i;

	for (i = 0; i < nitems(cases); i++) {
		ck_assert_msg(http_guard_host_allowed(cases[i].host) ==
		    cases[i].allowed, "Host \"%s\" should be %s",
		    cases[i].host ? cases[i].host : "(null)",
		    cases[i].allowed ? "allowed" : "refused");
	}
}
END_TEST

#define TEST_EXTENSION_ID	"abcdefghijklmnopabcdefghijklmnop"
#define TEST_EXTENSION_ORIGIN	"chrome-extension://" TEST_EXTENSION_ID

START_TEST(test_guard_origin_table)
{
	static const struct {
		const char	*origin;
		bool		 allowed;
	} cases[] = {
		{ NULL, true },
		{ "http://localhost", true },
		{ "http://localhost:3000", true },
		{ "https://localhost:8443", true },
		{ "HTTP://LOCALHOST:3000", true },
		{ "http://127.0.0.1", true },
		{ "http://127.0.0.1:9333", true },
		{ "https://127.0.0.1:9333", true },
		{ "http://[::1]:9333", true },
		{ "https://[::1]", true },
		{ TEST_EXTENSION_ORIGIN, true },
		{ TEST_EXTENSION_ORIGIN "/", true },
		{ "null", false },
		{ "", false },
		{ "http://evil.com", false },
		{ "https://evil.com:9333", false },
		{ "http://localhost.evil.com", false },
		{ "http://127.0.0.1.nip.io:9333", false },
		{ "http://localhost:3000/path", false },
		{ "http://localhost/", false },
		{ "http://127.0.0.1:9333/mcp", false },
		{ "http://localhost@evil.com", false },
		{ "ftp://localhost", false },
		{ "localhost", false },
		{ "file://", false },
		{ "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba", false },
		{ TEST_EXTENSION_ORIGIN "x", false },
		{ TEST_EXTENSION_ORIGIN "//", false },
		{ "chrome-extension://abcdefghijklmnopabcdefghijklmno", false },
		{ "moz-extension://" TEST_EXTENSION_ID, false },
		{ "CHROME-EXTENSION://ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP", false },
	};
	size_t	i;

	for (i = 0; i < nitems(cases); i++) {
		ck_assert_msg(http_guard_origin_allowed(cases[i].origin,
		    TEST_EXTENSION_ORIGIN "/") == cases[i].allowed,
		    "Origin \"%s\" should be %s",
		    cases[i].origin ? cases[i].origin : "(null)",
		    cases[i].allowed ? "allowed" : "refused");
	}

	/* The extension origin as given without its slash works the same. */
	ck_assert(http_guard_origin_allowed(TEST_EXTENSION_ORIGIN,
	    TEST_EXTENSION_ORIGIN));
	ck_assert(!http_guard_origin_allowed("chrome-extension://other",
	    TEST_EXTENSION_ORIGIN));

	/* Without a known extension only loopback origins pass. */
	ck_assert(!http_guard_origin_allowed(TEST_EXTENSION_ORIGIN, NULL));
	ck_assert(!http_guard_origin_allowed("", ""));
	ck_assert(!http_guard_origin_allowed("/", "/"));
	ck_assert(http_guard_origin_allowed("http://localhost:1", NULL));
	ck_assert(http_guard_origin_allowed(NULL, NULL));
}
END_TEST

START_TEST(test_guard_bearer_table)
{
	static const struct {
		const char	*authorization;
		bool		 valid;
	} cases[] = {
		{ "Bearer " TEST_TOKEN_64, true },
		{ "bearer " TEST_TOKEN_64, true },
		{ "BEARER " TEST_TOKEN_64, true },
		{ "Bearer    " TEST_TOKEN_64, true },
		{ "Bearer " TEST_TOKEN_64 "  ", true },
		{ NULL, false },
		{ "", false },
		{ "Bearer", false },
		{ "Bearer ", false },
		{ "Bearer    ", false },
		{ TEST_TOKEN_64, false },
		{ " " TEST_TOKEN_64, false },
		{ "Bearer" TEST_TOKEN_64, false },
		{ "Bearer\t" TEST_TOKEN_64, false },
		{ " Bearer " TEST_TOKEN_64, false },
		{ "Basic " TEST_TOKEN_64, false },
		{ "Token " TEST_TOKEN_64, false },
		{ "Bearers " TEST_TOKEN_64, false },
		{ "Bearer 1123456789abcdef0123456789abcdef"
		    "0123456789abcdef0123456789abcdef", false },
		{ "Bearer 0123456789abcdef0123456789abcdef", false },
		{ "Bearer " TEST_TOKEN_64 "0", false },
		{ "Bearer " TEST_TOKEN_64 " x", false },
		{ "Bearer 0123456789ABCDEF0123456789ABCDEF"
		    "0123456789ABCDEF0123456789ABCDEF", false },
	};
	size_t	i;

	for (i = 0; i < nitems(cases); i++) {
		ck_assert_msg(http_guard_bearer_valid(cases[i].authorization,
		    TEST_TOKEN_64) == cases[i].valid,
		    "Authorization \"%s\" should be %s",
		    cases[i].authorization ? cases[i].authorization : "(null)",
		    cases[i].valid ? "valid" : "invalid");
	}
	ck_assert(!http_guard_bearer_valid("Bearer ", ""));
	ck_assert(!http_guard_bearer_valid("Bearer x", NULL));
}
END_TEST

/* ------------------------------------------------------------ runtime */

/* Sets or, with a NULL value, unsets an environment variable. */
static void
test_setenv(const char *name, const char *value)
{
	if (value == NULL)
		ck_assert_int_eq(unsetenv(name), 0);
	else
		ck_assert_int_eq(setenv(name, value, 1), 0);
}

/* ------------------------------------------------------------ upload */

/* Checks one path against roots with a stage in the test directory. */
static json_t *
test_upload_one(const char *path, char *const *roots, size_t nroots,
    struct upload_stage *stage, char **why)
{
	json_t	*paths = json_pack("[s]", path), *protected_dirs = json_array();
	json_t	*copies;

	*why = NULL;
	copies = upload_check(paths, roots, nroots, protected_dirs, stage, why);
	json_decref(protected_dirs);
	json_decref(paths);
	return copies;
}

/* Asserts that path is refused with a message containing words. */
static void
test_upload_refused(const char *path, char *const *roots,
    struct upload_stage *stage, const char *words)
{
	char	*why = NULL;

	ck_assert_msg(test_upload_one(path, roots, 1, stage, &why) == NULL,
	    "%s was accepted", path);
	ck_assert_msg(why != NULL && strstr(why, words) != NULL,
	    "%s: \"%s\" lacks \"%s\"", path, why, words);
	free(why);
}

START_TEST(test_upload_check_roots_links_and_protected)
{
	char	*root = test_path("uploads"), *private = test_path("private");
	char	*state = test_path("uploads/state"), *staging = test_path("st");
	char	*ok = test_path("uploads/ok.txt"), *secret = test_path("private/s.txt");
	char	*link = test_path("uploads/link.txt"), *own = test_path("uploads/state/t");
	char	*roots[] = { root }, *why = NULL, *text;
	const char *const refused[] = { secret, link, own, root, "relative.txt" };
	struct upload_stage *stage;
	json_t	*paths, *copies, *protected_dirs;
	const char *copy;
	size_t	 i;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	ck_assert_int_eq(mkdir(private, 0700), 0);
	ck_assert_int_eq(mkdir(state, 0700), 0);
	test_write_file(ok, "data", 4, 0600);
	test_write_file(secret, "data", 4, 0600);
	test_write_file(own, "data", 4, 0600);
	ck_assert_int_eq(symlink(secret, link), 0);
	protected_dirs = json_pack("[s]", state);
	stage = upload_stage_new(staging, &why);
	ck_assert_msg(stage != NULL, "upload_stage_new: %s", why);

	/* The page gets a private copy with the file's name and contents. */
	paths = json_pack("[s]", ok);
	copies = upload_check(paths, roots, 1, protected_dirs, stage, &why);
	ck_assert_msg(copies != NULL, "upload_check: %s", why);
	ck_assert_uint_eq(json_array_size(copies), 1);
	copy = json_string_value(json_array_get(copies, 0));
	ck_assert_msg(strncmp(copy, staging, strlen(staging)) == 0 &&
	    strcmp(strrchr(copy, '/'), "/ok.txt") == 0, "copy %s", copy);
	text = test_read_file(copy);
	ck_assert_str_eq(text, "data");
	ck_assert_uint_eq(test_mode(copy), 0600);
	free(text);
	json_decref(copies);
	json_decref(paths);

	/* Outside, a link out, the host's own directory, a directory, relative. */
	for (i = 0; i < sizeof refused / sizeof *refused; i++) {
		paths = json_pack("[s]", refused[i]);
		why = NULL;
		ck_assert_ptr_null(upload_check(paths, roots, 1, protected_dirs,
		    stage, &why));
		ck_assert_ptr_nonnull(why);
		free(why);
		json_decref(paths);
	}
	paths = json_pack("[s]", ok);
	why = NULL;
	ck_assert_ptr_null(upload_check(paths, roots, 0, protected_dirs, stage,
	    &why));
	ck_assert_ptr_nonnull(strstr(why, "uploads are off"));
	free(why);
	json_decref(paths);

	upload_stage_free(stage);
	json_decref(protected_dirs);
	free(root);
	free(private);
	free(state);
	free(staging);
	free(ok);
	free(secret);
	free(link);
	free(own);
}
END_TEST

START_TEST(test_upload_refuses_links_of_every_kind)
{
	char	*root = test_path("Downloads"), *private = test_path("private");
	char	*secret = test_path("private/id_rsa"), *staging = test_path("st");
	char	*hard = test_path("Downloads/hard"), *soft = test_path("Downloads/soft");
	char	*dir = test_path("Downloads/dir"), *through = test_path("Downloads/dir/id_rsa");
	char	*roots[] = { root }, *why = NULL;
	struct upload_stage *stage;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	ck_assert_int_eq(mkdir(private, 0700), 0);
	test_write_file(secret, "SECRET", 6, 0600);
	stage = upload_stage_new(staging, &why);
	ck_assert_ptr_nonnull(stage);

	/* A hard link in the root to a file outside it. */
	ck_assert_int_eq(link(secret, hard), 0);
	test_upload_refused(hard, roots, stage, "hard links");
	/* A symbolic link at the end of the path. */
	ck_assert_int_eq(symlink(secret, soft), 0);
	test_upload_refused(soft, roots, stage, "is a symbolic link");
	/* A link to a directory on the way: the opened file is what counts. */
	ck_assert_int_eq(unlink(hard), 0);
	ck_assert_int_eq(symlink(private, dir), 0);
	test_upload_refused(through, roots, stage, "outside the directories");
	ck_assert_int_eq(test_count_entries(staging), 1);	/* PID only */

	upload_stage_free(stage);
	free(root);
	free(private);
	free(secret);
	free(staging);
	free(hard);
	free(soft);
	free(dir);
	free(through);
}
END_TEST

START_TEST(test_upload_root_is_not_a_prefix)
{
	char	*root = test_path("Downloads"), *evil = test_path("Downloads-evil");
	char	*file = test_path("Downloads-evil/x"), *inside = test_path("Downloads/x");
	char	*staging = test_path("st"), *roots[] = { root }, *why = NULL;
	struct upload_stage *stage;
	json_t	*copies;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	ck_assert_int_eq(mkdir(evil, 0700), 0);
	test_write_file(file, "x", 1, 0600);
	test_write_file(inside, "x", 1, 0600);
	stage = upload_stage_new(staging, &why);
	ck_assert_ptr_nonnull(stage);
	test_upload_refused(file, roots, stage, "outside the directories");
	copies = test_upload_one(inside, roots, 1, stage, &why);
	ck_assert_msg(copies != NULL, "inside refused: %s", why);
	json_decref(copies);

	upload_stage_free(stage);
	free(root);
	free(evil);
	free(file);
	free(inside);
	free(staging);
}
END_TEST

START_TEST(test_upload_copy_keeps_what_was_checked)
{
	char	*root = test_path("Downloads"), *file = test_path("Downloads/a.txt");
	char	*secret = test_path("secret"), *staging = test_path("st");
	char	*roots[] = { root }, *why = NULL, *text;
	struct upload_stage *stage;
	json_t	*copies;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	test_write_file(file, "alpha", 5, 0600);
	test_write_file(secret, "SECRET", 6, 0600);
	stage = upload_stage_new(staging, &why);
	ck_assert_ptr_nonnull(stage);
	copies = test_upload_one(file, roots, 1, stage, &why);
	ck_assert_msg(copies != NULL, "upload_check: %s", why);

	/* The file is swapped for a link after the check: the page's path
	 * still holds what was checked. */
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(symlink(secret, file), 0);
	text = test_read_file(json_string_value(json_array_get(copies, 0)));
	ck_assert_str_eq(text, "alpha");

	free(text);
	json_decref(copies);
	upload_stage_free(stage);
	free(root);
	free(file);
	free(secret);
	free(staging);
}
END_TEST

START_TEST(test_upload_refuses_big_files_and_cleans_refused_calls)
{
	char	*root = test_path("Downloads"), *big = test_path("Downloads/big");
	char	*ok = test_path("Downloads/ok"), *staging = test_path("st");
	char	*pid = NULL, *roots[] = { root }, *why = NULL;
	struct upload_stage *stage;
	json_t	*paths, *protected_dirs = json_array();
	int	 fd;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	test_write_file(ok, "ok", 2, 0600);
	fd = open(big, O_WRONLY|O_CREAT, 0600);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(ftruncate(fd, (off_t)UPLOAD_FILE_MAX + 1), 0);
	close(fd);
	stage = upload_stage_new(staging, &why);
	ck_assert_ptr_nonnull(stage);
	test_upload_refused(big, roots, stage, "make it smaller");

	/* A refused call leaves no copy of the files before the refused one. */
	paths = json_pack("[s,s]", ok, big);
	ck_assert_ptr_null(upload_check(paths, roots, 1, protected_dirs, stage,
	    &why));
	free(why);
	pid = xasprintf("%s/%ld", staging, (long)getpid());
	ck_assert_int_eq(test_count_entries(pid), 0);

	json_decref(paths);
	json_decref(protected_dirs);
	upload_stage_free(stage);
	free(pid);
	free(root);
	free(big);
	free(ok);
	free(staging);
}
END_TEST

START_TEST(test_upload_stage_removed_at_exit_and_start)
{
	char	*root = test_path("Downloads"), *file = test_path("Downloads/a");
	char	*staging = test_path("st"), *dead = test_path("st/999999999");
	char	*dead_copy = test_path("st/999999999/0");
	char	*alive = NULL, *mine = NULL, *roots[] = { root }, *why = NULL;
	struct upload_stage *stage;
	json_t	*copies;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	test_write_file(file, "a", 1, 0600);
	ck_assert_int_eq(mkdir(staging, 0700), 0);
	/* A host that died left a copy; a running one (our parent) keeps its. */
	ck_assert_int_eq(mkdir(dead, 0700), 0);
	ck_assert_int_eq(mkdir(dead_copy, 0700), 0);
	free(dead_copy);
	dead_copy = test_path("st/999999999/0/old.txt");
	test_write_file(dead_copy, "old", 3, 0600);
	alive = xasprintf("%s/%ld", staging, (long)getppid());
	ck_assert_int_eq(mkdir(alive, 0700), 0);

	stage = upload_stage_new(staging, &why);
	ck_assert_msg(stage != NULL, "upload_stage_new: %s", why);
	ck_assert_int_eq(access(dead, F_OK), -1);
	ck_assert_int_eq(access(alive, F_OK), 0);
	mine = xasprintf("%s/%ld", staging, (long)getpid());
	ck_assert_uint_eq(test_mode(mine), 0700);
	ck_assert_uint_eq(test_mode(staging), 0700);
	copies = test_upload_one(file, roots, 1, stage, &why);
	ck_assert_ptr_nonnull(copies);
	ck_assert_int_eq(access(json_string_value(json_array_get(copies, 0)),
	    F_OK), 0);

	/* The host exits: its copies go, the running host's stay. */
	upload_stage_free(stage);
	ck_assert_int_eq(access(json_string_value(json_array_get(copies, 0)),
	    F_OK), -1);
	ck_assert_int_eq(access(mine, F_OK), -1);
	ck_assert_int_eq(access(alive, F_OK), 0);

	json_decref(copies);
	free(root);
	free(file);
	free(staging);
	free(dead);
	free(dead_copy);
	free(alive);
	free(mine);
}
END_TEST

START_TEST(test_runtime_file_path_choices)
{
	static const struct {
		const char	*runtime_dir;
		const char	*state_home;
		const char	*home;
		const char	*path;
	} cases[] = {
		{ "/run/user/1000", "/s", "/home/u",
		    "/run/user/1000/browser-bridge/hosts/" },
		{ NULL, "/home/u/state", "/home/u",
		    "/home/u/state/browser-bridge/hosts/" },
		{ NULL, NULL, "/home/u",
		    "/home/u/.local/state/browser-bridge/hosts/" },
		{ "", "", "/home/u",
		    "/home/u/.local/state/browser-bridge/hosts/" },
		/* XDG paths must be absolute; relative ones are ignored. */
		{ "run", "state", "/home/u",
		    "/home/u/.local/state/browser-bridge/hosts/" },
		{ "/run/user/1000", NULL, NULL,
		    "/run/user/1000/browser-bridge/hosts/" },
		{ NULL, "/st", NULL, "/st/browser-bridge/hosts/" },
	};
	char	*path, *cause, *expected;
	size_t	 i;

	for (i = 0; i < nitems(cases); i++) {
		test_setenv("XDG_RUNTIME_DIR", cases[i].runtime_dir);
		test_setenv("XDG_STATE_HOME", cases[i].state_home);
		test_setenv("HOME", cases[i].home);
		cause = NULL;
		path = runtime_file_path(&cause);
		ck_assert_msg(path != NULL, "case %zu: %s", i, cause);
		expected = xasprintf("%s%ld.json", cases[i].path,
		    (long)getpid());
		ck_assert_str_eq(path, expected);
		free(expected);
		free(path);
	}
}
END_TEST

/* The directories runtime_file_dirs gives, joined by spaces. */
static char *
runtime_dirs_joined(void)
{
	char	*dirs[RUNTIME_FILE_DIRS_MAX], *joined = xstrdup(""), *next;
	size_t	 i, n;

	n = runtime_file_dirs(dirs);
	for (i = 0; i < n; i++) {
		next = xasprintf("%s%s%s", joined, i > 0 ? " " : "", dirs[i]);
		free(joined);
		free(dirs[i]);
		joined = next;
	}
	return joined;
}

/*
 * Where readers look for hosts: a reader that names its runtime directory
 * sees that session's hosts, not those of the session's directory
 * (/run/user/UID on Linux: another session's, or a test's beside it); one
 * started without it looks there too, where the system has one.
 */
START_TEST(test_runtime_file_dirs_follow_the_session)
{
	char	*session_dir = os_session_runtime_dir(), *uid_dir, *got, *want;

	uid_dir = session_dir == NULL ? NULL :
	    xasprintf("%s/browser-bridge/hosts", session_dir);
	free(session_dir);

	test_setenv("XDG_RUNTIME_DIR", "/tmp/session");
	test_setenv("XDG_STATE_HOME", "/s");
	test_setenv("HOME", "/home/u");
	got = runtime_dirs_joined();
	ck_assert_str_eq(got, "/tmp/session/browser-bridge/hosts "
	    "/s/browser-bridge/hosts /home/u/.local/state/browser-bridge/hosts");
	free(got);

	test_setenv("XDG_RUNTIME_DIR", NULL);
	test_setenv("XDG_STATE_HOME", NULL);
	want = xasprintf("%s%s/home/u/.local/state/browser-bridge/hosts",
	    uid_dir != NULL ? uid_dir : "", uid_dir != NULL ? " " : "");
	got = runtime_dirs_joined();
	ck_assert_str_eq(got, want);
	free(got);

	test_setenv("XDG_RUNTIME_DIR", "relative");	/* ignored, as unset */
	got = runtime_dirs_joined();
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	free(uid_dir);
}
END_TEST

START_TEST(test_runtime_file_path_without_home)
{
	char	*cause = NULL;

	test_setenv("XDG_RUNTIME_DIR", NULL);
	test_setenv("XDG_STATE_HOME", NULL);
	test_setenv("HOME", NULL);
	ck_assert_ptr_null(runtime_file_path(&cause));
	ck_assert_msg(cause != NULL && strstr(cause, "XDG_RUNTIME_DIR") &&
	    strstr(cause, "HOME"), "cause: %s", cause);
	free(cause);

	test_setenv("HOME", "");
	cause = NULL;
	ck_assert_ptr_null(runtime_file_path(&cause));
	ck_assert_ptr_nonnull(cause);
	free(cause);
}
END_TEST

/* Returns the contents a host would write. */
static json_t *
test_runtime_contents(long pid, int port)
{
	return json_pack("{s:I, s:i, s:s, s:s, s:s}", "pid", (json_int_t)pid,
	    "port", port, "version", "0.1.0", "url",
	    "http://127.0.0.1:9333/mcp", "started", "2025-01-01T00:00:00Z");
}

START_TEST(test_runtime_file_write_private)
{
	char		*dir = test_path("state/browser-bridge");
	char		*path = test_path("state/browser-bridge/host.json");
	char		*cause = NULL, *text;
	json_t		*contents, *back;
	json_error_t	 error;

	contents = test_runtime_contents(4242, 9333);
	ck_assert_msg(runtime_file_write(path, contents, &cause) == 0,
	    "runtime_file_write: %s", cause);
	ck_assert_uint_eq(test_mode(path), 0600);
	ck_assert_uint_eq(test_mode(dir), 0700);
	ck_assert_int_eq(test_count_entries(dir), 1);	/* no temp file left */

	back = json_load_file(path, 0, &error);
	ck_assert_msg(back != NULL, "read back: %s", error.text);
	ck_assert_json_eq(back, contents);
	text = test_read_file(path);
	ck_assert_msg(text[strlen(text) - 1] == '\n', "no trailing newline");
	ck_assert_msg(strstr(text, "\n  \"pid\"") != NULL, "not indented: %s",
	    text);

	free(text);
	json_decref(back);
	json_decref(contents);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_runtime_file_write_replaces)
{
	char		*path = test_path("host.json");
	char		*cause = NULL;
	json_t		*first, *second, *back;
	json_error_t	 error;

	first = test_runtime_contents(1, 1111);
	second = test_runtime_contents(2, 2222);
	ck_assert_int_eq(runtime_file_write(path, first, &cause), 0);
	ck_assert_int_eq(runtime_file_write(path, second, &cause), 0);
	back = json_load_file(path, 0, &error);
	ck_assert_ptr_nonnull(back);
	ck_assert_json_eq(back, second);
	ck_assert_int_eq(test_count_entries(test_dir), 1);

	json_decref(back);
	json_decref(second);
	json_decref(first);
	free(path);
}
END_TEST

START_TEST(test_runtime_file_write_replaces_symlink_not_target)
{
	char		*target = test_path("target");
	char		*path = test_path("host.json");
	char		*cause = NULL, *text;
	json_t		*contents;

	test_write_file(target, "keep\n", 5, 0600);
	ck_assert_int_eq(symlink(target, path), 0);
	contents = test_runtime_contents(7, 7777);
	ck_assert_int_eq(runtime_file_write(path, contents, &cause), 0);
	text = test_read_file(target);
	ck_assert_str_eq(text, "keep\n");
	ck_assert_uint_eq(test_mode(path) & 0777, 0600);

	free(text);
	json_decref(contents);
	free(path);
	free(target);
}
END_TEST

START_TEST(test_runtime_file_write_reports_bad_directory)
{
	char	*blocker = test_path("state");
	char	*path = test_path("state/browser-bridge/host.json");
	char	*cause = NULL;
	json_t	*contents;

	test_write_file(blocker, "", 0, 0600);
	contents = test_runtime_contents(1, 1);
	ck_assert_int_eq(runtime_file_write(path, contents, &cause), -1);
	ck_assert_msg(cause != NULL && strstr(cause, blocker), "cause: %s",
	    cause);

	free(cause);
	json_decref(contents);
	free(path);
	free(blocker);
}
END_TEST

START_TEST(test_runtime_file_remove_only_own_pid)
{
	char		*path = test_path("host.json");
	char		*cause = NULL;
	json_t		*contents;
	struct stat	 sb;

	contents = test_runtime_contents(1234, 9333);
	ck_assert_int_eq(runtime_file_write(path, contents, &cause), 0);

	/* An older host exiting leaves a newer host's file alone. */
	runtime_file_remove(path, 999);
	ck_assert_int_eq(stat(path, &sb), 0);
	runtime_file_remove(path, 12340);
	ck_assert_int_eq(stat(path, &sb), 0);

	runtime_file_remove(path, 1234);
	ck_assert_int_eq(stat(path, &sb), -1);
	ck_assert_int_eq(errno, ENOENT);

	/* Removing a missing file is harmless. */
	runtime_file_remove(path, 1234);

	json_decref(contents);
	free(path);
}
END_TEST

START_TEST(test_runtime_file_remove_keeps_foreign_files)
{
	static const char	*texts[] = {
		"{\"port\": 9333}\n",
		"{\"pid\": \"1234\"}\n",
		"{\"pid\": 1234.0}\n",
		"not json\n",
		"[1234]\n",
	};
	char			*path = test_path("host.json");
	char			*target = test_path("target.json");
	struct stat		 sb;
	size_t			 i;

	for (i = 0; i < nitems(texts); i++) {
		test_write_file(path, texts[i], strlen(texts[i]), 0600);
		runtime_file_remove(path, 1234);
		ck_assert_msg(stat(path, &sb) == 0, "removed \"%s\"", texts[i]);
	}
	ck_assert_int_eq(unlink(path), 0);

	/* A symlink is not followed, even to a file naming our pid. */
	test_write_file(target, "{\"pid\": 1234}\n", 14, 0600);
	ck_assert_int_eq(symlink(target, path), 0);
	runtime_file_remove(path, 1234);
	ck_assert_int_eq(lstat(path, &sb), 0);
	ck_assert_int_eq(stat(target, &sb), 0);

	free(target);
	free(path);
}
END_TEST

/* ------------------------------------------------------------- files */

START_TEST(test_files_dirname_table)
{
	static const struct {
		const char	*path;
		const char	*dir;
	} table[] = {
		{ "/", "/" },
		{ "a", "." },
		{ "", "." },
		{ "/a", "/" },
		{ "a/b", "a" },
		{ "/a/b", "/a" },
		{ "/a/b/", "/a/b" },	/* a trailing slash ends the name */
		{ "/a/b/host.json", "/a/b" },
	};
	size_t	 i;
	char	*dir;

	for (i = 0; i < nitems(table); i++) {
		dir = files_dirname(table[i].path);
		ck_assert_msg(strcmp(dir, table[i].dir) == 0,
		    "files_dirname(\"%s\") = \"%s\", expected \"%s\"",
		    table[i].path, dir, table[i].dir);
		free(dir);
	}
}
END_TEST

START_TEST(test_files_make_dirs_nested_private)
{
	char	*a = test_path("a"), *b = test_path("a/b");
	char	*c = test_path("a/b/c"), *slashed = test_path("a/b/c/d/");
	char	*d = test_path("a/b/c/d"), *cause = NULL;

	/* An existing parent keeps its mode; each new directory gets 0700. */
	ck_assert_int_eq(mkdir(a, 0755), 0);
	ck_assert_int_eq(chmod(a, 0755), 0);
	ck_assert_msg(files_make_dirs(c, 0700, "so tests can run", &cause) ==
	    0, "files_make_dirs: %s", cause);
	ck_assert_uint_eq(test_mode(a), 0755);
	ck_assert_uint_eq(test_mode(b), 0700);
	ck_assert_uint_eq(test_mode(c), 0700);

	/* Existing: nothing to do. A trailing slash is fine. */
	ck_assert_int_eq(files_make_dirs(c, 0700, "so tests can run", &cause),
	    0);
	ck_assert_msg(files_make_dirs(slashed, 0700, "so tests can run",
	    &cause) == 0, "files_make_dirs: %s", cause);
	ck_assert_uint_eq(test_mode(d), 0700);
	ck_assert_ptr_null(cause);

	free(d);
	free(slashed);
	free(c);
	free(b);
	free(a);
}
END_TEST

START_TEST(test_files_make_dirs_refuses_file_in_path)
{
	char	*blocker = test_path("blocker");
	char	*below = test_path("blocker/sub/dir");
	char	*cause = NULL, *expected;

	test_write_file(blocker, "", 0, 0600);
	expected = xasprintf("%s is not a directory; move it away so the "
	    "token can be stored there", blocker);

	/* The file is a parent of the directory asked for. */
	ck_assert_int_eq(files_make_dirs(below, 0700, "so the token can be "
	    "stored there", &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, expected);
	free(cause);
	cause = NULL;

	/* The file is the directory asked for. */
	ck_assert_int_eq(files_make_dirs(blocker, 0700, "so the token can be "
	    "stored there", &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, expected);
	ck_assert_int_eq(access(below, F_OK), -1);

	free(cause);
	free(expected);
	free(below);
	free(blocker);
}
END_TEST

/* Asserts that making or checking dir is refused with words in the cause. */
static void
test_private_dir_refused(const char *dir, const char *words)
{
	char	*cause = NULL;

	ck_assert_int_eq(files_check_private_dir(dir, &cause), -1);
	ck_assert_msg(cause != NULL && strstr(cause, words) != NULL,
	    "check %s: \"%s\" lacks \"%s\"", dir, cause, words);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(files_private_dir(dir, "so tests pass", &cause), -1);
	ck_assert_msg(cause != NULL && strstr(cause, words) != NULL,
	    "make %s: \"%s\" lacks \"%s\"", dir, cause, words);
	free(cause);
}

START_TEST(test_files_private_dir_refuses_open_modes_and_links)
{
	char	*open_dir = test_path("open"), *link = test_path("link");
	char	*made = test_path("a/b"), *words, *cause = NULL;
	int	 fd;

	ck_assert_int_eq(mkdir(open_dir, 0700), 0);
	ck_assert_int_eq(chmod(open_dir, 0777), 0);
	words = xasprintf("chmod 700 %s", open_dir);
	test_private_dir_refused(open_dir, words);
	free(words);
	ck_assert_int_eq(chmod(open_dir, 0720), 0);
	test_private_dir_refused(open_dir, "mode 720");
	/* A link to a private directory is refused too: it can be swapped. */
	ck_assert_int_eq(chmod(open_dir, 0700), 0);
	ck_assert_int_eq(symlink(open_dir, link), 0);
	words = xasprintf("remove the link (rm %s)", link);
	test_private_dir_refused(link, words);
	free(words);

	/* A missing one is fine to check and made 0700. */
	ck_assert_int_eq(files_check_private_dir(made, &cause), 0);
	fd = files_private_dir(made, "so tests pass", &cause);
	ck_assert_msg(fd != -1, "files_private_dir: %s", cause);
	close(fd);
	ck_assert_uint_eq(test_mode(made), 0700);
	ck_assert_int_eq(files_check_private_dir(made, &cause), 0);

	free(open_dir);
	free(link);
	free(made);
}
END_TEST

START_TEST(test_runtime_and_config_dirs_refused_when_open)
{
	char	*base = test_path("run/browser-bridge");
	char	*hosts = test_path("run/browser-bridge/hosts");
	char	*file = test_path("run/browser-bridge/hosts/1.json");
	char	*elsewhere = test_path("elsewhere"), *token = test_path("cfg/token");
	char	*config = test_path("cfg"), *cause = NULL, *made;

	/* Missing: made private. */
	made = runtime_file_prepare(file, &cause);
	ck_assert_msg(made != NULL, "runtime_file_prepare: %s", cause);
	ck_assert_str_eq(made, base);
	ck_assert_uint_eq(test_mode(hosts), 0700);
	free(made);

	/* A hosts directory any user may write to. */
	ck_assert_int_eq(chmod(hosts, 0777), 0);
	ck_assert_ptr_null(runtime_file_prepare(file, &cause));
	ck_assert_msg(strstr(cause, "chmod 700") != NULL, "cause: %s", cause);
	free(cause);
	cause = NULL;

	/* A planted link for it. */
	ck_assert_int_eq(rmdir(hosts), 0);
	ck_assert_int_eq(mkdir(elsewhere, 0700), 0);
	ck_assert_int_eq(symlink(elsewhere, hosts), 0);
	ck_assert_ptr_null(runtime_file_prepare(file, &cause));
	ck_assert_msg(strstr(cause, "symbolic link") != NULL, "cause: %s",
	    cause);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(unlink(hosts), 0);

	/* browser-bridge itself open to others. */
	ck_assert_int_eq(chmod(base, 0757), 0);
	ck_assert_ptr_null(runtime_file_prepare(file, &cause));
	ck_assert_msg(strstr(cause, "chmod 700") != NULL, "cause: %s", cause);
	free(cause);
	cause = NULL;

	/* The config directory, where the token lives. */
	ck_assert_int_eq(mkdir(config, 0777), 0);
	ck_assert_int_eq(chmod(config, 0777), 0);
	ck_assert_ptr_null(token_load_or_create(token, &cause));
	ck_assert_msg(strstr(cause, "chmod 700") != NULL, "cause: %s", cause);
	ck_assert_int_eq(access(token, F_OK), -1);
	free(cause);

	free(base);
	free(hosts);
	free(file);
	free(elsewhere);
	free(token);
	free(config);
}
END_TEST

START_TEST(test_instances_in_open_directories_ignored)
{
	char		*hosts = test_path("browser-bridge/hosts");
	char		*file, *cause = NULL, *made;
	struct instance	*list;
	json_t		*contents;
	size_t		 count, i;
	bool		 found;
	mode_t		 modes[] = { 0700, 0777 };
	size_t		 m;

	test_setenv("XDG_RUNTIME_DIR", test_dir);
	test_setenv("XDG_STATE_HOME", test_dir);
	test_setenv("HOME", test_dir);
	file = xasprintf("%s/%ld.json", hosts, (long)getpid());
	made = runtime_file_prepare(file, &cause);
	ck_assert_ptr_nonnull(made);
	free(made);
	contents = test_runtime_contents(getpid(), 4321);
	ck_assert_int_eq(runtime_file_write(file, contents, &cause), 0);
	for (m = 0; m < nitems(modes); m++) {
		ck_assert_int_eq(chmod(hosts, modes[m]), 0);
		count = instance_list(&list);
		found = false;
		for (i = 0; i < count; i++)
			found = found || list[i].pid == (long)getpid();
		instance_list_free(list, count);
		ck_assert_msg(found == (modes[m] == 0700), "mode %03o: found %d",
		    (unsigned)modes[m], found);
	}
	json_decref(contents);
	free(file);
	free(hosts);
}
END_TEST

START_TEST(test_log_refuses_symlink)
{
	char		*target = test_path("target"), *link = test_path("log");
	char		*cause = NULL, *text;
	struct log	*log;

	test_write_file(target, "keep\n", 5, 0600);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_ptr_null(log_open(LOG_LEVEL_INFO, link, &cause));
	ck_assert_msg(cause != NULL && strstr(cause, "symbolic link") != NULL,
	    "cause: %s", cause);
	free(cause);
	text = test_read_file(target);
	ck_assert_str_eq(text, "keep\n");
	free(text);
	/* A plain file is appended to. */
	cause = NULL;
	log = log_open(LOG_LEVEL_INFO, target, &cause);
	ck_assert_msg(log != NULL, "log_open: %s", cause);
	log_close(log);

	free(target);
	free(link);
}
END_TEST

START_TEST(test_files_write_all_writes_everything)
{
	enum { SIZE = 256 * 1024 };
	char	*path = test_path("data");
	char	*buf, *back;
	ssize_t	 n;
	size_t	 i, got = 0;
	int	 fd;

	buf = xmalloc(SIZE);
	back = xmalloc(SIZE);
	for (i = 0; i < SIZE; i++)
		buf[i] = (char)(i * 7);
	fd = open(path, O_WRONLY|O_CREAT|O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(files_write_all(fd, buf, SIZE), 0);
	ck_assert_int_eq(close(fd), 0);

	fd = open(path, O_RDONLY);
	ck_assert_int_ne(fd, -1);
	while (got < SIZE && (n = read(fd, back + got, SIZE - got)) > 0)
		got += (size_t)n;
	ck_assert_int_eq(read(fd, back, 1), 0);
	close(fd);
	ck_assert_uint_eq(got, SIZE);
	ck_assert(memcmp(buf, back, SIZE) == 0);

	/* A descriptor not open for writing: -1 with errno set. */
	fd = open(path, O_RDONLY);
	ck_assert_int_ne(fd, -1);
	errno = 0;
	ck_assert_int_eq(files_write_all(fd, buf, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	close(fd);

	free(back);
	free(buf);
	free(path);
}
END_TEST

START_TEST(test_files_write_temp_private_next_to_path)
{
	char	*path = test_path("host.json"), *missing = test_path("gone");
	char	*in_missing = test_path("gone/host.json");
	char	*tmp, *text, *cause = NULL, *expected;

	tmp = files_write_temp(path, "test file", "hello\n", 6, &cause);
	ck_assert_msg(tmp != NULL, "files_write_temp: %s", cause);
	ck_assert_uint_eq(strlen(tmp), strlen(path) + 7);
	ck_assert(strncmp(tmp, path, strlen(path)) == 0);
	ck_assert(strncmp(tmp + strlen(path), ".", 1) == 0);
	ck_assert_uint_eq(test_mode(tmp), 0600);
	text = test_read_file(tmp);
	ck_assert_str_eq(text, "hello\n");
	ck_assert_int_eq(access(path, F_OK), -1);	/* path is untouched */
	free(text);
	free(tmp);

	/* No directory: the message names the file and where it was to go. */
	ck_assert_ptr_null(files_write_temp(in_missing, "test file", "x", 1,
	    &cause));
	expected = xasprintf("cannot create test file in %s: %s", missing,
	    strerror(ENOENT));
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, expected);
	ck_assert_int_eq(test_count_entries(test_dir), 1);

	free(expected);
	free(cause);
	free(in_missing);
	free(missing);
	free(path);
}
END_TEST

/* The host's proof, against a value Python's hmac module computed. */
START_TEST(test_proof_is_hmac_sha256_of_the_nonce)
{
	const char	*nonce = "00112233445566778899aabbccddeeff";
	char		*proof, fresh[PROOF_NONCE_HEX + 1];

	proof = proof_compute("secret-token", PROOF_HEALTH, nonce);
	ck_assert_str_eq(proof, "8ea5162e5c461f2ddb103365c346d1b9"
	    "777e8c65ac106a99103b36496da906f4");
	ck_assert(proof_check("secret-token", PROOF_HEALTH, nonce, proof));
	ck_assert(!proof_check("other-token", PROOF_HEALTH, nonce, proof));
	ck_assert(!proof_check("secret-token", PROOF_HEALTH,
	    "ffeeddccbbaa99887766554433221100", proof));
	ck_assert(!proof_check("secret-token", PROOF_SESSION, nonce, proof));
	proof[0] = proof[0] == '0' ? '1' : '0';
	ck_assert(!proof_check("secret-token", PROOF_HEALTH, nonce, proof));
	ck_assert(!proof_check("secret-token", PROOF_HEALTH, nonce, NULL));
	ck_assert(!proof_check("secret-token", PROOF_HEALTH, nonce, ""));
	free(proof);

	/* Nonces: 32 to 128 lowercase hex digits, nothing else. */
	ck_assert_ptr_null(proof_compute("t", PROOF_HEALTH, "0011"));
	ck_assert_ptr_null(proof_compute("t", PROOF_HEALTH,
	    "00112233445566778899AABBCCDDEEFF"));
	ck_assert_ptr_null(proof_compute("t", PROOF_HEALTH,
	    "00112233445566778899aabbccddeeff&x=1"));
	ck_assert_int_eq(proof_nonce(fresh), 0);
	ck_assert_uint_eq(strlen(fresh), PROOF_NONCE_HEX);
	proof = proof_compute("t", PROOF_HEALTH, fresh);
	ck_assert_ptr_nonnull(proof);
	free(proof);
}
END_TEST

/* Builds the suite. */
static Suite *
security_suite(void)
{
	Suite	*suite = suite_create("security");
	TCase	*tc;

	tc = tcase_create("random");
	tcase_add_test(tc, test_random_hex_length_and_charset);
	tcase_add_test(tc, test_random_hex_two_calls_differ);
	tcase_add_test(tc, test_random_hex_uses_every_digit);
	tcase_add_test(tc, test_random_bytes_fills_large_buffer);
	suite_add_tcase(suite, tc);

	tc = tcase_create("proof");
	tcase_add_test(tc, test_proof_is_hmac_sha256_of_the_nonce);
	suite_add_tcase(suite, tc);

	tc = tcase_create("token");
	tcase_add_checked_fixture(tc, test_dir_setup, test_dir_teardown);
	tcase_add_test(tc, test_token_created_private);
	tcase_add_test(tc, test_token_read_back_on_second_call);
	tcase_add_test(tc, test_token_two_files_differ);
	tcase_add_test(tc, test_token_refuses_open_modes);
	tcase_add_test(tc, test_token_refuses_symlink);
	tcase_add_test(tc, test_token_refuses_dangling_symlink);
	tcase_add_test(tc, test_token_refuses_malformed);
	tcase_add_test(tc, test_token_refuses_too_long);
	tcase_add_test(tc, test_token_accepts_user_token_with_trailing_whitespace);
	tcase_add_test(tc, test_token_refuses_non_regular_files);
	tcase_add_test(tc, test_token_reports_file_in_the_way);
	tcase_add_test(tc, test_token_refuses_other_owner);
	tcase_add_test(tc, test_token_concurrent_creators_agree);
	tcase_add_test(tc, test_token_equal_table);
	suite_add_tcase(suite, tc);

	tc = tcase_create("http-guard");
	tcase_add_test(tc, test_guard_host_table);
	tcase_add_test(tc, test_guard_origin_table);
	tcase_add_test(tc, test_guard_bearer_table);
	suite_add_tcase(suite, tc);

	tc = tcase_create("upload");
	tcase_add_checked_fixture(tc, test_dir_setup, test_dir_teardown);
	tcase_add_test(tc, test_upload_check_roots_links_and_protected);
	tcase_add_test(tc, test_upload_refuses_links_of_every_kind);
	tcase_add_test(tc, test_upload_root_is_not_a_prefix);
	tcase_add_test(tc, test_upload_copy_keeps_what_was_checked);
	tcase_add_test(tc, test_upload_refuses_big_files_and_cleans_refused_calls);
	tcase_add_test(tc, test_upload_stage_removed_at_exit_and_start);
	suite_add_tcase(suite, tc);

	tc = tcase_create("runtime-file");
	tcase_add_checked_fixture(tc, test_dir_setup, test_dir_teardown);
	tcase_add_test(tc, test_runtime_file_path_choices);
	tcase_add_test(tc, test_runtime_file_path_without_home);
	tcase_add_test(tc, test_runtime_file_dirs_follow_the_session);
	tcase_add_test(tc, test_runtime_file_write_private);
	tcase_add_test(tc, test_runtime_file_write_replaces);
	tcase_add_test(tc, test_runtime_file_write_replaces_symlink_not_target);
	tcase_add_test(tc, test_runtime_file_write_reports_bad_directory);
	tcase_add_test(tc, test_runtime_file_remove_only_own_pid);
	tcase_add_test(tc, test_runtime_file_remove_keeps_foreign_files);
	suite_add_tcase(suite, tc);

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, test_dir_setup, test_dir_teardown);
	tcase_add_test(tc, test_files_dirname_table);
	tcase_add_test(tc, test_files_make_dirs_nested_private);
	tcase_add_test(tc, test_files_make_dirs_refuses_file_in_path);
	tcase_add_test(tc, test_files_private_dir_refuses_open_modes_and_links);
	tcase_add_test(tc, test_runtime_and_config_dirs_refused_when_open);
	tcase_add_test(tc, test_instances_in_open_directories_ignored);
	tcase_add_test(tc, test_log_refuses_symlink);
	tcase_add_test(tc, test_files_write_all_writes_everything);
	tcase_add_test(tc, test_files_write_temp_private_next_to_path);
	suite_add_tcase(suite, tc);

	return suite;
}

int
main(void)
{
	return check_run_suite(security_suite());
}
