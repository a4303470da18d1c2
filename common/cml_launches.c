/* cml_launches.c — the lab's launch record (cml_launches.h): the last launch call that failed,
 * and its kernel's name and attributes, queried only when an error is reported.
 *
 * The record is plain static state: the labs launch from one host thread. A launcher that
 * launched from several at once could mix two launches' fields in the record, which costs
 * only the diagnosis (nothing here is scored).
 *
 * Source: CUDA Runtime API, cudaFuncGetName, cudaFuncGetAttributes (both take a cudaKernel_t
 * "as is"); the Itanium C++ ABI, __cxa_demangle (libstdc++, linked into every lab binary).
 */
#include "cml_launches.h"

#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (cxxabi.h, extern "C"). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* cudaFuncGetName is recent (CUDA 12.x): referenced weakly, so that an older runtime without
 * it still links; the name is then unknown. */
#pragma weak cudaFuncGetName

static struct {
    unsigned long long count;
    int has_failed;
    const void *kernel;
    dim3 grid, block;
    size_t dynamic_smem_bytes;
    cudaError_t err;
} record;

void cml_launches_note(const void *kernel, dim3 grid, dim3 block, size_t dynamic_smem_bytes,
                       cudaError_t err) {
    record.count += 1;
    if (err == cudaSuccess) {
        return;
    }
    record.has_failed = 1;
    record.kernel = kernel;
    record.grid = grid;
    record.block = block;
    record.dynamic_smem_bytes = dynamic_smem_bytes;
    record.err = err;
}

void cml_launches_reset(void) {
    record.has_failed = 0;
}

unsigned long long cml_launches_count(void) {
    return record.count;
}

void cml_kernel_short_name(const char *demangled, char *out, size_t cap) {
    if (cap == 0) {
        return;
    }
    size_t end = strlen(demangled);
    /* Drop the parameter list: the parenthesised group that ends the name. */
    if (end > 0 && demangled[end - 1] == ')') {
        int depth = 0;
        for (size_t i = end; i-- > 0;) {
            depth += demangled[i] == ')';
            depth -= demangled[i] == '(';
            if (depth == 0) {
                end = i;
                break;
            }
        }
    }
    /* Drop a return type (function templates demangle with one): what precedes the last
     * space outside <> and (). */
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i < end; ++i) {
        const char ch = demangled[i];
        depth += ch == '<' || ch == '(';
        depth -= ch == '>' || ch == ')';
        if (ch == ' ' && depth == 0) {
            start = i + 1;
        }
    }
    size_t len = end - start;
    if (len >= cap) {
        len = cap - 1;
    }
    memcpy(out, demangled + start, len);
    out[len] = '\0';
}

/* The kernel's name as the runtime gives it, demangled and shortened; "" when unknown. */
static void kernel_name(const void *kernel, char *out, size_t cap) {
    out[0] = '\0';
    const char *name = NULL;
    if (cudaFuncGetName == NULL || cudaFuncGetName(&name, kernel) != cudaSuccess || !name) {
        return;
    }
    int status = -1;
    char *demangled = __cxa_demangle(name, NULL, NULL, &status);
    cml_kernel_short_name(status == 0 && demangled ? demangled : name, out, cap);
    free(demangled);
}

int cml_launches_failed(cudaError_t err, cml_launch_config *out) {
    memset(out, 0, sizeof *out);
    if (!record.has_failed || record.err != err) {
        return 0;
    }
    out->grid[0] = record.grid.x;
    out->grid[1] = record.grid.y;
    out->grid[2] = record.grid.z;
    out->block[0] = record.block.x;
    out->block[1] = record.block.y;
    out->block[2] = record.block.z;
    out->dynamic_smem_bytes = record.dynamic_smem_bytes;
    out->error = (int32_t)record.err;
    out->static_smem_bytes = -1;
    out->registers = -1;
    out->max_threads_per_block = -1;
    out->max_dynamic_smem_bytes = -1;
    if (record.kernel) {
        kernel_name(record.kernel, out->kernel, sizeof out->kernel);
        struct cudaFuncAttributes a;
        if (cudaFuncGetAttributes(&a, record.kernel) == cudaSuccess) {
            out->static_smem_bytes = (int64_t)a.sharedSizeBytes;
            out->registers = a.numRegs;
            out->max_threads_per_block = a.maxThreadsPerBlock;
            out->max_dynamic_smem_bytes = a.maxDynamicSharedSizeBytes;
        }
        (void)cudaGetLastError(); /* a failed query is no error of the run's */
    }
    return 1;
}
