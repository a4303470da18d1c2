/* cml_devmem.h — the device buffers of a problem, shareable with another process.
 *
 * A harness's setup() allocates every device buffer it hands to a launcher through
 * cml_dev_alloc() (by way of cml_setup.h's cml_device, which frees it with cml_dev_free() when
 * the problem is released). What that does depends on who runs the
 * setup (docs/protocol.md, "Judged runs"):
 *   - a plain run (the lab binary on its own, compute-sanitizer's runs): cudaMalloc;
 *   - the judge (the course's process, no student code linked in): an allocation from one
 *     memory pool that can be exported as a POSIX file descriptor, so that the student's
 *     process can map the very same buffers; the judge writes the inputs, poisons and
 *     reads the output, and no figure of the student's process is believed;
 *   - the student's process (lab --serve): the next buffer the judge exported, in the order
 *     the judge's own setup() allocated them (the same code with the same sizes), so the
 *     pointers in the exercise's context refer to the judge's buffers.
 * Each mode can record the allocations of one problem in a registry, in order: the judge
 * exports the registry and copies input sets buffer by buffer between problems.
 *
 * Source: CUDA C++ Programming Guide, "Stream Ordered Memory Allocator", IPC memory pools
 * (cudaMemPoolExportToShareableHandle, cudaMemPoolExportPointer, cudaMemPoolImportPointer).
 */
#pragma once

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CML_DEVMEM_MAX 32 /* buffers per problem */

typedef struct cml_devmem_registry {
    int n;
    void *ptr[CML_DEVMEM_MAX];
    size_t bytes[CML_DEVMEM_MAX]; /* as asked for */
} cml_devmem_registry;

typedef enum cml_devmem_mode {
    CML_DEVMEM_PLAIN = 0, /* cudaMalloc */
    CML_DEVMEM_EXPORT,    /* from the exportable pool (the judge's shared problem) */
    CML_DEVMEM_IMPORT     /* the next buffer of `imports` (the student's process) */
} cml_devmem_mode;

/* From now on cml_dev_alloc() allocates in `mode` and records each allocation in `record`
 * (NULL: nowhere). EXPORT needs `pool`, IMPORT needs `imports` (consumed in order).
 * cml_devmem_use(CML_DEVMEM_PLAIN, NULL, NULL, NULL) restores the default. */
void cml_devmem_use(cml_devmem_mode mode, cml_devmem_registry *record, cudaMemPool_t pool,
                    const cml_devmem_registry *imports);

/* 1 while cml_dev_alloc() hands out imports (CML_DEVMEM_IMPORT: the student's process setting
 * up on the judge's buffers), else 0. */
int cml_devmem_importing(void);

/* How many of the imports have been handed out since cml_devmem_use(). */
int cml_devmem_imports_used(void);

/* 1 when the registry of cml_devmem_use() holds CML_DEVMEM_MAX buffers, so that the next
 * cml_dev_alloc() fails: a setup() that asks for more is a course bug (cml_setup.c reports it
 * so, kind "harness"); 0 otherwise, and always without a registry. */
int cml_devmem_full(void);

/* A device buffer of `bytes` bytes (at least 1 is allocated). Returns cudaErrorInvalidValue
 * when the registry is full (cml_devmem_full: never cudaErrorMemoryAllocation, which is the
 * device's memory running out), and in IMPORT mode when no import is left or the next one has
 * another size (the two processes' setups disagree). */
cudaError_t cml_dev_alloc(void **ptr, size_t bytes);

/* Frees a buffer of cml_dev_alloc (cudaFree: plain, pool and imported buffers alike). */
cudaError_t cml_dev_free(void *ptr);

/* The judge's exportable pool on the current device, and its file descriptor for
 * cml_ipc_send(). */
cudaError_t cml_devmem_pool_create(cudaMemPool_t *pool, int *fd);

/* The student's process: maps the pool behind `fd` with read-write access and imports the
 * n exported pointers into imports->ptr (imports->bytes must hold their sizes). Called again
 * (the next case of a multi-case run, the same pool), it only imports the pointers. */
cudaError_t cml_devmem_pool_import(int fd, const void *export_data, int n,
                                   cml_devmem_registry *imports);

/* The student's process: imports n more pointers from the pool of the last
 * cml_devmem_pool_import() into ptrs[0..n). */
cudaError_t cml_devmem_import_more(const void *export_data, int n, void **ptrs);

/* Export data of a pool allocation (cudaMemPoolPtrExportData, 64 bytes) into out. */
cudaError_t cml_devmem_export_ptr(void *ptr, void *out);

#ifdef __cplusplus
}
#endif
