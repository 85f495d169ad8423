/*
 * Fuzz target: argument checking and schema validation. The input, as
 * JSON, is checked as the arguments of every catalogue tool, and, when it
 * is a schema the host accepts, used to validate a few fixed values.
 * Nothing may crash, and a refusal always says why.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "schema.h"
#include "tools.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Values every schema the input makes is tried on. */
static const char *const fuzz_instances[] = {
	"null", "true", "0", "-1.5", "\"\"", "\"text\"", "[]", "[1,\"a\",null]",
	"{}", "{\"ref\":\"e1\",\"url\":\"https://example.com/\",\"n\":3}",
};

static struct tool_registry	*fuzz_registry;

/* Fails the run when a refusal gives no reason. */
static void
fuzz_refusal(int rc, char *cause)
{
	if (rc != 0 && cause == NULL)
		abort();
	free(cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t	 error;
	json_t		*input, *instance;
	char		*cause = NULL;
	size_t		 i;
	int		 rc;

	if (fuzz_registry == NULL &&
	    (fuzz_registry = tool_registry_new(&cause)) == NULL)
		abort();
	input = json_loadb((const char *)data, size,
	    JSON_DECODE_ANY|JSON_ALLOW_NUL, &error);
	if (input == NULL)
		return 0;
	for (i = 0; i < tool_registry_count(fuzz_registry); i++) {
		cause = NULL;
		rc = tool_check_arguments(tool_registry_at(fuzz_registry, i),
		    input, &cause);
		fuzz_refusal(rc, cause);
	}
	cause = NULL;
	if (schema_check(input, &cause) == 0) {
		for (i = 0; i < sizeof fuzz_instances /
		    sizeof fuzz_instances[0]; i++) {
			instance = json_loads(fuzz_instances[i],
			    JSON_DECODE_ANY, &error);
			cause = NULL;
			rc = schema_validate(input, instance, &cause);
			fuzz_refusal(rc, cause);
			json_decref(instance);
		}
	} else
		free(cause);
	json_decref(input);
	return 0;
}
