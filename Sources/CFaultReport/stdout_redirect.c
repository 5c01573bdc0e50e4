#define _GNU_SOURCE
#include "stdout_redirect.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int rf_stdout_redirect(int descriptor) {
    flockfile(stdout);
    fflush(stdout);
    int saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (saved >= 0 && dup2(descriptor, STDOUT_FILENO) < 0) {
        close(saved);
        saved = -1;
    }
    funlockfile(stdout);
    return saved;
}

void rf_stdout_restore(int saved) {
    flockfile(stdout);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    funlockfile(stdout);
    close(saved);
}
