/*
 * The host-extension protocol over the native-messaging channel: the hello
 * handshake, requests and responses correlated by id in both directions,
 * per-call timeouts, cancellation and progress. docs/protocol.md is the
 * contract the extension implements.
 *
 * Messages (each a JSON object with a "type"):
 *   ext -> host  {"type":"hello","protocol":1,"version":"0.1.0","capabilities":[...]}
 *   host -> ext  {"type":"welcome","protocol":1,"version":...,"mcp_url":...,"port":...,...}
 *   host -> ext  {"type":"request","id":17,"method":"navigate_to","params":{...},"timeout_ms":30000}
 *   ext -> host  {"type":"response","id":17,"result":{...}}
 *   ext -> host  {"type":"response","id":17,"error":{"code":"TAB_NOT_FOUND","message":"..."}}
 *   ext -> host  {"type":"progress","id":17,"progress":1,"total":3,"message":"..."}
 *   host -> ext  {"type":"cancel","id":17,"reason":"timeout"|"cancelled"}
 *   ext -> host  {"type":"request","id":"e1","method":"status","params":{}}
 *   host -> ext  {"type":"response","id":"e1","result":{...}} (or "error")
 *   ext -> host  {"type":"event","event":"tab_navigated",...}
 */
#ifndef RPC_H
#define RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

struct clock;
struct log;
struct rpc;

#define RPC_PROTOCOL_VERSION		1
#define RPC_DEFAULT_HELLO_GRACE_MS	3000

/*
 * A call's outcome, reported exactly once unless the call is cancelled:
 * either result (borrowed) or error_code and error_message. Never called
 * from inside rpc_call itself.
 */
typedef void (*rpc_done_cb)(const json_t *result, const char *error_code,
		    const char *error_message, void *arg);
/* A progress message from the extension (borrowed; the whole object). */
typedef void (*rpc_progress_cb)(const json_t *progress, void *arg);

/* Bytes waiting for the extension past which new requests are refused. */
#define RPC_BACKLOG_MAX	(8 * 1024 * 1024)

struct rpc_callbacks {
	/* Writes one message to the extension; -1 if the channel is gone. */
	int	 (*send)(const json_t *message, void *arg);
	/*
	 * Returns the bytes written to the extension that it has not read
	 * yet: past RPC_BACKLOG_MAX, new requests fail with EXTENSION_BUSY.
	 * NULL: nothing waits (tests).
	 */
	size_t	 (*backlog)(void *arg);
	/*
	 * Returns the fields the welcome carries besides "type" and
	 * "protocol" (a new object), given the extension's hello.
	 */
	json_t	*(*welcome)(const json_t *hello, void *arg);
	/* The extension said hello (connected) or the channel closed. */
	void	 (*connected)(void *arg);
	void	 (*disconnected)(void *arg);
	/*
	 * A request from the extension: return a new result object, or NULL
	 * with *error_code (static) and *error_message (heap) set.
	 */
	json_t	*(*host_request)(const char *method, const json_t *params,
		     void *arg, const char **error_code, char **error_message);
	/* An event message from the extension (borrowed). */
	void	 (*event)(const json_t *event, void *arg);
	void	*arg;
};

struct rpc	*rpc_new(struct event_base *base, const struct clock *clock,
		    struct log *log, int hello_grace_ms,
		    const struct rpc_callbacks *callbacks);
void		 rpc_free(struct rpc *rpc);
void		 rpc_receive(struct rpc *rpc, const json_t *message);
void		 rpc_channel_closed(struct rpc *rpc);
uint64_t	 rpc_call(struct rpc *rpc, const char *method, const char *client,
		    const char *caller, bool owner, json_t *params, int timeout_ms, rpc_done_cb done,
		    rpc_progress_cb progress, void *arg);
void		 rpc_cancel(struct rpc *rpc, uint64_t id, const char *reason);
size_t		 rpc_expire(struct rpc *rpc);
bool		 rpc_is_connected(const struct rpc *rpc);
size_t		 rpc_pending_count(const struct rpc *rpc);
const json_t	*rpc_extension_hello(const struct rpc *rpc);

#endif
