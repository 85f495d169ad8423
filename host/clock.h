/*
 * The one clock: milliseconds on a monotonic scale, behind a function
 * pointer so tests can move time instead of sleeping. The wall clock
 * (milliseconds since 1970) times what outlives the process: OAuth
 * tokens in their file.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>

struct clock {
	uint64_t	(*now_ms)(void *arg);
	void		*arg;
};

const struct clock	*clock_monotonic(void);
const struct clock	*clock_wall(void);
uint64_t		 clock_now_ms(const struct clock *clock);

#endif
