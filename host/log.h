/*
 * Logging to stderr and, optionally, a file. Never to stdout: stdout belongs
 * to the native-messaging channel. A NULL struct log discards everything.
 */
#ifndef LOG_H
#define LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

struct log;

struct log	*log_open(enum log_level level, const char *path, char **cause);
void		 log_close(struct log *log);
void		 log_set_level(struct log *log, enum log_level level);
enum log_level	 log_get_level(const struct log *log);
void		 log_write(struct log *log, enum log_level level,
		     const char *fmt, ...) __attribute__((format(PRINTF_FORMAT, 3, 4)));
void		 log_vwrite(struct log *log, enum log_level level,
		     const char *fmt, va_list ap) __attribute__((format(PRINTF_FORMAT, 3, 0)));
int		 log_level_parse(const char *name, enum log_level *level);
const char	*log_level_name(enum log_level level);
void		 log_route_libevent(struct log *log);

#define log_error(log, ...)	log_write((log), LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(log, ...)	log_write((log), LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(log, ...)	log_write((log), LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(log, ...)	log_write((log), LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
