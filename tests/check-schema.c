/* Tests for host/schema.c: the JSON Schema subset and its causes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "check-helpers.h"
#include "schema.h"
#include "xmalloc.h"

/* Asserts instance passes schema. */
static void
expect_valid(const char *schema_text, const char *instance_text)
{
	json_t	*schema = check_json(schema_text);
	json_t	*instance = check_json(instance_text);
	char	*cause = NULL;
	int	 error;

	error = schema_validate(schema, instance, &cause);
	ck_assert_msg(error == 0, "%s rejected by %s: %s", instance_text,
	    schema_text, cause != NULL ? cause : "(no cause)");
	free(cause);
	json_decref(instance);
	json_decref(schema);
}

/* Asserts instance fails schema with exactly this cause. */
static void
expect_cause(const char *schema_text, const char *instance_text,
    const char *expected)
{
	json_t	*schema = check_json(schema_text);
	json_t	*instance = check_json(instance_text);
	char	*cause = NULL;
	int	 error;

	error = schema_validate(schema, instance, &cause);
	ck_assert_msg(error == -1, "%s accepted by %s", instance_text,
	    schema_text);
	ck_assert_msg(cause != NULL, "no cause for %s", instance_text);
	ck_assert_msg(strcmp(cause, expected) == 0,
	    "cause differs:\n  actual:   %s\n  expected: %s", cause, expected);
	free(cause);
	json_decref(instance);
	json_decref(schema);
}

/* Asserts schema_check accepts a schema. */
static void
expect_schema_ok(const char *schema_text)
{
	json_t	*schema = check_json(schema_text);
	char	*cause = NULL;

	ck_assert_msg(schema_check(schema, &cause) == 0, "%s rejected: %s",
	    schema_text, cause != NULL ? cause : "(no cause)");
	free(cause);
	json_decref(schema);
}

/* Asserts schema_check rejects a schema with exactly this cause. */
static void
expect_schema_bad(const char *schema_text, const char *expected)
{
	json_t	*schema = check_json(schema_text);
	char	*cause = NULL;

	ck_assert_msg(schema_check(schema, &cause) == -1, "%s accepted",
	    schema_text);
	ck_assert_msg(cause != NULL && strcmp(cause, expected) == 0,
	    "cause differs:\n  actual:   %s\n  expected: %s",
	    cause != NULL ? cause : "(null)", expected);
	free(cause);
	json_decref(schema);
}

#define ARGS(props)	"{\"type\":\"object\",\"properties\":{" props "}," \
			"\"additionalProperties\":false}"

START_TEST(test_type_string)
{
	expect_valid(ARGS("\"s\":{\"type\":\"string\"}"), "{\"s\":\"x\"}");
	expect_valid(ARGS("\"s\":{\"type\":\"string\"}"), "{\"s\":\"\"}");
	expect_cause(ARGS("\"s\":{\"type\":\"string\"}"), "{\"s\":1}",
	    "argument \"s\" must be a string");
	expect_cause(ARGS("\"s\":{\"type\":\"string\"}"), "{\"s\":null}",
	    "argument \"s\" must be a string");
}
END_TEST

START_TEST(test_type_integer_rejects_reals)
{
	expect_valid(ARGS("\"n\":{\"type\":\"integer\"}"), "{\"n\":-7}");
	expect_cause(ARGS("\"n\":{\"type\":\"integer\"}"), "{\"n\":1.0}",
	    "argument \"n\" must be an integer");
	expect_cause(ARGS("\"n\":{\"type\":\"integer\"}"), "{\"n\":1.5}",
	    "argument \"n\" must be an integer");
	expect_cause(ARGS("\"n\":{\"type\":\"integer\"}"), "{\"n\":\"1\"}",
	    "argument \"n\" must be an integer");
}
END_TEST

START_TEST(test_type_number_accepts_both)
{
	expect_valid(ARGS("\"n\":{\"type\":\"number\"}"), "{\"n\":3}");
	expect_valid(ARGS("\"n\":{\"type\":\"number\"}"), "{\"n\":2.5}");
	expect_cause(ARGS("\"n\":{\"type\":\"number\"}"), "{\"n\":true}",
	    "argument \"n\" must be a number");
}
END_TEST

START_TEST(test_type_boolean_null_array_object)
{
	expect_valid(ARGS("\"b\":{\"type\":\"boolean\"}"), "{\"b\":false}");
	expect_cause(ARGS("\"b\":{\"type\":\"boolean\"}"), "{\"b\":0}",
	    "argument \"b\" must be a boolean");
	expect_valid(ARGS("\"z\":{\"type\":\"null\"}"), "{\"z\":null}");
	expect_cause(ARGS("\"z\":{\"type\":\"null\"}"), "{\"z\":0}",
	    "argument \"z\" must be null");
	expect_valid(ARGS("\"a\":{\"type\":\"array\"}"), "{\"a\":[1,\"x\"]}");
	expect_cause(ARGS("\"a\":{\"type\":\"array\"}"), "{\"a\":{}}",
	    "argument \"a\" must be an array");
	expect_valid(ARGS("\"o\":{\"type\":\"object\"}"), "{\"o\":{\"k\":1}}");
	expect_cause(ARGS("\"o\":{\"type\":\"object\"}"), "{\"o\":[]}",
	    "argument \"o\" must be an object");
}
END_TEST

START_TEST(test_any_of)
{
	const char	*schema = ARGS("\"v\":{\"anyOf\":[{\"type\":\"string\"},"
	    "{\"type\":\"integer\",\"minimum\":1}]}");

	expect_valid(schema, "{\"v\":\"x\"}");
	expect_valid(schema, "{\"v\":4}");
	expect_cause(schema, "{\"v\":4.5}",
	    "argument \"v\" must be a string or an integer >= 1");
	expect_cause(ARGS("\"v\":{\"anyOf\":[{\"type\":\"string\"},"
	    "{\"type\":\"integer\"},{\"type\":\"null\"}]}"),
	    "{\"v\":false}",
	    "argument \"v\" must be a string, an integer or null");
	expect_valid(ARGS("\"v\":{\"anyOf\":[{\"type\":\"string\"},"
	    "{\"type\":\"null\"}]}"), "{\"v\":null}");
	/* The one branch of the value's type says what is wrong in it. */
	expect_cause(schema, "{\"v\":0}", "argument \"v\" must be an integer >= 1");
	expect_cause(ARGS("\"v\":{\"anyOf\":[{\"type\":\"boolean\"},"
	    "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}]}"),
	    "{\"v\":{\"n\":\"x\"}}", "argument \"v.n\" must be an integer");
	expect_cause("{\"type\":\"object\",\"properties\":{\"v\":{\"anyOf\":["
	    "{\"type\":\"string\"},{\"type\":\"boolean\"}]}},\"required\":[\"v\"]}",
	    "{}", "missing required argument \"v\" (string or boolean)");
}
END_TEST

START_TEST(test_no_type_accepts_anything)
{
	expect_valid(ARGS("\"v\":{\"description\":\"anything\"}"),
	    "{\"v\":[{\"deep\":null}]}");
}
END_TEST

START_TEST(test_enum)
{
	const char	*schema = ARGS("\"direction\":{\"enum\":[\"up\",\"down\","
	    "\"to_top\",\"to_bottom\",\"to_element\"]}");

	expect_valid(schema, "{\"direction\":\"to_top\"}");
	expect_cause(schema, "{\"direction\":\"sideways\"}",
	    "argument \"direction\" must be one of \"up\", \"down\", "
	    "\"to_top\", \"to_bottom\", \"to_element\"");
	/* A wrong type gets the list too: it says more than "a string". */
	expect_cause(schema, "{\"direction\":3}",
	    "argument \"direction\" must be one of \"up\", \"down\", "
	    "\"to_top\", \"to_bottom\", \"to_element\"");
	expect_cause(ARGS("\"n\":{\"enum\":[1,2]}"), "{\"n\":1.5}",
	    "argument \"n\" must be one of 1, 2");
	expect_cause(ARGS("\"n\":{\"enum\":[\"only\"]}"), "{\"n\":\"x\"}",
	    "argument \"n\" must be \"only\"");
}
END_TEST

START_TEST(test_minimum)
{
	const char	*schema = ARGS("\"pixels\":{\"type\":\"integer\","
	    "\"minimum\":1}");

	expect_valid(schema, "{\"pixels\":1}");
	expect_cause(schema, "{\"pixels\":0}",
	    "argument \"pixels\" must be an integer >= 1");
	expect_cause(schema, "{\"pixels\":\"ten\"}",
	    "argument \"pixels\" must be an integer >= 1");
}
END_TEST

START_TEST(test_maximum)
{
	const char	*schema = ARGS("\"quality\":{\"type\":\"integer\","
	    "\"maximum\":100}");

	expect_valid(schema, "{\"quality\":100}");
	expect_valid(schema, "{\"quality\":-5}");
	expect_cause(schema, "{\"quality\":101}",
	    "argument \"quality\" must be an integer <= 100");
}
END_TEST

START_TEST(test_range)
{
	const char	*schema = ARGS("\"click_count\":{\"type\":\"integer\","
	    "\"minimum\":1,\"maximum\":3}");

	expect_valid(schema, "{\"click_count\":3}");
	expect_cause(schema, "{\"click_count\":0}",
	    "argument \"click_count\" must be an integer from 1 to 3");
	expect_cause(schema, "{\"click_count\":4}",
	    "argument \"click_count\" must be an integer from 1 to 3");
}
END_TEST

START_TEST(test_number_bounds_with_reals)
{
	const char	*schema = ARGS("\"r\":{\"type\":\"number\","
	    "\"minimum\":0.5,\"maximum\":2}");

	expect_valid(schema, "{\"r\":0.5}");
	expect_valid(schema, "{\"r\":2}");
	expect_valid(schema, "{\"r\":1}");
	expect_cause(schema, "{\"r\":0.25}",
	    "argument \"r\" must be a number from 0.5 to 2");
	expect_cause(schema, "{\"r\":2.001}",
	    "argument \"r\" must be a number from 0.5 to 2");
	expect_cause(ARGS("\"n\":{\"type\":\"integer\",\"minimum\":0.5}"),
	    "{\"n\":0}", "argument \"n\" must be an integer >= 0.5");
}
END_TEST

START_TEST(test_string_length)
{
	const char	*schema = ARGS("\"s\":{\"type\":\"string\","
	    "\"minLength\":1}");

	expect_valid(schema, "{\"s\":\"a\"}");
	expect_cause(schema, "{\"s\":\"\"}",
	    "argument \"s\" must be a string of at least 1 character");
	expect_cause(ARGS("\"s\":{\"type\":\"string\",\"maxLength\":3}"),
	    "{\"s\":\"abcd\"}",
	    "argument \"s\" must be a string of at most 3 characters");
	expect_cause(ARGS("\"s\":{\"type\":\"string\",\"minLength\":2,"
	    "\"maxLength\":4}"), "{\"s\":\"a\"}",
	    "argument \"s\" must be a string of 2 to 4 characters");
}
END_TEST

START_TEST(test_string_length_counts_characters)
{
	/* Two bytes in UTF-8, one character. */
	expect_valid(ARGS("\"s\":{\"type\":\"string\",\"maxLength\":1}"),
	    "{\"s\":\"\\u00e9\"}");
	expect_cause(ARGS("\"s\":{\"type\":\"string\",\"minLength\":2}"),
	    "{\"s\":\"\\u00e9\"}",
	    "argument \"s\" must be a string of at least 2 characters");
}
END_TEST

START_TEST(test_array_size)
{
	const char	*schema = ARGS("\"values\":{\"type\":\"array\","
	    "\"minItems\":1,\"items\":{\"type\":\"string\"}}");

	expect_valid(schema, "{\"values\":[\"a\"]}");
	expect_cause(schema, "{\"values\":[]}",
	    "argument \"values\" must be an array of at least 1 item");
	expect_cause(ARGS("\"values\":{\"type\":\"array\",\"maxItems\":2}"),
	    "{\"values\":[1,2,3]}",
	    "argument \"values\" must be an array of at most 2 items");
	expect_cause(ARGS("\"xy\":{\"type\":\"array\",\"minItems\":2,"
	    "\"maxItems\":2}"), "{\"xy\":[1]}",
	    "argument \"xy\" must be an array of exactly 2 items");
}
END_TEST

START_TEST(test_array_items_path)
{
	const char	*schema = ARGS("\"modifiers\":{\"type\":\"array\","
	    "\"items\":{\"enum\":[\"Alt\",\"Shift\"]}}");

	expect_valid(schema, "{\"modifiers\":[\"Alt\",\"Shift\"]}");
	expect_cause(schema, "{\"modifiers\":[\"Alt\",\"Ctrl\"]}",
	    "argument \"modifiers[1]\" must be one of \"Alt\", \"Shift\"");
}
END_TEST

START_TEST(test_nested_object_path)
{
	const char	*schema = ARGS("\"options\":{\"type\":\"object\","
	    "\"properties\":{\"button\":{\"type\":\"string\"}},"
	    "\"additionalProperties\":false}");

	expect_valid(schema, "{\"options\":{\"button\":\"left\"}}");
	expect_cause(schema, "{\"options\":{\"button\":1}}",
	    "argument \"options.button\" must be a string");
	expect_cause(schema, "{\"options\":{\"foo\":1}}",
	    "unknown argument \"options.foo\"; allowed: \"button\"");
}
END_TEST

START_TEST(test_nested_required_path)
{
	const char	*schema = ARGS("\"coordinates\":{\"type\":\"object\","
	    "\"properties\":{\"x\":{\"type\":\"number\"},"
	    "\"y\":{\"type\":\"number\"}},\"required\":[\"x\",\"y\"]}");

	expect_cause(schema, "{\"coordinates\":{\"x\":1}}",
	    "missing required argument \"coordinates.y\" (number)");
}
END_TEST

START_TEST(test_deep_path_mixes_items_and_keys)
{
	const char	*schema = ARGS("\"rows\":{\"type\":\"array\",\"items\":"
	    "{\"type\":\"object\",\"properties\":{\"cells\":{\"type\":"
	    "\"array\",\"items\":{\"type\":\"integer\"}}}}}");

	expect_cause(schema, "{\"rows\":[{\"cells\":[1]},{\"cells\":[2,\"x\"]}]}",
	    "argument \"rows[1].cells[1]\" must be an integer");
}
END_TEST

START_TEST(test_required)
{
	const char	*schema = "{\"type\":\"object\",\"properties\":{"
	    "\"url\":{\"type\":\"string\"},\"action\":{\"enum\":[\"back\","
	    "\"forward\"]}},\"required\":[\"url\",\"action\"],"
	    "\"additionalProperties\":false}";

	expect_valid(schema, "{\"url\":\"x\",\"action\":\"back\"}");
	expect_cause(schema, "{\"action\":\"back\"}",
	    "missing required argument \"url\" (string)");
	expect_cause(schema, "{\"url\":\"x\"}",
	    "missing required argument \"action\" (one of \"back\", "
	    "\"forward\")");
	expect_cause("{\"type\":\"object\",\"properties\":{\"pixels\":{"
	    "\"type\":\"integer\",\"minimum\":1}},\"required\":[\"pixels\"]}",
	    "{}", "missing required argument \"pixels\" (integer >= 1)");
}
END_TEST

START_TEST(test_unknown_argument)
{
	const char	*schema = ARGS("\"url\":{\"type\":\"string\"},"
	    "\"wait_until\":{\"enum\":[\"load\"]},"
	    "\"timeout_ms\":{\"type\":\"integer\"},"
	    "\"new_tab\":{\"type\":\"boolean\"}");

	expect_cause(schema, "{\"url\":\"x\",\"foo\":1}",
	    "unknown argument \"foo\"; allowed: \"url\", \"wait_until\", "
	    "\"timeout_ms\", \"new_tab\"");
}
END_TEST

START_TEST(test_unknown_before_missing)
{
	/* A misspelt required argument: the list of names helps most. */
	expect_cause("{\"type\":\"object\",\"properties\":{\"url\":{\"type\":"
	    "\"string\"}},\"required\":[\"url\"],\"additionalProperties\":false}",
	    "{\"ulr\":\"x\"}",
	    "unknown argument \"ulr\"; allowed: \"url\"");
}
END_TEST

START_TEST(test_unknown_when_none_allowed)
{
	expect_valid(ARGS(""), "{}");
	expect_cause(ARGS(""), "{\"x\":1}",
	    "unknown argument \"x\"; this tool takes no arguments");
	expect_cause("{\"type\":\"object\",\"additionalProperties\":false}",
	    "{\"x\":1}",
	    "unknown argument \"x\"; this tool takes no arguments");
}
END_TEST

START_TEST(test_additional_properties)
{
	/* Absent: extra keys pass. */
	expect_valid("{\"type\":\"object\",\"properties\":{\"a\":{}}}",
	    "{\"a\":1,\"b\":2}");
	expect_valid("{\"type\":\"object\",\"additionalProperties\":true}",
	    "{\"b\":2}");
}
END_TEST

START_TEST(test_root_must_be_object)
{
	expect_cause(ARGS(""), "[]", "arguments must be an object");
	expect_cause(ARGS(""), "\"x\"", "arguments must be an object");
	expect_cause(ARGS(""), "null", "arguments must be an object");
}
END_TEST

START_TEST(test_null_instance)
{
	json_t	*schema = check_json(ARGS(""));
	char	*cause = NULL;

	ck_assert_int_eq(schema_validate(schema, NULL, &cause), -1);
	ck_assert_str_eq(cause, "arguments are missing");
	free(cause);
	json_decref(schema);
}
END_TEST

START_TEST(test_documentation_keywords_ignored)
{
	expect_valid("{\"type\":\"object\",\"title\":\"T\",\"description\":"
	    "\"D\",\"properties\":{\"a\":{\"type\":\"integer\",\"default\":3,"
	    "\"description\":\"an a\"}}}", "{\"a\":9}");
}
END_TEST

START_TEST(test_check_accepts_catalogue_style)
{
	expect_schema_ok("{\"type\":\"object\",\"properties\":{"
	    "\"url\":{\"type\":\"string\",\"minLength\":1,\"description\":\"U\"},"
	    "\"n\":{\"type\":\"integer\",\"minimum\":0,"
	    "\"maximum\":10,\"default\":3,\"title\":\"N\"},"
	    "\"e\":{\"enum\":[\"a\",\"b\"],\"default\":\"a\"},"
	    "\"v\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},"
	    "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
	    "\"maxLength\":9},\"minItems\":1,\"maxItems\":5},"
	    "\"o\":{\"type\":\"object\",\"additionalProperties\":true}},"
	    "\"required\":[\"url\"],\"additionalProperties\":false}");
	expect_schema_ok("{}");
}
END_TEST

START_TEST(test_check_rejects_unknown_keyword)
{
	expect_schema_bad("{\"type\":\"object\",\"oneOf\":[]}",
	    "schema: unknown keyword \"oneOf\"");
	expect_schema_bad("{\"type\":\"object\",\"properties\":{\"url\":"
	    "{\"type\":\"string\",\"descripton\":\"x\"}}}",
	    "schema at \"url\": unknown keyword \"descripton\"");
	expect_schema_bad("{\"type\":\"object\",\"properties\":{\"a\":{"
	    "\"type\":\"array\",\"items\":{\"patern\":\"x\"}}}}",
	    "schema at \"a[]\": unknown keyword \"patern\"");
	expect_schema_bad("{\"type\":\"object\",\"properties\":{\"o\":{"
	    "\"type\":\"object\",\"properties\":{\"b\":{\"format\":\"uri\"}}}}}",
	    "schema at \"o.b\": unknown keyword \"format\"");
}
END_TEST

START_TEST(test_check_rejects_bad_values)
{
	expect_schema_bad("[]", "schema: not an object");
	expect_schema_bad("{\"type\":\"text\"}", "schema: unknown type \"text\"");
	expect_schema_bad("{\"type\":1}", "schema: \"type\" must be a type name");
	expect_schema_bad("{\"properties\":[]}",
	    "schema: \"properties\" must be an object");
	expect_schema_bad("{\"properties\":{\"a\":{}},\"required\":[\"b\"]}",
	    "schema: required \"b\" is not in \"properties\"");
	expect_schema_bad("{\"required\":\"a\"}",
	    "schema: \"required\" must be a list of names");
	expect_schema_bad("{\"additionalProperties\":\"no\"}",
	    "schema: \"additionalProperties\" must be true or false");
	expect_schema_bad("{\"enum\":[]}",
	    "schema: \"enum\" must be a non-empty list");
	expect_schema_bad("{\"minimum\":\"1\"}",
	    "schema: \"minimum\" must be a number");
	expect_schema_bad("{\"minimum\":5,\"maximum\":1}",
	    "schema: \"minimum\" is above \"maximum\"");
	expect_schema_bad("{\"minLength\":-1}",
	    "schema: \"minLength\" must be an integer >= 0");
	expect_schema_bad("{\"maxItems\":1.5}",
	    "schema: \"maxItems\" must be an integer >= 0");
	expect_schema_bad("{\"items\":[{}]}", "schema at \"[]\": not an object");
	expect_schema_bad("{\"description\":1}",
	    "schema: \"description\" must be a string");
	expect_schema_bad("{\"anyOf\":[]}",
	    "schema: \"anyOf\" must be a non-empty list of schemas");
	expect_schema_bad("{\"properties\":{\"v\":{\"anyOf\":[{\"type\":\"text\"}]}}}",
	    "schema at \"v\": unknown type \"text\"");
}
END_TEST

START_TEST(test_check_rejects_what_function_calling_formats_reject)
{
	expect_schema_bad("{\"properties\":{\"v\":{\"type\":[\"string\",\"boolean\"]}}}",
	    "schema at \"v\": \"type\" must be one type name: write several "
	    "as \"anyOf\" (function-calling formats such as Gemini's take no "
	    "type lists)");
	expect_schema_bad("{\"type\":[\"string\",\"null\"]}",
	    "schema: \"type\" must be one type name: write several as "
	    "\"anyOf\" (function-calling formats such as Gemini's take no type "
	    "lists)");
	expect_schema_bad("{\"enum\":[1,2]}", "schema: \"enum\" must list strings");
	expect_schema_bad("{\"additionalProperties\":{\"type\":\"number\"}}",
	    "schema: \"additionalProperties\" must be true or false");
	expect_schema_bad("{\"const\":1}", "schema: unknown keyword \"const\"");
	expect_schema_bad("{\"examples\":[1]}", "schema: unknown keyword \"examples\"");
	expect_schema_bad("{\"allOf\":[{}]}", "schema: unknown keyword \"allOf\"");
	expect_schema_bad("{\"$ref\":\"#/$defs/a\"}", "schema: unknown keyword \"$ref\"");
}
END_TEST

START_TEST(test_check_rejects_default_that_does_not_fit)
{
	expect_schema_bad("{\"properties\":{\"w\":{\"enum\":[\"load\"],"
	    "\"default\":\"lod\"}}}",
	    "schema at \"w\": \"default\" does not fit: argument \"w\" must "
	    "be \"load\"");
}
END_TEST

/*
 * Checks one shared case's instance: valid when expected is NULL, else
 * rejected with exactly that cause. Prints a mismatch; returns 1 if so.
 */
static int
shared_instance_wrong(const char *name, const json_t *schema,
    const json_t *instance, const char *expected)
{
	char	*text, *cause = NULL;
	int	 error, wrong;

	error = schema_validate(schema, instance, &cause);
	wrong = expected == NULL ? error != 0 :
	    error != -1 || cause == NULL || strcmp(cause, expected) != 0;
	if (wrong) {
		text = json_dumps(instance, JSON_ENCODE_ANY);
		fprintf(stderr, "schema-cases.json \"%s\": %s:\n"
		    "  actual:   %s\n  expected: %s\n", name, text,
		    error == 0 ? "(valid)" : cause,
		    expected == NULL ? "(valid)" : expected);
		free(text);
	}
	free(cause);
	return wrong;
}

START_TEST(test_shared_cases)
{
	const char	*srcdir = getenv("BRIDGE_SRCDIR");
	json_error_t	 error;
	json_t		*file, *one, *instance;
	char		*path;
	size_t		 i, j, count = 0;
	int		 wrong = 0;

	/* The extension's checker runs the same file (json-schema.test.mjs). */
	path = xasprintf("%s/tests/schema-cases.json",
	    srcdir != NULL ? srcdir : ".");
	file = json_load_file(path, 0, &error);
	ck_assert_msg(file != NULL, "cannot read %s (%s); run the test through "
	    "make check, which sets BRIDGE_SRCDIR", path, error.text);
	json_array_foreach(json_object_get(file, "cases"), i, one) {
		const char	*name = json_string_value(json_object_get(one,
				    "name"));
		const json_t	*schema = json_object_get(one, "schema");

		json_array_foreach(json_object_get(one, "valid"), j, instance) {
			wrong += shared_instance_wrong(name, schema, instance,
			    NULL);
			count++;
		}
		json_array_foreach(json_object_get(one, "invalid"), j,
		    instance) {
			wrong += shared_instance_wrong(name, schema,
			    json_object_get(instance, "instance"),
			    json_string_value(json_object_get(instance, "host")));
			count++;
		}
	}
	ck_assert_msg(count > 0, "%s has no cases", path);
	ck_assert_msg(wrong == 0, "%d of %zu shared cases differ (see above)",
	    wrong, count);
	json_decref(file);
	free(path);
}
END_TEST

/* Builds the schema suite. */
static Suite *
schema_suite(void)
{
	Suite	*s = suite_create("schema");
	TCase	*tc;

	tc = tcase_create("types");
	tcase_add_test(tc, test_type_string);
	tcase_add_test(tc, test_type_integer_rejects_reals);
	tcase_add_test(tc, test_type_number_accepts_both);
	tcase_add_test(tc, test_type_boolean_null_array_object);
	tcase_add_test(tc, test_any_of);
	tcase_add_test(tc, test_no_type_accepts_anything);
	suite_add_tcase(s, tc);

	tc = tcase_create("values");
	tcase_add_test(tc, test_enum);
	tcase_add_test(tc, test_minimum);
	tcase_add_test(tc, test_maximum);
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_number_bounds_with_reals);
	tcase_add_test(tc, test_string_length);
	tcase_add_test(tc, test_string_length_counts_characters);
	tcase_add_test(tc, test_array_size);
	suite_add_tcase(s, tc);

	tc = tcase_create("paths");
	tcase_add_test(tc, test_array_items_path);
	tcase_add_test(tc, test_nested_object_path);
	tcase_add_test(tc, test_nested_required_path);
	tcase_add_test(tc, test_deep_path_mixes_items_and_keys);
	suite_add_tcase(s, tc);

	tc = tcase_create("objects");
	tcase_add_test(tc, test_required);
	tcase_add_test(tc, test_unknown_argument);
	tcase_add_test(tc, test_unknown_before_missing);
	tcase_add_test(tc, test_unknown_when_none_allowed);
	tcase_add_test(tc, test_additional_properties);
	tcase_add_test(tc, test_root_must_be_object);
	tcase_add_test(tc, test_null_instance);
	tcase_add_test(tc, test_documentation_keywords_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_test(tc, test_check_accepts_catalogue_style);
	tcase_add_test(tc, test_check_rejects_unknown_keyword);
	tcase_add_test(tc, test_check_rejects_bad_values);
	tcase_add_test(tc, test_check_rejects_what_function_calling_formats_reject);
	tcase_add_test(tc, test_check_rejects_default_that_does_not_fit);
	suite_add_tcase(s, tc);

	tc = tcase_create("shared");
	tcase_add_test(tc, test_shared_cases);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	return check_run_suite(schema_suite());
}
