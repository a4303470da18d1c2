/* lab32_l2_persist.cu — lab 3.2f's design sweep: for which table size, gather density and
 * stream size does an access-policy window that keeps the table persisting in L2 clearly beat
 * the same gather kernel without one? NOT YET RUN: written without a GPU; the redesign of 3.2f
 * (lab.toml: calibrated = false) waits for its figures.
 *
 * Why: the H200's judged runs (2026-12-02, bench/h200-2026-12-02-session8/g29/calib-3.2.*)
 * gave 3.2f's solution a ratio of only 1.052 (0.898 ms against the no-window baseline's
 * 0.943 ms at n = 2^28, a 16 MiB table, L2_PERSIST_GROUP 16; set-aside max 37.5 MiB, window
 * max 128 MiB, L2 60 MiB): too small to grade. The guess to test: a denser gather (smaller
 * GROUP) makes the table a larger share of the traffic; a larger table is lost more often
 * between two reads of a line without the window, up to what the set-aside holds.
 *
 * The work is lab.h's: out[i] = in[i] * table[l2_persist_index(i / GROUP, table_n)], one thread
 * per element in blocks of L2_PERSIST_BLOCK, lab.h's index function; GROUP is a run-time
 * argument passed as its log2 (i >> log2: a shift, as the lab's constant 16 compiles to; a
 * run-time 64-bit division would add work the lab's kernel does not do). Swept, in this order:
 * stream n = 2^28 floats (1 GiB in, 1 GiB out: the lab's timed size), then 2^26; table 4, 8,
 * 16, 24, 32 MiB (prefixes of one buffer); GROUP 1, 4, 16, 64. At every point:
 *   plain   no window, persisting limit 0, persisting lines reset before it (as the judge's
 *           baseline, l2_no_window)
 *   window  as the solution (solutions/3.2-global-memory/kernels.cu): limit = min(table bytes,
 *           cudaDevAttrMaxPersistingL2CacheSize), the granted value read back; the window a
 *           launch attribute over the table, num_bytes capped at
 *           cudaDevAttrMaxAccessPolicyWindowSize, hitRatio = granted / num_bytes capped at 1,
 *           hitProp persisting, missProp streaming; then the lines reset and the limit back to
 *           0. Limit and reset are not timed (the judged launch pays them: set_limit_us 24-25,
 *           reset_us 2.4-3.3 on the H200, lab.toml's 3.2f section).
 *   copy    cudaMemcpyAsync device to device of the stream (n floats read, n written).
 * Method: each contender's output poisoned (0xFF: NaN), computed once and compared exactly
 * (one rounded product) with the CPU's: every element at the lab's point (2^28, 16 MiB,
 * GROUP 16), elsewhere the first and last kEdge elements and kRandom positions. A wrong
 * contender is reported and not timed. Then kWarmups + kSamples rounds (event_timing.h's
 * counts) of plain, copy, window, copy, each launch alone between two cudaEvents on stream 0.
 * No flush: what counts is what stays in L2 within one launch; the copy before each contender
 * (8 n bytes, far more than the L2) starts both from the same L2 state. Quoted: medians, p10-p90;
 * ratio = plain / window (as 3.2f grades); GB/s on the harness's bytes, 8 n + 4 table_n, the
 * copy's on 8 n; "% copy": the window's GB/s over the copy's.
 *
 * Output: a table, then "csv,"-prefixed lines (-1: not timed), then "clear," lines for the
 * points where the window gains >= 1.3x with the whole table set aside (hitRatio 1):
 *   csv,table_mib,group,stream_floats,hit_ratio,plain_ms,window_ms,ratio,copy_gbps
 * The device's persisting limit is restored at the end. Build and run: bench/roof/README.md.
 * Exit status: 0; 1 when a contender computed a wrong result (on stderr); 2 on a CUDA error.
 *
 * Sources: CUDA C++ Programming Guide, "L2 Cache Control" (L2 set-aside for persisting
 * accesses, the access policy window, hitRatio, resetting L2 access to normal); CUDA Runtime
 * API, cudaLaunchKernelEx and cudaLaunchAttributeAccessPolicyWindow, cudaCtxResetPersistingL2Cache.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lab.h" /* L2_PERSIST_BLOCK, L2_PERSIST_GROUP, l2_persist_index */

#include "cuda_check.h"    /* CHECK: exit 2 on a CUDA error */
#include "device_facts.h"  /* print_device_facts */
#include "event_timing.h"  /* kWarmups, kSamples (its flush is not used here) */
#include "percentile.h"    /* percentile */
#include "random_inputs.h" /* uniform_pm1 */

static const int kStreamLog2[] = {28, 26};
static const int kTableMib[] = {4, 8, 16, 24, 32};
static const int kGroupLog2[] = {0, 2, 4, 6}; /* GROUP 1, 4, 16, 64 */
static const int kEdge = 1024, kRandom = 4096;
static const double kClear = 1.3; /* the gain the redesign needs */

/* lab.h's gather with GROUP = 2^group_log2. */
__global__ void __launch_bounds__(L2_PERSIST_BLOCK)
    gather_kernel(const float *in, const float *table, size_t table_n, float *out, size_t n,
                  unsigned int group_log2) {
    const size_t i = (size_t)blockIdx.x * L2_PERSIST_BLOCK + threadIdx.x;
    if (i < n) {
        const unsigned int j = l2_persist_index(i >> group_log2, table_n);
        out[i] = in[i] * table[j];
    }
}

/* picked[t] = out[pos[t]], t < k: the spot check's elements, without copying the stream. */
__global__ void pick_kernel(const float *out, const size_t *pos, float *picked, int k) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < k) {
        picked[t] = out[pos[t]];
    }
}

static float *g_in, *g_table, *g_out, *g_picked;
static size_t *g_pos;
static cudaEvent_t g_start, g_stop;
static std::vector<float> g_h_in, g_h_table;
static int g_wrong = 0;

/* One point of the sweep and its window. */
typedef struct point {
    size_t n, table_n;
    unsigned int group_log2;
    size_t limit_asked, granted; /* persisting set-aside, bytes */
    cudaAccessPolicyWindow window;
} point;

static unsigned int blocks_of(size_t n) {
    return (unsigned int)((n + L2_PERSIST_BLOCK - 1) / L2_PERSIST_BLOCK);
}

static void launch_window(const point &p) {
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeAccessPolicyWindow;
    attr.val.accessPolicyWindow = p.window;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks_of(p.n));
    cfg.blockDim = dim3(L2_PERSIST_BLOCK);
    cfg.stream = 0;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, gather_kernel, (const float *)g_in, (const float *)g_table,
                             p.table_n, g_out, p.n, p.group_log2));
}

/* After the window's launch (not timed): the persisting lines back to normal, the set-aside
 * off (limit 0). */
static void set_aside_off(void) {
    CHECK(cudaCtxResetPersistingL2Cache());
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
}

/* One sample: pre (not timed), the launch between two events on stream 0, post (not timed);
 * the launch's ms appended to t when keep (not a warm-up). */
static void sample(std::vector<float> *t, bool keep, const std::function<void()> &pre,
                   const std::function<void()> &launch, const std::function<void()> &post) {
    pre();
    CHECK(cudaEventRecord(g_start, 0));
    launch();
    CHECK(cudaEventRecord(g_stop, 0));
    CHECK(cudaEventSynchronize(g_stop));
    CHECK(cudaGetLastError());
    post();
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, g_start, g_stop));
    if (keep) {
        t->push_back(ms);
    }
}

/* Runs launch on a poisoned output and compares it exactly with the CPU's: every element when
 * full, else the edges and kRandom positions (LCG, Knuth's MMIX constants). "ok" or why not. */
static std::string verify(const point &p, const std::function<void()> &launch, bool full) {
    CHECK(cudaMemset(g_out, 0xFF, p.n * sizeof(float)));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<size_t> pos;
    std::vector<float> got;
    if (full) {
        got.resize(p.n);
        CHECK(cudaMemcpy(got.data(), g_out, p.n * sizeof(float), cudaMemcpyDeviceToHost));
    } else {
        uint64_t state = 12345;
        for (int k = 0; k < kEdge; ++k) {
            pos.push_back((size_t)k);
            pos.push_back(p.n - 1 - (size_t)k);
        }
        for (int k = 0; k < kRandom; ++k) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            pos.push_back((size_t)(state >> 17) % p.n);
        }
        const int k = (int)pos.size();
        got.resize(pos.size());
        CHECK(cudaMemcpy(g_pos, pos.data(), pos.size() * sizeof(size_t), cudaMemcpyHostToDevice));
        pick_kernel<<<(k + 255) / 256, 256>>>(g_out, g_pos, g_picked, k);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got.data(), g_picked, k * sizeof(float), cudaMemcpyDeviceToHost));
    }
    for (size_t t = 0; t < got.size(); ++t) {
        const size_t i = full ? t : pos[t];
        const float want = g_h_in[i] * g_h_table[l2_persist_index(i >> p.group_log2, p.table_n)];
        if (!(got[t] == want)) { /* NaN (unwritten) fails too */
            char msg[128];
            snprintf(msg, sizeof msg, "WRONG at %zu: got %.9g, want %.9g", i, (double)got[t],
                     (double)want);
            return msg;
        }
    }
    return "ok";
}

/* "median (p10-p90) GB/s" of samples (ms) into txt (64 chars), for bytes moved; returns the
 * median, or -1 (txt "not timed") when there are none. */
static double describe(const std::vector<float> &t, double bytes, char *txt) {
    if (t.empty()) {
        snprintf(txt, 64, "not timed");
        return -1.0;
    }
    const double med = percentile(t, 0.5);
    snprintf(txt, 64, "%.3f (%.3f-%.3f) %5.0f", med, percentile(t, 0.1), percentile(t, 0.9),
             bytes / med / 1e6);
    return med;
}

int main() {
    const size_t max_n = (size_t)1 << kStreamLog2[0];
    const size_t max_table_n = (size_t)kTableMib[4] << 18; /* MiB of floats */
    int dev = 0, set_aside_max = 0, window_max = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&set_aside_max, cudaDevAttrMaxPersistingL2CacheSize, dev));
    CHECK(cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, dev));
    size_t limit_found = 0;
    if (set_aside_max > 0) {
        CHECK(cudaDeviceGetLimit(&limit_found, cudaLimitPersistingL2CacheSize));
    }
    char extra[160];
    snprintf(extra, sizeof extra,
             ", persisting set-aside max %.2f MiB, window max %.2f MiB, limit found %zu B",
             set_aside_max / 1048576.0, window_max / 1048576.0, limit_found);
    print_device_facts(extra);
    if (set_aside_max <= 0 || window_max <= 0) {
        printf("no L2 persistence on this device (before sm_80): nothing to compare\n");
        return 0;
    }
    printf("method: each contender verified once (exactly), then %d warm-up and %d timed rounds "
           "of plain, copy, window, copy; no L2 flush; cudaEvents around each launch; median, "
           "p10, p90\n",
           kWarmups, kSamples);

    g_h_in.resize(max_n);
    g_h_table.resize(max_table_n);
    for (float &x : g_h_in) {
        x = uniform_pm1();
    }
    for (float &x : g_h_table) {
        x = uniform_pm1();
    }
    CHECK(cudaMalloc(&g_in, max_n * sizeof(float)));
    CHECK(cudaMalloc(&g_out, max_n * sizeof(float)));
    CHECK(cudaMalloc(&g_table, max_table_n * sizeof(float)));
    CHECK(cudaMalloc(&g_pos, (2 * kEdge + kRandom) * sizeof(size_t)));
    CHECK(cudaMalloc(&g_picked, (2 * kEdge + kRandom) * sizeof(float)));
    CHECK(cudaMemcpy(g_in, g_h_in.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(
        cudaMemcpy(g_table, g_h_table.data(), max_table_n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    CHECK(cudaEventCreate(&g_start));
    CHECK(cudaEventCreate(&g_stop));

    printf("%5s %5s %10s %8s %5s %33s %33s %6s %7s %6s\n", "table", "group", "stream", "granted",
           "hit", "plain: ms (p10-p90) GB/s", "window: ms (p10-p90) GB/s", "ratio", "copy",
           "window");
    printf("%5s %5s %10s %8s %5s %33s %33s %6s %7s %6s\n", "MiB", "", "floats", "MiB", "ratio", "",
           "", "", "GB/s", "%copy");
    std::vector<std::string> csv, clear;
    const auto nothing = [] {};
    for (int s_log2 : kStreamLog2) {
        for (int mib : kTableMib) {
            for (int g_log2 : kGroupLog2) {
                point p = {};
                p.n = (size_t)1 << s_log2;
                p.table_n = (size_t)mib << 18;
                p.group_log2 = (unsigned int)g_log2;
                const size_t table_bytes = p.table_n * sizeof(float);
                p.limit_asked = std::min(table_bytes, (size_t)set_aside_max);
                CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, p.limit_asked));
                CHECK(cudaDeviceGetLimit(&p.granted, cudaLimitPersistingL2CacheSize));
                CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
                p.window.base_ptr = g_table;
                p.window.num_bytes = std::min(table_bytes, (size_t)window_max);
                p.window.hitRatio = p.granted >= p.window.num_bytes
                                        ? 1.0f
                                        : (float)p.granted / (float)p.window.num_bytes;
                p.window.hitProp = cudaAccessPropertyPersisting;
                p.window.missProp = cudaAccessPropertyStreaming;

                const auto plain_pre = [] { CHECK(cudaCtxResetPersistingL2Cache()); };
                const auto plain = [&p] {
                    gather_kernel<<<blocks_of(p.n), L2_PERSIST_BLOCK>>>(g_in, g_table, p.table_n,
                                                                        g_out, p.n, p.group_log2);
                };
                const auto window_pre = [&p] {
                    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, p.limit_asked));
                };
                const auto window = [&p] { launch_window(p); };
                const auto copy = [&p] {
                    CHECK(cudaMemcpyAsync(g_out, g_in, p.n * sizeof(float),
                                          cudaMemcpyDeviceToDevice, 0));
                };

                /* Correct first: every element at the lab's timed point, spots elsewhere. */
                const bool full = s_log2 == 28 && mib == 16 && (1 << g_log2) == L2_PERSIST_GROUP;
                plain_pre();
                const std::string plain_ok = verify(p, plain, full);
                window_pre();
                const std::string window_ok = verify(p, window, full);
                set_aside_off();
                for (const std::string *why : {&plain_ok, &window_ok}) {
                    if (*why != "ok") {
                        fprintf(stderr, "%s, table %d MiB, GROUP %d, n 2^%d: %s\n",
                                why == &plain_ok ? "plain" : "window", mib, 1 << g_log2, s_log2,
                                why->c_str());
                        g_wrong = 1;
                    }
                }
                std::vector<float> t_plain, t_window, t_copy;
                for (int r = 0; r < kWarmups + kSamples; ++r) {
                    const bool keep = r >= kWarmups;
                    if (plain_ok == "ok") {
                        sample(&t_plain, keep, plain_pre, plain, nothing);
                    }
                    sample(&t_copy, keep, nothing, copy, nothing);
                    if (window_ok == "ok") {
                        sample(&t_window, keep, window_pre, window, set_aside_off);
                    }
                    sample(&t_copy, keep, nothing, copy, nothing);
                }

                const double ideal = 8.0 * (double)p.n + 4.0 * (double)p.table_n; /* bytes */
                const double c_ms = percentile(t_copy, 0.5);
                const double copy_gbps = 8.0 * (double)p.n / c_ms / 1e6;
                char p_txt[64], w_txt[64], line[200];
                const double p_ms = describe(t_plain, ideal, p_txt);
                const double w_ms = describe(t_window, ideal, w_txt);
                const double ratio = p_ms > 0 && w_ms > 0 ? p_ms / w_ms : -1.0;
                printf("%5d %5d %10zu %8.2f %5.3f %33s %33s %6.3f %7.0f %6.1f%s\n", mib,
                       1 << g_log2, p.n, p.granted / 1048576.0, (double)p.window.hitRatio, p_txt,
                       w_txt, ratio, copy_gbps,
                       w_ms > 0 ? 100.0 * c_ms / w_ms * ideal / (8.0 * p.n) : -1.0,
                       ratio >= kClear ? "  <-" : "");
                snprintf(line, sizeof line, "csv,%d,%d,%zu,%.4f,%.4f,%.4f,%.4f,%.1f", mib,
                         1 << g_log2, p.n, (double)p.window.hitRatio, p_ms, w_ms, ratio, copy_gbps);
                csv.push_back(line);
                if (ratio >= kClear && p.window.hitRatio >= 1.0f) {
                    snprintf(line, sizeof line, "clear,%d,%d,%zu,%.3f", mib, 1 << g_log2, p.n,
                             ratio);
                    clear.push_back(line);
                }
            }
        }
    }

    printf("csv,table_mib,group,stream_floats,hit_ratio,plain_ms,window_ms,ratio,copy_gbps\n");
    for (const std::string &l : csv) {
        printf("%s\n", l.c_str());
    }
    printf("# %zu point(s) where the window gains >= %.2fx with hitRatio 1\n", clear.size(),
           kClear);
    printf("clear,table_mib,group,stream_floats,ratio\n");
    for (const std::string &l : clear) {
        printf("%s\n", l.c_str());
    }

    CHECK(cudaCtxResetPersistingL2Cache());
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, limit_found));
    CHECK(cudaEventDestroy(g_start));
    CHECK(cudaEventDestroy(g_stop));
    CHECK(cudaFree(g_in));
    CHECK(cudaFree(g_out));
    CHECK(cudaFree(g_table));
    CHECK(cudaFree(g_pos));
    CHECK(cudaFree(g_picked));
    return g_wrong ? 1 : 0;
}
