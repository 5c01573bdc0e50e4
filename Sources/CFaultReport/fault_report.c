#include "fault_report.h"
#include "signal_safe_line.h"

#include <signal.h>
#include <sys/prctl.h>
#include <string.h>
#include <unistd.h>

static __thread const char *current_label;
static __thread long current_frame;

static const int handled[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define HANDLED_COUNT (sizeof handled / sizeof handled[0])
static struct sigaction previous[HANDLED_COUNT];
static const char *lead = "renderfarm: fatal: ";
static const char *hint = "";
static int (*memory_limit_reached)(unsigned long long *limit);

static const char *signal_name(int signal) {
    switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "a signal";
    }
}

static void handle(int signal, siginfo_t *info, void *context) {
    (void)context;
    const char *label = current_label;
    if (label != NULL) {
        current_label = NULL; /* a second fault while reporting falls through */
        char text[1024];
        rf_line report = {text, sizeof text, 0};
        rf_line_append(&report, lead);
        rf_line_append(&report, "plugin ");
        rf_line_append(&report, label);
        rf_line_append(&report, " crashed with ");
        rf_line_append(&report, signal_name(signal));
        if (current_frame >= 0) {
            rf_line_append(&report, " while rendering frame ");
            rf_line_append_long(&report, current_frame);
        }
        unsigned long long limit = 0;
        if (memory_limit_reached != NULL && memory_limit_reached(&limit)) {
            rf_line_append(&report, ", at the sandbox's address-space limit (");
            rf_line_append_long(&report, (long)(limit >> 20));
            rf_line_append(&report, " MiB): the plugin ran out of memory");
        }
        rf_line_append(&report, hint);
        rf_line_append(&report, "\n");
        ssize_t ignored = write(STDERR_FILENO, report.text, report.length);
        (void)ignored;
    }
    for (size_t index = 0; index < HANDLED_COUNT; index++) {
        if (handled[index] != signal) continue;
        sigaction(signal, &previous[index], NULL);
    }
    /* A fault re-executes the faulting instruction on return and reaches the restored
     * disposition; a signal sent by abort() or kill() has to be raised again. */
    if (info == NULL || info->si_code <= 0) raise(signal);
}

void rf_fault_report_install(const char *before, const char *after) {
    static int installed;
    lead = before;
    hint = after;
    if (installed) return; /* `previous` must keep the dispositions from before the first call */
    installed = 1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = handle;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < HANDLED_COUNT; index++) {
        sigaction(handled[index], &action, &previous[index]);
    }
}

void rf_fault_report_on_memory_limit(int (*reached)(unsigned long long *limit)) { memory_limit_reached = reached; }

void rf_fault_report_enter(const char *label, long frame) {
    current_frame = frame;
    current_label = label;
}

void rf_fault_report_leave(void) { current_label = NULL; }

const char *rf_fault_report_current_label(void) { return current_label; }

/* The parent a worker tied itself to (0: not a worker). */
static pid_t worker_parent;

void rf_worker_die_with_parent(void) {
    pid_t parent = getppid();
    worker_parent = parent;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* The parent may have died before the request: then nobody would send the signal. */
    if (getppid() != parent) raise(SIGKILL);
}

int rf_worker_tied_to_parent(void) {
    int signal = 0;
    if (prctl(PR_GET_PDEATHSIG, &signal, 0, 0, 0) != 0 || signal != SIGKILL) prctl(PR_SET_PDEATHSIG, SIGKILL);
    return worker_parent == 0 || getppid() == worker_parent;
}
