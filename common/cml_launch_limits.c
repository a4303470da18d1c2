/* cml_launch_limits.c — which launch limit a kernel launch broke (cml_launch_limits.h).
 *
 * The checks run in the order of cml_limit: a zero dimension, the device's thread and grid
 * limits, the registers a block needs, the kernel's own thread limit, then shared memory. The
 * first broken one is the diagnosis: a 2048-thread block of a kernel whose registers also
 * would not fit is reported for its 2048 threads, the limit that holds whatever the kernel.
 *
 * Source: CUDA C++ Programming Guide, "Compute Capabilities" (technical specifications;
 * registers are allocated per warp in units of 256 on compute capability 5.0 and later) and
 * "Shared Memory"; CUDA Runtime API, cudaFuncAttributes.
 */
#include "cml_launch_limits.h"

#include <stdio.h>

#define REG_ALLOC_UNIT 256 /* registers per warp are allocated in units of this many */
#define WARP_SIZE 32

static const char *const AXIS[3] = {"x", "y", "z"};

const char *cml_limit_name(cml_limit limit) {
    switch (limit) {
    case CML_LIMIT_GRID_ZERO:
        return "grid_zero";
    case CML_LIMIT_BLOCK_ZERO:
        return "block_zero";
    case CML_LIMIT_BLOCK_THREADS:
        return "block_threads";
    case CML_LIMIT_BLOCK_DIM:
        return "block_dim";
    case CML_LIMIT_GRID_DIM:
        return "grid_dim";
    case CML_LIMIT_REGISTERS:
        return "registers";
    case CML_LIMIT_KERNEL_THREADS:
        return "kernel_threads";
    case CML_LIMIT_SMEM_MAX:
        return "smem_max";
    case CML_LIMIT_SMEM_OPTIN:
        return "smem_optin";
    case CML_LIMIT_SMEM_ATTR:
        return "smem_attr";
    default:
        return NULL;
    }
}

/* "512 B", "48 KB", "48.8 KB" (KB = 1024 B, as CUDA's "48 KB"). */
static void bytes_text(uint64_t n, char *out, size_t cap) {
    if (n < 1024) {
        snprintf(out, cap, "%llu B", (unsigned long long)n);
    } else if (n % 1024 == 0) {
        snprintf(out, cap, "%llu KB", (unsigned long long)(n / 1024));
    } else {
        snprintf(out, cap, "%.1f KB", (double)n / 1024.0);
    }
}

/* The block's shape as a product: "32 × 64" (trailing dimensions of 1 left out). */
static void shape_text(const uint32_t b[3], char *out, size_t cap) {
    if (b[2] != 1) {
        snprintf(out, cap, "%u × %u × %u", b[0], b[1], b[2]);
    } else if (b[1] != 1) {
        snprintf(out, cap, "%u × %u", b[0], b[1]);
    } else {
        snprintf(out, cap, "%u", b[0]);
    }
}

static cml_limit check_dimensions(const cml_launch_config *c, const cml_device_facts *d,
                                  uint64_t threads, char *msg, size_t cap) {
    for (int i = 0; i < 3; ++i) {
        if (c->grid[i] == 0) {
            snprintf(msg, cap, "the grid's %s dimension is 0 (each must be ≥ 1)", AXIS[i]);
            return CML_LIMIT_GRID_ZERO;
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (c->block[i] == 0) {
            snprintf(msg, cap, "the block's %s dimension is 0 (each must be ≥ 1)", AXIS[i]);
            return CML_LIMIT_BLOCK_ZERO;
        }
    }
    if (!d) {
        return CML_LIMIT_NONE;
    }
    if (d->max_threads_per_block > 0 && threads > (uint64_t)d->max_threads_per_block) {
        char shape[64];
        shape_text(c->block, shape, sizeof shape);
        if (c->block[1] == 1 && c->block[2] == 1) {
            snprintf(msg, cap, "%llu threads per block, over the device's maximum of %d",
                     (unsigned long long)threads, d->max_threads_per_block);
        } else {
            snprintf(msg, cap, "%s = %llu threads per block, over the device's maximum of %d",
                     shape, (unsigned long long)threads, d->max_threads_per_block);
        }
        return CML_LIMIT_BLOCK_THREADS;
    }
    for (int i = 0; i < 3; ++i) {
        if (d->max_block_dim[i] > 0 && c->block[i] > (uint32_t)d->max_block_dim[i]) {
            snprintf(msg, cap,
                     "the block's %s dimension is %u threads, over the device's maximum of %d for "
                     "it",
                     AXIS[i], c->block[i], d->max_block_dim[i]);
            return CML_LIMIT_BLOCK_DIM;
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (d->max_grid_dim[i] > 0 && c->grid[i] > (uint32_t)d->max_grid_dim[i]) {
            snprintf(msg, cap,
                     "the grid's %s dimension is %u blocks, over the device's maximum of %d for it",
                     AXIS[i], c->grid[i], d->max_grid_dim[i]);
            return CML_LIMIT_GRID_DIM;
        }
    }
    return CML_LIMIT_NONE;
}

static cml_limit check_registers(const cml_launch_config *c, const cml_device_facts *d,
                                 uint64_t threads, char *msg, size_t cap) {
    if (c->registers > 0 && d && d->regs_per_block > 0) {
        const uint64_t per_warp = ((uint64_t)c->registers * WARP_SIZE + REG_ALLOC_UNIT - 1) /
                                  REG_ALLOC_UNIT * REG_ALLOC_UNIT;
        const uint64_t warps = (threads + WARP_SIZE - 1) / WARP_SIZE;
        if (warps * per_warp > (uint64_t)d->regs_per_block) {
            int len =
                snprintf(msg, cap,
                         "%llu threads × %d registers per thread need %llu registers "
                         "(allocated per warp, %d at a time), over the %d of a block",
                         (unsigned long long)threads, c->registers,
                         (unsigned long long)(warps * per_warp), REG_ALLOC_UNIT, d->regs_per_block);
            if (c->max_threads_per_block > 0 && len > 0 && (size_t)len < cap) {
                snprintf(msg + len, cap - (size_t)len,
                         "; this kernel allows at most %d threads per block",
                         c->max_threads_per_block);
            }
            return CML_LIMIT_REGISTERS;
        }
    }
    if (c->max_threads_per_block > 0 && threads > (uint64_t)c->max_threads_per_block) {
        snprintf(msg, cap,
                 "%llu threads per block, over the %d this kernel allows (its registers per "
                 "thread or its __launch_bounds__ set that)",
                 (unsigned long long)threads, c->max_threads_per_block);
        return CML_LIMIT_KERNEL_THREADS;
    }
    return CML_LIMIT_NONE;
}

static cml_limit check_shared(const cml_launch_config *c, const cml_device_facts *d, char *msg,
                              size_t cap) {
    const uint64_t dyn = c->dynamic_smem_bytes;
    const uint64_t stat = c->static_smem_bytes > 0 ? (uint64_t)c->static_smem_bytes : 0;
    const uint64_t total = dyn + stat;
    char dyn_text[32], stat_text[32], total_text[32], limit_text[32];
    bytes_text(dyn, dyn_text, sizeof dyn_text);
    bytes_text(stat, stat_text, sizeof stat_text);
    bytes_text(total, total_text, sizeof total_text);
    char parts[96] = "";
    if (c->static_smem_bytes >= 0) {
        snprintf(parts, sizeof parts, " (%s dynamic + %s static)", dyn_text, stat_text);
    }
    const uint64_t optin = d ? d->smem_per_block_optin_bytes : 0;
    const uint64_t plain = d ? d->smem_per_block_bytes : 0;
    if (optin > 0 && total > optin) {
        bytes_text(optin, limit_text, sizeof limit_text);
        snprintf(msg, cap,
                 "%s of shared memory per block%s, over the device's maximum of %s per block "
                 "(sharedMemPerBlockOptin), which no cudaFuncSetAttribute can raise",
                 total_text, parts, limit_text);
        return CML_LIMIT_SMEM_MAX;
    }
    /* Raised: cudaFuncSetAttribute gave the kernel more than a block gets without the opt-in.
     * Not raised, the runtime reports that limit less the static part (or the limit itself):
     * either way the block's static and dynamic shared memory together must stay within it. */
    const int64_t max_dyn = c->max_dynamic_smem_bytes;
    const int raised =
        max_dyn >= 0 && plain > 0 && (uint64_t)max_dyn + stat > plain && (uint64_t)max_dyn != plain;
    if (raised) {
        if (dyn <= (uint64_t)max_dyn) {
            return CML_LIMIT_NONE;
        }
        bytes_text((uint64_t)max_dyn, limit_text, sizeof limit_text);
        snprintf(msg, cap,
                 "%s of dynamic shared memory, over the %s the kernel's "
                 "cudaFuncAttributeMaxDynamicSharedMemorySize allows",
                 dyn_text, limit_text);
        return CML_LIMIT_SMEM_ATTR;
    }
    const int over = plain > 0 ? total > plain : max_dyn >= 0 && dyn > (uint64_t)max_dyn;
    if (!over) {
        return CML_LIMIT_NONE;
    }
    if (plain > 0) {
        bytes_text(plain, limit_text, sizeof limit_text);
    } else {
        bytes_text((uint64_t)max_dyn + stat, limit_text, sizeof limit_text);
    }
    snprintf(msg, cap,
             "%s of shared memory per block%s, over the %s a block gets without the opt-in "
             "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
             total_text, parts, limit_text);
    return CML_LIMIT_SMEM_OPTIN;
}

cml_limit cml_launch_broken_limit(const cml_launch_config *c, const cml_device_facts *d, char *msg,
                                  size_t cap) {
    if (cap > 0) {
        msg[0] = '\0';
    }
    const uint64_t threads = (uint64_t)c->block[0] * c->block[1] * c->block[2];
    cml_limit limit = check_dimensions(c, d, threads, msg, cap);
    if (limit == CML_LIMIT_NONE) {
        limit = check_registers(c, d, threads, msg, cap);
    }
    if (limit == CML_LIMIT_NONE) {
        limit = check_shared(c, d, msg, cap);
    }
    return limit;
}
