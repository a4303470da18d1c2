/* cml_devmem.c — device buffers of a problem, shareable with another process (cml_devmem.h).
 *
 * Source: CUDA C++ Programming Guide, "Stream Ordered Memory Allocator: IPC Memory Pools".
 */
#include "cml_devmem.h"

#include <stdint.h>
#include <string.h>

static cudaMemPool_t imported_pool; /* the student's process: the judge's pool */

static struct {
    cml_devmem_mode mode;
    cml_devmem_registry *record;
    cudaMemPool_t pool;
    const cml_devmem_registry *imports;
    int next_import;
} state;

void cml_devmem_use(cml_devmem_mode mode, cml_devmem_registry *record, cudaMemPool_t pool,
                    const cml_devmem_registry *imports) {
    state.mode = mode;
    state.record = record;
    state.pool = pool;
    state.imports = imports;
    state.next_import = 0;
}

int cml_devmem_importing(void) {
    return state.mode == CML_DEVMEM_IMPORT;
}

int cml_devmem_imports_used(void) {
    return state.next_import;
}

int cml_devmem_full(void) {
    return state.record != NULL && state.record->n >= CML_DEVMEM_MAX;
}

cudaError_t cml_dev_alloc(void **ptr, size_t bytes) {
    if (ptr == NULL) {
        return cudaErrorInvalidValue;
    }
    *ptr = NULL;
    if (cml_devmem_full()) {
        return cudaErrorInvalidValue; /* a course bug, not the device's memory: cml_devmem_full */
    }
    const size_t n_alloc = bytes > 0 ? bytes : 1;
    cudaError_t err = cudaSuccess;
    switch (state.mode) {
    case CML_DEVMEM_EXPORT:
        err = cudaMallocFromPoolAsync(ptr, n_alloc, state.pool, 0);
        if (err == cudaSuccess) {
            err = cudaStreamSynchronize(0);
        }
        break;
    case CML_DEVMEM_IMPORT:
        if (!state.imports || state.next_import >= state.imports->n ||
            state.imports->bytes[state.next_import] != bytes) {
            return cudaErrorInvalidValue;
        }
        *ptr = state.imports->ptr[state.next_import++];
        break;
    default:
        err = cudaMalloc(ptr, n_alloc);
        break;
    }
    if (err != cudaSuccess) {
        return err;
    }
    if (state.record) {
        state.record->ptr[state.record->n] = *ptr;
        state.record->bytes[state.record->n] = bytes;
        state.record->n += 1;
    }
    return cudaSuccess;
}

cudaError_t cml_dev_free(void *ptr) {
    return cudaFree(ptr);
}

cudaError_t cml_devmem_pool_create(cudaMemPool_t *pool, int *fd) {
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) {
        return err;
    }
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) {
        return err;
    }
    /* Keep freed memory in the pool rather than giving it back at every synchronisation. */
    uint64_t threshold = UINT64_MAX;
    err = cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    if (err != cudaSuccess) {
        return err;
    }
    /* Export the pool before any pointer (the order the Programming Guide shows). */
    return cudaMemPoolExportToShareableHandle(fd, *pool, cudaMemHandleTypePosixFileDescriptor, 0);
}

cudaError_t cml_devmem_export_ptr(void *ptr, void *out) {
    return cudaMemPoolExportPointer((struct cudaMemPoolPtrExportData *)out, ptr);
}

cudaError_t cml_devmem_pool_import(int fd, const void *export_data, int n,
                                   cml_devmem_registry *imports) {
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) {
        return err;
    }
    if (imported_pool != NULL) { /* the next case of a multi-case run: the judge's one pool */
        err = cml_devmem_import_more(export_data, n < CML_DEVMEM_MAX ? n : CML_DEVMEM_MAX,
                                     imports->ptr);
        imports->n = err == cudaSuccess ? n : 0;
        return err;
    }
    cudaMemPool_t pool;
    err = cudaMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)fd,
                                               cudaMemHandleTypePosixFileDescriptor, 0);
    if (err != cudaSuccess) {
        return err;
    }
    struct cudaMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = dev;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    err = cudaMemPoolSetAccess(pool, &desc, 1);
    if (err != cudaSuccess) {
        return err;
    }
    imported_pool = pool;
    err =
        cml_devmem_import_more(export_data, n < CML_DEVMEM_MAX ? n : CML_DEVMEM_MAX, imports->ptr);
    imports->n = err == cudaSuccess ? n : 0;
    return err;
}

cudaError_t cml_devmem_import_more(const void *export_data, int n, void **ptrs) {
    if (imported_pool == NULL) {
        return cudaErrorInvalidValue;
    }
    const struct cudaMemPoolPtrExportData *data =
        (const struct cudaMemPoolPtrExportData *)export_data;
    for (int i = 0; i < n; ++i) {
        struct cudaMemPoolPtrExportData d = data[i]; /* the API takes a non-const pointer */
        cudaError_t err = cudaMemPoolImportPointer(&ptrs[i], imported_pool, &d);
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}
