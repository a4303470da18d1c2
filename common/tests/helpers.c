/* helpers.c — process and file helpers shared by the Check suites (suites.h).
 *
 * Source: POSIX fork/waitpid, mkstemp.
 */
#define _POSIX_C_SOURCE 200809L
#include "suites.h"

#include "cml_check.h"
#include "cml_lab_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int run_in_child(int (*fn)(void *arg), void *arg, const char *out_path, const char *err_path) {
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        if ((out_path && !freopen(out_path, "w", stdout)) ||
            (err_path && !freopen(err_path, "w", stderr))) {
            _exit(127);
        }
        int code = fn(arg);
        fflush(NULL);
        _exit(code);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return -1;
    }
    return WEXITSTATUS(status);
}

const char *temp_path(int slot) {
    static char paths[4][64];
    char *p = paths[slot & 3];
    snprintf(p, sizeof paths[0], "/tmp/cml_test_XXXXXX");
    int fd = mkstemp(p);
    if (fd >= 0) {
        close(fd);
    }
    return p;
}

char *read_text_file(const char *path) {
    FILE *f = fopen(path, "rb");
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    if (!s) {
        abort();
    }
    if (f) {
        size_t got;
        while ((got = fread(s + len, 1, cap - len - 1, f)) > 0) {
            len += got;
            if (cap - len - 1 == 0) {
                cap *= 2;
                s = realloc(s, cap);
                if (!s) {
                    abort();
                }
            }
        }
        fclose(f);
    }
    s[len] = '\0';
    return s;
}

char *judge_document_of(int (*fn)(void *arg), void *arg, int *code) {
    const cml_run_ctx saved = cml_run;
    char json[64];
    snprintf(json, sizeof json, "%s", temp_path(3));
    cml_run.lab_id = "0.0";
    cml_run.role = CML_ROLE_JUDGE;
    cml_run.peer_fd = -1;
    cml_run.json_path = json;
    const cml_fail_fn old_handler = cml_set_fail_handler(cml_lab_fail);
    *code = run_in_child(fn, arg, NULL, temp_path(3));
    cml_set_fail_handler(old_handler);
    cml_run = saved;
    char *doc = read_text_file(json);
    remove(json);
    return doc;
}
