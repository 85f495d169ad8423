/*
 * The one clock: milliseconds on a monotonic scale, behind a function
 * pointer so tests can move time instead of sleeping.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>

struct clock {
	uint64_t	(*now_ms)(void *arg);
	void		*arg;
};

const struct clock	*clock_monotonic(void);
uint64_t		 clock_now_ms(const struct clock *clock);

#endif
