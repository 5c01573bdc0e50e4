#ifndef RENDERFARM_SANDBOX_H
#define RENDERFARM_SANDBOX_H

/* The sandbox of a `render --isolate` worker process (RenderFarm article UntrustedPlugins).
 *
 * A worker loads its plugins and creates their instances with the user's rights, then locks
 * itself in, layer by layer, each applied where the kernel offers it:
 *   - a network namespace with no interfaces (unshare, as root or in a new user namespace);
 *   - limits on address space and CPU time (setrlimit);
 *   - no_new_privs (prctl), which seccomp needs;
 *   - a Landlock ruleset: read only the paths given, write only the folders given;
 *   - a seccomp-BPF allow-list (libseccomp): no execve, sockets, ptrace, new processes, mounts or
 *     namespaces. A call outside the list traps; the SIGSYS handler writes one line naming the
 *     plugin running on that thread (CFaultReport) and what it tried to the report descriptor,
 *     and ends the process. open/openat are checked against the same paths as Landlock, so that
 *     a denied open is named too; Landlock, not this check, is what the kernel enforces. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layers, as bits of what rf_sandbox_apply returns. */
enum {
    RF_SANDBOX_NETWORK = 1 << 0,
    RF_SANDBOX_LIMITS = 1 << 1,
    RF_SANDBOX_NO_NEW_PRIVS = 1 << 2,
    RF_SANDBOX_LANDLOCK = 1 << 3,
    RF_SANDBOX_SECCOMP = 1 << 4,
    RF_SANDBOX_ALL = (1 << 5) - 1,
};

/* The Landlock ABI version the kernel offers (0: none, or disabled). */
int rf_sandbox_landlock_abi(void);

/* The layers this kernel offers a worker, found without changing the calling process (a child
 * process tries the network namespace). */
int rf_sandbox_probe(void);

/* Moves the calling process into a network namespace of its own (no interfaces but a loopback
 * that is down). Call while the process has one thread. 0, or the errno of the failure. */
int rf_sandbox_isolate_network(void);

/* Applies the other layers to the process. `read` and `write` are paths (a write folder may be
 * read too); missing paths are left out. `address_space` is the RLIMIT_AS in bytes (0: none).
 * `report_fd` receives the line "fail sandbox MESSAGE\n" when a call is denied. `skip` holds
 * layers left out on purpose (tests of one layer alone: RENDERFARM_SANDBOX_SKIP). Returns the bits
 * of the layers applied; `problems` (may be NULL) gets why the others are missing, "; "-separated. */
int rf_sandbox_apply(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                     unsigned long long address_space, int report_fd, int skip, char *problems, size_t problems_size);

/* Allows `seconds` more seconds of CPU time than this process has used (soft RLIMIT_CPU; past it
 * the kernel sends SIGXCPU). 0 or errno. */
int rf_sandbox_allow_cpu(unsigned long seconds);

/* Whether this process's address space is within reach of the limit rf_sandbox_apply set (an
 * allocation that failed there failed for the sandbox); `limit` gets the limit in bytes. */
int rf_sandbox_near_address_limit(unsigned long long *limit);

#ifdef __cplusplus
}
#endif

#endif
