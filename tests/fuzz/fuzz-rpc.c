/*
 * Fuzz target: the RPC layer with a fake extension. The input is a script:
 * each byte picks an operation (a call, a cancel, a message from the
 * extension, time passing, a full output buffer, the channel closing) and
 * the bytes after it are its operands. Invariant: every call is answered
 * exactly once, never after it was cancelled, and once the channel has
 * closed and the loop has run, every call that was not cancelled has its
 * answer.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "clock.h"
#include "rpc.h"

#define FUZZ_CALLS	32

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_call {
	uint64_t	id;
	int		answers;
	bool		cancelled;
};

struct fuzz {
	struct event_base	*base;
	struct rpc		*rpc;
	struct clock		 clock;
	uint64_t		 now_ms;
	size_t			 backlog;
	bool			 send_fails;
	struct fuzz_call	 calls[FUZZ_CALLS];
	size_t			 ncalls;
	const uint8_t		*data;
	size_t			 size;
	size_t			 at;
};

/* The next script byte, or 0 past the end. */
static uint8_t
fuzz_byte(struct fuzz *f)
{
	return f->at < f->size ? f->data[f->at++] : 0;
}

static uint64_t
fuzz_now(void *arg)
{
	return ((struct fuzz *)arg)->now_ms;
}

static int
fuzz_send(const json_t *message, void *arg)
{
	struct fuzz	*f = arg;

	(void)message;
	return f->send_fails ? -1 : 0;
}

static size_t
fuzz_backlog(void *arg)
{
	return ((struct fuzz *)arg)->backlog;
}

/* A call's answer: counted, and refused after a cancel. */
static void
fuzz_done(const json_t *result, const char *code, const char *message,
    void *arg)
{
	struct fuzz_call	*call = arg;

	if ((result == NULL) == (code == NULL) || (code != NULL &&
	    message == NULL))
		abort();	/* a result or an error, not both or neither */
	if (call->cancelled || ++call->answers > 1)
		abort();
}

static void
fuzz_progress(const json_t *progress, void *arg)
{
	struct fuzz_call	*call = arg;

	(void)progress;
	if (call->cancelled || call->answers > 0)
		abort();	/* progress after the end */
}

/* The id of a call the script names, or an id nobody made. */
static uint64_t
fuzz_pick_id(struct fuzz *f)
{
	uint8_t	b = fuzz_byte(f);

	if (f->ncalls == 0 || b >= 240)
		return 1000 + b;
	return f->calls[b % f->ncalls].id;
}

/* Feeds the extension's side of one message to the RPC layer. */
static void
fuzz_receive(struct fuzz *f)
{
	json_t		*message = NULL;
	json_error_t	 error;
	uint8_t		 kind = fuzz_byte(f), len;
	json_int_t	 id = (json_int_t)fuzz_pick_id(f);

	switch (kind % 6) {
	case 0:
		message = json_pack("{s:s,s:i,s:s}", "type", "hello",
		    "protocol", fuzz_byte(f) % 3, "version", "fuzz");
		break;
	case 1:
		message = json_pack("{s:s,s:I,s:{}}", "type", "response",
		    "id", id, "result");
		break;
	case 2:
		message = json_pack("{s:s,s:I,s:{s:s,s:s}}", "type",
		    "response", "id", id, "error", "code", "TIMEOUT",
		    "message", "slow");
		break;
	case 3:
		message = json_pack("{s:s,s:I,s:i}", "type", "progress",
		    "id", id, "progress", fuzz_byte(f));
		break;
	default:
		/* Raw JSON text from the script: anything at all. */
		len = fuzz_byte(f);
		if (f->at + len > f->size)
			len = (uint8_t)(f->size - f->at);
		message = json_loadb((const char *)f->data + f->at, len,
		    JSON_DECODE_ANY, &error);
		f->at += len;
		break;
	}
	if (message != NULL)
		rpc_receive(f->rpc, message);
	json_decref(message);
}

/* Runs what is due: overdue calls, failures deferred to the loop. */
static void
fuzz_run_loop(struct fuzz *f)
{
	rpc_expire(f->rpc);
	event_base_loop(f->base, EVLOOP_NONBLOCK);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz		 f;
	struct rpc_callbacks	 cb = { .send = fuzz_send,
				     .backlog = fuzz_backlog };
	struct fuzz_call	*call;
	size_t			 i;
	bool			 closed = false;

	memset(&f, 0, sizeof f);
	f.data = data;
	f.size = size;
	f.now_ms = 1000;
	f.clock.now_ms = fuzz_now;
	f.clock.arg = &f;
	cb.arg = &f;
	f.base = event_base_new();
	f.rpc = rpc_new(f.base, &f.clock, NULL, 50, &cb);
	while (f.at < f.size && !closed) {
		switch (fuzz_byte(&f) % 8) {
		case 0:
			if (f.ncalls == FUZZ_CALLS)
				break;
			call = &f.calls[f.ncalls++];
			call->id = rpc_call(f.rpc, "click", "fuzz 1.0", "c0ffee", false, NULL,
			    fuzz_byte(&f) * 10, fuzz_done, fuzz_progress, call);
			break;
		case 1:
			if (f.ncalls == 0)
				break;
			call = &f.calls[fuzz_byte(&f) % f.ncalls];
			if (call->answers == 0 && !call->cancelled) {
				call->cancelled = true;
				rpc_cancel(f.rpc, call->id, "cancelled");
			}
			break;
		case 2:
		case 3:
			fuzz_receive(&f);
			break;
		case 4:
			f.now_ms += (uint64_t)fuzz_byte(&f) * 10;
			fuzz_run_loop(&f);
			break;
		case 5:
			f.backlog = fuzz_byte(&f) < 128 ? 0 : RPC_BACKLOG_MAX + 1;
			break;
		case 6:
			f.send_fails = fuzz_byte(&f) >= 200;
			break;
		case 7:
			rpc_channel_closed(f.rpc);
			closed = true;
			break;
		}
	}
	rpc_channel_closed(f.rpc);
	fuzz_run_loop(&f);
	for (i = 0; i < f.ncalls; i++) {
		if (!f.calls[i].cancelled && f.calls[i].answers != 1)
			abort();	/* a call lost: never answered */
	}
	rpc_free(f.rpc);
	event_base_free(f.base);
	return 0;
}
