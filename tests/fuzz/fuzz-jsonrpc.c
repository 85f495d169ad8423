/*
 * Fuzz target: JSON-RPC parsing. Any bytes give either a message or an
 * error reply, never both; a message classifies without crashing, and the
 * method it names holds no NUL.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonrpc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Classifies one message and checks the names it carries. */
static void
fuzz_classify(const json_t *message)
{
	const char	*method = NULL, *cause = NULL;
	const json_t	*id = NULL;

	(void)jsonrpc_classify(message, &method, &id, &cause);
	if (method != NULL && strlen(method) != json_string_length(
	    json_object_get(message, "method")))
		abort();	/* a method with a NUL got through */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t	*error_reply = NULL, *message, *m;
	size_t	 i;

	message = jsonrpc_parse((const char *)data, size, &error_reply);
	if ((message == NULL) == (error_reply == NULL))
		abort();	/* exactly one of the two */
	if (message != NULL) {
		if (json_is_array(message)) {
			json_array_foreach(message, i, m)
				fuzz_classify(m);
		} else
			fuzz_classify(message);
	}
	json_decref(message);
	json_decref(error_reply);
	return 0;
}
