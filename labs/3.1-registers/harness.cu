/* harness.cu — lab 3.1 "Registers and the memory hierarchy": the pristine harness (students
 * never edit it; the grader always builds a submission against this copy).
 *
 * The course driver (common/cml_lab.h) owns the command line, poisoning the output, the launch
 * checks, the comparison, the timing and the JSON run document (docs/protocol.md). This file
 * describes the lab's four exercises to it:
 *
 *   hierarchy       (size: a dummy [1]) the student's hierarchy_query() fills a struct; the
 *                   harness writes its HIERARCHY_N_FIELDS fields as float32 into the output
 *                   (one row, column i = field i in lab.h's order) and compares them with its
 *                   own query of the device (cml_device_query + cudaDeviceGetAttribute). A field
 *                   hierarchy_query() left untouched is reported as unwritten (the struct is
 *                   poisoned with 0xFF bytes first). Tolerance: relative 1e-5 (float32 rounding
 *                   of the field is 6e-8; 48 KB vs 227 KB, or an H100's values on an H200, differ
 *                   by far more).
 *   latency_ladder  (steps, dram_mb) the harness builds four random single cycles (Sattolo,
 *                   from the seed) and runs the student's chases on them, in this order:
 *                     row 0  shared  chase_shared on a LATENCY_SHARED_BYTES cycle
 *                     row 1  L1      chase_global, bypass_l1 = 0, LATENCY_L1_BYTES cycle
 *                     row 2  L2      chase_global, bypass_l1 = 1, LATENCY_L2_BYTES cycle
 *                     row 3  DRAM    chase_global, bypass_l1 = 1, dram_mb MB cycle, L2 flushed
 *                   The first three warm up with one full lap of their cycle (so the timed loads
 *                   hit the level measured); the DRAM chase warms up with LATENCY_DRAM_WARMUP
 *                   loads only, after the L2 has been flushed, so its timed loads go to lines
 *                   never touched since the flush, as long as steps + LATENCY_DRAM_WARMUP is
 *                   below the cycle's dram_mb * 8192 nodes (always, for dram_mb >= 25).
 *                   Each row holds [final index low 16 bits, high 16 bits, checksum low 16, high
 *                   16, plausible]: the 16-bit halves are exact in float32 and compared exactly,
 *                   so a chase that skips, repeats or stops early fails. `plausible` must be 1:
 *                   the process that compares (the judge, in a graded run) times the launch on
 *                   its own clock and rejects (0) a cycle count that cannot be true — fewer than
 *                   LATENCY_MIN_CYCLES_PER_LOAD per timed load (no load on any level returns
 *                   that fast: shared is ~23-30 cycles, docs/facts.md), or four levels together
 * more than LATENCY_CLOCK_SLACK x the elapsed time x the peak SM clock + LATENCY_CYCLES_SLACK (the
 * clock cannot run faster than its peak). A kernel that reports made-up cycles is then wrong, not
 * fast. The exercise's extra metrics are timed by that process too, never taken from the student's
 *                   clock64(): each level's chase with steps + 1 and with 1 timed loads
 *                   (launch_part), the difference of their median times over `steps`, at the
 *                   peak clock: shared_cycles, l1_cycles, l2_cycles, dram_cycles and their
 *                   ratios; the student's own clock64() figures are shown beside them.
 *                   TLB: the DRAM cycle spreads dram_mb MB of nodes at random, so its loads also
 *                   miss the GPU's TLBs once the set is larger than their reach; the DRAM figure
 *                   then includes a page-table walk (report the working-set size with it; run
 *                   e.g. --size 20000,256 and 20000,2048 to see the effect).
 *   fir_registers   (rows, cols) out(r, c) = sum_k taps[k] in(r - k, c); tolerance from the
 *                   float32 sum of FIR_TAPS products (Higham eq. 3.5: gamma_8 * sum |terms|).
 *   coalescing      (rows, cols) out(r, c) = in(r, c) row_scale[r] + col_bias[c]; a product and
 *                   a sum, with or without FMA: gamma_2 * (|in * scale| + |bias|).
 *
 * Inputs come from the seed (cml_rng.h, uniform in [-1, 1): no constant inputs). Large outputs
 * are checked at a sample of positions (cml_sample.h, kCheckSample). Each setup() takes its
 * memory (context, inputs, tables, device buffers, output, check set) from the driver
 * (cml_setup.h), which frees it: no exercise has a teardown.
 *
 * Sources: CUDA C++ Programming Guide (runtime API, cudaDeviceGetAttribute; clock64); Saavedra &
 * Smith (1995) and Wong et al. (ISPASS 2010) for pointer chasing; NVIDIA cuda-samples'
 * allocate -> initialise -> copy -> launch -> copy back -> verify -> free.
 */
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include "baselines.h"
#include "cml_check.h"
#include "cml_compare.h"
#include "cml_device.h"
#include "cml_lab.h"
#include "cml_rng.h"
#include "cml_sample.h"
#include "cml_setup.h"
#include "cml_stats.h"
#include "lab.h"
#include "reference.h"

/* Every output position is checked when the output has at most CHECK_ALL_MAX_ELEMS elements;
 * otherwise a sample (cml_sample.h): the first and last CHECK_SAMPLE_BORDER rows and the last
 * CHECK_SAMPLE_BORDER columns in full, plus CHECK_SAMPLE_RANDOM positions from the seed. */
#define CHECK_ALL_MAX_ELEMS ((size_t)1 << 24)
#define CHECK_SAMPLE_BORDER 32
#define CHECK_SAMPLE_RANDOM 65536
static const cml_sample_spec kCheckSample = {CHECK_SAMPLE_BORDER, CHECK_SAMPLE_BORDER, 0,
                                             CHECK_SAMPLE_BORDER, CHECK_SAMPLE_RANDOM};

/* ---------------------------------------------------------------------------------------------
 * 3.1a  hierarchy
 */

/* Relative tolerance of a field (see the file's header). */
#define HIERARCHY_REL_TOL 1e-5

typedef struct hierarchy_ctx {
    int device;
    float *d_out;                   /* (1, HIERARCHY_N_FIELDS): the output under test */
    double ref[HIERARCHY_N_FIELDS]; /* the harness's own query, in lab.h's order */
} hierarchy_ctx;

/* Writes h's fields, in lab.h's order, as float32 into out[0 .. HIERARCHY_N_FIELDS); a field
 * whose bytes still equal those of `poison` becomes the poison pattern (unwritten). */
static void hierarchy_fields(const hierarchy_info *h, const hierarchy_info *poison, float *out) {
    int i = 0;
#define FIELD(f)                                                                                   \
    do {                                                                                           \
        if (memcmp(&h->f, &poison->f, sizeof h->f) == 0) {                                         \
            cml_poison_host_f32(&out[i], 1);                                                       \
        } else {                                                                                   \
            out[i] = (float)h->f;                                                                  \
        }                                                                                          \
        ++i;                                                                                       \
    } while (0)
    FIELD(sm_count);
    FIELD(regs_per_sm);
    FIELD(regs_per_block);
    FIELD(regs_per_thread_at_full_occupancy);
    FIELD(smem_per_block_default);
    FIELD(smem_per_block_optin);
    FIELD(smem_per_sm);
    FIELD(l2_bytes);
    FIELD(const_bytes);
    FIELD(global_bytes);
    FIELD(sm_clock_khz);
    FIELD(mem_clock_khz);
    FIELD(bus_width_bits);
    FIELD(peak_dram_gbps);
#undef FIELD
}

static int attribute(cudaDeviceAttr attr, int device) {
    int v = 0;
    CML_CHECK(cudaDeviceGetAttribute(&v, attr, device));
    return v;
}

static const char *hierarchy_setup(cml_problem *p, const long long *size, uint64_t seed) {
    (void)seed; /* nothing random: the device is the input */
    hierarchy_ctx *c = CML_NEW_CTX(p, hierarchy_ctx);
    CML_CHECK(cudaGetDevice(&c->device));
    cml_device_facts d;
    CML_CHECK(cml_device_query(&d));
    const int dev = c->device;
    const int threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    const int mem_khz = attribute(cudaDevAttrMemoryClockRate, dev);
    const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, dev);
    const double ref[HIERARCHY_N_FIELDS] = {
        (double)d.sm_count,
        (double)d.regs_per_sm,
        (double)d.regs_per_block,
        (double)(d.regs_per_sm / threads_per_sm),
        (double)d.smem_per_block_bytes,
        (double)d.smem_per_block_optin_bytes,
        (double)d.smem_per_sm_bytes,
        (double)d.l2_bytes,
        (double)attribute(cudaDevAttrTotalConstantMemory, dev),
        (double)d.global_mem_bytes,
        (double)attribute(cudaDevAttrClockRate, dev),
        (double)mem_khz,
        (double)bus_bits,
        2.0 * (double)mem_khz * 1e3 * ((double)bus_bits / 8.0) / 1e9, /* double data rate */
    };
    memcpy(c->ref, ref, sizeof ref);
    cml_output(p, &c->d_out, 1, HIERARCHY_N_FIELDS);
    p->h_ref = c->ref;
    p->h_mag = NULL; /* mag = |ref|: a relative tolerance */
    p->gamma = HIERARCHY_REL_TOL;
    return NULL;
}

static void hierarchy_launch_student(void *ctx) {
    const hierarchy_ctx *c = (const hierarchy_ctx *)ctx;
    hierarchy_info h, poison;
    memset(&poison, 0xFF, sizeof poison);
    memcpy(&h, &poison, sizeof h);
    hierarchy_query(c->device, &h);
    float out[HIERARCHY_N_FIELDS];
    hierarchy_fields(&h, &poison, out);
    CML_CHECK(cudaMemcpy(c->d_out, out, sizeof out, cudaMemcpyHostToDevice));
}

/* ---------------------------------------------------------------------------------------------
 * 3.1b  latency_ladder
 */

enum { LVL_SHARED, LVL_L1, LVL_L2, LVL_DRAM, N_LEVELS };
#define LATENCY_COLS 5 /* final lo, final hi, checksum lo, checksum hi, plausible */

#define LATENCY_SHARED_BYTES (32 * 1024)   /* 256 nodes: well inside 48 KB of shared memory */
#define LATENCY_L1_BYTES (16 * 1024)       /* 128 lines: far below any L1 (256 KB on H100) */
#define LATENCY_L2_BYTES (8 * 1024 * 1024) /* 65536 lines: far above L1, far below 60 MB L2 */
#define LATENCY_DRAM_WARMUP 32             /* untimed DRAM loads before the timed ones */
#define LATENCY_MAX_STEPS 200000           /* DRAM: ~0.1 s at ~1 us per load, at most */
#define LATENCY_MAX_DRAM_MB 4096           /* word indices stay below 2^30 */
#define LATENCY_MIN_CYCLES_PER_LOAD 8.0    /* below any level's latency (shared ~23-30) */
#define LATENCY_CLOCK_SLACK 2.0            /* x elapsed time x peak SM clock */
#define LATENCY_CYCLES_SLACK 20000.0       /* cycles (~10 us at 2 GHz): clock resolution */
#define LATENCY_PART_REPS 5                /* timed runs of each part; the median counts */

static const char *const kLevelNames[N_LEVELS] = {"shared", "l1", "l2", "dram"};

typedef struct latency_level {
    unsigned int *d_next; /* the cycle: n_nodes nodes, CHASE_STRIDE_WORDS words apart */
    uint32_t *h_succ;     /* the same cycle on the host, as node successors (n_nodes) */
    size_t n_nodes;
    unsigned int start; /* word index of the first node */
    int warmup;
} latency_level;

typedef struct latency_ctx {
    int steps;
    latency_level level[N_LEVELS];
    /* (N_LEVELS, CHASE_RESULT_WORDS): level l's chase writes row l. What the student's code
     * writes (cml_problem.d_raw); finish() turns it into the rows of d_out. */
    unsigned int *d_result;
    void *d_flush; /* written to evict the L2 before the DRAM chase */
    size_t flush_bytes;
    float *d_out; /* (N_LEVELS, LATENCY_COLS): the output under test */
    double ref[N_LEVELS * LATENCY_COLS];
    double clock_khz; /* peak SM clock */
} latency_ctx;

/* Writes next[i * stride] = succ[i] * stride on the device: the cycle in lab.h's layout. */
__global__ void latency_scatter_kernel(const unsigned int *succ, size_t n, unsigned int *next) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        next[i * CHASE_STRIDE_WORDS] = succ[i] * CHASE_STRIDE_WORDS;
    }
}

/* Builds a random cycle of n nodes on the device (and keeps it on the host) and the row of the
 * reference for it. Returns 0 when chase_build_cycle runs out of host memory. */
static int latency_build_level(cml_problem *p, int lvl, size_t n_nodes, int warmup, cml_rng *rng) {
    latency_ctx *c = (latency_ctx *)p->ctx;
    latency_level *L = &c->level[lvl];
    uint32_t *h_succ = (uint32_t *)cml_host(p, n_nodes * sizeof *h_succ);
    if (!chase_build_cycle(h_succ, n_nodes, rng)) {
        return 0;
    }
    L->h_succ = h_succ;
    L->n_nodes = n_nodes;
    L->warmup = warmup;
    L->start = (unsigned int)cml_rng_below(rng, n_nodes) * CHASE_STRIDE_WORDS;

    const size_t n_words = n_nodes * CHASE_STRIDE_WORDS;
    unsigned int *d_succ = NULL;
    L->d_next = (unsigned int *)cml_device(p, n_words * sizeof(unsigned int));
    CML_CHECK(cudaMemset(L->d_next, 0, n_words * sizeof(unsigned int)));
    /* A temporary of setup's own, never handed to a launcher: plain cudaMalloc, outside the
     * buffers a judged run shares (cml_devmem.h). */
    CML_CHECK(cudaMalloc((void **)&d_succ, n_nodes * sizeof(unsigned int)));
    CML_CHECK(cudaMemcpy(d_succ, h_succ, n_nodes * sizeof(unsigned int), cudaMemcpyHostToDevice));
    const unsigned int block = 256;
    latency_scatter_kernel<<<(unsigned int)((n_nodes + block - 1) / block), block>>>(
        d_succ, n_nodes, L->d_next);
    CML_CHECK(cudaGetLastError());
    CML_CHECK(cudaDeviceSynchronize());
    CML_CHECK(cudaFree(d_succ));

    uint32_t final_j = 0, sum = 0;
    chase_ref(h_succ, n_nodes, CHASE_STRIDE_WORDS, L->start, warmup, c->steps, &final_j, &sum);
    double *row = &c->ref[lvl * LATENCY_COLS];
    row[0] = (double)(final_j & 0xFFFFu);
    row[1] = (double)(final_j >> 16);
    row[2] = (double)(sum & 0xFFFFu);
    row[3] = (double)(sum >> 16);
    row[4] = 1.0; /* plausible */
    return 1;
}

static const char *latency_setup(cml_problem *p, const long long *size, uint64_t seed) {
    latency_ctx *c = CML_NEW_CTX(p, latency_ctx);
    c->steps = (int)size[0];
    const size_t line = CHASE_STRIDE_WORDS * sizeof(unsigned int);
    const size_t dram_nodes = (size_t)size[1] * 1024 * 1024 / line;

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const size_t shared_nodes = LATENCY_SHARED_BYTES / line;
    const size_t l1_nodes = LATENCY_L1_BYTES / line;
    const size_t l2_nodes = LATENCY_L2_BYTES / line;
    if (!latency_build_level(p, LVL_SHARED, shared_nodes, (int)shared_nodes, &rng) ||
        !latency_build_level(p, LVL_L1, l1_nodes, (int)l1_nodes, &rng) ||
        !latency_build_level(p, LVL_L2, l2_nodes, (int)l2_nodes, &rng) ||
        !latency_build_level(p, LVL_DRAM, dram_nodes, LATENCY_DRAM_WARMUP, &rng)) {
        /* chase_build_cycle's own allocation (reference.c), which the driver does not make:
         * its message for host memory (kind "host"); it frees what the levels built took */
        return cml_no_host_memory;
    }
    cml_device_facts d;
    CML_CHECK(cml_device_query(&d));
    c->clock_khz = d.clock_khz > 0 ? (double)d.clock_khz : 3.0e6; /* unknown: 3 GHz, generous */
    c->flush_bytes = 2 * d.l2_bytes;
    c->d_flush = cml_device(p, c->flush_bytes);
    const size_t result_bytes = N_LEVELS * CHASE_RESULT_WORDS * sizeof(unsigned int);
    c->d_result = (unsigned int *)cml_device(p, result_bytes);
    /* No out_ref (slot NULL): finish() writes d_out from d_raw in the process that compares. */
    c->d_out = cml_output(p, NULL, N_LEVELS, LATENCY_COLS);
    p->d_raw = c->d_result;
    p->raw_bytes = result_bytes;
    p->raw_poison = CML_POISON_BYTE; /* 0xFFFFFFFF: no word index is that large */
    p->h_ref = c->ref;
    p->gamma = 0.0; /* integers: exact */
    return NULL;
}

/* Launches the student's chase of one level, `steps` timed loads, into row lvl of d_result; the
 * DRAM level's chase starts after an L2 flush. */
static void latency_chase(latency_ctx *c, int lvl, int steps) {
    const latency_level *L = &c->level[lvl];
    unsigned int *result = c->d_result + (size_t)lvl * CHASE_RESULT_WORDS;
    if (lvl == LVL_DRAM) {
        CML_CHECK(cudaMemsetAsync(c->d_flush, lvl, c->flush_bytes, 0)); /* evict the L2 */
    }
    if (lvl == LVL_SHARED) {
        chase_shared(L->d_next, (unsigned int)(L->n_nodes * CHASE_STRIDE_WORDS), L->start,
                     L->warmup, steps, result);
    } else {
        chase_global(L->d_next, L->start, L->warmup, steps, lvl != LVL_L1, result);
    }
}

/* The graded launch: the four levels in order, `steps` timed loads each. */
static void latency_launch_student(void *ctx) {
    latency_ctx *c = (latency_ctx *)ctx;
    for (int lvl = 0; lvl < N_LEVELS; ++lvl) {
        latency_chase(c, lvl, c->steps);
    }
}

/* Part 2 l + k (k = 0, 1) for extra_metrics: level l's chase with 1 (k = 0) or steps + 1 timed
 * loads. Their difference in time is `steps` loads, launch, warm-up and exchange cancelled. */
static int latency_part_steps(const latency_ctx *c, int part) {
    return part % 2 ? c->steps + 1 : 1;
}

static void latency_launch_part(void *ctx, int part) {
    latency_ctx *c = (latency_ctx *)ctx;
    latency_chase(c, part / 2, latency_part_steps(c, part));
}

/* The cycles a level's result reports (the student's clock64() figure), or -1 when unwritten. */
static double latency_cycles(const unsigned int *r) {
    if (r[0] == 0xFFFFFFFFu) { /* the poison: no word index is that large */
        return -1.0;
    }
    return (double)(((unsigned long long)r[3] << 32) | r[2]);
}

/* d_result -> the rows of d_out, in the process that compares (the judge, in a judged run).
 * `plausible` bounds the cycles the student's code counted by the clock of that process: no
 * level fewer than LATENCY_MIN_CYCLES_PER_LOAD per timed load, and all four together no more
 * than the whole launch lasted at the peak SM clock (x LATENCY_CLOCK_SLACK, + LATENCY_CYCLES_
 * SLACK). In a judged run run_ms also holds the exchange with the student's process, which
 * only loosens the upper bound. */
static void latency_finish(void *ctx, double run_ms) {
    latency_ctx *c = (latency_ctx *)ctx;
    unsigned int r[N_LEVELS * CHASE_RESULT_WORDS];
    CML_CHECK(cudaMemcpy(r, c->d_result, sizeof r, cudaMemcpyDeviceToHost));
    const double max_cycles = LATENCY_CLOCK_SLACK * run_ms * c->clock_khz + LATENCY_CYCLES_SLACK;
    double total = 0.0;
    for (int lvl = 0; lvl < N_LEVELS; ++lvl) {
        const double cyc = latency_cycles(&r[lvl * CHASE_RESULT_WORDS]);
        total += cyc > 0.0 ? cyc : 0.0;
    }
    float out[N_LEVELS * LATENCY_COLS];
    for (int lvl = 0; lvl < N_LEVELS; ++lvl) {
        const unsigned int *w = &r[lvl * CHASE_RESULT_WORDS];
        float *row = &out[lvl * LATENCY_COLS];
        const double cyc = latency_cycles(w);
        if (cyc < 0.0) {
            cml_poison_host_f32(row, LATENCY_COLS);
            continue;
        }
        row[0] = (float)(w[0] & 0xFFFFu);
        row[1] = (float)(w[0] >> 16);
        row[2] = (float)(w[1] & 0xFFFFu);
        row[3] = (float)(w[1] >> 16);
        row[4] = cyc >= LATENCY_MIN_CYCLES_PER_LOAD * (double)c->steps && total <= max_cycles;
    }
    CML_CHECK(cudaMemcpy(c->d_out, out, sizeof out, cudaMemcpyHostToDevice));
}

/* What part `part` must leave in its level's result: want[0] the final index, want[1] the
 * checksum (the CPU's chase of the same cycle). */
static void latency_part_ref(const latency_ctx *c, int part, uint32_t want[2]) {
    const latency_level *L = &c->level[part / 2];
    chase_ref(L->h_succ, L->n_nodes, CHASE_STRIDE_WORDS, L->start, L->warmup,
              latency_part_steps(c, part), &want[0], &want[1]);
}

/* One timed run of a part on the clock of the process that compares; 1 into *right when the
 * level's result holds `want` (latency_part_ref), and its clock64() cycles into *cycles. */
static double latency_time_part(latency_ctx *c, int part, const uint32_t want[2], int *right,
                                double *cycles) {
    unsigned int *d_row = c->d_result + (size_t)(part / 2) * CHASE_RESULT_WORDS;
    CML_CHECK(cudaMemset(d_row, CML_POISON_BYTE, CHASE_RESULT_WORDS * sizeof(unsigned int)));
    CML_CHECK(cudaDeviceSynchronize());
    const double ms = cml_time_part(part);
    unsigned int w[CHASE_RESULT_WORDS];
    CML_CHECK(cudaMemcpy(w, d_row, sizeof w, cudaMemcpyDeviceToHost));
    *right = w[0] == want[0] && w[1] == want[1];
    *cycles = latency_cycles(w);
    return ms;
}

/* The exercise's figures, measured by the process that compares (the judge, in a judged run):
 * the time per load of each level is the median time of its chase with steps + 1 timed loads
 * minus the median with 1 (LATENCY_PART_REPS runs each, every result checked), over `steps`,
 * at the peak SM clock:
 *   shared_cycles, l1_cycles, l2_cycles, dram_cycles    cycles per load
 *   l1_over_shared, l2_over_shared, l2_over_l1, dram_over_l2
 *   <level>_clock64                                     what the student's own clock64()
 *                                                       counted per load (shown, not scored)
 * None of them when a timed chase computed a wrong result: a chase that skips its loads is not
 * fast. The ratios need no clock: they are ratios of times. */
static void latency_extra_metrics(void *ctx, cml_metrics *m) {
    latency_ctx *c = (latency_ctx *)ctx;
    double cyc[N_LEVELS], clock64[N_LEVELS];
    for (int lvl = 0; lvl < N_LEVELS; ++lvl) {
        double t_short[LATENCY_PART_REPS], t_long[LATENCY_PART_REPS], own[LATENCY_PART_REPS];
        uint32_t want_short[2], want_long[2];
        latency_part_ref(c, 2 * lvl, want_short);
        latency_part_ref(c, 2 * lvl + 1, want_long);
        for (int k = 0; k < LATENCY_PART_REPS; ++k) {
            int right_short = 0, right_long = 0;
            double ignored = 0.0;
            t_short[k] = latency_time_part(c, 2 * lvl, want_short, &right_short, &ignored);
            t_long[k] = latency_time_part(c, 2 * lvl + 1, want_long, &right_long, &own[k]);
            if (!right_short || !right_long) {
                char note[CML_METRIC_NOTE_MAX];
                snprintf(note, sizeof note,
                         "the %s level's chase computed a wrong result when the judge timed "
                         "it, so no latency figures: a chase must make every load it counts",
                         kLevelNames[lvl]);
                cml_metrics_note(m, note);
                return;
            }
        }
        const double ms =
            cml_median(t_long, LATENCY_PART_REPS) - cml_median(t_short, LATENCY_PART_REPS);
        cyc[lvl] = ms * c->clock_khz / (double)c->steps;
        clock64[lvl] = cml_median(own, LATENCY_PART_REPS) / (double)(c->steps + 1);
    }
    char name[CML_METRIC_NAME_MAX];
    for (int lvl = 0; lvl < N_LEVELS; ++lvl) {
        snprintf(name, sizeof name, "%s_cycles", kLevelNames[lvl]);
        cml_metrics_add(m, name, cyc[lvl]);
    }
    if (cyc[LVL_SHARED] > 0.0 && cyc[LVL_L1] > 0.0 && cyc[LVL_L2] > 0.0) {
        cml_metrics_add(m, "l1_over_shared", cyc[LVL_L1] / cyc[LVL_SHARED]);
        cml_metrics_add(m, "l2_over_shared", cyc[LVL_L2] / cyc[LVL_SHARED]);
        cml_metrics_add(m, "l2_over_l1", cyc[LVL_L2] / cyc[LVL_L1]);
        cml_metrics_add(m, "dram_over_l2", cyc[LVL_DRAM] / cyc[LVL_L2]);
    }
    for (int lvl = 0; lvl < N_LEVELS; ++lvl) {
        snprintf(name, sizeof name, "%s_clock64", kLevelNames[lvl]);
        cml_metrics_add(m, name, clock64[lvl]);
    }
}

/* ---------------------------------------------------------------------------------------------
 * 3.1c  fir_registers
 */

typedef struct fir_ctx {
    int rows, cols;
    float *d_in;   /* (rows, cols) */
    float *d_taps; /* (FIR_TAPS) */
    float *d_out;  /* (rows, cols): the output under test */
} fir_ctx;

static const char *fir_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t rows = (size_t)size[0], cols = (size_t)size[1], n = rows * cols;
    fir_ctx *c = CML_NEW_CTX(p, fir_ctx);
    *c = fir_ctx{(int)rows, (int)cols};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_taps = cml_input_uniform(p, &rng, &c->d_taps, FIR_TAPS, -1.0f, 1.0f);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, n, -1.0f, 1.0f);
    cml_check_set *check =
        cml_check(p, rows, cols, n <= CHECK_ALL_MAX_ELEMS ? NULL : &kCheckSample, 1, &rng);
    for (size_t i = 0; i < check->n; ++i) {
        const size_t pos = cml_check_set_pos(check, i);
        fir_ref_at(h_in, cols, h_taps, FIR_TAPS, pos / cols, pos % cols, &check->ref[i],
                   &check->mag[i]);
    }
    cml_output(p, &c->d_out, rows, cols);
    p->gamma = cml_gamma_f32((double)FIR_TAPS);
    /* Each input read once and each output written once (the history re-reads are cache
     * hits: 7 rows per 64-row segment); the taps are negligible. */
    p->bytes = 8.0 * (double)n + 4.0 * FIR_TAPS;
    p->flops = 2.0 * FIR_TAPS * (double)n;
    return NULL;
}

static void fir_launch_student(void *ctx) {
    const fir_ctx *c = (const fir_ctx *)ctx;
    fir_registers(c->d_in, c->d_out, c->rows, c->cols, c->d_taps);
}

static void fir_launch_baseline(void *ctx) {
    const fir_ctx *c = (const fir_ctx *)ctx;
    fir_local(c->d_in, c->d_out, c->rows, c->cols, c->d_taps);
}

/* ---------------------------------------------------------------------------------------------
 * 3.1d  coalescing
 */

typedef struct scale_ctx {
    int rows, cols;
    float *d_in;        /* (rows, cols) */
    float *d_row_scale; /* (rows) */
    float *d_col_bias;  /* (cols) */
    float *d_out;       /* (rows, cols): the output under test */
} scale_ctx;

static const char *scale_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t rows = (size_t)size[0], cols = (size_t)size[1], n = rows * cols;
    scale_ctx *c = CML_NEW_CTX(p, scale_ctx);
    *c = scale_ctx{(int)rows, (int)cols};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, n, -1.0f, 1.0f);
    const float *h_scale = cml_input_uniform(p, &rng, &c->d_row_scale, rows, -2.0f, 2.0f);
    const float *h_bias = cml_input_uniform(p, &rng, &c->d_col_bias, cols, -1.0f, 1.0f);
    cml_check_set *check =
        cml_check(p, rows, cols, n <= CHECK_ALL_MAX_ELEMS ? NULL : &kCheckSample, 1, &rng);
    for (size_t i = 0; i < check->n; ++i) {
        const size_t pos = cml_check_set_pos(check, i);
        scale_rows_ref_at(h_in, cols, h_scale, h_bias, pos / cols, pos % cols, &check->ref[i],
                          &check->mag[i]);
    }
    cml_output(p, &c->d_out, rows, cols);
    p->gamma = cml_gamma_f32(2.0); /* one product and one sum (FMA or not) */
    p->bytes = 8.0 * (double)n + 4.0 * (double)rows + 4.0 * (double)cols;
    p->flops = 2.0 * (double)n;
    return NULL;
}

static void scale_launch_student(void *ctx) {
    const scale_ctx *c = (const scale_ctx *)ctx;
    scale_rows(c->d_in, c->d_out, c->rows, c->cols, c->d_row_scale, c->d_col_bias);
}

static void scale_launch_baseline(void *ctx) {
    const scale_ctx *c = (const scale_ctx *)ctx;
    scale_rows_thread_per_row(c->d_in, c->d_out, c->rows, c->cols, c->d_row_scale, c->d_col_bias);
}

/* ---------------------------------------------------------------------------------------------
 * The lab: one registry of exercises (their cases live in lab.toml only).
 */

static const cml_exercise kExercises[] = {
    /* No baseline (never timed): hierarchy is graded on its values, latency_ladder on its
     * chases' results and, through extra_metrics, on the time per load of each level, timed
     * by the process that compares. */
    {.name = "hierarchy",
     .dim_names = "n",
     .n_dims = 1,
     .dim_max = {1}, /* a dummy: the device is the input */
     .setup = hierarchy_setup,
     .launch_student = hierarchy_launch_student,
     .launchers = "hierarchy_query"},
    {.name = "latency_ladder",
     .dim_names = "steps,dram_mb",
     .n_dims = 2,
     /* the timed part chases steps + 1; the DRAM chase alone would take too long beyond */
     .dim_max = {LATENCY_MAX_STEPS - 1, LATENCY_MAX_DRAM_MB},
     .setup = latency_setup,
     .launch_student = latency_launch_student,
     .extra_metrics = latency_extra_metrics,
     .finish = latency_finish,
     .launch_part = latency_launch_part,
     .launchers = "chase_global,chase_shared",
     .kernel = "chase_global_kernel"},
    {.name = "fir_registers",
     .dim_names = "rows,cols",
     .n_dims = 2,
     .baseline = "fir_local",
     .dim_max = {FIR_MAX_ROWS, CML_INT_SIZE_MAX}, /* rows: the grid's y limit */
     .arrays = "rows*cols",
     .setup = fir_setup,
     .launch_student = fir_launch_student,
     .launch_baseline = fir_launch_baseline,
     .flags = CML_EX_LINEAR, /* a sum of products: fresh checks use its own tolerance */
     .launchers = "fir_registers",
     .kernel = "fir_registers_kernel"},
    {.name = "coalescing",
     .dim_names = "rows,cols",
     .n_dims = 2,
     .baseline = "scale_rows_thread_per_row",
     .dim_max = {SCALE_ROWS_MAX_ROWS, CML_INT_SIZE_MAX}, /* rows: the grid's y limit */
     .arrays = "rows*cols",
     .setup = scale_setup,
     .launch_student = scale_launch_student,
     .launch_baseline = scale_launch_baseline,
     .flags = CML_EX_LINEAR, /* a sum of products: fresh checks use its own tolerance */
     .launchers = "scale_rows",
     .kernel = "scale_rows_kernel"},
};

int main(int argc, char **argv) {
    return cml_lab_main(argc, argv, "3.1", kExercises,
                        (int)(sizeof kExercises / sizeof kExercises[0]));
}
