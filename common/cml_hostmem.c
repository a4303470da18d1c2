/* cml_hostmem.c — huge pages for large host buffers (cml_hostmem.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "cml_hostmem.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

int cml_hugepage_hint(void *ptr, size_t bytes) {
    if (ptr == NULL || bytes < CML_HUGEPAGE_MIN_BYTES) {
        return 0;
    }
    const uintptr_t begin = ((uintptr_t)ptr + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    const uintptr_t end = ((uintptr_t)ptr + bytes) & ~(HUGE_PAGE - 1);
    if (end <= begin) {
        return 0;
    }
#ifdef MADV_HUGEPAGE
    return madvise((void *)begin, (size_t)(end - begin), MADV_HUGEPAGE) == 0;
#else
    return 0;
#endif
}
