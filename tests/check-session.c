/* Tests for the session store: ids, lookup, caps, eviction and expiry. */
#include <string.h>

#include <check.h>

#include "check-helpers.h"
#include "session.h"

static int	ended;
static char	last_ended[SESSION_ID_LENGTH + 1];

/* Records which session the store ended. */
static void
test_on_end(struct session *session, void *arg)
{
	ended++;
	memcpy(last_ended, session->id, sizeof last_ended);
}

/* Resets the end counter before each test. */
static void
setup(void)
{
	ended = 0;
	memset(last_ended, 0, sizeof last_ended);
}

START_TEST(test_ids_are_random_hex_and_distinct)
{
	struct session_store	*store = session_store_new(8, 1000, test_on_end, NULL);
	struct session		*a = session_store_create(store, SESSION_STREAMABLE, 0);
	struct session		*b = session_store_create(store, SESSION_STREAMABLE, 0);
	size_t			 i;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(strlen(a->id), SESSION_ID_LENGTH);
	for (i = 0; i < SESSION_ID_LENGTH; i++)
		ck_assert_msg(strchr("0123456789abcdef", a->id[i]) != NULL,
		    "id %s has a non-hex digit", a->id);
	ck_assert_str_ne(a->id, b->id);
	ck_assert_ptr_eq(a->store, store);
	ck_assert_uint_eq(session_store_count(store), 2);
	session_store_free(store);
	ck_assert_int_eq(ended, 2);
}
END_TEST

/*
 * A store with the same key (a host restarted with the same token) takes
 * back an id the first one made; not a tampered id, not one its client
 * ended, not one made under another key, and nothing without a key.
 */
START_TEST(test_signed_ids_resume_after_restart)
{
	struct session_store	*first, *second, *other, *keyless;
	struct session		*s, *back;
	char			 id[SESSION_ID_LENGTH + 1], tampered[SESSION_ID_LENGTH + 1];

	first = session_store_new(8, 1000, test_on_end, NULL);
	session_store_set_key(first, "the-token");
	s = session_store_create(first, SESSION_STREAMABLE, 0);
	ck_assert_ptr_nonnull(s);
	memcpy(id, s->id, sizeof id);
	session_store_free(first);	/* the host exits */

	second = session_store_new(8, 1000, test_on_end, NULL);
	session_store_set_key(second, "the-token");
	ck_assert_ptr_null(session_store_find(second, id, 5));
	back = session_store_resume(second, id, SESSION_STREAMABLE, 5);
	ck_assert_ptr_nonnull(back);
	ck_assert_str_eq(back->id, id);
	ck_assert_ptr_eq(session_store_find(second, id, 6), back);
	memcpy(tampered, id, sizeof tampered);
	tampered[SESSION_ID_LENGTH - 1] = id[SESSION_ID_LENGTH - 1] == '0' ? '1' : '0';
	ck_assert_ptr_null(session_store_resume(second, tampered,
	    SESSION_STREAMABLE, 7));
	ck_assert_ptr_null(session_store_resume(second, "short",
	    SESSION_STREAMABLE, 7));
	ck_assert_uint_eq(session_store_count(second), 1);
	/* A session its client ended (DELETE) is never taken back. */
	session_store_terminate(second, back);
	ck_assert_ptr_null(session_store_resume(second, id, SESSION_STREAMABLE, 8));
	ck_assert_uint_eq(session_store_count(second), 0);

	other = session_store_new(8, 1000, test_on_end, NULL);
	session_store_set_key(other, "another-token");
	ck_assert_ptr_null(session_store_resume(other, id, SESSION_STREAMABLE, 5));
	keyless = session_store_new(8, 1000, test_on_end, NULL);
	ck_assert_ptr_null(session_store_resume(keyless, id, SESSION_STREAMABLE, 5));
	session_store_free(second);
	session_store_free(other);
	session_store_free(keyless);
}
END_TEST

/*
 * Each session is its own caller, the same after a host restart; the
 * stateless requests of one token share one; a new token makes new ones.
 */
START_TEST(test_callers_are_per_session_and_per_token)
{
	struct session_store	*store, *again, *other;
	struct session		*a, *b, *back, *stateless;
	char			 ca[SESSION_CALLER_LENGTH + 1];
	char			 cb[SESSION_CALLER_LENGTH + 1];
	char			 cx[SESSION_CALLER_LENGTH + 1];
	char			 cs[SESSION_CALLER_LENGTH + 1];

	store = session_store_new(8, 1000, test_on_end, NULL);
	session_store_set_key(store, "the-token");
	a = session_store_create(store, SESSION_STREAMABLE, 0);
	b = session_store_create(store, SESSION_LEGACY_SSE, 0);
	session_caller(store, a, ca);
	session_caller(store, b, cb);
	ck_assert_uint_eq(strlen(ca), SESSION_CALLER_LENGTH);
	ck_assert_uint_eq(strspn(ca, "0123456789abcdef"), SESSION_CALLER_LENGTH);
	ck_assert_str_ne(ca, cb);
	ck_assert_ptr_null(strstr(ca, a->id));

	again = session_store_new(8, 1000, test_on_end, NULL);
	session_store_set_key(again, "the-token");
	back = session_store_resume(again, a->id, SESSION_STREAMABLE, 5);
	ck_assert_ptr_nonnull(back);
	session_caller(again, back, cx);
	ck_assert_str_eq(cx, ca);

	stateless = session_stateless_new("2026-07-28");
	session_caller(store, stateless, cs);
	session_caller(again, stateless, cx);
	ck_assert_str_eq(cx, cs);
	ck_assert_str_ne(cs, ca);
	other = session_store_new(8, 1000, test_on_end, NULL);
	session_store_set_key(other, "another-token");
	session_caller(other, stateless, cx);
	ck_assert_str_ne(cx, cs);

	session_stateless_free(stateless);
	session_store_free(store);
	session_store_free(again);
	session_store_free(other);
}
END_TEST

START_TEST(test_find_known_and_unknown)
{
	struct session_store	*store = session_store_new(8, 1000, test_on_end, NULL);
	struct session		*a = session_store_create(store, SESSION_STREAMABLE, 0);
	char			 other[SESSION_ID_LENGTH + 1];

	ck_assert_ptr_eq(session_store_find(store, a->id, 10), a);
	ck_assert_uint_eq(a->last_active_ms, 10);
	memcpy(other, a->id, sizeof other);
	other[0] = other[0] == 'a' ? 'b' : 'a';
	ck_assert_ptr_null(session_store_find(store, other, 10));
	ck_assert_ptr_null(session_store_find(store, "short", 10));
	ck_assert_ptr_null(session_store_find(store, NULL, 10));
	session_store_free(store);
}
END_TEST

START_TEST(test_clients_named_and_listed_most_recent_first)
{
	struct session_store	*store = session_store_new(8, 1000, test_on_end, NULL);
	struct session		*a = session_store_create(store, SESSION_STREAMABLE, 0);
	struct session		*b = session_store_create(store, SESSION_LEGACY_SSE, 5);
	json_t			*info, *clients;

	info = json_pack("{s:s,s:s}", "name", "claude\ncode\x7f", "version", "2.1");
	session_set_client(a, info);
	json_decref(info);
	ck_assert_str_eq(a->client, "claude?code? 2.1");	/* printable only */
	info = json_pack("{s:s}", "name", "");
	session_set_client(b, info);
	json_decref(info);
	ck_assert_str_eq(b->client, "");
	(void)session_store_find(store, a->id, 20);	/* a is the most recent now */

	clients = session_store_clients(store, 50);
	ck_assert_uint_eq(json_array_size(clients), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    clients, 0), "client")), "claude?code? 2.1");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(
	    clients, 0), "idle_ms")), 30);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    clients, 1), "client")), "(unnamed)");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    clients, 1), "transport")), "HTTP+SSE");
	json_decref(clients);
	session_store_free(store);
}
END_TEST

START_TEST(test_remove_ends_once)
{
	struct session_store	*store = session_store_new(8, 1000, test_on_end, NULL);
	struct session		*a = session_store_create(store, SESSION_STREAMABLE, 0);
	char			 id[SESSION_ID_LENGTH + 1];

	memcpy(id, a->id, sizeof id);
	session_store_remove(store, a);
	ck_assert_int_eq(ended, 1);
	ck_assert_str_eq(last_ended, id);
	ck_assert_ptr_null(session_store_find(store, id, 0));
	ck_assert_uint_eq(session_store_count(store), 0);
	session_store_free(store);
	ck_assert_int_eq(ended, 1);
}
END_TEST

START_TEST(test_idle_sessions_expire)
{
	struct session_store	*store = session_store_new(8, 1000, test_on_end, NULL);
	struct session		*old = session_store_create(store, SESSION_STREAMABLE, 0);
	struct session		*fresh = session_store_create(store, SESSION_STREAMABLE, 900);
	char			 id[SESSION_ID_LENGTH + 1];

	memcpy(id, old->id, sizeof id);
	ck_assert_uint_eq(session_store_expire(store, 1000), 0);
	ck_assert_uint_eq(session_store_expire(store, 1001), 1);
	ck_assert_str_eq(last_ended, id);
	ck_assert_ptr_eq(session_store_find(store, fresh->id, 1500), fresh);
	session_store_free(store);
}
END_TEST

START_TEST(test_busy_sessions_do_not_expire)
{
	struct session_store	*store = session_store_new(8, 1000, test_on_end, NULL);
	struct session		*streaming = session_store_create(store, SESSION_LEGACY_SSE, 0);
	struct session		*calling = session_store_create(store, SESSION_STREAMABLE, 0);

	streaming->stream = (struct sse_stream *)1;	/* only compared with NULL */
	calling->call_count = 1;
	ck_assert_uint_eq(session_store_expire(store, 50000), 0);
	ck_assert_ptr_eq(session_store_find(store, calling->id, 50000), calling);
	streaming->stream = NULL;
	calling->call_count = 0;
	ck_assert_uint_eq(session_store_expire(store, 50000), 1);	/* streaming */
	session_store_free(store);
}
END_TEST

START_TEST(test_find_of_expired_session_fails)
{
	struct session_store	*store = session_store_new(8, 1000, test_on_end, NULL);
	struct session		*a = session_store_create(store, SESSION_STREAMABLE, 0);
	char			 id[SESSION_ID_LENGTH + 1];

	memcpy(id, a->id, sizeof id);
	ck_assert_ptr_null(session_store_find(store, id, 5000));
	ck_assert_int_eq(ended, 1);
	session_store_free(store);
}
END_TEST

START_TEST(test_full_store_evicts_least_recently_used_idle)
{
	struct session_store	*store = session_store_new(3, 100000, test_on_end, NULL);
	struct session		*a = session_store_create(store, SESSION_STREAMABLE, 0);
	struct session		*b = session_store_create(store, SESSION_STREAMABLE, 1);
	struct session		*c = session_store_create(store, SESSION_STREAMABLE, 2);
	char			 b_id[SESSION_ID_LENGTH + 1];

	memcpy(b_id, b->id, sizeof b_id);
	ck_assert_ptr_eq(session_store_find(store, a->id, 3), a);	/* a is recent */
	ck_assert_ptr_nonnull(session_store_create(store, SESSION_STREAMABLE, 4));
	ck_assert_str_eq(last_ended, b_id);
	ck_assert_uint_eq(session_store_count(store), 3);
	ck_assert_ptr_eq(session_store_find(store, c->id, 5), c);
	session_store_free(store);
}
END_TEST

START_TEST(test_full_store_of_busy_sessions_refuses)
{
	struct session_store	*store = session_store_new(2, 100000, test_on_end, NULL);
	struct session		*a = session_store_create(store, SESSION_STREAMABLE, 0);
	struct session		*b = session_store_create(store, SESSION_STREAMABLE, 0);

	a->call_count = 1;
	b->call_count = 1;
	ck_assert_ptr_null(session_store_create(store, SESSION_STREAMABLE, 1));
	ck_assert_int_eq(ended, 0);
	a->call_count = b->call_count = 0;
	session_store_free(store);
}
END_TEST

/* The session suite. */
static Suite *
session_suite(void)
{
	Suite	*s = suite_create("session");
	TCase	*tc;

	tc = tcase_create("lookup");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_ids_are_random_hex_and_distinct);
	tcase_add_test(tc, test_find_known_and_unknown);
	tcase_add_test(tc, test_clients_named_and_listed_most_recent_first);
	tcase_add_test(tc, test_signed_ids_resume_after_restart);
	tcase_add_test(tc, test_callers_are_per_session_and_per_token);
	tcase_add_test(tc, test_remove_ends_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("expiry");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_idle_sessions_expire);
	tcase_add_test(tc, test_busy_sessions_do_not_expire);
	tcase_add_test(tc, test_find_of_expired_session_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("caps");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_full_store_evicts_least_recently_used_idle);
	tcase_add_test(tc, test_full_store_of_busy_sessions_refuses);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_run_suite(session_suite());
}
