/* The system's monotonic clock, and reading any clock. */
#include "clock.h"

#include <time.h>

/* Reads CLOCK_MONOTONIC in milliseconds. */
static uint64_t
clock_monotonic_now_ms(void *arg)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Returns the system's monotonic clock. */
const struct clock *
clock_monotonic(void)
{
	static const struct clock	monotonic = { clock_monotonic_now_ms,
					    NULL };

	return &monotonic;
}

/* Returns a clock's time in milliseconds. */
uint64_t
clock_now_ms(const struct clock *clock)
{
	return clock->now_ms(clock->arg);
}
