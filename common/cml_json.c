/* cml_json.c — a small streaming JSON writer (cml_json.h).
 *
 * Output is compact (no spaces). Each level remembers whether it is an object or an array
 * and whether it already holds an element, so commas are placed by the writer and misuse
 * (a key inside an array, a value without its key, a mismatched end) sets w->error, which
 * cml_json_finish() reports.
 *
 * Source: RFC 8259, "The JavaScript Object Notation (JSON) Data Interchange Format",
 * §7 (strings) and §6 (numbers: no NaN or Infinity).
 */
#include "cml_json.h"

#include <math.h>

void cml_json_init(cml_json *w, FILE *f) {
    *w = (cml_json){.f = f};
}

/* Before any value: check it is allowed here, and write the comma that separates it. */
static void begin_value(cml_json *w) {
    if (w->after_key) {
        w->after_key = 0; /* "key": value — the key already placed the comma */
        return;
    }
    if (w->in_object[w->depth] || (w->depth == 0 && w->need_comma[0])) {
        w->error = 1; /* a value without its key, or a second top-level value */
    }
    if (w->depth > 0 && w->need_comma[w->depth]) {
        fputc(',', w->f);
    }
    w->need_comma[w->depth] = 1;
}

static void write_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
        if (*c == '"' || *c == '\\') {
            fputc('\\', f);
            fputc(*c, f);
        } else if (*c < 0x20) {
            fprintf(f, "\\u%04x", (unsigned)*c); /* control characters must be escaped */
        } else {
            fputc(*c, f); /* everything else, UTF-8 included, is written as is */
        }
    }
    fputc('"', f);
}

static void begin_container(cml_json *w, char open, int is_object) {
    begin_value(w);
    if (w->depth + 1 >= CML_JSON_MAX_DEPTH) {
        w->error = 1;
        return;
    }
    fputc(open, w->f);
    w->depth++;
    w->need_comma[w->depth] = 0;
    w->in_object[w->depth] = is_object;
}

static void end_container(cml_json *w, char close, int is_object) {
    if (w->depth == 0 || w->in_object[w->depth] != is_object || w->after_key) {
        w->error = 1;
        return;
    }
    fputc(close, w->f);
    w->depth--;
}

void cml_json_begin_object(cml_json *w) {
    begin_container(w, '{', 1);
}

void cml_json_end_object(cml_json *w) {
    end_container(w, '}', 1);
}

void cml_json_begin_array(cml_json *w) {
    begin_container(w, '[', 0);
}

void cml_json_end_array(cml_json *w) {
    end_container(w, ']', 0);
}

void cml_json_key(cml_json *w, const char *key) {
    if (!w->in_object[w->depth] || w->after_key) {
        w->error = 1; /* keys belong in objects, one per value */
    }
    if (w->need_comma[w->depth]) {
        fputc(',', w->f);
    }
    w->need_comma[w->depth] = 1;
    write_string(w->f, key ? key : "");
    fputc(':', w->f);
    w->after_key = 1;
}

void cml_json_string(cml_json *w, const char *s) {
    begin_value(w);
    if (s) {
        write_string(w->f, s);
    } else {
        fputs("null", w->f);
    }
}

void cml_json_double(cml_json *w, double x) {
    begin_value(w);
    if (isfinite(x)) {
        fprintf(w->f, "%.17g", x); /* 17 significant digits: every double round-trips */
    } else {
        fputs("null", w->f);
    }
}

void cml_json_int(cml_json *w, long long x) {
    begin_value(w);
    fprintf(w->f, "%lld", x);
}

void cml_json_uint(cml_json *w, unsigned long long x) {
    begin_value(w);
    fprintf(w->f, "%llu", x);
}

void cml_json_bool(cml_json *w, int b) {
    begin_value(w);
    fputs(b ? "true" : "false", w->f);
}

void cml_json_null(cml_json *w) {
    begin_value(w);
    fputs("null", w->f);
}

int cml_json_finish(cml_json *w) {
    /* Complete: one top-level value, every container closed, no dangling key. */
    int ok = !w->error && w->depth == 0 && w->need_comma[0] && !w->after_key;
    if (fflush(w->f) != 0 || ferror(w->f)) {
        ok = 0;
    }
    return ok ? 0 : -1;
}
