/*
 * Tests for the OAuth pieces that need no socket: scopes, loopback URIs,
 * PKCE, registration, the store and its file, the token endpoint and the
 * check of access tokens, with times given by hand.
 */
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>

#include "check-helpers.h"
#include "clock.h"
#include "oauth-authorize.h"
#include "oauth-metadata.h"
#include "oauth-name.h"
#include "oauth-register.h"
#include "oauth-scope.h"
#include "oauth-store.h"
#include "oauth-token.h"
#include "oauth-uri.h"
#include "session.h"
#include "xmalloc.h"

#define PORT		9333
#define OTHER_PORT	9334
#define T0		1764100000000ull	/* a wall-clock time */

/* A verifier and its S256 challenge, computed apart (Python hashlib). */
#define VERIFIER	"dBjftJeZ4CVP-mJ92K9nAnyiA2k6ygzNGbHfhRmRsPU"
#define CHALLENGE	"PUPUhpgbxqvtabprKZ8zLpxWj2YL6h4vfA4E10Ytx4Y"
#define REDIRECT	"http://127.0.0.1:41000/callback"

START_TEST(test_scope_parse_and_format)
{
	unsigned	 scopes;
	char		*cause = NULL, *text;
	json_t		*array;

	ck_assert_int_eq(oauth_scope_parse("tasks  pages:read", &scopes, &cause),
	    0);
	ck_assert_uint_eq(scopes, OAUTH_SCOPE_TASKS|OAUTH_SCOPE_PAGES_READ);
	text = oauth_scope_format(scopes);
	ck_assert_str_eq(text, "pages:read tasks");
	free(text);
	ck_assert_int_eq(oauth_scope_parse("pages:read admin", &scopes,
	    &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "unknown scope \"admin\""));
	free(cause);
	ck_assert_int_eq(oauth_scope_parse("", &scopes, &cause), 0);
	ck_assert_uint_eq(scopes, 0);
	array = oauth_scope_array(OAUTH_SCOPE_DEFAULT);
	ck_assert_int_eq(oauth_scope_from_array(array, &scopes), 0);
	ck_assert_uint_eq(scopes, OAUTH_SCOPE_DEFAULT);
	json_decref(array);
	array = check_json("[\"pages:read\",\"root\"]");
	ck_assert_int_eq(oauth_scope_from_array(array, &scopes), -1);
	json_decref(array);
}
END_TEST

START_TEST(test_uri_loopback_only)
{
	static const char *const good[] = { "http://127.0.0.1:1/cb",
	    "http://[::1]/", "http://localhost:65535/a?b=c", "HTTP://LOCALHOST",
	    "http://127.0.0.1/cb?q=a%20b%2F%25" };
	static const char *const bad[] = { "https://127.0.0.1/cb",
	    "http://127.0.0.1.evil.test/cb", "http://user@127.0.0.1/cb",
	    "http://127.0.0.1:0/cb", "http://127.0.0.1:65536/cb",
	    "http://127.0.0.1:/cb", "http://127.0.0.1/cb#frag",
	    "http://127.0.0.2/cb", "http://localhostx/", "app:/cb",
	    /* fuzz-oauth: a port of many digits overflowed a long */
	    "http://127.0.0.1:44444444444444444444444444444444444505/cb",
	    "http://127.0.0.1:009333/cb",
	    /* #35: a header or a second line smuggled in */
	    "http://127.0.0.1/cb\r\nX-Injected: 1", "http://127.0.0.1/cb\r\n X",
	    "http://127.0.0.1/c b", "http://127.0.0.1/cb\t",
	    "http://127.0.0.1/cb%0d%0aX-Injected:%201", "http://127.0.0.1/cb%0A",
	    "http://127.0.0.1/cb?x=%00", "http://127.0.0.1/cb%7F",
	    "http://127.0.0.1/cb\xc2\x9b", "http://127.0.0.1/cb\x7f" };
	struct oauth_uri	 parsed;
	size_t			 i;

	for (i = 0; i < sizeof good / sizeof *good; i++)
		ck_assert_msg(oauth_uri_loopback(good[i], &parsed) == 0, "%s",
		    good[i]);
	for (i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(oauth_uri_loopback(bad[i], &parsed) == -1, "%s",
		    bad[i]);
	ck_assert(oauth_uri_same_but_port("http://127.0.0.1:1/cb",
	    "http://127.0.0.1:52000/cb"));
	ck_assert(oauth_uri_same_but_port("http://127.0.0.1/cb",
	    "http://127.0.0.1:52000/cb"));
	ck_assert(!oauth_uri_same_but_port("http://127.0.0.1:1/cb",
	    "http://localhost:1/cb"));
	ck_assert(!oauth_uri_same_but_port("http://127.0.0.1:1/cb",
	    "http://127.0.0.1:1/cb2"));
	ck_assert(oauth_metadata_resource_ours("http://localhost:9333/mcp",
	    PORT));
	ck_assert(!oauth_metadata_resource_ours("http://127.0.0.1:9334/mcp",
	    PORT));
	ck_assert(!oauth_metadata_resource_ours("http://127.0.0.1:9333/sse",
	    PORT));
}
END_TEST

/* Names are shown with no control or format character, and capped. */
START_TEST(test_name_shown_safely)
{
	char	*long_name = xmalloc(501), *shown;

	shown = oauth_name_shown("Evil\a\x1b[31m \xc2\x9b" "2J \xe2\x80\xae"
	    "edoC\xe2\x80\xac \xe2\x80\x8b\xe2\x80\xa8x\xef\xbb\xbf");
	ck_assert_str_eq(shown, "Evil\xef\xbf\xbd\xef\xbf\xbd[31m "
	    "\xef\xbf\xbd" "2J \xef\xbf\xbd" "edoC\xef\xbf\xbd "
	    "\xef\xbf\xbd\xef\xbf\xbdx\xef\xbf\xbd");
	free(shown);
	/* Letters of other scripts stay as they are. */
	shown = oauth_name_shown("Claude \xc3\xa9t\xc3\xa9 \xe6\x97\xa5");
	ck_assert_str_eq(shown, "Claude \xc3\xa9t\xc3\xa9 \xe6\x97\xa5");
	free(shown);
	memset(long_name, 'x', 500);
	long_name[0] = '\x1b';
	long_name[500] = '\0';
	shown = oauth_name_shown(long_name);
	ck_assert_uint_eq(strlen(shown), 3 + OAUTH_NAME_SHOWN_MAX - 1);
	free(shown);
	/* Kept as sent, but 400 characters at most. */
	shown = oauth_name_stored(long_name);
	ck_assert_uint_eq(strlen(shown), OAUTH_NAME_STORED_MAX);
	ck_assert_int_eq(shown[0], '\x1b');
	free(shown);
	free(long_name);
}
END_TEST

/* Look-alike names: case, spaces, invisible characters, 0/o, 1/l/i. */
START_TEST(test_name_resemblance)
{
	static const char *const alike[] = { "Claude Code", "claude code",
	    "CLAUDE  CODE", "ClaudeCode", "C1aude C0de", "CIaude Code",
	    "Claude\xe2\x80\x8b Code", "Claude\xc2\xa0" "Code",
	    "\xef\xbc\xa3laude Code", "Claude Code\xe2\x80\xae" };
	static const char *const other[] = { "Claude Coder", "Claude",
	    "Claude Cod", "Clavde Code", "" };
	size_t	i;

	for (i = 0; i < sizeof alike / sizeof *alike; i++)
		ck_assert_msg(oauth_name_resembles("Claude Code", alike[i]),
		    "%s", alike[i]);
	for (i = 0; i < sizeof other / sizeof *other; i++)
		ck_assert_msg(!oauth_name_resembles("Claude Code", other[i]),
		    "%s", other[i]);
	/* No name resembles no name: there is nothing to pass for. */
	ck_assert(!oauth_name_resembles("", " \xe2\x80\x8b"));
}
END_TEST

START_TEST(test_pkce_s256)
{
	ck_assert(oauth_token_pkce_valid(VERIFIER, CHALLENGE));
	ck_assert(!oauth_token_pkce_valid(VERIFIER "x", CHALLENGE));
	ck_assert(!oauth_token_pkce_valid(CHALLENGE, CHALLENGE));	/* plain */
	ck_assert(!oauth_token_pkce_valid("short", CHALLENGE));
	ck_assert(!oauth_token_pkce_valid(NULL, CHALLENGE));
}
END_TEST

/* Registers a client with the one redirect URI; approves it if asked. */
static struct oauth_client *
registered(struct oauth_store *store, bool approve)
{
	json_t			*request, *reply;
	struct oauth_client	*client;
	int			 status;

	request = check_json("{\"client_name\":\"Test\",\"redirect_uris\":"
	    "[\"" REDIRECT "\"]}");
	reply = oauth_register(store, request, T0, &status);
	ck_assert_int_eq(status, 201);
	client = oauth_store_client(store, json_string_value(json_object_get(
	    reply, "client_id")));
	ck_assert_ptr_nonnull(client);
	if (approve)
		oauth_store_approve(client, OAUTH_SCOPE_DEFAULT,
		    "127.0.0.1:41000", T0);
	json_decref(request);
	json_decref(reply);
	return client;
}

/* Issues a code for a client, as /authorize does once approved. */
static char *
issue_code(struct oauth_store *store, const struct oauth_client *client,
    uint64_t at)
{
	struct oauth_token	fields;
	char			resource[] = "http://127.0.0.1:9333/mcp";
	char			redirect[] = REDIRECT, challenge[] = CHALLENGE;

	memset(&fields, 0, sizeof fields);
	fields.kind = OAUTH_CODE;
	memcpy(fields.client_id, client->client_id, sizeof fields.client_id);
	oauth_store_new_family(fields.family);
	fields.scopes = OAUTH_SCOPE_DEFAULT;
	fields.resource = resource;
	fields.issued_ms = at;
	fields.redirect_uri = redirect;
	fields.challenge = challenge;
	return oauth_store_issue(store, &fields, OAUTH_CODE_TTL_MS);
}

/* POSTs /token's fields ("k=v" pairs, NULL-ended) at a time. */
static json_t *
token_call(struct oauth_store *store, uint64_t at, int *status, ...)
{
	json_t		*form = json_object(), *reply;
	const char	*key, *value;
	va_list		 ap;

	va_start(ap, status);
	while ((key = va_arg(ap, const char *)) != NULL) {
		value = va_arg(ap, const char *);
		json_object_set_new(form, key, json_string(value));
	}
	va_end(ap);
	reply = oauth_token_exchange(store, form, PORT, at, status);
	json_decref(form);
	return reply;
}

/* Redeems a code as the client that holds the verifier, at a time. */
static json_t *
redeem(struct oauth_store *store, const struct oauth_client *client,
    const char *code, uint64_t at, int *status)
{
	return token_call(store, at, status, "grant_type", "authorization_code",
	    "client_id", client->client_id, "code", code, "code_verifier",
	    VERIFIER, "redirect_uri", REDIRECT, NULL);
}

/* Asserts an OAuth error body and frees it. */
static void
expect_error(json_t *reply, const char *error)
{
	ck_assert_msg(json_is_string(json_object_get(reply, "error")),
	    "no error in %s", json_dumps(reply, 0));
	ck_assert_str_eq(json_string_value(json_object_get(reply, "error")),
	    error);
	json_decref(reply);
}

START_TEST(test_code_expires_and_serves_once)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_client	*client = registered(store, true);
	char			*code = issue_code(store, client, T0);
	json_t			*reply;
	int			 status;

	/* 61 seconds later the code is gone. */
	reply = redeem(store, client, code, T0 + OAUTH_CODE_TTL_MS + 1000,
	    &status);
	ck_assert_int_eq(status, 400);
	expect_error(reply, "invalid_grant");
	free(code);

	code = issue_code(store, client, T0);
	reply = token_call(store, T0 + 1000, &status, "grant_type",
	    "authorization_code", "client_id", client->client_id, "code", code,
	    "code_verifier", VERIFIER, "redirect_uri", REDIRECT, "resource",
	    "http://127.0.0.1:9333/mcp", NULL);
	ck_assert_int_eq(status, 200);
	ck_assert_str_eq(json_string_value(json_object_get(reply, "scope")),
	    "pages:read pages:act tasks");
	ck_assert_int_eq(json_integer_value(json_object_get(reply,
	    "expires_in")), 3600);
	json_decref(reply);
	reply = redeem(store, client, code, T0 + 2000, &status);
	expect_error(reply, "invalid_grant");
	free(code);
	oauth_store_free(store);
}
END_TEST

/*
 * Only a request that passes every check spends a code: another client's
 * try, a wrong verifier or another redirect URI leave it to its client;
 * a spent code coming back from anyone ends the grant it gave.
 */
START_TEST(test_code_spent_only_by_a_request_that_passes)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_client	*client = registered(store, true);
	struct oauth_client	*other = registered(store, true);
	struct session_grant	 grant;
	char			*code = issue_code(store, client, T0);
	char			*access;
	json_t			*reply;
	int			 status;
	bool			 touched;

	reply = redeem(store, other, code, T0, &status);
	expect_error(reply, "invalid_grant");
	reply = token_call(store, T0, &status, "grant_type",
	    "authorization_code", "client_id", client->client_id, "code", code,
	    "code_verifier", VERIFIER "x", "redirect_uri", REDIRECT, NULL);
	expect_error(reply, "invalid_grant");
	reply = token_call(store, T0, &status, "grant_type",
	    "authorization_code", "client_id", client->client_id, "code", code,
	    "code_verifier", VERIFIER, "redirect_uri",
	    "http://127.0.0.1:41000/elsewhere", NULL);
	expect_error(reply, "invalid_grant");
	reply = redeem(store, client, code, T0, &status);
	ck_assert_int_eq(status, 200);
	access = xstrdup(json_string_value(json_object_get(reply,
	    "access_token")));
	json_decref(reply);
	ck_assert_int_eq(oauth_token_verify(store, access, PORT, T0, &grant,
	    &touched), 0);
	/* The spent code replayed, even by another client: the grant ends. */
	reply = redeem(store, other, code, T0, &status);
	expect_error(reply, "invalid_grant");
	ck_assert_int_eq(oauth_token_verify(store, access, PORT, T0, &grant,
	    &touched), -1);
	free(access);
	free(code);
	oauth_store_free(store);
}
END_TEST

START_TEST(test_access_token_expires_and_is_bound)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_client	*client = registered(store, true);
	struct session_grant	 grant;
	char			*code = issue_code(store, client, T0);
	const char		*access;
	json_t			*reply;
	int			 status;
	bool			 touched;

	reply = redeem(store, client, code, T0, &status);
	ck_assert_int_eq(status, 200);
	access = json_string_value(json_object_get(reply, "access_token"));
	ck_assert_int_eq(oauth_token_verify(store, access, PORT, T0 + 1000,
	    &grant, &touched), 0);
	ck_assert_str_eq(grant.client_id, client->client_id);
	ck_assert(!grant.owner);
	ck_assert_uint_eq(grant.scopes, OAUTH_SCOPE_DEFAULT);
	ck_assert(touched);
	ck_assert_uint_eq(client->last_used_ms, T0 + 1000 - (T0 + 1000) %
	    60000);
	/* Within the same minute, the file need not change. */
	ck_assert_int_eq(oauth_token_verify(store, access, PORT, T0 + 2000,
	    &grant, &touched), 0);
	ck_assert(!touched);
	/* Another host (port) is another resource. */
	ck_assert_int_eq(oauth_token_verify(store, access, OTHER_PORT,
	    T0 + 1000, &grant, &touched), -1);
	/* An hour later it opens nothing. */
	ck_assert_int_eq(oauth_token_verify(store, access, PORT,
	    T0 + OAUTH_ACCESS_TTL_MS, &grant, &touched), -1);
	ck_assert_int_eq(oauth_token_verify(store, "bba_nothing", PORT, T0,
	    &grant, &touched), -1);
	/* Revoked, it opens nothing either. */
	ck_assert(oauth_store_revoke(store, client->client_id));
	ck_assert_int_eq(oauth_token_verify(store, access, PORT, T0 + 1000,
	    &grant, &touched), -1);
	json_decref(reply);
	free(code);
	oauth_store_free(store);
}
END_TEST

START_TEST(test_refresh_rotates_and_reuse_ends_the_family)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_client	*client = registered(store, true);
	struct session_grant	 grant;
	char			*code = issue_code(store, client, T0);
	char			*first, *second;
	json_t			*reply;
	int			 status;
	bool			 touched;

	reply = redeem(store, client, code, T0, &status);
	first = strdup(json_string_value(json_object_get(reply,
	    "refresh_token")));
	json_decref(reply);
	reply = token_call(store, T0 + 1000, &status, "grant_type",
	    "refresh_token", "client_id", client->client_id, "refresh_token",
	    first, "scope", "pages:read", NULL);
	ck_assert_int_eq(status, 200);
	ck_assert_str_eq(json_string_value(json_object_get(reply, "scope")),
	    "pages:read");
	second = strdup(json_string_value(json_object_get(reply,
	    "access_token")));
	json_decref(reply);
	ck_assert_int_eq(oauth_token_verify(store, second, PORT, T0 + 2000,
	    &grant, &touched), 0);
	ck_assert_uint_eq(grant.scopes, OAUTH_SCOPE_PAGES_READ);
	reply = token_call(store, T0 + 3000, &status, "grant_type",
	    "refresh_token", "client_id", client->client_id, "refresh_token",
	    first, NULL);
	expect_error(reply, "invalid_grant");
	ck_assert_int_eq(oauth_token_verify(store, second, PORT, T0 + 4000,
	    &grant, &touched), -1);
	free(first);
	free(second);
	free(code);
	oauth_store_free(store);
}
END_TEST

START_TEST(test_new_approval_narrows_older_grants)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	json_t			*reply, *refreshed;
	const char		*access;
	int			 status;
	bool			 touched;
	struct session_grant	 grant;
	struct oauth_client	*client = registered(store, true);
	char			*code = issue_code(store, client, T0);

	reply = redeem(store, client, code, T0, &status);
	ck_assert_int_eq(status, 200);
	access = json_string_value(json_object_get(reply, "access_token"));
	/* The person approves the client again, unticking all but reading. */
	oauth_store_approve(client, OAUTH_SCOPE_PAGES_READ, "127.0.0.1:41000",
	    T0 + 1000);
	ck_assert_int_eq(oauth_token_verify(store, access, PORT, T0 + 2000,
	    &grant, &touched), 0);
	ck_assert_uint_eq(grant.scopes, OAUTH_SCOPE_PAGES_READ);
	refreshed = token_call(store, T0 + 3000, &status, "grant_type",
	    "refresh_token", "client_id", client->client_id, "refresh_token",
	    json_string_value(json_object_get(reply, "refresh_token")), NULL);
	ck_assert_int_eq(status, 200);
	ck_assert_str_eq(json_string_value(json_object_get(refreshed, "scope")),
	    "pages:read");
	json_decref(refreshed);
	json_decref(reply);
	free(code);
	oauth_store_free(store);
}
END_TEST

START_TEST(test_unapproved_client_gets_no_tokens)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_client	*client = registered(store, false);
	char			*code = issue_code(store, client, T0);
	json_t			*reply;
	int			 status;

	reply = redeem(store, client, code, T0, &status);
	expect_error(reply, "invalid_grant");
	free(code);
	oauth_store_free(store);
}
END_TEST

START_TEST(test_register_caps_approved_clients)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	json_t			*request, *reply;
	int			 i, status;

	for (i = 0; i < OAUTH_CLIENTS_MAX; i++)
		(void)registered(store, true);
	request = check_json("{\"redirect_uris\":[\"" REDIRECT "\"]}");
	reply = oauth_register(store, request, T0, &status);
	ck_assert_int_eq(status, 400);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(reply,
	    "error_description")), "revoke one"));
	json_decref(reply);
	json_decref(request);
	oauth_store_free(store);
}
END_TEST

/* A client keeps its latest OAUTH_FAMILIES_MAX approvals; older ones end. */
START_TEST(test_client_keeps_its_latest_approvals)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_client	*client = registered(store, true);
	struct oauth_client	*other = registered(store, true);
	struct session_grant	 grant;
	char			*access[OAUTH_FAMILIES_MAX + 1], *code, *kept;
	json_t			*reply;
	int			 i, status;
	bool			 touched;

	code = issue_code(store, other, T0);
	reply = redeem(store, other, code, T0, &status);
	kept = strdup(json_string_value(json_object_get(reply,
	    "access_token")));
	json_decref(reply);
	free(code);
	for (i = 0; i <= OAUTH_FAMILIES_MAX; i++) {
		code = issue_code(store, client, T0);
		reply = redeem(store, client, code, T0, &status);
		ck_assert_int_eq(status, 200);
		access[i] = strdup(json_string_value(json_object_get(reply,
		    "access_token")));
		json_decref(reply);
		free(code);
	}
	ck_assert_int_eq(oauth_token_verify(store, access[0], PORT, T0,
	    &grant, &touched), -1);	/* the oldest approval ended */
	for (i = 1; i <= OAUTH_FAMILIES_MAX; i++)
		ck_assert_int_eq(oauth_token_verify(store, access[i], PORT, T0,
		    &grant, &touched), 0);
	ck_assert_int_eq(oauth_token_verify(store, kept, PORT, T0, &grant,
	    &touched), 0);	/* another client's is untouched */
	for (i = 0; i <= OAUTH_FAMILIES_MAX; i++)
		free(access[i]);
	free(kept);
	oauth_store_free(store);
}
END_TEST

START_TEST(test_rotation_keeps_other_clients_grants)
{
	struct oauth_store	*store = oauth_store_open(NULL, NULL);
	struct oauth_client	*a = registered(store, true);
	struct oauth_client	*b = registered(store, true);
	char			*code, *refresh;
	json_t			*reply;
	int			 i, status;

	/* B is approved once and keeps its refresh token for later. */
	code = issue_code(store, b, T0);
	reply = redeem(store, b, code, T0, &status);
	ck_assert_int_eq(status, 200);
	free(code);
	refresh = strdup(json_string_value(json_object_get(reply,
	    "refresh_token")));
	json_decref(reply);
	/* A refreshes hourly for weeks: every rotation leaves a used token. */
	code = issue_code(store, a, T0);
	reply = redeem(store, a, code, T0, &status);
	free(code);
	for (i = 1; i <= 600; i++) {
		code = strdup(json_string_value(json_object_get(reply,
		    "refresh_token")));
		json_decref(reply);
		reply = token_call(store, T0 + (uint64_t)i * 1000, &status,
		    "grant_type", "refresh_token", "client_id", a->client_id,
		    "refresh_token", code, NULL);
		ck_assert_int_eq(status, 200);
		free(code);
	}
	json_decref(reply);
	/* B's live grant survived A's used tokens. */
	reply = token_call(store, T0 + 700000, &status, "grant_type",
	    "refresh_token", "client_id", b->client_id, "refresh_token",
	    refresh, NULL);
	ck_assert_msg(status == 200, "B lost its grant: %s",
	    json_string_value(json_object_get(reply, "error_description")));
	json_decref(reply);
	free(refresh);
	oauth_store_free(store);
}
END_TEST

/* Removes a store's lock file, path.lock. */
static void
remove_lock(const char *path)
{
	char	*lock;

	ck_assert_int_ne(asprintf(&lock, "%s.lock", path), -1);
	unlink(lock);
	free(lock);
}

START_TEST(test_store_file_private_and_round_trips)
{
	char			 dir[] = "/tmp/check-oauth-XXXXXX", *path;
	struct oauth_store	*store;
	struct oauth_client	*client;
	struct session_grant	 grant;
	struct stat		 sb;
	char			*cause = NULL, *code, id[OAUTH_CLIENT_ID_LENGTH + 1];
	json_t			*reply;
	const char		*access;
	int			 status;
	bool			 touched;
	FILE			*f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ne(asprintf(&path, "%s/clients.json", dir), -1);
	store = oauth_store_open(path, &cause);
	ck_assert_msg(store != NULL, "%s", cause);
	ck_assert_int_eq(oauth_store_begin(store, &cause), 0);
	client = registered(store, true);
	memcpy(id, client->client_id, sizeof id);
	code = issue_code(store, client, T0);
	reply = redeem(store, client, code, T0, &status);
	ck_assert_int_eq(oauth_store_end(store, true, &cause), 0);
	oauth_store_free(store);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);

	store = oauth_store_open(path, &cause);
	ck_assert_msg(store != NULL, "%s", cause);
	access = json_string_value(json_object_get(reply, "access_token"));
	ck_assert_int_eq(oauth_token_verify(store, access, PORT, T0 + 1000,
	    &grant, &touched), 0);
	ck_assert_str_eq(grant.client_id, id);
	oauth_store_free(store);

	/* Open to others, or not JSON: refused, saying what to do. */
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_ptr_null(oauth_store_open(path, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "chmod 600"));
	free(cause);
	cause = NULL;
	f = fopen(path, "w");
	fputs("{\"version\":1,\"clients\":[{\"client_id\":3}]}", f);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_ptr_null(oauth_store_open(path, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "delete it"));
	free(cause);

	json_decref(reply);
	free(code);
	unlink(path);
	remove_lock(path);
	rmdir(dir);
	free(path);
}
END_TEST

/* Begins a change of a store on a file, as a host does. */
static void
begin(struct oauth_store *store)
{
	char	*cause = NULL;

	ck_assert_msg(oauth_store_begin(store, &cause) == 0, "%s", cause);
}

/* Ends it, saving. */
static void
end(struct oauth_store *store)
{
	char	*cause = NULL;

	ck_assert_msg(oauth_store_end(store, true, &cause) == 0, "%s", cause);
}

/*
 * Two hosts on one clients.json: what one revokes or rotates stays so
 * when the other, which read the file before, saves a change of its own.
 */
START_TEST(test_two_hosts_share_the_file)
{
	char			 dir[] = "/tmp/check-oauth-XXXXXX", *path;
	struct oauth_store	*a, *b, *again;
	struct oauth_client	*client;
	struct session_grant	 grant;
	char			*cause = NULL, *code, *rotated, *access;
	char			 id[OAUTH_CLIENT_ID_LENGTH + 1];
	json_t			*reply, *list;
	int			 status;
	bool			 touched;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ne(asprintf(&path, "%s/clients.json", dir), -1);
	a = oauth_store_open(path, &cause);
	ck_assert_msg(a != NULL, "%s", cause);
	begin(a);
	client = registered(a, true);
	memcpy(id, client->client_id, sizeof id);
	code = issue_code(a, client, T0);
	reply = redeem(a, client, code, T0, &status);
	access = strdup(json_string_value(json_object_get(reply,
	    "access_token")));
	rotated = strdup(json_string_value(json_object_get(reply,
	    "refresh_token")));
	json_decref(reply);
	free(code);
	end(a);
	b = oauth_store_open(path, &cause);
	ck_assert_msg(b != NULL, "%s", cause);

	/* A rotates the refresh token; B saves a change: it stays used. */
	begin(a);
	reply = token_call(a, T0 + 1000, &status, "grant_type",
	    "refresh_token", "client_id", id, "refresh_token", rotated, NULL);
	ck_assert_int_eq(status, 200);
	json_decref(reply);
	end(a);
	begin(b);
	ck_assert_ptr_nonnull(registered(b, false));
	end(b);
	again = oauth_store_open(path, &cause);
	ck_assert_msg(again != NULL, "%s", cause);
	reply = token_call(again, T0 + 2000, &status, "grant_type",
	    "refresh_token", "client_id", id, "refresh_token", rotated, NULL);
	expect_error(reply, "invalid_grant");
	oauth_store_free(again);

	/* A revokes the client; B saves a change: it stays revoked. */
	begin(a);
	ck_assert(oauth_store_revoke(a, id));
	end(a);
	begin(b);
	ck_assert_int_eq(oauth_token_verify(b, access, PORT, T0 + 3000,
	    &grant, &touched), -1);	/* B sees the revocation at once */
	ck_assert_ptr_nonnull(registered(b, false));
	end(b);
	again = oauth_store_open(path, &cause);
	ck_assert_msg(again != NULL, "%s", cause);
	ck_assert_ptr_null(oauth_store_client(again, id));
	ck_assert_int_eq(oauth_token_verify(again, access, PORT, T0 + 3000,
	    &grant, &touched), -1);
	list = oauth_store_list(again);
	ck_assert_uint_eq(json_array_size(list), 0);
	json_decref(list);
	oauth_store_free(again);

	oauth_store_free(a);
	oauth_store_free(b);
	free(access);
	free(rotated);
	unlink(path);
	remove_lock(path);
	rmdir(dir);
	free(path);
}
END_TEST

/* A failed /token request leaves the file as it was: not rewritten. */
START_TEST(test_failed_token_request_does_not_write)
{
	char			 dir[] = "/tmp/check-oauth-XXXXXX", *path;
	struct oauth_store	*store;
	struct oauth_client	*client;
	struct stat		 before, after;
	char			*cause = NULL;
	json_t			*reply;
	int			 status;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ne(asprintf(&path, "%s/clients.json", dir), -1);
	store = oauth_store_open(path, &cause);
	ck_assert_msg(store != NULL, "%s", cause);
	begin(store);
	client = registered(store, true);
	end(store);
	ck_assert_int_eq(stat(path, &before), 0);
	begin(store);
	reply = token_call(store, T0, &status, "grant_type",
	    "authorization_code", "client_id", client->client_id, "code",
	    "bbc_unknown", "code_verifier", VERIFIER, "redirect_uri", REDIRECT,
	    NULL);
	expect_error(reply, "invalid_grant");
	end(store);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	oauth_store_free(store);
	unlink(path);
	remove_lock(path);
	rmdir(dir);
	free(path);
}
END_TEST

START_TEST(test_challenge_names_metadata_and_scopes)
{
	char	*value = oauth_metadata_challenge(PORT, "insufficient_scope",
		    OAUTH_SCOPE_PAGES_READ|OAUTH_SCOPE_SCRIPTS);

	ck_assert_str_eq(value, "Bearer error=\"insufficient_scope\", "
	    "resource_metadata=\"http://127.0.0.1:9333/.well-known/"
	    "oauth-protected-resource/mcp\", scope=\"pages:read scripts\"");
	free(value);
}
END_TEST

/* What the tests' approver was asked, and how to answer it. */
struct asked {
	json_t			*params;
	int			 timeout_ms;
	oauth_approval_cb	 done;
	void			*done_arg;
};

/* Keeps an approve_client request instead of sending it. */
static uint64_t
asked_keep(void *arg, json_t *params, int timeout_ms, oauth_approval_cb done,
    void *done_arg)
{
	struct asked	*asked = arg;

	asked->params = params;
	asked->timeout_ms = timeout_ms;
	asked->done = done;
	asked->done_arg = done_arg;
	return 1;
}

/* Cancels nothing: the tests answer or time out by hand. */
static void
asked_cancel(void *arg, uint64_t id)
{
}

/* The time T0, for the authorization's clock. */
static uint64_t
at_t0(void *arg)
{
	return T0;
}

START_TEST(test_unanswered_approval_expires_as_access_denied)
{
	struct oauth_store		*store = oauth_store_open(NULL, NULL);
	struct oauth_client		*client = registered(store, false);
	struct asked			 asked = { 0 };
	struct oauth_approver		 approver = { asked_keep, asked_cancel,
					    &asked };
	struct clock			 wall = { at_t0, NULL };
	struct oauth_authorize		*authorize;
	struct oauth_authorize_answer	 answer;
	json_t				*query;

	authorize = oauth_authorize_new(store, &approver, PORT, &wall, NULL);
	query = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "response_type",
	    "code", "client_id", client->client_id, "redirect_uri", REDIRECT,
	    "code_challenge", CHALLENGE, "code_challenge_method", "S256",
	    "state", "s1", "resource", "http://127.0.0.1:9333/mcp");
	oauth_authorize_request(authorize, query, &answer);
	ck_assert_int_eq(answer.status, 200);
	free(answer.html);
	json_decref(query);
	/* The person has five minutes; then the call times out. */
	ck_assert_int_eq(asked.timeout_ms, OAUTH_APPROVAL_MS);
	ck_assert_int_eq(OAUTH_APPROVAL_MS, 5 * 60 * 1000);
	ck_assert_ptr_nonnull(asked.done);
	asked.done(NULL, "TIMEOUT", "the extension did not answer in time",
	    asked.done_arg);
	query = json_pack("{s:s}", "request_id", json_string_value(
	    json_object_get(asked.params, "request_id")));
	oauth_authorize_request(authorize, query, &answer);
	ck_assert_int_eq(answer.status, 302);
	ck_assert_ptr_nonnull(strstr(answer.location, "error=access_denied"));
	ck_assert_ptr_nonnull(strstr(answer.location, "state=s1"));
	ck_assert_ptr_null(strstr(answer.location, "code="));
	free(answer.location);
	free(answer.html);
	json_decref(query);
	json_decref(asked.params);
	oauth_authorize_free(authorize);
	oauth_store_free(store);
}
END_TEST

/* Registers a client under a name at a time; returns it. */
static struct oauth_client *
registered_as(struct oauth_store *store, const char *name, uint64_t at)
{
	json_t			*request, *reply;
	struct oauth_client	*client;
	int			 status;

	request = json_pack("{s:s,s:[s]}", "client_name", name,
	    "redirect_uris", REDIRECT);
	reply = oauth_register(store, request, at, &status);
	ck_assert_int_eq(status, 201);
	/* Kept and answered as sent. */
	ck_assert_str_eq(json_string_value(json_object_get(reply,
	    "client_name")), name);
	client = oauth_store_client(store, json_string_value(json_object_get(
	    reply, "client_id")));
	json_decref(request);
	json_decref(reply);
	return client;
}

/*
 * What the person is shown of a client's name: approve_client's name and
 * list_clients' with no control or format character, and a request of a
 * client whose name resembles an approved one's marked with that one.
 */
START_TEST(test_names_shown_safely_and_namesakes_marked)
{
	struct oauth_store		*store = oauth_store_open(NULL, NULL);
	struct oauth_client		*real, *copy;
	struct asked			 asked = { 0 };
	struct oauth_approver		 approver = { asked_keep, asked_cancel,
					    &asked };
	struct clock			 wall = { at_t0, NULL };
	struct oauth_authorize		*authorize;
	struct oauth_authorize_answer	 answer;
	const json_t			*taken;
	json_t				*query, *list;

	real = registered_as(store, "Claude \xe2\x80\xae" "Code", T0 - 5000);
	oauth_store_approve(real, OAUTH_SCOPE_DEFAULT, "127.0.0.1:41000",
	    T0 - 4000);
	copy = registered_as(store, "claude\xc2\x9b code", T0);
	list = oauth_store_list(store);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list,
	    0), "client_name")), "Claude \xef\xbf\xbd" "Code");
	json_decref(list);

	authorize = oauth_authorize_new(store, &approver, PORT, &wall, NULL);
	query = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "response_type",
	    "code", "client_id", copy->client_id, "redirect_uri", REDIRECT,
	    "code_challenge", CHALLENGE, "code_challenge_method", "S256",
	    "resource", "http://127.0.0.1:9333/mcp");
	oauth_authorize_request(authorize, query, &answer);
	ck_assert_int_eq(answer.status, 200);
	ck_assert_ptr_null(strstr(answer.html, "\xc2\x9b"));
	free(answer.html);
	json_decref(query);
	ck_assert_str_eq(json_string_value(json_object_get(asked.params,
	    "client_name")), "claude\xef\xbf\xbd code");
	taken = json_object_get(asked.params, "name_taken_by");
	ck_assert_msg(json_is_object(taken), "no name_taken_by");
	ck_assert_str_eq(json_string_value(json_object_get(taken,
	    "client_name")), "Claude \xef\xbf\xbd" "Code");
	ck_assert_int_eq(json_integer_value(json_object_get(taken,
	    "registered_at_ms")), (json_int_t)(T0 - 5000));
	ck_assert_int_eq(json_integer_value(json_object_get(taken,
	    "approved_at_ms")), (json_int_t)(T0 - 4000));
	json_decref(asked.params);
	asked.params = NULL;

	/* The approved client asking again is no namesake of itself. */
	query = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "response_type",
	    "code", "client_id", real->client_id, "redirect_uri", REDIRECT,
	    "code_challenge", CHALLENGE, "code_challenge_method", "S256",
	    "resource", "http://127.0.0.1:9333/mcp");
	oauth_authorize_request(authorize, query, &answer);
	free(answer.html);
	json_decref(query);
	ck_assert_ptr_null(json_object_get(asked.params, "name_taken_by"));
	json_decref(asked.params);
	oauth_authorize_free(authorize);
	oauth_store_free(store);
}
END_TEST

/* The time the tests' wall clock says: *arg. */
static uint64_t
at_arg(void *arg)
{
	return *(const uint64_t *)arg;
}

/* Opens an authorization request of a client; returns the answer's status. */
static int
authorize_status(struct oauth_authorize *authorize,
    const struct oauth_client *client, struct oauth_authorize_answer *answer)
{
	json_t	*query;

	query = json_pack("{s:s,s:s,s:s,s:s,s:s}", "response_type", "code",
	    "client_id", client->client_id, "redirect_uri", REDIRECT,
	    "code_challenge", CHALLENGE, "code_challenge_method", "S256");
	oauth_authorize_request(authorize, query, answer);
	json_decref(query);
	return answer->status;
}

/*
 * One client holds at most OAUTH_PENDING_PER_CLIENT of the waiting
 * places, the clients never approved OAUTH_PENDING_MAX, and a client
 * approved before always finds a place; a refusal says, in Retry-After
 * seconds, when the oldest request in the way expires.
 */
START_TEST(test_waiting_approvals_capped_per_client)
{
	struct oauth_store		*store = oauth_store_open(NULL, NULL);
	struct oauth_client		*clients[OAUTH_PENDING_MAX];
	struct asked			 asked = { 0 };
	struct oauth_approver		 approver = { asked_keep, asked_cancel,
					    &asked };
	uint64_t			 now = T0;
	struct clock			 wall = { at_arg, &now };
	struct oauth_authorize		*authorize;
	struct oauth_authorize_answer	 answer;
	size_t				 i;

	authorize = oauth_authorize_new(store, &approver, PORT, &wall, NULL);
	for (i = 0; i < OAUTH_PENDING_MAX; i++)
		clients[i] = registered(store, false);
	ck_assert_int_eq(authorize_status(authorize, clients[0], &answer), 200);
	free(answer.html);
	json_decref(asked.params);
	now = T0 + 60000;
	ck_assert_int_eq(authorize_status(authorize, clients[0], &answer), 200);
	free(answer.html);
	json_decref(asked.params);
	ck_assert_int_eq(authorize_status(authorize, clients[0], &answer), 503);
	ck_assert_uint_eq(answer.retry_after_s, 240);
	ck_assert_ptr_nonnull(strstr(answer.html, "This client already has 2 "
	    "approval requests waiting"));
	ck_assert_ptr_nonnull(strstr(answer.html, "in 240 seconds"));
	free(answer.html);
	/* Another client still gets a place, up to the whole queue. */
	for (i = 2; i < OAUTH_PENDING_MAX; i++) {
		ck_assert_int_eq(authorize_status(authorize, clients[i / 2],
		    &answer), 200);
		free(answer.html);
		json_decref(asked.params);
	}
	now = T0 + 100000;
	ck_assert_int_eq(authorize_status(authorize,
	    clients[OAUTH_PENDING_MAX - 1], &answer), 503);
	ck_assert_uint_eq(answer.retry_after_s, 200);
	ck_assert_ptr_nonnull(strstr(answer.html, "Too many approval requests "
	    "are waiting"));
	free(answer.html);
	/* A client the person approved before is never crowded out. */
	oauth_store_approve(clients[OAUTH_PENDING_MAX - 1],
	    OAUTH_SCOPE_DEFAULT, "127.0.0.1:41000", T0);
	for (i = 0; i < OAUTH_PENDING_PER_CLIENT; i++) {
		ck_assert_int_eq(authorize_status(authorize,
		    clients[OAUTH_PENDING_MAX - 1], &answer), 200);
		free(answer.html);
		json_decref(asked.params);
	}
	ck_assert_int_eq(authorize_status(authorize,
	    clients[OAUTH_PENDING_MAX - 1], &answer), 503);
	ck_assert_ptr_nonnull(strstr(answer.html, "This client already has"));
	free(answer.html);
	oauth_authorize_free(authorize);
	oauth_store_free(store);
}
END_TEST

/*
 * The clients never approved that one process registered hold at most
 * OAUTH_PENDING_PER_PROCESS of the waiting places together, however many
 * it registered: another process's new client still finds a place, and
 * clients whose process is unknown keep the rule per client. The 503
 * says when the process's oldest request expires.
 */
START_TEST(test_waiting_approvals_capped_per_process)
{
	enum { FLOODER = 4242, OTHER = 4343 };
	struct oauth_store		*store = oauth_store_open(NULL, NULL);
	struct oauth_client		*flood[4], *other, *unknown[3];
	struct asked			 asked = { 0 };
	struct oauth_approver		 approver = { asked_keep, asked_cancel,
					    &asked };
	uint64_t			 now = T0;
	struct clock			 wall = { at_arg, &now };
	struct oauth_authorize		*authorize;
	struct oauth_authorize_answer	 answer;
	oauth_approval_cb		 done;
	void				*done_arg;
	json_t				*denial;
	size_t				 i;

	authorize = oauth_authorize_new(store, &approver, PORT, &wall, NULL);
	for (i = 0; i < 4; i++) {
		flood[i] = registered(store, false);
		flood[i]->registrar_pid = FLOODER;
	}
	other = registered(store, false);
	other->registrar_pid = OTHER;
	for (i = 0; i < 3; i++)
		unknown[i] = registered(store, false);

	ck_assert_int_eq(authorize_status(authorize, flood[0], &answer), 200);
	free(answer.html);
	done = asked.done;
	done_arg = asked.done_arg;
	json_decref(asked.params);
	now = T0 + 30000;
	ck_assert_int_eq(authorize_status(authorize, flood[1], &answer), 200);
	free(answer.html);
	json_decref(asked.params);
	now = T0 + 60000;
	for (i = 1; i < 4; i++) {
		ck_assert_int_eq(authorize_status(authorize, flood[i], &answer),
		    503);
		ck_assert_uint_eq(answer.retry_after_s, 240);
		ck_assert_ptr_nonnull(strstr(answer.html, "The program that "
		    "registered this client already has 2 approval requests of "
		    "new clients waiting"));
		free(answer.html);
	}
	/* Another process's new client finds a place, as do unknown ones. */
	ck_assert_int_eq(authorize_status(authorize, other, &answer), 200);
	free(answer.html);
	json_decref(asked.params);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(authorize_status(authorize, unknown[i],
		    &answer), 200);
		free(answer.html);
		json_decref(asked.params);
		ck_assert_int_eq(authorize_status(authorize, unknown[i],
		    &answer), i < 2 ? 200 : 503);
		if (i < 2)
			json_decref(asked.params);
		else
			ck_assert_ptr_nonnull(strstr(answer.html, "Too many "
			    "approval requests are waiting"));
		free(answer.html);
	}
	/* The person denies the flooder's oldest: its process has a place. */
	denial = json_pack("{s:b}", "approved", 0);
	done(denial, NULL, NULL, done_arg);
	json_decref(denial);
	ck_assert_int_eq(authorize_status(authorize, flood[2], &answer), 200);
	free(answer.html);
	json_decref(asked.params);
	ck_assert_int_eq(authorize_status(authorize, flood[3], &answer), 503);
	free(answer.html);
	oauth_authorize_free(authorize);
	oauth_store_free(store);
}
END_TEST

/*
 * Registration's rate: a burst of OAUTH_REGISTER_BURST, then
 * OAUTH_REGISTER_PER_SECOND a second; Retry-After says when.
 */
START_TEST(test_registration_rate)
{
	struct oauth_register_rate	rate = { 0 };
	unsigned			seconds = 0;
	int				i;

	for (i = 0; i < OAUTH_REGISTER_BURST; i++)
		ck_assert(oauth_register_allowed(&rate, T0, &seconds));
	ck_assert(!oauth_register_allowed(&rate, T0, &seconds));
	ck_assert_uint_eq(seconds, 1);
	ck_assert(!oauth_register_allowed(&rate, T0 + 249, &seconds));
	ck_assert(oauth_register_allowed(&rate, T0 + 250, &seconds));
	ck_assert(!oauth_register_allowed(&rate, T0 + 250, &seconds));
	/* A request that registered nobody gives its share back. */
	oauth_register_refund(&rate);
	ck_assert(oauth_register_allowed(&rate, T0 + 250, &seconds));
	/* A quiet minute refills the burst, no more. */
	for (i = 0; i < OAUTH_REGISTER_BURST; i++)
		ck_assert(oauth_register_allowed(&rate, T0 + 60000, &seconds));
	ck_assert(!oauth_register_allowed(&rate, T0 + 60000, &seconds));
	/* The wall clock set back starts afresh rather than stalling. */
	ck_assert(oauth_register_allowed(&rate, T0 - 3600000, &seconds));
}
END_TEST

/*
 * Clients not approved yet live in memory: registering writes nothing,
 * they survive another host's change of the file, approving one writes
 * it, and a flood of them never drops one the person is being asked about.
 */
START_TEST(test_unapproved_clients_stay_in_memory)
{
	char				 dir[] = "/tmp/check-oauth-XXXXXX", *path;
	struct oauth_store		*one, *other;
	struct oauth_client		*waiting, *approved;
	struct asked			 asked = { 0 };
	struct oauth_approver		 approver = { asked_keep, asked_cancel,
					    &asked };
	struct clock			 wall = { at_t0, NULL };
	struct oauth_authorize		*authorize;
	struct oauth_authorize_answer	 answer;
	struct stat			 before, after;
	json_t				*decision;
	char				*cause = NULL;
	char				 id[OAUTH_CLIENT_ID_LENGTH + 1];
	char				 approved_id[OAUTH_CLIENT_ID_LENGTH + 1];
	int				 i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ne(asprintf(&path, "%s/clients.json", dir), -1);
	one = oauth_store_open(path, &cause);
	other = oauth_store_open(path, &cause);
	ck_assert_msg(one != NULL && other != NULL, "%s", cause);
	begin(one);
	approved = registered(one, true);
	memcpy(approved_id, approved->client_id, sizeof approved_id);
	end(one);
	ck_assert_int_eq(stat(path, &before), 0);
	begin(one);
	waiting = registered(one, false);
	memcpy(id, waiting->client_id, sizeof id);
	end(one);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);	/* not rewritten */

	/* Another host changes the file: the client stays with its host. */
	begin(other);
	(void)registered(other, true);
	end(other);
	ck_assert_ptr_null(oauth_store_client(other, id));
	begin(one);
	ck_assert_ptr_nonnull(oauth_store_client(one, id));
	ck_assert_ptr_nonnull(oauth_store_client(one, approved_id));
	end(one);

	/* 70 registrations while the person is asked about the first. */
	authorize = oauth_authorize_new(one, &approver, PORT, &wall, NULL);
	ck_assert_int_eq(authorize_status(authorize, oauth_store_client(one,
	    id), &answer), 200);
	free(answer.html);
	begin(one);
	for (i = 0; i < 70; i++)
		(void)registered(one, false);
	end(one);
	ck_assert_ptr_nonnull(oauth_store_client(one, id));
	ck_assert_ptr_nonnull(oauth_store_client(one, approved_id));

	/* Approved, it is written: a host opened afresh has it. */
	decision = json_pack("{s:b,s:[s]}", "approved", 1, "scopes",
	    "pages:read");
	asked.done(decision, NULL, NULL, asked.done_arg);
	json_decref(decision);
	oauth_store_free(other);
	other = oauth_store_open(path, &cause);
	ck_assert_msg(other != NULL, "%s", cause);
	ck_assert(oauth_store_client(other, id)->approved);
	json_decref(asked.params);
	oauth_authorize_free(authorize);
	oauth_store_free(one);
	oauth_store_free(other);
	unlink(path);
	remove_lock(path);
	rmdir(dir);
	free(path);
}
END_TEST

/* The OAuth suite. */
static Suite *
oauth_suite(void)
{
	Suite	*s = suite_create("oauth");
	TCase	*tc;

	tc = tcase_create("pure");
	tcase_add_test(tc, test_scope_parse_and_format);
	tcase_add_test(tc, test_uri_loopback_only);
	tcase_add_test(tc, test_pkce_s256);
	tcase_add_test(tc, test_name_shown_safely);
	tcase_add_test(tc, test_name_resemblance);
	tcase_add_test(tc, test_challenge_names_metadata_and_scopes);
	suite_add_tcase(s, tc);

	tc = tcase_create("tokens");
	tcase_add_test(tc, test_code_expires_and_serves_once);
	tcase_add_test(tc, test_code_spent_only_by_a_request_that_passes);
	tcase_add_test(tc, test_access_token_expires_and_is_bound);
	tcase_add_test(tc, test_refresh_rotates_and_reuse_ends_the_family);
	tcase_add_test(tc, test_rotation_keeps_other_clients_grants);
	tcase_add_test(tc, test_client_keeps_its_latest_approvals);
	tcase_add_test(tc, test_new_approval_narrows_older_grants);
	tcase_add_test(tc, test_unapproved_client_gets_no_tokens);
	tcase_add_test(tc, test_unanswered_approval_expires_as_access_denied);
	tcase_add_test(tc, test_names_shown_safely_and_namesakes_marked);
	tcase_add_test(tc, test_waiting_approvals_capped_per_client);
	tcase_add_test(tc, test_waiting_approvals_capped_per_process);
	tcase_add_test(tc, test_registration_rate);
	tcase_add_test(tc, test_unapproved_clients_stay_in_memory);
	tcase_add_test(tc, test_register_caps_approved_clients);
	tcase_add_test(tc, test_store_file_private_and_round_trips);
	tcase_add_test(tc, test_two_hosts_share_the_file);
	tcase_add_test(tc, test_failed_token_request_does_not_write);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_run_suite(oauth_suite());
}
