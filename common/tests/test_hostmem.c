/* test_hostmem.c — the huge-page hint on large host buffers (cml_hostmem.h).
 *
 * The hint is read back from the kernel: /proc/self/smaps lists the mapping that holds the
 * buffer's aligned part with the flag "hg" (MADV_HUGEPAGE) among its VmFlags. Where the kernel
 * has no transparent huge pages (/sys/kernel/mm/transparent_hugepage absent) the hint must say
 * it was not taken. No GPU needed.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cml_hostmem.h"
#include "suites.h"

/* 1 when the mapping of /proc/self/smaps that contains addr has "hg" in its VmFlags, 0 when
 * it has not, -1 when no mapping contains it. */
static int mapping_has_hugepage_flag(uintptr_t addr) {
    FILE *f = fopen("/proc/self/smaps", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int inside = 0, found = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's first line */
            inside = addr >= lo && addr < hi;
            continue;
        }
        if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

START_TEST(large_buffer_is_advised_small_one_left_alone) {
    const int thp = access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0;
    const size_t bytes = (size_t)64 << 20;
    char *big = malloc(bytes);
    ck_assert_ptr_nonnull(big);
    ck_assert_int_eq(cml_hugepage_hint(big, bytes), thp);
    const uintptr_t aligned = ((uintptr_t)big + ((uintptr_t)2 << 20)) & ~(((uintptr_t)2 << 20) - 1);
    ck_assert_int_eq(mapping_has_hugepage_flag(aligned), thp);
    memset(big, 7, bytes); /* the buffer works as before */
    ck_assert_int_eq(big[bytes - 1], 7);
    free(big);

    char *small = malloc(CML_HUGEPAGE_MIN_BYTES - 1);
    ck_assert_ptr_nonnull(small);
    ck_assert_int_eq(cml_hugepage_hint(small, CML_HUGEPAGE_MIN_BYTES - 1), 0);
    free(small);
    ck_assert_int_eq(cml_hugepage_hint(NULL, bytes), 0);
}
END_TEST

Suite *make_hostmem_suite(void) {
    Suite *s = suite_create("hostmem");
    TCase *tc = tcase_create("Hint");
    tcase_add_test(tc, large_buffer_is_advised_small_one_left_alone);
    suite_add_tcase(s, tc);
    return s;
}
