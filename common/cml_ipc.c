/* cml_ipc.c — the judge's messages (cml_ipc.h).
 *
 * Source: unix(7), cmsg(3).
 */
#define _GNU_SOURCE
#include "cml_ipc.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cml_ipc_send(int sock, const void *msg, size_t len, int pass_fd) {
    struct iovec io = {.iov_base = (void *)msg, .iov_len = len};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    if (pass_fd >= 0) {
        memset(&control, 0, sizeof control);
        m.msg_control = control.buf;
        m.msg_controllen = sizeof control.buf;
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &pass_fd, sizeof pass_fd);
    }
    ssize_t sent;
    do {
        sent = sendmsg(sock, &m, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent == (ssize_t)len ? 0 : -1;
}

int cml_ipc_send_token(int sock, cml_msg_type type, uint64_t token) {
    cml_msg_token t = {.head = {CML_IPC_MAGIC, (uint32_t)type}, .token = token, .count = 1};
    return cml_ipc_send(sock, &t, sizeof t, -1);
}

int cml_ipc_send_error(int sock, const char *kind, const char *message, const char *where,
                       const char *expr, const cml_launch_config *launch) {
    cml_msg_error m;
    memset(&m, 0, sizeof m);
    m.head = (cml_msg_head){CML_IPC_MAGIC, CML_MSG_ERROR};
    snprintf(m.kind, sizeof m.kind, "%s", kind ? kind : "");
    snprintf(m.message, sizeof m.message, "%s", message ? message : "");
    snprintf(m.where, sizeof m.where, "%s", where ? where : "");
    snprintf(m.expr, sizeof m.expr, "%s", expr ? expr : "");
    if (launch) {
        m.has_launch = 1;
        m.launch = *launch;
    }
    return cml_ipc_send(sock, &m, sizeof m, -1);
}

ssize_t cml_ipc_recv(int sock, void *buf, size_t cap, int *fd, int spin) {
    if (fd) {
        *fd = -1;
    }
    struct iovec io = {.iov_base = buf, .iov_len = cap};
    struct msghdr m;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    ssize_t got;
    for (;;) {
        memset(&m, 0, sizeof m);
        m.msg_iov = &io;
        m.msg_iovlen = 1;
        m.msg_control = control.buf;
        m.msg_controllen = sizeof control.buf;
        got = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | (spin ? MSG_DONTWAIT : 0));
        if (got >= 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            break;
        }
        if (spin) {
            /* Gives the CPU up at once where another thread waits for it, and costs a system
             * call where none does. Without it a poller that shares its CPU with its peer
             * (the judge, the student's process and the empty-kernel server pinned to 3 kept
             * CPUs, grader/cpus.py) keeps the peer from answering until the scheduler's time
             * slice ends: 8 ms an exchange instead of 0.01 ms, two processes on one CPU of
             * the course's machine (test_ipc.c, pollers_sharing_a_cpu_answer_promptly). */
            sched_yield();
        }
    }
    if (got < 0) {
        return -1;
    }
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
            int passed;
            memcpy(&passed, CMSG_DATA(h), sizeof passed);
            if (fd && *fd < 0) {
                *fd = passed;
            } else {
                close(passed);
            }
        }
    }
    if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        return -1;
    }
    return got;
}

cml_msg_type cml_ipc_type(const void *buf, ssize_t len) {
    if (len < (ssize_t)sizeof(cml_msg_head)) {
        return 0;
    }
    cml_msg_head h;
    memcpy(&h, buf, sizeof h);
    if (h.magic != CML_IPC_MAGIC) {
        return 0;
    }
    size_t want;
    switch (h.type) {
    case CML_MSG_HELLO:
        want = sizeof(cml_msg_hello);
        break;
    case CML_MSG_ERROR:
        want = sizeof(cml_msg_error);
        break;
    case CML_MSG_OUTPUTS:
        want = sizeof(cml_msg_outputs);
        break;
    case CML_MSG_INPUTS:
        want = sizeof(cml_msg_inputs);
        break;
    case CML_MSG_READY:
    case CML_MSG_RUN:
    case CML_MSG_DONE:
    case CML_MSG_QUIT:
        want = sizeof(cml_msg_token);
        break;
    default:
        return 0;
    }
    return (size_t)len == want ? (cml_msg_type)h.type : 0;
}

void cml_ipc_clean(char *dst, size_t cap, const char *src, size_t src_cap) {
    if (cap == 0) {
        return;
    }
    size_t i = 0;
    for (; i + 1 < cap && i < src_cap && src[i] != '\0'; ++i) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    dst[i] = '\0';
}
