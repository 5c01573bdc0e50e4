#ifndef RENDERFARM_FAULT_REPORT_H
#define RENDERFARM_FAULT_REPORT_H

/* One line on standard error when a plugin crashes the process.
 *
 * A plugin that segfaults or aborts inside the host ends the whole process; the signal is not
 * recoverable. Before it ends, the handler installed here writes which plugin library was
 * running on the crashing thread and which frame it was drawing, using only async-signal-safe
 * calls on text formatted before the call, then hands the signal to the previous disposition
 * (the default, or the Swift runtime's backtracer), so the exit status stays 134 / 139. */

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT. Call from the
 * program's main thread before plugins run (again to change the text). `lead` starts the
 * report's line ("renderfarm: fatal: " where the crash ends the run, "renderfarm: " in a worker
 * whose crash fails one attempt at a frame), `hint` ends it; both are kept by the caller for the
 * life of the process. */
void rf_fault_report_install(const char *lead, const char *hint);

/* In a worker: `reached` (async-signal-safe) says whether the process had reached its
 * address-space limit, and which; the report then says the plugin ran out of memory. */
void rf_fault_report_on_memory_limit(int (*reached)(unsigned long long *limit));

/* Marks the calling thread as running plugin code: `label` (kept by the caller for the life of
 * the process) names the plugin, `frame` the frame (negative: not drawing a frame). */
void rf_fault_report_enter(const char *label, long frame);

/* The calling thread has left plugin code. */
void rf_fault_report_leave(void);

/* The label of the plugin the calling thread is running (NULL: none), as `rf_fault_report_enter`
 * set it; async-signal-safe (the worker sandbox's SIGSYS handler names the plugin with it). */
const char *rf_fault_report_current_label(void);

/* For worker processes: ask the kernel to kill this process with SIGKILL when its parent dies
 * (a worker stuck in a plugin would otherwise outlive the render). */
void rf_worker_die_with_parent(void);

/* Makes sure the request above still holds (set again if not) and says whether the parent it was made
 * for is still this process's parent (1; also when the process is no worker). The worker sandbox calls
 * it before it locks the process in, after which the request cannot be changed. */
int rf_worker_tied_to_parent(void);

#ifdef __cplusplus
}
#endif

#endif
