/* cml_pgm.c — binary PGM (P5) reader and writer (cml_pgm.h). Plain C11.
 *
 * Source: the Netpbm PGM format specification (netpbm.sourceforge.net/doc/pgm.html).
 */
#include "cml_pgm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Skips white space and comments, then reads a decimal; *pos advances past it. Returns -1 when
 * there is no number or it exceeds `max`. */
static long header_number(const unsigned char *data, size_t n, size_t *pos, long max) {
    size_t p = *pos;
    for (;;) {
        while (p < n && is_space(data[p])) {
            ++p;
        }
        if (p < n && data[p] == '#') {
            while (p < n && data[p] != '\n' && data[p] != '\r') {
                ++p;
            }
            continue;
        }
        break;
    }
    if (p >= n || data[p] < '0' || data[p] > '9') {
        return -1;
    }
    long v = 0;
    while (p < n && data[p] >= '0' && data[p] <= '9') {
        v = v * 10 + (data[p] - '0');
        if (v > max) {
            return -1;
        }
        ++p;
    }
    *pos = p;
    return v;
}

const char *cml_pgm_parse(const unsigned char *data, size_t n, cml_image_u8 *img) {
    memset(img, 0, sizeof *img);
    if (n < 2 || data[0] != 'P' || data[1] != '5') {
        return "not a binary PGM (P5)";
    }
    size_t pos = 2;
    if (pos >= n || !(is_space(data[pos]) || data[pos] == '#')) {
        return "not a binary PGM (P5)";
    }
    const long w = header_number(data, n, &pos, CML_PGM_MAX_SIDE);
    const long h = header_number(data, n, &pos, CML_PGM_MAX_SIDE);
    if (w < 1 || h < 1) {
        return "bad PGM width or height (1 to 65536)";
    }
    const long maxval = header_number(data, n, &pos, 65535);
    if (maxval < 1) {
        return "bad PGM maxval";
    }
    if (maxval > 255) {
        return "16-bit PGM (maxval > 255) not supported";
    }
    if (pos >= n || !is_space(data[pos])) {
        return "PGM header not followed by one white-space byte";
    }
    ++pos; /* exactly one: the first pixel byte may itself look like white space */
    const size_t count = (size_t)w * (size_t)h;
    if (n - pos < count) {
        return "truncated pixel data";
    }
    unsigned char *pixels = malloc(count);
    if (pixels == NULL) {
        return "out of memory for the image";
    }
    memcpy(pixels, data + pos, count);
    img->width = (int)w;
    img->height = (int)h;
    img->maxval = (int)maxval;
    img->pixels = pixels;
    return NULL;
}

const char *cml_pgm_read(const char *path, cml_image_u8 *img) {
    memset(img, 0, sizeof *img);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return "cannot open the PGM file";
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    const char *err = NULL;
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) {
            break;
        }
        unsigned char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf == NULL) {
        err = "out of memory reading the PGM file";
    } else if (ferror(f)) {
        err = "cannot read the PGM file";
    } else {
        err = cml_pgm_parse(buf, len, img);
    }
    free(buf);
    fclose(f);
    return err;
}

static int valid_side(int v) {
    return v >= 1 && v <= CML_PGM_MAX_SIDE;
}

int cml_pgm_write(const char *path, const unsigned char *pixels, int width, int height) {
    if (!valid_side(width) || !valid_side(height)) {
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return -1;
    }
    const size_t count = (size_t)width * (size_t)height;
    int ok = fprintf(f, "P5\n%d %d\n255\n", width, height) > 0;
    ok = ok && fwrite(pixels, 1, count, f) == count;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : -1;
}

int cml_pgm_write_f32(const char *path, const float *pixels, int width, int height, float scale) {
    if (!valid_side(width) || !valid_side(height)) {
        return -1;
    }
    const size_t count = (size_t)width * (size_t)height;
    unsigned char *bytes = malloc(count);
    if (bytes == NULL) {
        return -1;
    }
    for (size_t i = 0; i < count; ++i) {
        /* v >= 1 truncates to floor(v); v < 1 and NaN give 0 (no libm needed) */
        const double v = (double)scale * (double)pixels[i] + 0.5;
        bytes[i] = (unsigned char)(v >= 255.0 ? 255 : (v >= 1.0 ? (int)v : 0));
    }
    const int rc = cml_pgm_write(path, bytes, width, height);
    free(bytes);
    return rc;
}

void cml_image_u8_free(cml_image_u8 *img) {
    free(img->pixels);
    memset(img, 0, sizeof *img);
}
