/* cml_worker.c — the student's side of a judged run: lab --serve FD (cml_ipc.h).
 *
 * This process holds the student's code, so nothing it does is believed: it only makes the
 * launches the judge asks for. It maps the judge's buffers (cml_devmem.h), runs the
 * exercise's setup() on them (the same code and seed as the judge's, so the context's
 * pointers and sizes agree; its reference is cut to one position, since it never compares
 * anything (docs/design-notes.md, note 35); its uniform inputs are read back from the judge's
 * buffers, not drawn again, or given as zeros where they only make that reference:
 * cml_input_uniform, CML_EX_REFERENCE_ONLY_INPUTS, note 41),
 * answers READY, then serves RUN (one launch of the student's
 * launcher, checked: cudaGetLastError, cudaDeviceSynchronize; a timed RUN asks for several
 * launches, the i-th writing the i-th output buffer the judge gave with OUTPUTS and reading
 * the i-th set of inputs it gave with INPUTS (cml_input_uniform's slots); or one launch
 * of the exercise's launch_part; or, with count 0, no launch but the exercise's
 * prepare_student) until QUIT or the socket closes. A HELLO in place of a RUN
 * starts the next case of a multi-case run (judge --case ...): this case's problem is released
 * (its imported buffers unmapped) and the new one set up the same way. A failed check sends ERROR
 * and ends the process (cml_lab_fail); when a launch call returned the error, the ERROR
 * carries that launch from the lab's launch record (cml_launches.h), for the report only.
 *
 * Source: docs/protocol.md, "Judged runs".
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cml_check.h"
#include "cml_devmem.h"
#include "cml_ipc.h"
#include "cml_lab_internal.h"
#include "cml_launches.h"
#include "cml_sample.h"
#include "cml_setup.h"

static int send_error(int sock, const char *kind, const char *message) {
    (void)cml_ipc_send_error(sock, kind, message, NULL, NULL, NULL);
    return CML_EXIT_FAILED;
}

/* Messages the student's process receives; HELLO is 4.6 KB: not on the stack. */
static union {
    cml_msg_hello hello;
    cml_msg_token token;
    cml_msg_outputs outputs;
    cml_msg_inputs inputs;
} in;

static int serve_case(int sock, const cml_exercise *exercises, int n_exercises, int pool_fd);

int cml_worker_serve(int sock, const cml_exercise *exercises, int n_exercises) {
    int pool_fd = -1;
    ssize_t got = cml_ipc_recv(sock, &in.hello, sizeof in.hello, &pool_fd, 0);
    if (got == 0) {
        return CML_EXIT_OK; /* the judge had nothing to run (it rejected the case itself) */
    }
    if (cml_ipc_type(&in.hello, got) != CML_MSG_HELLO || pool_fd < 0) {
        return send_error(sock, "protocol", "expected HELLO with the memory pool");
    }
    cml_device_schedule(in.hello.timed); /* before the first CUDA call, the pool's import */
    /* its name in top and ps (a batch's CPU by command, bench/throughput/top_by_command.py):
     * a timed run's student's process, or an untimed one's; a plain run stays "lab" */
    prctl(PR_SET_NAME, in.hello.timed ? "lab-timed" : "lab-cases", 0, 0, 0);
    return serve_case(sock, exercises, n_exercises, pool_fd);
}

/* Serves the case of the HELLO in `in` (its pool's descriptor: pool_fd, closed here), then
 * each next case a HELLO starts, until QUIT or the end of the socket. */
static int serve_case(int sock, const cml_exercise *exercises, int n_exercises, int pool_fd) {
    static cml_msg_hello hello; /* the case's HELLO: `in` receives the next messages */
next_case:
    memcpy(&hello, &in.hello, sizeof hello);
    hello.exercise[sizeof hello.exercise - 1] = '\0';
    const cml_exercise *ex = cml_lab_find_exercise(hello.exercise, exercises, n_exercises);
    if (!ex || hello.n_size != ex->n_dims || hello.n_buffers < 0 ||
        hello.n_buffers > CML_DEVMEM_MAX) {
        return send_error(sock, "protocol", "HELLO names no exercise of this lab");
    }
    cml_run.ex = ex;
    cml_run.exercise_name = ex->name;
    cml_run.n_size = hello.n_size;
    for (int i = 0; i < hello.n_size; ++i) {
        cml_run.size[i] = hello.size[i];
    }
    cml_run.seed = hello.seed;

    static cml_devmem_registry imports;
    memset(&imports, 0, sizeof imports);
    for (int i = 0; i < hello.n_buffers; ++i) {
        imports.bytes[i] = hello.bytes[i];
    }
    CML_CHECK(cml_devmem_pool_import(pool_fd, hello.export_data, hello.n_buffers, &imports));
    close(pool_fd);
    pool_fd = -1;

    /* The same setup as the judge's, on the judge's buffers; one checked position only. */
    cml_check_set_minimal(1);
    cml_devmem_use(CML_DEVMEM_IMPORT, NULL, NULL, &imports);
    cml_problem p;
    const char *message = cml_problem_setup(ex, &p, (const long long *)cml_run.size, hello.seed);
    const int used = cml_devmem_imports_used();
    cml_devmem_use(CML_DEVMEM_PLAIN, NULL, NULL, NULL);
    cml_check_set_minimal(0);
    if (message) { /* relayed as "worker" either way: this process's own failure */
        (void)cml_ipc_send_error(sock, cml_setup_ran_out_of_host(message) ? "host" : "setup",
                                 message, cml_setup_failed_where(message), NULL, NULL);
        return CML_EXIT_FAILED;
    }
    if (used != imports.n || p.ctx == NULL) {
        return send_error(sock, "protocol", "setup() used other buffers than the judge's");
    }
    if (cml_ipc_send_token(sock, CML_MSG_READY, 0) != 0) {
        return CML_EXIT_FAILED;
    }

    /* Output buffers of a batched RUN: [0] the case's own, [1..n_outs) from OUTPUTS; input
     * buffers: ins[0] the case's own, ins[1..n_ins) from INPUTS (n_ins 1: every launch reads
     * the case's inputs). */
    static float *outs[CML_IPC_MAX_BATCH];
    static float *ins[CML_IPC_MAX_BATCH][CML_MAX_FRESH];
    int n_outs = 1, n_ins = 1;
    outs[0] = p.d_out;
    for (int k = 0; k < p.n_fresh; ++k) {
        ins[0][k] = *p.fresh[k].slot;
    }
    for (;;) {
        /* polls in a timed run (the judge times each answer), sleeps in an untimed one */
        ssize_t got = cml_ipc_recv(sock, &in, sizeof in, &pool_fd, hello.timed);
        const cml_msg_type type = cml_ipc_type(&in, got);
        if (type == CML_MSG_HELLO && pool_fd >= 0) { /* the next case of a multi-case run */
            /* Unmaps this case's buffers before the judge frees them (after our READY): the
             * timing's extra outputs and inputs first, while p still says how many inputs a
             * launch has (cml_problem_release zeroes it), then the case's own. */
            for (int i = 1; i < n_outs; ++i) {
                CML_CHECK(cudaFree(outs[i]));
            }
            for (int i = 1; i < n_ins; ++i) {
                for (int k = 0; k < p.n_fresh; ++k) {
                    CML_CHECK(cudaFree(ins[i][k]));
                }
            }
            cml_problem_release(ex, &p);
            goto next_case;
        }
        if (pool_fd >= 0) { /* a descriptor only comes with HELLO */
            close(pool_fd);
            return send_error(sock, "protocol",
                              "a descriptor came with another message than HELLO");
        }
        if (got <= 0 || type == CML_MSG_QUIT) {
            break;
        }
        if (type == CML_MSG_RUN) {
            const uint32_t count = in.token.count, part = in.token.part;
            /* count 0, part 0: no launch, the state the next timed launch starts from */
            const int prepare = count == 0 && part == 0;
            if (!prepare &&
                (count < 1 || count > (uint32_t)n_outs || (count > 1 && p.out_ref == NULL))) {
                return send_error(sock, "protocol", "RUN asks for more outputs than it gave");
            }
            if (part > 0 && (count != 1 || ex->launch_part == NULL || part > INT32_MAX)) {
                return send_error(sock, "protocol", "RUN asks for a part the exercise lacks");
            }
            cml_launches_reset(); /* a launch (or a prepare) that fails now is this RUN's */
            cml_run.in_launch = 1;
            if (count > 1 && n_ins > 1 && count > (uint32_t)n_ins) {
                return send_error(sock, "protocol", "RUN asks for more inputs than it gave");
            }
            if (prepare) {
                if (ex->prepare_student) {
                    ex->prepare_student(p.ctx);
                }
                CML_CHECK(cudaGetLastError());
            }
            for (uint32_t i = 0; i < count; ++i) {
                /* outs[0] and ins[0] are the case's own: launch 0 reads what setup() made */
                cml_problem_point(&p, outs[i], ins[i], n_ins > 1 ? p.n_fresh : 0);
                if (part > 0) {
                    ex->launch_part(p.ctx, (int)(part - 1));
                } else {
                    ex->launch_student(p.ctx);
                }
                CML_CHECK(cudaGetLastError());
            }
            CML_CHECK(cudaDeviceSynchronize());
            cml_run.in_launch = 0;
            cml_problem_point(&p, outs[0], ins[0], p.n_fresh);
            if (cml_ipc_send_token(sock, CML_MSG_DONE, in.token.token) != 0) {
                break;
            }
        } else if (type == CML_MSG_OUTPUTS) {
            if (in.outputs.n < 0 || in.outputs.n > CML_IPC_MAX_BATCH - 1 ||
                in.outputs.bytes != p.n_out * sizeof(float)) {
                return send_error(sock, "protocol", "OUTPUTS does not fit the case");
            }
            CML_CHECK(
                cml_devmem_import_more(in.outputs.export_data, in.outputs.n, (void **)&outs[1]));
            n_outs = 1 + in.outputs.n;
            if (cml_ipc_send_token(sock, CML_MSG_READY, 0) != 0) {
                break;
            }
        } else if (type == CML_MSG_INPUTS) {
            int fits = in.inputs.n == n_outs - 1 && in.inputs.n_fresh == p.n_fresh;
            for (int k = 0; fits && k < p.n_fresh; ++k) {
                fits = in.inputs.bytes[k] == p.fresh[k].n * sizeof(float);
            }
            if (!fits) {
                return send_error(sock, "protocol", "INPUTS does not fit the case");
            }
            for (int i = 1; i <= in.inputs.n; ++i) {
                CML_CHECK(cml_devmem_import_more(in.inputs.export_data[i - 1], p.n_fresh,
                                                 (void **)ins[i]));
            }
            n_ins = 1 + in.inputs.n;
            if (cml_ipc_send_token(sock, CML_MSG_READY, 0) != 0) {
                break;
            }
        } else {
            return send_error(sock, "protocol", "unexpected message");
        }
    }
    cml_problem_release(ex, &p);
    return CML_EXIT_OK;
}
