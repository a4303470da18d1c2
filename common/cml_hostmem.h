/* cml_hostmem.h — large host buffers backed by huge pages where the kernel offers them.
 *
 * A judge's set-up fills host buffers of hundreds of MB (lab 3.3: inputs of 67 M floats drawn
 * on the host, a transpose's reference at every one of 67 M positions in float64), each
 * malloc'd fresh and so faulted in 4 KiB page by page: 65 536 faults per 256 MiB, a cost paid
 * in the kernel on every grading's CPUs before its gate (issue 15). Transparent huge pages
 * fault 2 MiB at a time; where the kernel's policy is "madvise" (Debian's and Ubuntu's
 * default) a buffer gets them only when asked.
 *
 * Source: Linux, Documentation/admin-guide/mm/transhuge.rst (MADV_HUGEPAGE); madvise(2).
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Asks for huge pages on the 2 MiB-aligned part of [ptr, ptr + bytes), a heap buffer not yet
 * touched, when bytes is at least CML_HUGEPAGE_MIN_BYTES (a smaller one is left alone); the
 * contents and the buffer's ownership are unchanged (free() it as before), and a kernel
 * without transparent huge pages ignores the hint. Returns 1 when the hint was given and
 * accepted, 0 otherwise (never an error: the buffer works either way). */
#define CML_HUGEPAGE_MIN_BYTES ((size_t)4 << 20)
int cml_hugepage_hint(void *ptr, size_t bytes);

#ifdef __cplusplus
}
#endif
