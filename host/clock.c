/* The system's monotonic clock, and reading any clock. */
#include "clock.h"

#include <time.h>

/* Reads a system clock in milliseconds. */
static uint64_t
clock_read_ms(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Reads CLOCK_MONOTONIC in milliseconds. */
static uint64_t
clock_monotonic_now_ms(void *arg)
{
	return clock_read_ms(CLOCK_MONOTONIC);
}

/* Returns the system's monotonic clock. */
const struct clock *
clock_monotonic(void)
{
	static const struct clock	monotonic = { clock_monotonic_now_ms,
					    NULL };

	return &monotonic;
}

/* Reads CLOCK_REALTIME in milliseconds since 1970. */
static uint64_t
clock_wall_now_ms(void *arg)
{
	return clock_read_ms(CLOCK_REALTIME);
}

/* Returns the system's wall clock. */
const struct clock *
clock_wall(void)
{
	static const struct clock	wall = { clock_wall_now_ms, NULL };

	return &wall;
}

/* Returns a clock's time in milliseconds. */
uint64_t
clock_now_ms(const struct clock *clock)
{
	return clock->now_ms(clock->arg);
}
