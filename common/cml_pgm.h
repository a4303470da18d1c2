/* cml_pgm.h — read and write 8-bit greyscale images as binary PGM (P5). Plain C11, host only.
 *
 * Format: Netpbm PGM, "raw" variant (netpbm.sourceforge.net/doc/pgm.html): the magic "P5",
 * then width, height and maxval as ASCII decimals separated by white space (a '#' starts a
 * comment that runs to the end of the line), exactly one white-space byte, then height rows of
 * width bytes, top row first. Only maxval <= 255 (one byte per sample) is supported; samples are
 * returned as stored (relative to maxval, not rescaled).
 *
 * Used by lab 3.5 (the image pipeline) to load its photograph and to write the pipeline's
 * output and intermediates; generic for any lab that reads or writes an image.
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An 8-bit greyscale image: pixels (height, width) row-major, pixel (y, x) at y * width + x. */
typedef struct cml_image_u8 {
    int width;
    int height;
    int maxval; /* 1 .. 255, from the file (255 for images the course writes) */
    unsigned char *pixels;
} cml_image_u8;

/* Largest side accepted by the parser (keeps width * height far from overflow). */
#define CML_PGM_MAX_SIDE 65536

/* Parses a P5 image from memory (data: n bytes). Bytes after the last row are ignored.
 * Returns NULL on success (img->pixels is malloc'd: cml_image_u8_free), else a static message
 * ("not a binary PGM (P5)", "truncated pixel data", ...) and *img zeroed. */
const char *cml_pgm_parse(const unsigned char *data, size_t n, cml_image_u8 *img);

/* Reads a P5 file. Returns NULL on success, else a static message (the file cannot be opened
 * or read, or any of cml_pgm_parse's). */
const char *cml_pgm_read(const char *path, cml_image_u8 *img);

/* Writes pixels (height, width) as P5 with maxval 255. Returns 0, or -1 when the file cannot
 * be written (errno says why) or a size is not in [1, CML_PGM_MAX_SIDE]. */
int cml_pgm_write(const char *path, const unsigned char *pixels, int width, int height);

/* Writes a float image (height, width) as P5: each pixel min(255, max(0, floor(scale * v +
 * 0.5))) (NaN writes 0), for looking at intermediates. Returns as cml_pgm_write. */
int cml_pgm_write_f32(const char *path, const float *pixels, int width, int height, float scale);

/* Frees img->pixels and zeroes *img (NULL pixels allowed). */
void cml_image_u8_free(cml_image_u8 *img);

#ifdef __cplusplus
}
#endif
