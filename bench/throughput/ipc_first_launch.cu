/* ipc_first_launch.cu — what a fresh process's first launch costs once it has imported another
 * process's memory pool, step by step (follows first_launch.cu, issue 15, design note 58).
 *
 * In a judged run the student's process imports the judge's pool (cml_devmem_pool_import) and
 * makes its first launch on the imported buffers: 150-300 ms to its synchronisation on an
 * H100/H200, 1-6 ms for its later launches, while a plain fresh process's first launch of an
 * empty kernel takes 0.1-0.3 ms (first_launch.cu) and CUDA_MODULE_LOADING=EAGER left the
 * 150-300 ms as it was. This program splits that first launch apart. Its parent plays the
 * judge: a context (spin), an exportable pool made by the judge's own cml_devmem_pool_create
 * (pinned, on the current device, POSIX file descriptor handles, release threshold UINT64_MAX,
 * exported before any pointer), three buffers of MIB MiB from it (cudaMallocFromPoolAsync,
 * synchronised, set to zero), each exported. For each mode and run it starts a child (fork,
 * then exec of this program: a fresh CUDA context), sends it the pool's descriptor
 * (SCM_RIGHTS over a socketpair, with the judge's cml_ipc_send and cml_ipc_recv) with the
 * three pointers' export data, keeps its own context and pool alive, and waits for the
 * child's timings (CLOCK_MONOTONIC, ms) and its end. The child plays the student's process
 * (cml_worker.c): it receives the message, then times its context (cudaSetDeviceFlags,
 * cudaFree(0)), the pool's import with its access set, the pointers' import, then its
 * mode's steps, each a launch (or memset) to its cudaDeviceSynchronize:
 *   plain   imports nothing: an empty kernel, then fill_kernel on three buffers of its own
 *           cudaMalloc (fill_kernel's first launch, first touch), then fill_kernel again;
 *   empty   an empty kernel, then fill_kernel on the imported buffers, then again;
 *   touch   fill_kernel on the imported buffers first, then again;
 *   own     fill_kernel on one buffer of its own cudaMalloc first (fill_kernel's first launch,
 *           on memory not imported), then on the imported buffers, then again;
 *   memset  cudaMemsetAsync of the imported buffers (no kernel), then fill_kernel on them,
 *           then again.
 * The step that carries the 150-300 ms says what it is tied to: any first launch (plain's
 * empty), the first launch after an import (empty's empty), the first access to imported
 * memory by a kernel (empty's fill or own's imported fill) or by any engine (memset's memset).
 * The parent prints one line a child, a median of each step a mode at the end, and checks
 * that the children's writes reached its buffers (the import is real).
 *
 * Usage (on the GPU machine): nvcc -O2 -arch=sm_90 -Icommon \
 *     bench/throughput/ipc_first_launch.cu common/cml_devmem.c common/cml_ipc.c \
 *     -o /tmp/ipc_first_launch
 *   /tmp/ipc_first_launch RUNS [mib=MIB] [spin|block|auto] [MODE...]
 * RUNS fresh children a mode (default 5); MIB the size of each buffer (default 64); the
 * children's schedule (default spin; the worker leaves a timed run's at auto, which spins
 * while the contexts are fewer than the CPUs, and blocks in an untimed run,
 * cml_device_schedule); the modes to run (default all, in the order above). A child ends
 * itself after 30 s (alarm): the parent reports it and goes on.
 * Exit status 0 when every child reported and the check passed.
 * Sources: CUDA Runtime API, Stream Ordered Memory Allocator: cudaMemPoolCreate,
 * cudaMemPoolExportToShareableHandle, cudaMemPoolImportFromShareableHandle,
 * cudaMemPoolSetAccess, cudaMemPoolExportPointer, cudaMemPoolImportPointer; CUDA C++
 * Programming Guide, "Stream Ordered Memory Allocator: IPC Memory Pools"; unix(7), cmsg(3).
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cml_devmem.h" /* the judge's pool (cml_devmem_pool_create) */
#include "cml_ipc.h"    /* its messages with a descriptor (cml_ipc_send, cml_ipc_recv) */

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    cudaGetErrorString(err_));                                                     \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

enum { N_BUFFERS = 3, MAX_STEPS = 10, MAX_RUNS = 1000, CHILD_TIMEOUT_S = 30 };
static const char *const MODES[] = {"plain", "empty", "touch", "own", "memset"};
enum { N_MODES = sizeof MODES / sizeof MODES[0] };
static const uint32_t MAGIC = 0x43495043u; /* "CPIC" */

/* parent → child, with the pool's descriptor */
struct hello_msg {
    uint32_t magic;
    uint32_t n_buffers;
    size_t bytes; /* each buffer's */
    struct cudaMemPoolPtrExportData data[N_BUFFERS];
};

/* child → parent: its steps, in order */
struct result_msg {
    uint32_t magic;
    int n_steps;
    char name[MAX_STEPS][16];
    double ms[MAX_STEPS];
};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

__global__ void empty_kernel(void) {}

/* Writes out_k[i] = i for i < n in each of the three buffers (they may be one buffer);
 * grid-stride, one float a thread a step. */
__global__ void fill_kernel(float *a, float *b, float *c, size_t n) { // a, b, c (n)
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        a[i] = (float)i;
        b[i] = (float)i;
        c[i] = (float)i;
    }
}

static void fill(float *const *d_buf, size_t n) {
    fill_kernel<<<1024, 256>>>(d_buf[0], d_buf[1], d_buf[2], n);
}

static void step(struct result_msg *r, const char *name, double t0) {
    if (r->n_steps < MAX_STEPS) {
        snprintf(r->name[r->n_steps], sizeof r->name[0], "%s", name);
        r->ms[r->n_steps++] = now_ms() - t0;
    }
}

/* One launch (already queued) checked and synchronised, its time since t0 a step. */
#define TIMED_SYNC(r, name, t0)                                                                    \
    do {                                                                                           \
        CHECK(cudaGetLastError());                                                                 \
        CHECK(cudaDeviceSynchronize());                                                            \
        step(r, name, t0);                                                                         \
    } while (0)

/* The child: receives the pool from SOCK, runs MODE, sends its steps back. */
static int child_main(const char *mode, int sock, unsigned flags) {
    alarm(CHILD_TIMEOUT_S); /* a hung child ends; the parent sees SIGALRM */
    struct hello_msg hello;
    int pool_fd = -1; /* as the student's process receives HELLO (cml_worker.c) */
    const ssize_t got = cml_ipc_recv(sock, &hello, sizeof hello, &pool_fd, 0);
    if (got != (ssize_t)sizeof hello || hello.magic != MAGIC || hello.n_buffers != N_BUFFERS ||
        pool_fd < 0) {
        fprintf(stderr, "child: expected the pool's descriptor and %d buffers\n", N_BUFFERS);
        return 1;
    }
    const size_t n = hello.bytes / sizeof(float);
    const int imports = strcmp(mode, "plain") != 0;

    struct result_msg r;
    memset(&r, 0, sizeof r);
    r.magic = MAGIC;
    double t = now_ms();
    CHECK(cudaSetDeviceFlags(flags));
    CHECK(cudaFree(0));
    step(&r, "context", t);

    float *d_imp[N_BUFFERS] = {NULL, NULL, NULL};
    if (imports) { /* as cml_devmem_pool_import */
        int dev = 0;
        CHECK(cudaGetDevice(&dev));
        t = now_ms();
        cudaMemPool_t pool;
        CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)pool_fd,
                                                   cudaMemHandleTypePosixFileDescriptor, 0));
        struct cudaMemAccessDesc desc;
        memset(&desc, 0, sizeof desc);
        desc.location.type = cudaMemLocationTypeDevice;
        desc.location.id = dev;
        desc.flags = cudaMemAccessFlagsProtReadWrite;
        CHECK(cudaMemPoolSetAccess(pool, &desc, 1));
        step(&r, "import", t);
        t = now_ms();
        for (int k = 0; k < N_BUFFERS; ++k) {
            CHECK(cudaMemPoolImportPointer((void **)&d_imp[k], pool, &hello.data[k]));
        }
        step(&r, "ptrs", t);
    }
    close(pool_fd);

    float *d_own[N_BUFFERS] = {NULL, NULL, NULL};
    if (strcmp(mode, "plain") == 0 || strcmp(mode, "own") == 0) {
        const int n_own = imports ? 1 : N_BUFFERS; /* own: one buffer, given three times */
        t = now_ms();
        for (int k = 0; k < n_own; ++k) {
            CHECK(cudaMalloc(&d_own[k], n * sizeof(float)));
        }
        for (int k = n_own; k < N_BUFFERS; ++k) {
            d_own[k] = d_own[0];
        }
        step(&r, "malloc", t);
    }

    t = now_ms();
    if (strcmp(mode, "plain") == 0 || strcmp(mode, "empty") == 0) {
        empty_kernel<<<1, 1>>>();
        TIMED_SYNC(&r, "empty", t);
        t = now_ms();
        fill(imports ? d_imp : d_own, n);
        TIMED_SYNC(&r, imports ? "fill_imp" : "fill_own", t);
    } else if (strcmp(mode, "touch") == 0) {
        fill(d_imp, n);
        TIMED_SYNC(&r, "fill_imp", t);
    } else if (strcmp(mode, "own") == 0) {
        fill(d_own, n);
        TIMED_SYNC(&r, "fill_own", t);
        t = now_ms();
        fill(d_imp, n);
        TIMED_SYNC(&r, "fill_imp", t);
    } else { /* memset */
        for (int k = 0; k < N_BUFFERS; ++k) {
            CHECK(cudaMemsetAsync(d_imp[k], 0, n * sizeof(float), 0));
        }
        TIMED_SYNC(&r, "memset", t);
        t = now_ms();
        fill(d_imp, n);
        TIMED_SYNC(&r, "fill_imp", t);
    }
    t = now_ms();
    fill(imports ? d_imp : d_own, n);
    TIMED_SYNC(&r, "again", t);

    for (int k = 0; k < N_BUFFERS; ++k) { /* unmaps the imports before the parent frees */
        CHECK(cudaFree(d_imp[k]));
    }
    CHECK(cudaFree(d_own[0]));
    if (!imports) {
        CHECK(cudaFree(d_own[1]));
        CHECK(cudaFree(d_own[2]));
    }
    if (cml_ipc_send(sock, &r, sizeof r, -1) != 0) {
        perror("child: send");
        return 1;
    }
    return 0;
}

/* The parent: starts one child of MODE, sends it the pool, receives its steps into r and
 * waits for its end. Returns 0 when the child reported and exited 0. */
static int run_child(const char *mode, const char *schedule, int pool_fd,
                     const struct hello_msg *hello, struct result_msg *r, double *total_ms) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        perror("socketpair");
        return 1;
    }
    char fd_arg[16]; /* made before fork: the child calls only async-signal-safe functions */
    snprintf(fd_arg, sizeof fd_arg, "%d", sv[1]);
    char *const args[] = {(char *)"ipc_first_launch",
                          (char *)"--child",
                          (char *)mode,
                          fd_arg,
                          (char *)schedule,
                          NULL};
    static const char exec_failed[] = "ipc_first_launch: execv /proc/self/exe failed\n";
    fflush(stdout);
    const double t = now_ms();
    const pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        close(sv[0]);
        close(sv[1]);
        return 1;
    }
    if (pid == 0) { /* no CUDA call here: exec at once, the child's end kept open across it */
        fcntl(sv[1], F_SETFD, 0);
        execv("/proc/self/exe", args);
        (void)!write(2, exec_failed, sizeof exec_failed - 1);
        _exit(127);
    }
    close(sv[1]);
    /* as the judge sends HELLO with its pool (cml_ipc.c) */
    int failed = cml_ipc_send(sv[0], hello, sizeof *hello, pool_fd) != 0;
    if (failed) {
        perror("parent: sendmsg");
    }
    if (!failed) { /* the child's alarm bounds this wait: its end closes the socket */
        const ssize_t got = cml_ipc_recv(sv[0], r, sizeof *r, NULL, 0);
        failed = got != (ssize_t)sizeof *r || r->magic != MAGIC;
    }
    *total_ms = now_ms() - t;
    close(sv[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            perror("waitpid");
            return 1;
        }
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "[%s] child killed by signal %d%s\n", mode, WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (its 30 s ran out)" : "");
        return 1;
    }
    if (WEXITSTATUS(status) != 0 || failed) {
        fprintf(stderr, "[%s] child exit %d, %s\n", mode, WEXITSTATUS(status),
                failed ? "no result" : "a result");
        return 1;
    }
    return 0;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static struct result_msg results[N_MODES][MAX_RUNS];
static double totals[N_MODES][MAX_RUNS];
static int n_results[N_MODES];

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--child") == 0) {
        const unsigned flags = strcmp(argv[4], "block") == 0  ? cudaDeviceScheduleBlockingSync
                               : strcmp(argv[4], "auto") == 0 ? cudaDeviceScheduleAuto
                                                              : cudaDeviceScheduleSpin;
        return child_main(argv[2], atoi(argv[3]), flags);
    }
    const int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: %s RUNS [mib=MIB] [spin|block|auto] [MODE...] (RUNS 1-%d)\n",
                argv[0], MAX_RUNS);
        return 2;
    }
    size_t mib = 64;
    const char *schedule = "spin";
    int selected[N_MODES] = {0}, any_selected = 0;
    for (int i = 2; i < argc; ++i) {
        int known = 0;
        if (strncmp(argv[i], "mib=", 4) == 0 && atoi(argv[i] + 4) > 0) {
            mib = (size_t)atoi(argv[i] + 4);
            known = 1;
        } else if (!strcmp(argv[i], "spin") || !strcmp(argv[i], "block") ||
                   !strcmp(argv[i], "auto")) {
            schedule = argv[i];
            known = 1;
        }
        for (int k = 0; k < N_MODES; ++k) {
            if (strcmp(argv[i], MODES[k]) == 0) {
                selected[k] = any_selected = known = 1;
            }
        }
        if (!known) {
            fprintf(stderr, "%s: unknown argument %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    const size_t bytes = mib << 20, n = bytes / sizeof(float);

    /* the judge: its context, then the pool as cml_devmem_pool_create makes it */
    double t = now_ms();
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
    CHECK(cudaFree(0));
    const double context_ms = now_ms() - t;
    int dev = 0, driver = 0, runtime = 0;
    CHECK(cudaGetDevice(&dev));
    struct cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    cudaMemPool_t pool;
    int pool_fd = -1;
    CHECK(cml_devmem_pool_create(&pool, &pool_fd)); /* the judge's own */
    fcntl(pool_fd, F_SETFD, FD_CLOEXEC); /* only the message gives it to a child */
    struct hello_msg hello;
    memset(&hello, 0, sizeof hello);
    hello.magic = MAGIC;
    hello.n_buffers = N_BUFFERS;
    hello.bytes = bytes;
    float *d_buf[N_BUFFERS];
    for (int k = 0; k < N_BUFFERS; ++k) {
        CHECK(cudaMallocFromPoolAsync((void **)&d_buf[k], bytes, pool, 0));
        CHECK(cudaStreamSynchronize(0));
        CHECK(cudaMemsetAsync(d_buf[k], 0, bytes, 0)); /* the judge writes its buffers */
        CHECK(cudaMemPoolExportPointer(&hello.data[k], d_buf[k]));
    }
    CHECK(cudaDeviceSynchronize());
    printf("%s, driver %d, runtime %d; parent context %.1f ms; %d buffers of %zu MiB; "
           "children's schedule %s; %d runs a mode\n",
           prop.name, driver, runtime, context_ms, N_BUFFERS, mib, schedule, runs);

    int failures = 0, filled = 0;
    for (int k = 0; k < N_MODES; ++k) {
        if (any_selected && !selected[k]) {
            continue;
        }
        filled |= k != 0; /* every mode but plain ends by filling the imported buffers */
        for (int run = 0; run < runs; ++run) {
            struct result_msg *r = &results[k][n_results[k]];
            double total_ms = 0;
            if (run_child(MODES[k], schedule, pool_fd, &hello, r, &total_ms) != 0) {
                ++failures;
                continue;
            }
            totals[k][n_results[k]++] = total_ms;
            printf("[%s]", MODES[k]);
            for (int s = 0; s < r->n_steps; ++s) {
                printf(" %s %.3f", r->name[s], r->ms[s]);
            }
            printf(" | child start to result %.1f ms\n", total_ms);
        }
    }

    printf("median ms over the runs that reported:\n");
    for (int k = 0; k < N_MODES; ++k) {
        const int nr = n_results[k];
        if (nr == 0) {
            continue;
        }
        printf("[%s] n=%d", MODES[k], nr);
        double v[MAX_RUNS];
        for (int s = 0; s < results[k][0].n_steps; ++s) {
            for (int i = 0; i < nr; ++i) {
                v[i] = results[k][i].ms[s];
            }
            printf(" %s %.3f", results[k][0].name[s], median(v, nr));
        }
        printf(" | child start to result %.1f\n", median(totals[k], nr));
    }

    /* the children wrote i into each imported buffer last: the parent must see it */
    if (filled) {
        int bad = 0;
        for (int k = 0; k < N_BUFFERS; ++k) {
            float h_last = -1.0f;
            CHECK(cudaMemcpy(&h_last, d_buf[k] + (n - 1), sizeof h_last, cudaMemcpyDeviceToHost));
            if (h_last != (float)(n - 1)) {
                fprintf(stderr, "buffer %d: element %zu is %g, the children wrote %zu\n", k, n - 1,
                        h_last, n - 1);
                ++bad;
            }
        }
        printf("children's writes to the imported buffers seen by the parent: %s\n",
               bad ? "NO" : "yes");
        failures += bad;
    }
    for (int k = 0; k < N_BUFFERS; ++k) {
        CHECK(cudaFreeAsync(d_buf[k], 0));
    }
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaMemPoolDestroy(pool));
    close(pool_fd);
    return failures ? 1 : 0;
}
