/* test_launch_limits.c — the broken launch limit in words (cml_launch_limits.h) and the lab's
 * launch record (cml_launches.h).
 *
 * The device is an H200's limits written out (cudaGetDeviceProperties there: 1024 threads per
 * block, block (1024, 1024, 64), grid (2^31 - 1, 65535, 65535), 48 KB of shared memory per
 * block, 227 KB with the opt-in, 64 K registers per block), so no GPU is needed: nothing here
 * is tagged. The record's tests note launches by hand with no kernel handle (the wrappers of
 * cml_launch_wrap.c are not linked into this runner), so no CUDA call is made.
 */
#include <string.h>

#include "cml_launch_limits.h"
#include "cml_launches.h"
#include "suites.h"

static const cml_device_facts H200 = {
    .smem_per_block_bytes = 48 * 1024,
    .smem_per_block_optin_bytes = 227 * 1024,
    .regs_per_block = 65536,
    .max_threads_per_block = 1024,
    .max_block_dim = {1024, 1024, 64},
    .max_grid_dim = {2147483647, 65535, 65535},
};

/* A launch of a kernel whose attributes are unknown unless a test sets them. */
static cml_launch_config launch(uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by, uint64_t smem) {
    cml_launch_config c = {.grid = {gx, gy, 1},
                           .block = {bx, by, 1},
                           .dynamic_smem_bytes = smem,
                           .static_smem_bytes = -1,
                           .registers = -1,
                           .max_threads_per_block = -1,
                           .max_dynamic_smem_bytes = -1};
    return c;
}

static char msg[512];

static cml_limit broken(const cml_launch_config *c) {
    return cml_launch_broken_limit(c, &H200, msg, sizeof msg);
}

/* ---- Dimensions ---- */

START_TEST(grid_of_zero_blocks) {
    cml_launch_config c = launch(0, 128, 32, 8, 0); /* grid = M / TILE with M < TILE */
    ck_assert_int_eq(broken(&c), CML_LIMIT_GRID_ZERO);
    ck_assert_str_eq(msg, "the grid's x dimension is 0 (each must be ≥ 1)");
    c = launch(4, 0, 32, 8, 0);
    ck_assert_int_eq(broken(&c), CML_LIMIT_GRID_ZERO);
    ck_assert_str_eq(msg, "the grid's y dimension is 0 (each must be ≥ 1)");
}
END_TEST

START_TEST(block_with_a_zero_dimension) {
    cml_launch_config c = launch(4, 4, 32, 0, 0);
    ck_assert_int_eq(broken(&c), CML_LIMIT_BLOCK_ZERO);
    ck_assert_str_eq(msg, "the block's y dimension is 0 (each must be ≥ 1)");
}
END_TEST

START_TEST(too_many_threads_per_block) {
    cml_launch_config c = launch(4, 4, 32, 64, 0);
    ck_assert_int_eq(broken(&c), CML_LIMIT_BLOCK_THREADS);
    ck_assert_str_eq(msg, "32 × 64 = 2048 threads per block, over the device's maximum of 1024");
    c = launch(4, 1, 1536, 1, 0);
    ck_assert_int_eq(broken(&c), CML_LIMIT_BLOCK_THREADS);
    ck_assert_str_eq(msg, "1536 threads per block, over the device's maximum of 1024");
    c = launch(1, 1, 16, 16, 0);
    c.block[2] = 8;
    ck_assert_int_eq(broken(&c), CML_LIMIT_BLOCK_THREADS);
    ck_assert_str_eq(msg,
                     "16 × 16 × 8 = 2048 threads per block, over the device's maximum of 1024");
}
END_TEST

START_TEST(threads_counted_in_64_bits) {
    cml_launch_config c = launch(1, 1, 65536, 65536, 0);
    c.block[2] = 65536; /* 2^48 threads: no wrap-around to 0 */
    ck_assert_int_eq(broken(&c), CML_LIMIT_BLOCK_THREADS);
    ck_assert_ptr_nonnull(strstr(msg, "= 281474976710656 threads per block"));
}
END_TEST

START_TEST(block_z_over_its_maximum) {
    cml_launch_config c = launch(1, 1, 2, 2, 0);
    c.block[2] = 128; /* 512 threads: within 1024, but z is at most 64 */
    ck_assert_int_eq(broken(&c), CML_LIMIT_BLOCK_DIM);
    ck_assert_str_eq(
        msg, "the block's z dimension is 128 threads, over the device's maximum of 64 for it");
}
END_TEST

START_TEST(grid_y_over_its_maximum) {
    cml_launch_config c = launch(1, 70000, 256, 1, 0);
    ck_assert_int_eq(broken(&c), CML_LIMIT_GRID_DIM);
    ck_assert_str_eq(
        msg, "the grid's y dimension is 70000 blocks, over the device's maximum of 65535 for "
             "it");
    c = launch(2147483647u, 65535, 256, 1, 0); /* at the limits: fine */
    ck_assert_int_eq(broken(&c), CML_LIMIT_NONE);
    ck_assert_str_eq(msg, "");
}
END_TEST

START_TEST(zero_comes_first) {
    cml_launch_config c = launch(0, 1, 32, 64, 0); /* 0 blocks and 2048 threads */
    ck_assert_int_eq(broken(&c), CML_LIMIT_GRID_ZERO);
}
END_TEST

/* ---- Registers and the kernel's own thread limit ---- */

START_TEST(registers_over_the_block_file) {
    cml_launch_config c = launch(8, 1, 1024, 1, 0);
    c.registers = 128;
    c.max_threads_per_block = 512;
    ck_assert_int_eq(broken(&c), CML_LIMIT_REGISTERS);
    ck_assert_str_eq(msg, "1024 threads × 128 registers per thread need 131072 registers "
                          "(allocated per warp, 256 at a time), over the 65536 of a block; this "
                          "kernel allows at most 512 threads per block");
}
END_TEST

START_TEST(registers_rounded_per_warp) {
    cml_launch_config c = launch(8, 1, 1024, 1, 0);
    c.registers = 64; /* 32 warps × 2048 = 65536: fits exactly */
    ck_assert_int_eq(broken(&c), CML_LIMIT_NONE);
    c.registers = 65; /* 65 × 32 = 2080, allocated as 2304 per warp: 73728 */
    ck_assert_int_eq(broken(&c), CML_LIMIT_REGISTERS);
    ck_assert_ptr_nonnull(strstr(msg, "need 73728 registers"));
}
END_TEST

START_TEST(kernel_thread_limit) {
    cml_launch_config c = launch(8, 1, 512, 1, 0);
    c.registers = 32; /* fits the register file: the limit is __launch_bounds__(256) */
    c.max_threads_per_block = 256;
    ck_assert_int_eq(broken(&c), CML_LIMIT_KERNEL_THREADS);
    ck_assert_str_eq(msg, "512 threads per block, over the 256 this kernel allows (its registers "
                          "per thread or its __launch_bounds__ set that)");
}
END_TEST

/* ---- Shared memory ---- */

START_TEST(dynamic_shared_memory_without_the_optin) {
    cml_launch_config c = launch(1, 1, 256, 1, 66 * 1024);
    c.static_smem_bytes = 0;
    c.max_dynamic_smem_bytes = 48 * 1024; /* the default: nothing raised it */
    ck_assert_int_eq(broken(&c), CML_LIMIT_SMEM_OPTIN);
    ck_assert_str_eq(msg, "66 KB of shared memory per block (66 KB dynamic + 0 B static), over the "
                          "48 KB a block gets without the opt-in "
                          "(cudaFuncAttributeMaxDynamicSharedMemorySize)");
}
END_TEST

START_TEST(static_and_dynamic_shared_memory_add_up) {
    cml_launch_config c = launch(1, 1, 256, 1, 40 * 1024);
    c.static_smem_bytes = 16 * 1024;
    c.max_dynamic_smem_bytes = 32 * 1024; /* 48 KB less the static part: the default */
    ck_assert_int_eq(broken(&c), CML_LIMIT_SMEM_OPTIN);
    ck_assert_ptr_nonnull(strstr(msg, "56 KB of shared memory per block (40 KB dynamic + 16 KB "));
}
END_TEST

START_TEST(default_attribute_reported_without_the_static_part) {
    /* A runtime that reports 48 KB as the default whatever the static part: the block's total
     * still may not pass 48 KB without the opt-in. */
    cml_launch_config c = launch(1, 1, 256, 1, 40 * 1024);
    c.static_smem_bytes = 16 * 1024;
    c.max_dynamic_smem_bytes = 48 * 1024;
    ck_assert_int_eq(broken(&c), CML_LIMIT_SMEM_OPTIN);
    c.dynamic_smem_bytes = 32 * 1024; /* 48 KB in all: fits */
    ck_assert_int_eq(broken(&c), CML_LIMIT_NONE);
}
END_TEST

START_TEST(shared_memory_attributes_unknown) {
    cml_launch_config c = launch(1, 1, 256, 1, 50000);
    ck_assert_int_eq(broken(&c), CML_LIMIT_SMEM_OPTIN);
    ck_assert_str_eq(msg, "48.8 KB of shared memory per block, over the 48 KB a block gets without "
                          "the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize)");
    c = launch(1, 1, 256, 1, 48 * 1024); /* at the limit */
    ck_assert_int_eq(broken(&c), CML_LIMIT_NONE);
}
END_TEST

START_TEST(raised_attribute_still_too_small) {
    cml_launch_config c = launch(1, 1, 256, 1, 100 * 1024);
    c.static_smem_bytes = 0;
    c.max_dynamic_smem_bytes = 64 * 1024; /* raised by cudaFuncSetAttribute, not far enough */
    ck_assert_int_eq(broken(&c), CML_LIMIT_SMEM_ATTR);
    ck_assert_str_eq(msg, "100 KB of dynamic shared memory, over the 64 KB the kernel's "
                          "cudaFuncAttributeMaxDynamicSharedMemorySize allows");
    c.max_dynamic_smem_bytes = 100 * 1024; /* raised enough */
    ck_assert_int_eq(broken(&c), CML_LIMIT_NONE);
    c.static_smem_bytes = 16 * 1024; /* raised: the static part need not fit in 48 KB too */
    ck_assert_int_eq(broken(&c), CML_LIMIT_NONE);
}
END_TEST

START_TEST(over_the_device_maximum) {
    cml_launch_config c = launch(1, 1, 256, 1, 240 * 1024);
    c.static_smem_bytes = 0;
    c.max_dynamic_smem_bytes = 227 * 1024;
    ck_assert_int_eq(broken(&c), CML_LIMIT_SMEM_MAX);
    ck_assert_str_eq(msg, "240 KB of shared memory per block (240 KB dynamic + 0 B static), over "
                          "the device's maximum of 227 KB per block (sharedMemPerBlockOptin), "
                          "which no cudaFuncSetAttribute can raise");
}
END_TEST

/* ---- What the record cannot explain ---- */

START_TEST(a_launch_within_every_limit) {
    cml_launch_config c = launch(32, 32, 32, 32, 0);
    c.static_smem_bytes = 8192;
    c.registers = 38;
    c.max_threads_per_block = 1024;
    c.max_dynamic_smem_bytes = 40960;
    ck_assert_int_eq(broken(&c), CML_LIMIT_NONE);
    ck_assert_str_eq(msg, "");
    ck_assert_ptr_null(cml_limit_name(CML_LIMIT_NONE));
}
END_TEST

START_TEST(without_device_facts_only_zeros) {
    cml_launch_config c = launch(0, 1, 32, 8, 0);
    ck_assert_int_eq(cml_launch_broken_limit(&c, NULL, msg, sizeof msg), CML_LIMIT_GRID_ZERO);
    c = launch(1, 1, 2048, 1, 1 << 20);
    ck_assert_int_eq(cml_launch_broken_limit(&c, NULL, msg, sizeof msg), CML_LIMIT_NONE);
}
END_TEST

START_TEST(message_cut_to_its_buffer) {
    cml_launch_config c = launch(1, 1, 32, 64, 0);
    char small[16];
    ck_assert_int_eq(cml_launch_broken_limit(&c, &H200, small, sizeof small),
                     CML_LIMIT_BLOCK_THREADS);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

START_TEST(limit_names) {
    const char *names[] = {"grid_zero",  "block_zero", "block_threads",  "block_dim",
                           "grid_dim",   "registers",  "kernel_threads", "smem_max",
                           "smem_optin", "smem_attr"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); ++i) {
        ck_assert_str_eq(cml_limit_name((cml_limit)(i + 1)), names[i]);
    }
}
END_TEST

/* ---- The record ---- */

START_TEST(short_kernel_names) {
    char out[64];
    cml_kernel_short_name("matmul_tiled_kernel(float const*, float const*, float*, int, int, int)",
                          out, sizeof out);
    ck_assert_str_eq(out, "matmul_tiled_kernel");
    cml_kernel_short_name("void tiled<32, 8>(float const*, float*)", out, sizeof out);
    ck_assert_str_eq(out, "tiled<32, 8>");
    cml_kernel_short_name("(anonymous namespace)::k(int)", out, sizeof out);
    ck_assert_str_eq(out, "(anonymous namespace)::k");
    cml_kernel_short_name("conv2d_tiled_kernel", out, sizeof out); /* C linkage: no parameters */
    ck_assert_str_eq(out, "conv2d_tiled_kernel");
    cml_kernel_short_name("_Z3fooPf", out, sizeof out); /* not demangled: as it is */
    ck_assert_str_eq(out, "_Z3fooPf");
    cml_kernel_short_name("a_rather_long_kernel_name(int)", out, 7);
    ck_assert_str_eq(out, "a_rath");
}
END_TEST

START_TEST(record_keeps_the_failed_launch) {
    const unsigned long long before = cml_launches_count();
    cml_launches_reset();
    cml_launches_note(NULL, (dim3){4, 4, 1}, (dim3){32, 8, 1}, 0, cudaSuccess);
    cml_launch_config c;
    ck_assert_int_eq(cml_launches_failed(cudaErrorInvalidConfiguration, &c), 0); /* none failed */
    cml_launches_note(NULL, (dim3){0, 128, 1}, (dim3){32, 8, 1}, 256,
                      cudaErrorInvalidConfiguration);
    cml_launches_note(NULL, (dim3){1, 1, 1}, (dim3){64, 1, 1}, 0, cudaSuccess); /* later, fine */
    ck_assert_uint_eq(cml_launches_count(), before + 3);
    /* another error did not come from that launch */
    ck_assert_int_eq(cml_launches_failed(cudaErrorIllegalAddress, &c), 0);
    ck_assert_int_eq(cml_launches_failed(cudaErrorInvalidConfiguration, &c), 1);
    ck_assert_uint_eq(c.grid[0], 0);
    ck_assert_uint_eq(c.grid[1], 128);
    ck_assert_uint_eq(c.block[0], 32);
    ck_assert_uint_eq(c.dynamic_smem_bytes, 256);
    ck_assert_int_eq(c.error, cudaErrorInvalidConfiguration);
    ck_assert_str_eq(c.kernel, ""); /* no handle: nothing queried, all unknown */
    ck_assert_int_eq(c.static_smem_bytes, -1);
    ck_assert_int_eq(c.registers, -1);
    ck_assert_int_eq(c.max_threads_per_block, -1);
    ck_assert_int_eq(c.max_dynamic_smem_bytes, -1);
    cml_launches_reset();
    ck_assert_int_eq(cml_launches_failed(cudaErrorInvalidConfiguration, &c), 0);
}
END_TEST

Suite *make_launch_limits_suite(void) {
    Suite *s = suite_create("launch_limits");
    TCase *tc = tcase_create("Dimensions");
    tcase_add_test(tc, grid_of_zero_blocks);
    tcase_add_test(tc, block_with_a_zero_dimension);
    tcase_add_test(tc, too_many_threads_per_block);
    tcase_add_test(tc, threads_counted_in_64_bits);
    tcase_add_test(tc, block_z_over_its_maximum);
    tcase_add_test(tc, grid_y_over_its_maximum);
    tcase_add_test(tc, zero_comes_first);
    suite_add_tcase(s, tc);
    tc = tcase_create("Registers");
    tcase_add_test(tc, registers_over_the_block_file);
    tcase_add_test(tc, registers_rounded_per_warp);
    tcase_add_test(tc, kernel_thread_limit);
    suite_add_tcase(s, tc);
    tc = tcase_create("Shared memory");
    tcase_add_test(tc, dynamic_shared_memory_without_the_optin);
    tcase_add_test(tc, static_and_dynamic_shared_memory_add_up);
    tcase_add_test(tc, default_attribute_reported_without_the_static_part);
    tcase_add_test(tc, shared_memory_attributes_unknown);
    tcase_add_test(tc, raised_attribute_still_too_small);
    tcase_add_test(tc, over_the_device_maximum);
    suite_add_tcase(s, tc);
    tc = tcase_create("Edges");
    tcase_add_test(tc, a_launch_within_every_limit);
    tcase_add_test(tc, without_device_facts_only_zeros);
    tcase_add_test(tc, message_cut_to_its_buffer);
    tcase_add_test(tc, limit_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("Record");
    tcase_add_test(tc, short_kernel_names);
    tcase_add_test(tc, record_keeps_the_failed_launch);
    suite_add_tcase(s, tc);
    return s;
}
