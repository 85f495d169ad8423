/*
 * Settings: defaults, then the user's config file
 * (${XDG_CONFIG_HOME:-~/.config}/browser-bridge/config.json), then the
 * command line. Chrome passes no options, so the file is how a user
 * changes a host that Chrome starts.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "log.h"

#define CONFIG_DEFAULT_PORT		9333
#define CONFIG_DEFAULT_MAX_BODY		(4u * 1024 * 1024)
#define CONFIG_DEFAULT_MAX_HEADERS	(16u * 1024)
#define CONFIG_DEFAULT_MAX_SESSIONS	256
#define CONFIG_DEFAULT_MAX_CONNECTIONS	512
#define CONFIG_DEFAULT_HEAD_TIMEOUT_MS	10000
#define CONFIG_MIN_BODY_RATE		(64u * 1024)	/* bytes a second */
#define CONFIG_DEFAULT_SESSION_IDLE_MS	(30 * 60 * 1000)
#define CONFIG_DEFAULT_KEEPALIVE_MS	15000

/* Which commands take an option (cli.c's table says per command). */
#define CONFIG_OPTIONS_HOST	0x1	/* serve: the host's settings */
#define CONFIG_OPTIONS_INSTALL	0x2	/* install, uninstall, doctor */
#define CONFIG_OPTIONS_INSTANCE	0x4	/* status, stdio, doctor: which host */
#define CONFIG_OPTIONS_ANY	0x8	/* --help, --version: every command */
#define CONFIG_OPTION_GROUPS	4

/* One command-line option: what it is called and what it does. */
struct config_option {
	const char	*name;		/* without the leading "--" */
	const char	*argument;	/* NULL: a flag */
	const char	*help;		/* NULL: not shown (Chrome's own) */
	unsigned	 group;		/* CONFIG_OPTIONS_* */
};

extern const struct config_option config_options[];

struct config {
	const char		*command;	/* its name; NULL: serve */
	bool			 help;		/* --help or -h */
	bool			 version;	/* --version */
	bool			 markdown;	/* help --markdown: for the docs */
	const char		*help_topic;	/* help COMMAND */
	unsigned		 option_groups;	/* CONFIG_OPTIONS_* given */
	const char		*group_option[CONFIG_OPTION_GROUPS];
						/* the first given, per group */
	int			 port;		/* 0: any free port */
	bool			 auth;
	bool			 oauth;		/* OAuth clients may get keys */
	bool			 evaluate_script; /* let evaluate_script run */
	bool			 allow_file_urls; /* let the tools open file: pages */
	/* show credentials and logged-in bodies in the network tools */
	bool			 reveal_network_secrets;
	enum log_level		 log_level;
	char			*log_file;
	size_t			 max_frame;
	size_t			 max_body;
	size_t			 max_headers;
	size_t			 max_sessions;
	size_t			 max_connections;
	int			 head_timeout_ms;
	size_t			 tools_page_size;	/* 0: all in one page */
	int			 session_idle_ms;
	int			 keepalive_ms;
	int			 hello_grace_ms;
	int			 http_timeout_s;
	char			*extension_origin;	/* argv[1] from Chrome */
	/* config.json "allowed_origins": web origins answered with CORS */
	char			**allowed_origins;
	size_t			 allowed_origin_count;
	/* config.json "upload_roots": where upload_file may take files from */
	char			**upload_roots;
	size_t			 upload_root_count;
	char			*config_dir;
	char			*token_file;
	char			*clients_file;	/* OAuth clients and tokens */
	char			*file_error;	/* config.json's problem, if kept */

	/* install, uninstall and doctor */
	char			**browsers;	/* --browser NAME, repeatable */
	size_t			 browser_count;
	bool			 system;	/* --system */
	char			**extension_ids; /* --extension-id, repeatable */
	size_t			 extension_id_count;
	char			*user_data_dir;	/* --user-data-dir DIR */

	/* status, stdio and doctor */
	char			*instance;	/* --instance NAME: which host */
};

void	 config_defaults(struct config *config);
int	 config_load(struct config *config, int argc, char **argv,
	    char **cause);
void	 config_clear(struct config *config);
char	*config_dir_path(char **cause);

#endif
