/*
 * Tests for registering the host: the Linux and macOS manifest directories
 * of every browser at user and system level, the manifest's exact text (and
 * the template it matches), extension ID checks, the Windows data
 * directories and registry keys (and manifests/windows/install.ps1 leaving
 * them to the program), target selection and the fix commands doctor
 * prints.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>

#include "check-helpers.h"
#include "config.h"
#include "doctor.h"
#include "files.h"
#include "install.h"
#include "os.h"
#include "xmalloc.h"

#ifndef MANIFESTS_DIR
#error "MANIFESTS_DIR must name the source tree's manifests directory"
#endif

#define nitems(a)	(sizeof (a) / sizeof (a)[0])

/* One expected row of the path tables. */
struct expected_paths {
	const char	*name;
	const char	*title;
	const char	*linux_user;	/* under HOME */
	const char	*linux_system;
	const char	*macos_user;	/* under HOME */
	const char	*macos_system;
	const char	*windows_user;	/* under LOCALAPPDATA */
	const char	*windows_key;
};

/* %LOCALAPPDATA% in the Windows rows. */
#define LOCALAPPDATA	"C:\\Users\\u\\AppData\\Local"

/* The directories every browser reads, per OS and level, for HOME=/home/u. */
static const struct expected_paths expected[] = {
	{ "chrome", "Google Chrome",
	  "/home/u/.config/google-chrome/NativeMessagingHosts",
	  "/etc/opt/chrome/native-messaging-hosts",
	  "/home/u/Library/Application Support/Google/Chrome/NativeMessagingHosts",
	  "/Library/Google/Chrome/NativeMessagingHosts",
	  LOCALAPPDATA "\\Google\\Chrome\\User Data",
	  "Software\\Google\\Chrome\\NativeMessagingHosts" },
	{ "chromium", "Chromium",
	  "/home/u/.config/chromium/NativeMessagingHosts",
	  "/etc/chromium/native-messaging-hosts",
	  "/home/u/Library/Application Support/Chromium/NativeMessagingHosts",
	  "/Library/Application Support/Chromium/NativeMessagingHosts",
	  LOCALAPPDATA "\\Chromium\\User Data",
	  "Software\\Chromium\\NativeMessagingHosts" },
	{ "edge", "Microsoft Edge",
	  "/home/u/.config/microsoft-edge/NativeMessagingHosts",
	  "/etc/opt/edge/native-messaging-hosts",
	  "/home/u/Library/Application Support/Microsoft Edge/NativeMessagingHosts",
	  "/Library/Microsoft/Edge/NativeMessagingHosts",
	  LOCALAPPDATA "\\Microsoft\\Edge\\User Data",
	  "Software\\Microsoft\\Edge\\NativeMessagingHosts" },
	{ "brave", "Brave",
	  "/home/u/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
	  "/etc/brave/native-messaging-hosts",
	  "/home/u/Library/Application Support/BraveSoftware/Brave-Browser/"
	  "NativeMessagingHosts",
	  "/Library/Application Support/BraveSoftware/Brave-Browser/"
	  "NativeMessagingHosts",
	  LOCALAPPDATA "\\BraveSoftware\\Brave-Browser\\User Data",
	  "Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts" },
	{ "vivaldi", "Vivaldi",
	  "/home/u/.config/vivaldi/NativeMessagingHosts",
	  "/etc/opt/vivaldi/native-messaging-hosts",
	  "/home/u/Library/Application Support/Vivaldi/NativeMessagingHosts",
	  "/Library/Application Support/Vivaldi/NativeMessagingHosts",
	  LOCALAPPDATA "\\Vivaldi\\User Data",
	  "Software\\Google\\Chrome\\NativeMessagingHosts" },
};

/* Asserts a manifest directory and frees it. */
#define ck_assert_dir(got, want) do {					\
	char *ck_got_ = (got);						\
	ck_assert_str_eq(ck_got_, (want));				\
	free(ck_got_);							\
} while (0)

START_TEST(test_table_lists_every_browser_once)
{
	size_t	i, j;

	ck_assert_uint_eq(install_browser_count, nitems(expected));
	for (i = 0; i < install_browser_count; i++) {
		ck_assert_str_eq(install_browsers[i].name, expected[i].name);
		ck_assert_str_eq(install_browsers[i].title, expected[i].title);
		ck_assert_ptr_eq(install_browser_find(expected[i].name),
		    &install_browsers[i]);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(install_browsers[i].name,
			    install_browsers[j].name);
	}
	ck_assert_ptr_null(install_browser_find("all"));
	ck_assert_ptr_null(install_browser_find("firefox"));
	ck_assert_ptr_null(install_browser_find("Chrome"));
	ck_assert_ptr_null(install_browser_find(""));
}
END_TEST

START_TEST(test_linux_user_dirs)
{
	size_t	i;

	for (i = 0; i < install_browser_count; i++) {
		ck_assert_dir(install_manifest_dir(&install_browsers[i],
		    INSTALL_OS_LINUX, INSTALL_SCOPE_USER, "/home/u", NULL),
		    expected[i].linux_user);
	}
}
END_TEST

START_TEST(test_linux_system_dirs)
{
	size_t	i;

	for (i = 0; i < install_browser_count; i++) {
		ck_assert_dir(install_manifest_dir(&install_browsers[i],
		    INSTALL_OS_LINUX, INSTALL_SCOPE_SYSTEM, "/home/u", NULL),
		    expected[i].linux_system);
	}
}
END_TEST

START_TEST(test_macos_user_dirs)
{
	size_t	i;

	for (i = 0; i < install_browser_count; i++) {
		ck_assert_dir(install_manifest_dir(&install_browsers[i],
		    INSTALL_OS_MACOS, INSTALL_SCOPE_USER, "/home/u", NULL),
		    expected[i].macos_user);
	}
}
END_TEST

START_TEST(test_macos_system_dirs)
{
	size_t	i;

	for (i = 0; i < install_browser_count; i++) {
		ck_assert_dir(install_manifest_dir(&install_browsers[i],
		    INSTALL_OS_MACOS, INSTALL_SCOPE_SYSTEM, "/home/u", NULL),
		    expected[i].macos_system);
	}
}
END_TEST

START_TEST(test_linux_honours_xdg_config_home)
{
	const struct install_browser	*chromium;

	chromium = install_browser_find("chromium");
	ck_assert_dir(install_manifest_dir(chromium, INSTALL_OS_LINUX,
	    INSTALL_SCOPE_USER, "/home/u", "/xdg"),
	    "/xdg/chromium/NativeMessagingHosts");
	/* A relative XDG_CONFIG_HOME is ignored, as the spec says. */
	ck_assert_dir(install_manifest_dir(chromium, INSTALL_OS_LINUX,
	    INSTALL_SCOPE_USER, "/home/u", "xdg"),
	    "/home/u/.config/chromium/NativeMessagingHosts");
	ck_assert_dir(install_manifest_dir(chromium, INSTALL_OS_LINUX,
	    INSTALL_SCOPE_USER, "/home/u", ""),
	    "/home/u/.config/chromium/NativeMessagingHosts");
	/* macOS has no XDG directories; system level ignores it too. */
	ck_assert_dir(install_manifest_dir(chromium, INSTALL_OS_MACOS,
	    INSTALL_SCOPE_USER, "/home/u", "/xdg"),
	    "/home/u/Library/Application Support/Chromium/NativeMessagingHosts");
	ck_assert_dir(install_manifest_dir(chromium, INSTALL_OS_LINUX,
	    INSTALL_SCOPE_SYSTEM, "/home/u", "/xdg"),
	    "/etc/chromium/native-messaging-hosts");
	ck_assert_dir(install_browser_data_dir(chromium, INSTALL_OS_LINUX,
	    "/home/u", "/xdg"), "/xdg/chromium");
}
END_TEST

START_TEST(test_profile_dir)
{
	ck_assert_dir(install_profile_manifest_dir("/tmp/p"),
	    "/tmp/p/NativeMessagingHosts");
	ck_assert_dir(install_profile_manifest_dir("/tmp/p//"),
	    "/tmp/p/NativeMessagingHosts");
}
END_TEST

START_TEST(test_windows_keys)
{
	char	*want;
	size_t	 i;

	for (i = 0; i < install_browser_count; i++) {
		ck_assert_str_eq(install_browsers[i].windows_key,
		    expected[i].windows_key);
		want = xasprintf("%s\\org.browserbridge.host",
		    expected[i].windows_key);
		ck_assert_dir(install_registry_key(&install_browsers[i]), want);
		free(want);
	}
}
END_TEST

/* On Windows: the data directories, and one manifest folder for all. */
START_TEST(test_windows_dirs)
{
	size_t	i;

	for (i = 0; i < install_browser_count; i++) {
		ck_assert_dir(install_browser_data_dir(&install_browsers[i],
		    INSTALL_OS_WINDOWS, LOCALAPPDATA, "/xdg"),
		    expected[i].windows_user);
		ck_assert_dir(install_manifest_dir(&install_browsers[i],
		    INSTALL_OS_WINDOWS, INSTALL_SCOPE_USER, LOCALAPPDATA,
		    "/xdg"), LOCALAPPDATA "\\BrowserBridge");
	}
}
END_TEST

/* Reads a whole file of the source tree into a string. */
static char *
read_source(const char *name)
{
	char	*path, *text;
	FILE	*f;
	long	 len;

	path = xasprintf("%s/%s", MANIFESTS_DIR, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	text = xmalloc((size_t)len + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	text[len] = '\0';
	fclose(f);
	free(path);
	return text;
}

/*
 * install.ps1 is a wrapper that runs the program's install or uninstall:
 * it holds no registry key of its own, so the table in host/install.c is
 * the only one.
 */
START_TEST(test_install_ps1_runs_the_program)
{
	char	*script = read_source("windows/install.ps1");

	ck_assert_ptr_nonnull(strstr(script, "& $BinaryPath @arguments"));
	ck_assert_ptr_nonnull(strstr(script, "'install'"));
	ck_assert_ptr_nonnull(strstr(script, "'uninstall'"));
	ck_assert_ptr_nonnull(strstr(script, "'--browser'"));
	ck_assert_ptr_nonnull(strstr(script, "'--extension-id'"));
	ck_assert_ptr_null(strstr(script, "NativeMessagingHosts'"));
	ck_assert_ptr_null(strstr(script, "Set-Item"));
	free(script);
}
END_TEST

START_TEST(test_extension_id_validation)
{
	static const char *const good[] = {
		INSTALL_EXTENSION_ID,
		"abcdefghijklmnopabcdefghijklmnop",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"pppppppppppppppppppppppppppppppp",
	};
	static const char *const bad[] = {
		"",
		"abc",
		"abcdefghijklmnopabcdefghijklmno",	/* 31 */
		"abcdefghijklmnopabcdefghijklmnopa",	/* 33 */
		"abcdefghijklmnopabcdefghijklmnoq",	/* q */
		"ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP",
		"0123456789abcdef0123456789abcdef",	/* hex, not a-p */
		"abcdefghijklmnop abcdefghijklmno",
		"chrome-extension://abcdefghijklmnopabcdefghijklmnop/",
	};
	size_t	i;

	for (i = 0; i < nitems(good); i++)
		ck_assert_msg(install_extension_id_valid(good[i]), "%s",
		    good[i]);
	for (i = 0; i < nitems(bad); i++)
		ck_assert_msg(!install_extension_id_valid(bad[i]), "%s",
		    bad[i]);
}
END_TEST

START_TEST(test_manifest_exact_text)
{
	const char	*one[] = { INSTALL_EXTENSION_ID };
	const char	*two[] = { INSTALL_EXTENSION_ID,
			    "abcdefghijklmnopabcdefghijklmnop" };
	char		*text;

	text = install_manifest_text("/usr/local/bin/browser-bridge", one, 1);
	ck_assert_str_eq(text,
	    "{\n"
	    "  \"name\": \"org.browserbridge.host\",\n"
	    "  \"description\": \"Browser Bridge: lets MCP clients drive this "
	    "browser\",\n"
	    "  \"path\": \"/usr/local/bin/browser-bridge\",\n"
	    "  \"type\": \"stdio\",\n"
	    "  \"allowed_origins\": [\n"
	    "    \"chrome-extension://lbgfejnjcgkdeceohflfkdiejmokjlpk/\"\n"
	    "  ]\n"
	    "}\n");
	free(text);

	text = install_manifest_text("/opt/my \"bridge\"\\é/browser-bridge",
	    two, 2);
	ck_assert_str_eq(text,
	    "{\n"
	    "  \"name\": \"org.browserbridge.host\",\n"
	    "  \"description\": \"Browser Bridge: lets MCP clients drive this "
	    "browser\",\n"
	    "  \"path\": \"/opt/my \\\"bridge\\\"\\\\é/browser-bridge\",\n"
	    "  \"type\": \"stdio\",\n"
	    "  \"allowed_origins\": [\n"
	    "    \"chrome-extension://lbgfejnjcgkdeceohflfkdiejmokjlpk/\",\n"
	    "    \"chrome-extension://abcdefghijklmnopabcdefghijklmnop/\"\n"
	    "  ]\n"
	    "}\n");
	free(text);

	/* A path that is not UTF-8 cannot go into JSON. */
	ck_assert_ptr_null(install_manifest_text("/tmp/\xff/browser-bridge",
	    one, 1));
}
END_TEST

/* Replaces the first `from` in text with `to`; returns a new string. */
static char *
replace(const char *text, const char *from, const char *to)
{
	const char	*at = strstr(text, from);

	ck_assert_msg(at != NULL, "template lacks %s", from);
	return xasprintf("%.*s%s%s", (int)(at - text), text, to,
	    at + strlen(from));
}

START_TEST(test_template_gives_the_same_manifest)
{
	const char	*ids[] = { INSTALL_EXTENSION_ID,
			    "abcdefghijklmnopabcdefghijklmnop" };
	char		*template, *step, *filled, *text;

	template = read_source(INSTALL_MANIFEST_FILE ".in");
	step = replace(template, "@BRIDGE_PATH@", "C:\\\\Program Files\\\\"
	    "Browser Bridge\\\\browser-bridge.exe");
	filled = replace(step, "@ALLOWED_ORIGINS@",
	    "\"chrome-extension://lbgfejnjcgkdeceohflfkdiejmokjlpk/\",\n    "
	    "\"chrome-extension://abcdefghijklmnopabcdefghijklmnop/\"");
	text = install_manifest_text("C:\\Program Files\\Browser Bridge\\"
	    "browser-bridge.exe", ids, 2);
	ck_assert_str_eq(filled, text);
	free(text);
	free(filled);
	free(step);
	free(template);
}
END_TEST

START_TEST(test_shell_quote)
{
	char	*q;

	q = install_shell_quote("/usr/bin/browser-bridge");
	ck_assert_str_eq(q, "/usr/bin/browser-bridge");
	free(q);
	q = install_shell_quote("/Users/me/Library/Application Support/x");
	ck_assert_str_eq(q, "'/Users/me/Library/Application Support/x'");
	free(q);
	q = install_shell_quote("/tmp/it's");
	ck_assert_str_eq(q, "'/tmp/it'\\''s'");
	free(q);
	q = install_shell_quote("");
	ck_assert_str_eq(q, "''");
	free(q);
	q = install_shell_quote("$(rm -rf ~)");
	ck_assert_str_eq(q, "'$(rm -rf ~)'");
	free(q);
}
END_TEST

/* A scratch HOME for the target tests, removed afterwards. */
/* argv[0] of this program, as main got it. */
static const char *test_argv0;
static char	*scratch;
static char	*saved_path;

/* Removes one entry of the scratch tree. */
static int
scratch_remove(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)remove(path);
	return 0;
}

/* Makes a scratch HOME and points HOME at it; keeps PATH to restore. */
static void
scratch_setup(void)
{
	const char	*path = getenv("PATH");

	scratch = xstrdup("/tmp/check-install-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	saved_path = xstrdup(path != NULL ? path : "/usr/bin:/bin");
	setenv("HOME", scratch, 1);
	unsetenv("XDG_CONFIG_HOME");
}

/* Removes the scratch HOME. */
static void
scratch_teardown(void)
{
	(void)nftw(scratch, scratch_remove, 16, FTW_DEPTH|FTW_PHYS);
	free(scratch);
	scratch = NULL;
	setenv("PATH", saved_path, 1);
	free(saved_path);
	saved_path = NULL;
}

/* Makes directory path under the scratch HOME (and its parents). */
static void
scratch_mkdir(const char *relative)
{
	char	*path = xasprintf("%s/%s", scratch, relative), *p;

	for (p = path + strlen(scratch) + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		ck_assert_msg(mkdir(path, 0700) == 0 || errno == EEXIST,
		    "mkdir %s: %s", path, strerror(errno));
		*p = saved;
		if (saved == '\0')
			break;
	}
	free(path);
}

/* Writes a small file under the scratch HOME. */
static void
scratch_write(const char *relative, const char *text)
{
	char	*path = xasprintf("%s/%s", scratch, relative);
	FILE	*f = fopen(path, "w");

	ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
	free(path);
}

START_TEST(test_targets_find_installed_browsers)
{
	struct config		 config;
	struct install_target	*targets;
	size_t			 count, i;
	char			*cause = NULL, *want;

	/* A profile someone used has its Local State; Chromium's directory
	 * alone (it makes one for crash reports) is no profile. */
	scratch_mkdir(".config/chromium");
	scratch_write(".config/chromium/Local State", "{}");
	scratch_mkdir(".config/BraveSoftware/Brave-Browser/NativeMessagingHosts");
	scratch_mkdir(".config/microsoft-edge/Crash Reports");
	config_defaults(&config);
	ck_assert_int_eq(install_targets(&config, &targets, &count, &cause), 0);
	ck_assert_uint_eq(count, install_browser_count);
	for (i = 0; i < count; i++) {
		ck_assert_ptr_eq(targets[i].browser, &install_browsers[i]);
		ck_assert(!targets[i].named);
		ck_assert_int_eq(targets[i].found,
		    strcmp(install_browsers[i].name, "chromium") == 0 ||
		    strcmp(install_browsers[i].name, "brave") == 0);
		want = xasprintf("%s/%s", scratch, expected[i].linux_user +
		    strlen("/home/u/"));
		ck_assert_str_eq(targets[i].dir, want);
		free(want);
		want = xasprintf("%s/" INSTALL_MANIFEST_FILE, targets[i].dir);
		ck_assert_str_eq(targets[i].path, want);
		free(want);
		if (!targets[i].found)
			ck_assert_ptr_nonnull(targets[i].missing);
	}
	install_targets_free(targets, count);
	config_clear(&config);
}
END_TEST

/* Runs install for one profile directory; returns its exit status. */
static int
install_into_profile(const char *profile)
{
	struct config	config;
	int		rc, null_fd = open("/dev/null", O_WRONLY);

	config_defaults(&config);
	config.user_data_dir = xstrdup(profile);
	rc = install_run(&config, null_fd);
	close(null_fd);
	free(config.user_data_dir);
	return rc;
}

/* A FIFO where the manifest goes: a clear failure, never a hang. */
START_TEST(test_install_refuses_a_fifo_manifest)
{
	char	*profile, *dir, *manifest, *cause = NULL;

	profile = xasprintf("%s/profile", scratch);
	dir = xasprintf("%s/NativeMessagingHosts", profile);
	ck_assert_int_eq(files_make_dirs(dir, 0700, "", &cause), 0);
	manifest = xasprintf("%s/org.browserbridge.host.json", dir);
	ck_assert_int_eq(mkfifo(manifest, 0600), 0);
	ck_assert_int_eq(install_into_profile(profile), 1);
	ck_assert_int_eq(unlink(manifest), 0);
	ck_assert_int_eq(install_into_profile(profile), 0);
	free(manifest);
	free(dir);
	free(profile);
}
END_TEST

/* Directories made for a manifest have the mode asked for, whatever the umask. */
START_TEST(test_made_directories_ignore_the_umask)
{
	struct stat	 sb;
	char		*dir, *parent, *cause = NULL;
	mode_t		 old = umask(077);

	parent = xasprintf("%s/system", scratch);
	dir = xasprintf("%s/native-messaging-hosts", parent);
	ck_assert_int_eq(files_make_dirs(dir, 0755, "", &cause), 0);
	umask(old);
	ck_assert_int_eq(stat(parent, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0755);
	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0755);
	free(dir);
	free(parent);
}
END_TEST

/* --system starts only a program owned by root and writable by root alone. */
START_TEST(test_system_install_checks_the_binary)
{
	char	*path, *problem;
	int	 fd;

	path = xasprintf("%s/browser-bridge", scratch);
	fd = open(path, O_WRONLY|O_CREAT|O_EXCL, 0755);
	ck_assert_int_ne(fd, -1);
	close(fd);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 0, 0), 0);
		ck_assert_ptr_null(install_system_binary_problem(path));
		ck_assert_int_eq(chmod(path, 0775), 0);
		problem = install_system_binary_problem(path);
		ck_assert_ptr_nonnull(strstr(problem, "is writable by others"));
		free(problem);
		ck_assert_int_eq(chmod(path, 0755), 0);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
	}
	/* Not root's (a non-root test run creates it as its own user). */
	problem = install_system_binary_problem(path);
	ck_assert_ptr_nonnull(problem);
	ck_assert_ptr_nonnull(strstr(problem, "is not owned by root"));
	free(problem);
	free(path);
}
END_TEST

START_TEST(test_targets_named_and_profile)
{
	struct config		 config;
	struct install_target	*targets;
	size_t			 count;
	char			*cause = NULL;

	config_defaults(&config);
	config.browsers = xcalloc(2, sizeof *config.browsers);
	config.browsers[0] = xstrdup("vivaldi");
	config.browsers[1] = xstrdup("vivaldi");
	config.browser_count = 2;
	ck_assert_int_eq(install_targets(&config, &targets, &count, &cause), 0);
	ck_assert_uint_eq(count, 1);
	ck_assert_str_eq(targets[0].browser->name, "vivaldi");
	ck_assert(targets[0].named);
	ck_assert(!targets[0].found);
	install_targets_free(targets, count);

	free(config.browsers[1]);
	config.browsers[1] = xstrdup("all");
	ck_assert_int_eq(install_targets(&config, &targets, &count, &cause), 0);
	ck_assert_uint_eq(count, install_browser_count);
	install_targets_free(targets, count);

	free(config.browsers[1]);
	config.browsers[1] = xstrdup("safari");
	ck_assert_int_eq(install_targets(&config, &targets, &count, &cause),
	    -1);
	ck_assert_str_eq(cause, "unknown browser \"safari\": use chrome, "
	    "chromium, edge, brave, vivaldi or all");
	free(cause);
	config_clear(&config);

	config_defaults(&config);
	config.user_data_dir = xstrdup("/tmp/profile/");
	ck_assert_int_eq(install_targets(&config, &targets, &count, &cause), 0);
	ck_assert_uint_eq(count, 1);
	ck_assert_ptr_null(targets[0].browser);
	ck_assert_str_eq(targets[0].title, "Profile /tmp/profile/");
	ck_assert_str_eq(targets[0].path,
	    "/tmp/profile/NativeMessagingHosts/" INSTALL_MANIFEST_FILE);
	install_targets_free(targets, count);
	config_clear(&config);
}
END_TEST

START_TEST(test_targets_need_home)
{
	struct config		 config;
	struct install_target	*targets;
	size_t			 count;
	char			*cause = NULL;

	unsetenv("HOME");
	config_defaults(&config);
	ck_assert_int_eq(install_targets(&config, &targets, &count, &cause),
	    -1);
	ck_assert_ptr_nonnull(strstr(cause, "set HOME"));
	free(cause);
	config_clear(&config);
}
END_TEST

START_TEST(test_allowed_ids)
{
	struct config	  config;
	char		**ids, *cause = NULL;
	size_t		  count, i;

	config_defaults(&config);
	config.extension_ids = xcalloc(3, sizeof *config.extension_ids);
	config.extension_ids[0] = xstrdup("abcdefghijklmnopabcdefghijklmnop");
	config.extension_ids[1] = xstrdup(INSTALL_EXTENSION_ID);
	config.extension_ids[2] = xstrdup("abcdefghijklmnopabcdefghijklmnop");
	config.extension_id_count = 3;
	ck_assert_int_eq(install_allowed_ids(&config, &ids, &count, &cause), 0);
	ck_assert_uint_eq(count, 2);	/* the default first, no repeats */
	ck_assert_str_eq(ids[0], INSTALL_EXTENSION_ID);
	ck_assert_str_eq(ids[1], "abcdefghijklmnopabcdefghijklmnop");
	for (i = 0; i < count; i++)
		free(ids[i]);
	free(ids);

	free(config.extension_ids[2]);
	config.extension_ids[2] = xstrdup("not-an-id");
	ck_assert_int_eq(install_allowed_ids(&config, &ids, &count, &cause),
	    -1);
	ck_assert_ptr_null(ids);
	ck_assert_str_eq(cause, "--extension-id \"not-an-id\" is not an "
	    "extension ID: an ID is 32 letters from a to p, as "
	    "chrome://extensions shows it in Developer mode");
	free(cause);
	config_clear(&config);
}
END_TEST

START_TEST(test_fix_commands)
{
	struct config		config;
	struct install_target	target;
	char			*fix;

	setenv("PATH", "/nonexistent", 1);
	config_defaults(&config);
	memset(&target, 0, sizeof target);
	target.browser = install_browser_find("edge");
	fix = install_fix_command(&config, "/opt/bb/browser-bridge", "install",
	    &target);
	ck_assert_str_eq(fix, "/opt/bb/browser-bridge install --browser edge");
	free(fix);

	config.system = true;
	config.extension_ids = xcalloc(1, sizeof *config.extension_ids);
	config.extension_ids[0] = xstrdup("abcdefghijklmnopabcdefghijklmnop");
	config.extension_id_count = 1;
	fix = install_fix_command(&config, "/opt/my bb/browser-bridge",
	    "install", &target);
	ck_assert_str_eq(fix, "sudo '/opt/my bb/browser-bridge' install "
	    "--system --browser edge --extension-id "
	    "abcdefghijklmnopabcdefghijklmnop");
	free(fix);
	config_clear(&config);

	config_defaults(&config);
	config.user_data_dir = xstrdup("/tmp/a profile");
	target.browser = NULL;
	fix = install_fix_command(&config, "/opt/bb/browser-bridge",
	    "uninstall", &target);
	ck_assert_str_eq(fix, "/opt/bb/browser-bridge uninstall "
	    "--user-data-dir '/tmp/a profile'");
	free(fix);
	config_clear(&config);
}
END_TEST

START_TEST(test_command_name_prefers_path)
{
	char	*bin, *name, *link_path, *self;

	/* A browser-bridge on PATH that is this program: use the short name. */
	bin = xasprintf("%s/bin", scratch);
	ck_assert_int_eq(mkdir(bin, 0700), 0);
	link_path = xasprintf("%s/browser-bridge", bin);
	self = xasprintf("%s/real-browser-bridge", scratch);
	ck_assert_int_eq(close(creat(self, 0755)), 0);
	ck_assert_int_eq(symlink(self, link_path), 0);
	setenv("PATH", bin, 1);
	name = install_command_name(self);
	ck_assert_str_eq(name, "browser-bridge");
	free(name);
	/* One that is another program: use the full path. */
	name = install_command_name("/elsewhere/browser-bridge");
	ck_assert_str_eq(name, "/elsewhere/browser-bridge");
	free(name);
	free(self);
	free(link_path);
	free(bin);
}
END_TEST

START_TEST(test_self_path_is_this_test)
{
	char	*cause = NULL, *self, *real;

	self = os_self_path(&cause);
	ck_assert_msg(self != NULL, "%s", cause);
	ck_assert_int_eq(*self, '/');
	real = realpath(test_argv0, NULL);
	ck_assert_ptr_nonnull(real);
	ck_assert_str_eq(self, real);
	free(real);
	free(self);
}
END_TEST

/* Writes an executable shell script into the scratch directory. */
static char *
scratch_script(const char *name, const char *body)
{
	char	*path = xasprintf("%s/%s", scratch, name);
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	return path;
}

START_TEST(test_program_version)
{
	char	*path, *version, *cause = NULL;

	path = scratch_script("ok", "echo \"browser-bridge 9.9.9\"; echo more");
	version = doctor_program_version(path, 5000, &cause);
	ck_assert_msg(version != NULL, "%s", cause);
	ck_assert_str_eq(version, "browser-bridge 9.9.9");
	free(version);
	free(path);

	path = scratch_script("fails", "echo oops; exit 3");
	ck_assert_ptr_null(doctor_program_version(path, 5000, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "failed (exit status 3)"));
	free(cause);
	free(path);

	path = scratch_script("hangs", "exec sleep 30");
	ck_assert_ptr_null(doctor_program_version(path, 200, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "did not finish within 200 ms"));
	free(cause);
	free(path);

	ck_assert_ptr_null(doctor_program_version("/nonexistent/browser-bridge",
	    5000, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "failed (exit status 127)"));
	free(cause);
}
END_TEST

/* The suite: path tables, manifest, IDs, Windows keys, targets, fixes. */
static Suite *
install_suite(void)
{
	Suite	*s = suite_create("install");
	TCase	*tc;

	tc = tcase_create("path tables");
	tcase_add_test(tc, test_table_lists_every_browser_once);
	tcase_add_test(tc, test_linux_user_dirs);
	tcase_add_test(tc, test_linux_system_dirs);
	tcase_add_test(tc, test_macos_user_dirs);
	tcase_add_test(tc, test_macos_system_dirs);
	tcase_add_test(tc, test_linux_honours_xdg_config_home);
	tcase_add_test(tc, test_profile_dir);
	suite_add_tcase(s, tc);

	tc = tcase_create("windows registry keys");
	tcase_add_test(tc, test_windows_keys);
	tcase_add_test(tc, test_windows_dirs);
	tcase_add_test(tc, test_install_ps1_runs_the_program);
	suite_add_tcase(s, tc);

	tc = tcase_create("manifest");
	tcase_add_test(tc, test_extension_id_validation);
	tcase_add_test(tc, test_manifest_exact_text);
	tcase_add_test(tc, test_template_gives_the_same_manifest);
	tcase_add_test(tc, test_allowed_ids);
	suite_add_tcase(s, tc);

	tc = tcase_create("targets and commands");
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, test_targets_find_installed_browsers);
	tcase_add_test(tc, test_targets_named_and_profile);
	tcase_add_test(tc, test_install_refuses_a_fifo_manifest);
	tcase_add_test(tc, test_made_directories_ignore_the_umask);
	tcase_add_test(tc, test_system_install_checks_the_binary);
	tcase_add_test(tc, test_targets_need_home);
	tcase_add_test(tc, test_shell_quote);
	tcase_add_test(tc, test_fix_commands);
	tcase_add_test(tc, test_command_name_prefers_path);
	tcase_add_test(tc, test_self_path_is_this_test);
	tcase_add_test(tc, test_program_version);
	suite_add_tcase(s, tc);
	return s;
}

/* Runs the suite; argv[0] tells the tests where this program lies. */
int
main(int argc, char **argv)
{
	test_argv0 = argv[0];
	os_start(argv[0]);
	return check_run_suite(install_suite());
}
