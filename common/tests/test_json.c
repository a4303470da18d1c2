/* test_json.c — the streaming JSON writer (cml_json.h), its output compared as text.
 *
 * Output goes to an open_memstream buffer (POSIX 2008).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cml_json.h"
#include "suites.h"

typedef struct sink {
    FILE *f;
    char *buf;
    size_t len;
    cml_json w;
} sink;

static void open_sink(sink *s) {
    s->buf = NULL;
    s->f = open_memstream(&s->buf, &s->len);
    ck_assert_ptr_nonnull(s->f);
    cml_json_init(&s->w, s->f);
}

/* Finishes the document, checks the writer's verdict, and compares the text. */
static void expect(sink *s, int finish_rc, const char *text) {
    ck_assert_int_eq(cml_json_finish(&s->w), finish_rc);
    fclose(s->f);
    if (text) {
        ck_assert_str_eq(s->buf, text);
    }
    free(s->buf);
}

START_TEST(nesting_and_commas) {
    sink s;
    open_sink(&s);
    cml_json *w = &s.w;
    cml_json_begin_object(w);
    cml_json_key(w, "a");
    cml_json_int(w, 1);
    cml_json_key(w, "b");
    cml_json_begin_array(w);
    cml_json_int(w, 1);
    cml_json_int(w, 2);
    cml_json_begin_object(w);
    cml_json_key(w, "c");
    cml_json_null(w);
    cml_json_end_object(w);
    cml_json_begin_array(w);
    cml_json_end_array(w);
    cml_json_end_array(w);
    cml_json_key(w, "d");
    cml_json_begin_object(w);
    cml_json_end_object(w);
    cml_json_end_object(w);
    expect(&s, 0, "{\"a\":1,\"b\":[1,2,{\"c\":null},[]],\"d\":{}}");
}
END_TEST

START_TEST(value_types) {
    sink s;
    open_sink(&s);
    cml_json *w = &s.w;
    cml_json_begin_array(w);
    cml_json_string(w, "x");
    cml_json_string(w, NULL);
    cml_json_double(w, 1.5);
    cml_json_double(w, 0.1);
    cml_json_double(w, -0.0);
    cml_json_double(w, 1e300);
    cml_json_int(w, -5);
    cml_json_int(w, -9223372036854775807LL - 1);
    cml_json_uint(w, 18446744073709551615ULL);
    cml_json_bool(w, 1);
    cml_json_bool(w, 0);
    cml_json_null(w);
    cml_json_end_array(w);
    expect(&s, 0,
           "[\"x\",null,1.5,0.10000000000000001,-0,1.0000000000000001e+300,-5,"
           "-9223372036854775808,18446744073709551615,true,false,null]");
}
END_TEST

START_TEST(nan_and_inf_are_null) {
    sink s;
    open_sink(&s);
    cml_json_begin_array(&s.w);
    cml_json_double(&s.w, NAN);
    cml_json_double(&s.w, INFINITY);
    cml_json_double(&s.w, -INFINITY);
    cml_json_end_array(&s.w);
    expect(&s, 0, "[null,null,null]");
}
END_TEST

START_TEST(string_escaping) {
    sink s;
    open_sink(&s);
    cml_json_begin_object(&s.w);
    cml_json_key(&s.w, "k\"ey");
    cml_json_string(&s.w, "a\"b\\c\n\t\x01\x1f/\x7f\xc3\xa9");
    cml_json_end_object(&s.w);
    /* quote and backslash escaped, controls as \u00XX, '/', DEL and UTF-8 as they are */
    expect(&s, 0, "{\"k\\\"ey\":\"a\\\"b\\\\c\\u000a\\u0009\\u0001\\u001f/\x7f\xc3\xa9\"}");
}
END_TEST

START_TEST(a_scalar_document) {
    sink s;
    open_sink(&s);
    cml_json_int(&s.w, 42);
    expect(&s, 0, "42");
}
END_TEST

START_TEST(deepest_nesting_allowed) {
    sink s;
    open_sink(&s);
    for (int i = 0; i < CML_JSON_MAX_DEPTH - 1; ++i) {
        cml_json_begin_array(&s.w);
    }
    for (int i = 0; i < CML_JSON_MAX_DEPTH - 1; ++i) {
        cml_json_end_array(&s.w);
    }
    expect(&s, 0, NULL);
}
END_TEST

START_TEST(too_deep) {
    sink s;
    open_sink(&s);
    for (int i = 0; i < CML_JSON_MAX_DEPTH; ++i) {
        cml_json_begin_array(&s.w);
    }
    for (int i = 0; i < CML_JSON_MAX_DEPTH; ++i) {
        cml_json_end_array(&s.w);
    }
    expect(&s, -1, NULL);
}
END_TEST

START_TEST(unclosed) {
    sink s;
    open_sink(&s);
    cml_json_begin_object(&s.w);
    cml_json_key(&s.w, "a");
    cml_json_begin_array(&s.w);
    cml_json_end_array(&s.w);
    expect(&s, -1, "{\"a\":[]");
}
END_TEST

START_TEST(end_without_begin) {
    sink s;
    open_sink(&s);
    cml_json_begin_array(&s.w);
    cml_json_end_array(&s.w);
    cml_json_end_array(&s.w);
    expect(&s, -1, "[]");
}
END_TEST

START_TEST(mismatched_end) {
    sink s;
    open_sink(&s);
    cml_json_begin_object(&s.w);
    cml_json_end_array(&s.w);
    expect(&s, -1, NULL);
}
END_TEST

START_TEST(key_inside_array) {
    sink s;
    open_sink(&s);
    cml_json_begin_array(&s.w);
    cml_json_key(&s.w, "a");
    cml_json_int(&s.w, 1);
    cml_json_end_array(&s.w);
    expect(&s, -1, NULL);
}
END_TEST

START_TEST(value_without_key) {
    sink s;
    open_sink(&s);
    cml_json_begin_object(&s.w);
    cml_json_int(&s.w, 1);
    cml_json_end_object(&s.w);
    expect(&s, -1, NULL);
}
END_TEST

START_TEST(dangling_key) {
    sink s;
    open_sink(&s);
    cml_json_begin_object(&s.w);
    cml_json_key(&s.w, "a");
    cml_json_end_object(&s.w);
    expect(&s, -1, NULL);
}
END_TEST

START_TEST(two_top_level_values) {
    sink s;
    open_sink(&s);
    cml_json_int(&s.w, 1);
    cml_json_int(&s.w, 2);
    expect(&s, -1, NULL);
}
END_TEST

START_TEST(nothing_written) {
    sink s;
    open_sink(&s);
    expect(&s, -1, "");
}
END_TEST

Suite *make_json_suite(void) {
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, nesting_and_commas);
    tcase_add_test(tc, value_types);
    tcase_add_test(tc, nan_and_inf_are_null);
    tcase_add_test(tc, string_escaping);
    suite_add_tcase(s, tc);
    tc = tcase_create("Edges");
    tcase_add_test(tc, a_scalar_document);
    tcase_add_test(tc, deepest_nesting_allowed);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_test(tc, too_deep);
    tcase_add_test(tc, unclosed);
    tcase_add_test(tc, end_without_begin);
    tcase_add_test(tc, mismatched_end);
    tcase_add_test(tc, key_inside_array);
    tcase_add_test(tc, value_without_key);
    tcase_add_test(tc, dangling_key);
    tcase_add_test(tc, two_top_level_values);
    tcase_add_test(tc, nothing_written);
    suite_add_tcase(s, tc);
    return s;
}
