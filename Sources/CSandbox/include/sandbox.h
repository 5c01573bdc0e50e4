#ifndef RENDERFARM_SANDBOX_H
#define RENDERFARM_SANDBOX_H

/* The sandbox of a `render --isolate` worker process (RenderFarm article UntrustedPlugins).
 *
 * A worker enters its namespaces first, while it has one thread (rf_sandbox_enter): a user namespace
 * that maps its user to itself (as root too: root inside a namespace that owns nothing of the host's),
 * a mount namespace and a network namespace with no interfaces; it keeps only the capabilities that
 * building its root needs. It then loads its plugins and locks itself in, layer by layer, each applied
 * where the kernel offers it (rf_sandbox_apply): a render's worker before it creates any instance, with
 * every path its job may reach, so that the media the instances parse are parsed inside, then narrowed
 * once the instances said which files they read (rf_sandbox_narrow); plugin check's worker once its
 * instances are made:
 *   - limits on address space and CPU time (hard: a plugin cannot lift them), no core dumps;
 *   - no_new_privs (prctl), which seccomp needs;
 *   - a root of its own: a read-only tmpfs holding only the paths it may read (read-only bind
 *     mounts), the folders it may write and /dev/null, entered with pivot_root; the host's root is
 *     unmounted, so no path outside those exists for open, stat, access, readlink, getxattr,
 *     statfs or utimensat;
 *   - a Landlock ruleset: read only the paths given, write only the folders given;
 *   - every capability dropped, the bounding and ambient sets too, securebits locked;
 *   - a seccomp-BPF allow-list (libseccomp): no execve, sockets, ptrace, new processes, mounts or
 *     namespaces, ioctl but a short list, no changes to file modes, owners, times or attributes, to
 *     its limits or its parent-death signal. A call outside the list traps; the SIGSYS handler writes
 *     one line naming the plugin running on that thread (CFaultReport) and what it tried to the
 *     report descriptor, and ends the process. open/openat are checked against the same paths as
 *     Landlock, so that a denied open is named too. That check only names: the kernel enforces the
 *     root and Landlock, which hold whatever a plugin does to the handler. */

#include <spawn.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layers, as bits of what rf_sandbox_enter and rf_sandbox_apply return. */
enum {
    RF_SANDBOX_NETWORK = 1 << 0,
    RF_SANDBOX_LIMITS = 1 << 1,
    RF_SANDBOX_NO_NEW_PRIVS = 1 << 2,
    RF_SANDBOX_LANDLOCK = 1 << 3,
    RF_SANDBOX_SECCOMP = 1 << 4,
    RF_SANDBOX_USER_NAMESPACE = 1 << 5,
    RF_SANDBOX_MOUNT_NAMESPACE = 1 << 6,
    RF_SANDBOX_CAPABILITIES = 1 << 7,
    RF_SANDBOX_ALL = (1 << 8) - 1,
};

/* The Landlock ABI version the kernel offers (0: none, or disabled). */
int rf_sandbox_landlock_abi(void);

/* The layers this kernel offers a worker, found without changing the calling process (a child
 * process tries the namespaces and a mount). */
int rf_sandbox_probe(void);

/* Moves the calling process into a user namespace of its own (mapping its user and group to
 * themselves), a mount namespace whose mounts no longer propagate to the host's, and a network
 * namespace with no interfaces but a loopback that is down; where the kernel refuses a user
 * namespace, root enters the other two without one. Drops every capability but CAP_SYS_ADMIN and
 * CAP_SETPCAP (rf_sandbox_apply needs them, then drops them) and locks the securebits. Call while
 * the process has one thread. Returns the bits of the namespaces entered (USER_NAMESPACE,
 * MOUNT_NAMESPACE, NETWORK); `problems` (may be NULL) gets why others are missing, "; "-separated. */
int rf_sandbox_enter(char *problems, size_t problems_size);

/* Applies the other layers to the process. `read` and `write` are paths (a write folder may be
 * read too); missing paths are left out. `address_space` is the RLIMIT_AS in bytes (0: none);
 * `cpu_seconds` the CPU time the process may use from now on (a hard RLIMIT_CPU; 0: none).
 * `report_fd` receives the line "fail sandbox MESSAGE\n" when a call is denied. `entered` is what
 * rf_sandbox_enter returned (its root is built only in a mount namespace of its own). `skip` holds
 * layers left out on purpose (tests of one layer alone: RENDERFARM_SANDBOX_SKIP). Returns the bits of
 * the layers in force; `problems` (may be NULL) gets why the others are missing, "; "-separated. */
int rf_sandbox_apply(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                     unsigned long long address_space, unsigned long cpu_seconds, int report_fd, int entered,
                     int skip, int narrowing_later, char *problems, size_t problems_size);
/* After rf_sandbox_apply with `narrowing_later`: a second Landlock ruleset of `read` and `write`
 * (subsets of the first's; rulesets stack, so the process keeps only what both allow), the open check
 * narrowed to them, and a second seccomp filter that forbids further Landlock calls. The root stays the
 * one rf_sandbox_apply built. Landlock binds the calling thread and the threads it starts later: a
 * thread started before keeps the first ruleset (the root and seccomp bind every thread). Returns the
 * bits of the layers narrowed (LANDLOCK, SECCOMP); `problems` gets why others were not. */
int rf_sandbox_narrow(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                      char *problems, size_t problems_size);

/* The paths of the shared objects loaded into this process (dl_iterate_phdr, which needs no /proc), one per
 * line, into `text` (`size` bytes, NUL-terminated); stops where the next would not fit. The bytes written. */
size_t rf_sandbox_loaded_libraries(char *text, size_t size);
/* Seconds of CPU time this process may still use before the hard limit rf_sandbox_apply set ends it
 * (-1: no limit). */
long rf_sandbox_cpu_left(void);

/* Has the process `actions` start close every descriptor from `lowest` up (glibc's
 * posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does not show): a worker gets
 * only the descriptors it is given. 0, or the errno of the failure. */
int rf_sandbox_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/* A memory file of `bytes` bytes (memfd, close-on-exec) that can neither shrink nor grow nor be resealed: a
 * worker draws its frames' pixels into it and the render encodes them from its own read-only mapping, which
 * a worker cannot cut short (no SIGBUS in the render). The descriptor, or -1 with errno set. */
int rf_sandbox_frame_memory(size_t bytes);

/* Whether `descriptor` is a memory file sealed as rf_sandbox_frame_memory seals it; its size in `bytes`. */
int rf_sandbox_is_frame_memory(int descriptor, size_t *bytes);

/* Whether this process's address space is within reach of the limit rf_sandbox_apply set (an
 * allocation that failed there failed for the sandbox); `limit` gets the limit in bytes.
 * Async-signal-safe: rf_sandbox_apply hands it to the crash report. */
int rf_sandbox_near_address_limit(unsigned long long *limit);

#ifdef __cplusplus
}
#endif

#endif
