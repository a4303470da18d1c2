/* cml_json.h — a small streaming JSON writer (RFC 8259) for the harness's run documents.
 *
 * Commas and nesting are tracked by the writer; strings are escaped; NaN and Inf, which
 * JSON cannot represent, are written as null. Numbers use "%.17g" so doubles round-trip.
 *
 * CML_SCHEMA_VERSION is the version of the run document that lab harnesses write
 * (docs/protocol.md). It is defined here only: the grader reads it from this file.
 */
#pragma once

#include <stdint.h>
#include <stdio.h>

#define CML_SCHEMA_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

#define CML_JSON_MAX_DEPTH 32

typedef struct cml_json {
    FILE *f;
    int depth;
    int need_comma[CML_JSON_MAX_DEPTH]; /* per level: an element was already written */
    int in_object[CML_JSON_MAX_DEPTH];  /* per level: 1 object, 0 array (level 0: top) */
    int after_key;                      /* a key was just written: no comma before value */
    /* Set on misuse: depth overflow, an unbalanced or mismatched end, a key outside an
     * object, a value without its key, a second top-level value. */
    int error;
} cml_json;

void cml_json_init(cml_json *w, FILE *f);
void cml_json_begin_object(cml_json *w);
void cml_json_end_object(cml_json *w);
void cml_json_begin_array(cml_json *w);
void cml_json_end_array(cml_json *w);
void cml_json_key(cml_json *w, const char *key);
void cml_json_string(cml_json *w, const char *s); /* NULL writes null */
void cml_json_double(cml_json *w, double x);      /* NaN/Inf write null */
void cml_json_int(cml_json *w, long long x);
void cml_json_uint(cml_json *w, unsigned long long x);
void cml_json_bool(cml_json *w, int b);
void cml_json_null(cml_json *w);
/* Returns 0 when the document was balanced and no misuse happened, else -1. */
int cml_json_finish(cml_json *w);

#ifdef __cplusplus
}
#endif
