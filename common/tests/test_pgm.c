/* test_pgm.c — the binary PGM reader and writer (cml_pgm.h).
 *
 * TCases: "Parse" (headers with comments and odd white space, pixel bytes that look like white
 * space, the errors), "Files" (write then read back, the float writer's rounding and
 * saturation, a missing file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cml_pgm.h"
#include "suites.h"

/* Parses a header given as a string followed by `npix` pixel bytes. */
static const char *parse_with_pixels(const char *header, const unsigned char *pix, size_t npix,
                                     cml_image_u8 *img) {
    const size_t hl = strlen(header);
    unsigned char *buf = malloc(hl + npix + 1);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, header, hl);
    memcpy(buf + hl, pix, npix);
    const char *err = cml_pgm_parse(buf, hl + npix, img);
    free(buf);
    return err;
}

START_TEST(parse_plain) {
    const unsigned char pix[6] = {0, 1, 2, 253, 254, 255};
    cml_image_u8 img;
    ck_assert_ptr_null(parse_with_pixels("P5\n3 2\n255\n", pix, 6, &img));
    ck_assert_int_eq(img.width, 3);
    ck_assert_int_eq(img.height, 2);
    ck_assert_int_eq(img.maxval, 255);
    ck_assert_mem_eq(img.pixels, pix, 6);
    cml_image_u8_free(&img);
    ck_assert_ptr_null(img.pixels);
}
END_TEST

/* Comments anywhere in the header, tabs and CRs; the first pixel bytes are '\n' and ' ' and
 * '#': exactly one white-space byte ends the header. */
START_TEST(parse_comments_and_whitespace_pixels) {
    const unsigned char pix[4] = {'\n', ' ', '#', 9};
    cml_image_u8 img;
    ck_assert_ptr_null(
        parse_with_pixels("P5 # made by hand\n#another\n 2\t# w\r\n2 # h\n 200\n", pix, 4, &img));
    ck_assert_int_eq(img.width, 2);
    ck_assert_int_eq(img.height, 2);
    ck_assert_int_eq(img.maxval, 200);
    ck_assert_mem_eq(img.pixels, pix, 4);
    cml_image_u8_free(&img);
}
END_TEST

START_TEST(parse_errors) {
    const unsigned char pix[8] = {0};
    cml_image_u8 img;
    ck_assert_str_eq(parse_with_pixels("P2\n2 2\n255\n", pix, 4, &img), "not a binary PGM (P5)");
    ck_assert_ptr_null(img.pixels);
    ck_assert_str_eq(parse_with_pixels("P6\n2 2\n255\n", pix, 4, &img), "not a binary PGM (P5)");
    ck_assert_str_eq(parse_with_pixels("P52 2\n255\n", pix, 4, &img), "not a binary PGM (P5)");
    ck_assert_str_eq(parse_with_pixels("P5\n0 2\n255\n", pix, 4, &img),
                     "bad PGM width or height (1 to 65536)");
    ck_assert_str_eq(parse_with_pixels("P5\n65537 1\n255\n", pix, 4, &img),
                     "bad PGM width or height (1 to 65536)");
    ck_assert_str_eq(parse_with_pixels("P5\n2 x\n255\n", pix, 4, &img),
                     "bad PGM width or height (1 to 65536)");
    ck_assert_str_eq(parse_with_pixels("P5\n2 2\n0\n", pix, 4, &img), "bad PGM maxval");
    ck_assert_str_eq(parse_with_pixels("P5\n2 2\n65535\n", pix, 8, &img),
                     "16-bit PGM (maxval > 255) not supported");
    ck_assert_str_eq(parse_with_pixels("P5\n2 2\n255", pix, 0, &img),
                     "PGM header not followed by one white-space byte");
    ck_assert_str_eq(parse_with_pixels("P5\n2 2\n255\n", pix, 3, &img), "truncated pixel data");
    ck_assert_ptr_null(img.pixels);
    ck_assert_int_eq(img.width, 0);
}
END_TEST

/* Bytes after the last row (e.g. a second image) are ignored. */
START_TEST(parse_ignores_trailing_bytes) {
    const unsigned char pix[5] = {7, 8, 9, 10, 99};
    cml_image_u8 img;
    ck_assert_ptr_null(parse_with_pixels("P5 1 4 255 ", pix, 5, &img));
    ck_assert_int_eq(img.width, 1);
    ck_assert_int_eq(img.height, 4);
    ck_assert_mem_eq(img.pixels, pix, 4);
    cml_image_u8_free(&img);
}
END_TEST

START_TEST(write_read_round_trip) {
    enum { W = 300, H = 257 }; /* more than one read buffer's worth is not needed: 77 KB */
    unsigned char *pix = malloc(W * H);
    ck_assert_ptr_nonnull(pix);
    for (int i = 0; i < W * H; ++i) {
        pix[i] = (unsigned char)((i * 7 + i / W) & 0xFF);
    }
    const char *path = temp_path(0);
    ck_assert_int_eq(cml_pgm_write(path, pix, W, H), 0);
    cml_image_u8 img;
    ck_assert_ptr_null(cml_pgm_read(path, &img));
    ck_assert_int_eq(img.width, W);
    ck_assert_int_eq(img.height, H);
    ck_assert_int_eq(img.maxval, 255);
    ck_assert_mem_eq(img.pixels, pix, W * H);
    char *text = read_text_file(path);
    ck_assert(strncmp(text, "P5\n300 257\n255\n", 15) == 0);
    free(text);
    cml_image_u8_free(&img);
    free(pix);
    remove(path);
}
END_TEST

/* A file larger than the reader's first 64 KB buffer. */
START_TEST(read_large_file) {
    enum { W = 1000, H = 300 };
    unsigned char *pix = malloc(W * H);
    ck_assert_ptr_nonnull(pix);
    for (int i = 0; i < W * H; ++i) {
        pix[i] = (unsigned char)(i % 251);
    }
    const char *path = temp_path(1);
    ck_assert_int_eq(cml_pgm_write(path, pix, W, H), 0);
    cml_image_u8 img;
    ck_assert_ptr_null(cml_pgm_read(path, &img));
    ck_assert_mem_eq(img.pixels, pix, W * H);
    cml_image_u8_free(&img);
    free(pix);
    remove(path);
}
END_TEST

START_TEST(write_f32_rounds_and_saturates) {
    const float v[6] = {-3.0f, 0.49f, 0.5f, 127.5f, 254.6f, 1e9f};
    const char *path = temp_path(2);
    ck_assert_int_eq(cml_pgm_write_f32(path, v, 3, 2, 1.0f), 0);
    cml_image_u8 img;
    ck_assert_ptr_null(cml_pgm_read(path, &img));
    const unsigned char want[6] = {0, 0, 1, 128, 255, 255};
    ck_assert_mem_eq(img.pixels, want, 6);
    cml_image_u8_free(&img);
    const float g[2] = {10.0f, 100.0f};
    ck_assert_int_eq(cml_pgm_write_f32(path, g, 2, 1, 0.25f), 0);
    ck_assert_ptr_null(cml_pgm_read(path, &img));
    ck_assert_int_eq(img.pixels[0], 3); /* 2.5 rounds half up */
    ck_assert_int_eq(img.pixels[1], 25);
    cml_image_u8_free(&img);
    remove(path);
}
END_TEST

START_TEST(file_errors) {
    cml_image_u8 img;
    ck_assert_str_eq(cml_pgm_read("/nonexistent/dir/x.pgm", &img), "cannot open the PGM file");
    const unsigned char pix[1] = {0};
    ck_assert_int_eq(cml_pgm_write("/nonexistent/dir/x.pgm", pix, 1, 1), -1);
    ck_assert_int_eq(cml_pgm_write(temp_path(3), pix, 0, 1), -1);
}
END_TEST

Suite *make_pgm_suite(void) {
    Suite *s = suite_create("pgm");
    TCase *tc = tcase_create("Parse");
    tcase_add_test(tc, parse_plain);
    tcase_add_test(tc, parse_comments_and_whitespace_pixels);
    tcase_add_test(tc, parse_errors);
    tcase_add_test(tc, parse_ignores_trailing_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("Files");
    tcase_add_test(tc, write_read_round_trip);
    tcase_add_test(tc, read_large_file);
    tcase_add_test(tc, write_f32_rounds_and_saturates);
    tcase_add_test(tc, file_errors);
    suite_add_tcase(s, tc);
    return s;
}
