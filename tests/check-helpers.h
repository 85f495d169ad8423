/* Shared helpers for the Check suites: assertions that explain themselves. */
#ifndef CHECK_HELPERS_H
#define CHECK_HELPERS_H

#include <stdint.h>
#include <stdlib.h>

#include <check.h>
#include <jansson.h>

#include "clock.h"

/* Asserts two JSON values are equal, printing both when they are not. */
#define ck_assert_json_eq(actual, expected) do {			\
	const json_t *ck_a_ = (actual), *ck_e_ = (expected);		\
	char *ck_as_ = ck_a_ ? json_dumps(ck_a_, JSON_SORT_KEYS|JSON_ENCODE_ANY) : NULL; \
	char *ck_es_ = ck_e_ ? json_dumps(ck_e_, JSON_SORT_KEYS|JSON_ENCODE_ANY) : NULL; \
	ck_assert_msg(ck_a_ != NULL && ck_e_ != NULL && json_equal(ck_a_, ck_e_), \
	    "JSON differs:\n  actual:   %s\n  expected: %s",		\
	    ck_as_ ? ck_as_ : "(null)", ck_es_ ? ck_es_ : "(null)");	\
	free(ck_as_);							\
	free(ck_es_);							\
} while (0)

/* Parses JSON text in a test, failing the test if it is malformed. */
static inline json_t *
check_json(const char *text)
{
	json_error_t	 error;
	json_t		*value = json_loads(text, JSON_DECODE_ANY, &error);

	ck_assert_msg(value != NULL, "bad JSON in test: %s: %s", error.text, text);
	return value;
}

/* A clock a test moves by hand: set now_ms, never sleep. */
struct check_clock {
	struct clock	clock;
	uint64_t	now_ms;
};

/* Reads a test clock. */
static inline uint64_t
check_clock_now_ms(void *arg)
{
	return ((struct check_clock *)arg)->now_ms;
}

/* Starts a test clock at start_ms; returns the clock to inject. */
static inline const struct clock *
check_clock_start(struct check_clock *clock, uint64_t start_ms)
{
	clock->clock.now_ms = check_clock_now_ms;
	clock->clock.arg = clock;
	clock->now_ms = start_ms;
	return &clock->clock;
}

/* Runs one suite with CK_ENV verbosity and returns the process status. */
static inline int
check_run_suite(Suite *suite)
{
	SRunner	*runner = srunner_create(suite);
	int	 failed;

	srunner_run_all(runner, CK_ENV);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
