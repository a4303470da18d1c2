/* cml_ipc.h — the messages between the judge and the process that runs student code.
 *
 * A judged run has two processes on one socket pair (AF_UNIX, SOCK_SEQPACKET, so each
 * message arrives whole or not at all): the judge (the course's code only: inputs, the
 * reference, poisoning, verification, timing, the run document) and the student's process
 * (`lab --serve FD`: the harness with the student's launchers, which only launches). The
 * judge starts every exchange; the student's process answers. Every message is a fixed-size
 * struct that starts with cml_msg_head; a message of the wrong size, magic or type is a
 * protocol violation, and the judge believes nothing else from that process (the strings in
 * an error message are shown to the student, cleaned to printable ASCII, and earn nothing).
 *
 *   judge                                  student's process (lab --serve FD)
 *   HELLO (exercise, size, seed, buffers)  -> maps the judge's buffers, runs the same setup()
 *     + the memory pool's file descriptor
 *                                          <- READY, or ERROR
 *   OUTPUTS (more output buffers)          -> maps them                  (timed runs only)
 *                                          <- READY
 *   INPUTS (inputs for launches 1..n)      -> maps them   (timed, cml_input_uniform inputs)
 *                                          <- READY
 *   RUN (token, count, part 0)             -> count launches of the student's launcher, the
 *                                             i-th writing output buffer i (reading input
 *                                             set i, when INPUTS gave them); checked
 *                                          <- DONE (token), or ERROR (then it exits; with
 *                                             the failed launch's configuration when a
 *                                             launch call returned the error)
 *   RUN (token, 1, part k >= 1)            -> one launch of the exercise's launch_part(k - 1),
 *                                             checked (extra_metrics timing parts)
 *                                          <- DONE (token), or ERROR
 *   RUN (token, 0, part 0)                 -> no launch: the exercise's prepare_student, the
 *                                             state the next timed launch starts from
 *                                             (timed runs, before each student's sample)
 *                                          <- DONE (token), or ERROR
 *   QUIT (or the socket closes)            -> teardown, exit 0
 *
 * Source: unix(7) and cmsg(3) (SCM_RIGHTS), seqpacket sockets.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cml_devmem.h"
#include "cml_lab.h"
#include "cml_launch_limits.h"
#include "cml_options.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CML_IPC_MAGIC 0x314c4d43u /* "CML1" */

typedef enum cml_msg_type {
    CML_MSG_HELLO = 1,
    CML_MSG_READY,
    CML_MSG_RUN,
    CML_MSG_DONE,
    CML_MSG_ERROR,
    CML_MSG_QUIT,
    CML_MSG_OUTPUTS,
    CML_MSG_INPUTS
} cml_msg_type;

typedef struct cml_msg_head {
    uint32_t magic;
    uint32_t type;
} cml_msg_head;

/* READY, RUN, DONE, QUIT */
typedef struct cml_msg_token {
    cml_msg_head head;
    uint64_t token;
    uint32_t count; /* RUN: launches, one per output buffer (1: the case's own; 0: prepare) */
    uint32_t part;  /* RUN: 0 the student's launcher; k >= 1 launch_part(k - 1), count 1 */
} cml_msg_token;

/* More output buffers from the same pool, for RUN with count > 1 (launch i writes to
 * buffer i: 0 the case's own, 1.. these). */
#define CML_IPC_MAX_BATCH 64
typedef struct cml_msg_outputs {
    cml_msg_head head;
    int32_t n; /* buffers that follow, at most CML_IPC_MAX_BATCH - 1 */
    int32_t reserved;
    uint64_t bytes; /* each */
    unsigned char export_data[CML_IPC_MAX_BATCH - 1][64];
} cml_msg_outputs;

/* Inputs of their own for launches 1..n of a batched RUN (launch 0 reads the case's): input
 * k of launch i is buffer export_data[i - 1][k], bytes[k] long, set in the slot of the
 * exercise's k-th cml_input_uniform (cml_problem.fresh) before the launch. Follows OUTPUTS,
 * with the same n, for an exercise with such inputs. */
typedef struct cml_msg_inputs {
    cml_msg_head head;
    int32_t n;       /* launches with inputs of their own, = the OUTPUTS' n */
    int32_t n_fresh; /* inputs per launch, = cml_problem.n_fresh */
    uint64_t bytes[CML_MAX_FRESH];
    unsigned char export_data[CML_IPC_MAX_BATCH - 1][CML_MAX_FRESH][64];
} cml_msg_inputs;

typedef struct cml_msg_hello {
    cml_msg_head head;
    char exercise[64];
    int32_t n_size;
    int32_t n_buffers;
    int32_t timed; /* 1 in a timed run: the student's process waits for the GPU spinning */
    int32_t reserved;
    int64_t size[CML_MAX_DIMS];
    uint64_t seed;
    uint64_t bytes[CML_DEVMEM_MAX];
    unsigned char export_data[CML_DEVMEM_MAX][64]; /* cudaMemPoolPtrExportData each */
} cml_msg_hello;

typedef struct cml_msg_error {
    cml_msg_head head;
    char kind[16]; /* "launch", "cuda", "host", "setup", "protocol" */
    char message[256];
    char where[128];
    char expr[256];
    /* 1: `launch` is the launch call that returned the error (the lab's launch record,
     * cml_launches.h): shown in the report, never scored; its kernel name is cleaned like the
     * strings above and the judge checks its limits against its own device's. */
    uint32_t has_launch;
    uint32_t reserved;
    cml_launch_config launch;
} cml_msg_error;

/* Sends one message (and `pass_fd` with SCM_RIGHTS when >= 0). Returns 0, or -1. */
int cml_ipc_send(int sock, const void *msg, size_t len, int pass_fd);

/* Sends a cml_msg_token of `type`. */
int cml_ipc_send_token(int sock, cml_msg_type type, uint64_t token);

/* Sends an ERROR (strings cut to their fields; where and expr may be NULL; launch NULL: none
 * on record). Returns 0 or -1. */
int cml_ipc_send_error(int sock, const char *kind, const char *message, const char *where,
                       const char *expr, const cml_launch_config *launch);

/* Receives one message into buf[0..cap). With `spin`, polls without sleeping (the judge
 * times the answer; a sleeping reader would add its wake-up to the time). A descriptor that
 * came with it is stored in *fd (-1: none; fd may be NULL, then one that came is closed).
 * Returns the message's length, 0 when the peer closed the socket, -1 on error or when the
 * message was longer than cap. */
ssize_t cml_ipc_recv(int sock, void *buf, size_t cap, int *fd, int spin);

/* The type of a received message of `len` bytes, or 0 when it is no valid message: the
 * magic is wrong, or the length is not that of its type's struct. */
cml_msg_type cml_ipc_type(const void *buf, ssize_t len);

/* Copies at most cap - 1 bytes of a peer's string, replacing anything but printable ASCII
 * with '?', always terminated. */
void cml_ipc_clean(char *dst, size_t cap, const char *src, size_t src_cap);

#ifdef __cplusplus
}
#endif
