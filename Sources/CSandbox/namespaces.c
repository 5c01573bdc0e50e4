#define _GNU_SOURCE
#include "sandbox.h"
#include "sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Namespaces and capabilities: the layers that do not depend on what a plugin does inside the process. */

/* Raw system calls: rf_sandbox_probe writes in the child of a multithreaded process, where a sanitizer's
 * interceptors of open and write may wait for a lock no thread of the child will release. */
static int write_file(const char *path, const char *text) {
    long descriptor = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
    if (descriptor < 0) return errno;
    long written = syscall(SYS_write, descriptor, text, strlen(text));
    int error = written < 0 ? errno : 0;
    syscall(SYS_close, descriptor);
    return error;
}

/* The user namespace's maps: this user and group to themselves, one id each, and no setgroups (which an
 * unprivileged map requires; the supplementary groups stay as they were, for reading files). */
static int map_identity(const char *users, const char *groups) {
    int error = write_file("/proc/self/setgroups", "deny\n");
    if (error == 0) error = write_file("/proc/self/uid_map", users);
    if (error == 0) error = write_file("/proc/self/gid_map", groups);
    return error;
}

static void format_maps(char *users, char *groups, size_t size) {
    snprintf(users, size, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(groups, size, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
}

/* What building the root needs until rf_sandbox_apply: mounts and pivot_root, and dropping the rest. */
#define BUILDING_CAPABILITIES ((1ULL << CAP_SYS_ADMIN) | (1ULL << CAP_SETPCAP))

int rf_sandbox_enter(char *problems, size_t size) {
    if (problems != NULL && size > 0) problems[0] = '\0';
    char users[64], groups[64], text[256];
    format_maps(users, groups, sizeof users);
    int entered = 0;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) == 0) {
        int error = map_identity(users, groups);
        if (error != 0) {
            snprintf(text, sizeof text, "user namespace (cannot map the user to itself: %s)", strerror(error));
            rf_sandbox_note(problems, size, text);
        } else {
            entered |= RF_SANDBOX_USER_NAMESPACE;
        }
        entered |= RF_SANDBOX_MOUNT_NAMESPACE | RF_SANDBOX_NETWORK;
    } else {
        snprintf(text, sizeof text, "user namespace (the kernel refuses one: %s)", strerror(errno));
        rf_sandbox_note(problems, size, text);
        /* Root, where unprivileged user namespaces are turned off, still has the other two. */
        if (unshare(CLONE_NEWNS) == 0) {
            entered |= RF_SANDBOX_MOUNT_NAMESPACE;
        } else {
            snprintf(text, sizeof text, "mount namespace (%s)", strerror(errno));
            rf_sandbox_note(problems, size, text);
        }
        if (unshare(CLONE_NEWNET) == 0) {
            entered |= RF_SANDBOX_NETWORK;
        } else {
            snprintf(text, sizeof text, "network namespace (%s)", strerror(errno));
            rf_sandbox_note(problems, size, text);
        }
    }
    /* Private: nothing mounted here reaches the host's namespace (as root, a new mount namespace starts
     * with the host's shared mounts). A namespace that cannot be made private gets no root. */
    if ((entered & RF_SANDBOX_MOUNT_NAMESPACE) && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        snprintf(text, sizeof text, "mount namespace (cannot make its mounts private: %s)", strerror(errno));
        rf_sandbox_note(problems, size, text);
        entered &= ~RF_SANDBOX_MOUNT_NAMESPACE;
    }
    rf_sandbox_limit_capabilities(BUILDING_CAPABILITIES);
    return entered;
}

/* ---- capabilities ---- */

static int capabilities(struct __user_cap_data_struct data[2], int set) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    return (int)syscall(set ? SYS_capset : SYS_capget, &header, data);
}

int rf_sandbox_limit_capabilities(unsigned long long keep) {
    /* Root gets no capability back by running a program or changing its user ids, and nothing may be
     * raised into the ambient set; locked, so that not even a capability left could undo it. Needs
     * CAP_SETPCAP: a user without it has none to lose. */
    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                                 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
          0, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    for (int capability = 0; capability < 64; capability++) {
        if (keep & (1ULL << capability)) continue;
        if (prctl(PR_CAPBSET_READ, capability, 0, 0, 0) < 0) break; /* past the kernel's last */
        prctl(PR_CAPBSET_DROP, capability, 0, 0, 0);
    }
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (capabilities(data, 0) != 0) return 0;
    for (int half = 0; half < 2; half++) {
        uint32_t kept = (uint32_t)(keep >> (32 * half));
        data[half].effective &= kept;
        data[half].permitted &= kept;
        data[half].inheritable = 0;
    }
    if (capabilities(data, 1) != 0) return 0;
    memset(data, 0, sizeof data);
    if (capabilities(data, 0) != 0) return 0;
    for (int half = 0; half < 2; half++) {
        uint32_t kept = (uint32_t)(keep >> (32 * half));
        if ((data[half].effective | data[half].permitted) & ~kept) return 0;
        if (data[half].inheritable != 0) return 0;
    }
    return 1;
}

/* ---- what the kernel offers ---- */

int rf_sandbox_probe(void) {
    int available = RF_SANDBOX_LIMITS | RF_SANDBOX_NO_NEW_PRIVS | RF_SANDBOX_CAPABILITIES;
    if (rf_sandbox_landlock_abi() > 0) available |= RF_SANDBOX_LANDLOCK;
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0) available |= RF_SANDBOX_SECCOMP;
    char users[64], groups[64];
    format_maps(users, groups, sizeof users);
    const char *base = rf_sandbox_root_base();
    /* Only system calls in the child of a (possibly) multithreaded process: the maps are formatted above.
     * The child tries what rf_sandbox_enter does and a mount in its namespace. A raw clone, not fork: a
     * sanitizer's fork starts a thread of its own in the child, and a process with two threads cannot
     * enter a user namespace. */
    pid_t child = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
    if (child == 0) {
        int found = 0;
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) == 0) {
            if (map_identity(users, groups) == 0) found |= RF_SANDBOX_USER_NAMESPACE;
            found |= RF_SANDBOX_NETWORK | RF_SANDBOX_MOUNT_NAMESPACE;
        } else {
            if (unshare(CLONE_NEWNS) == 0) found |= RF_SANDBOX_MOUNT_NAMESPACE;
            if (unshare(CLONE_NEWNET) == 0) found |= RF_SANDBOX_NETWORK;
        }
        if ((found & RF_SANDBOX_MOUNT_NAMESPACE) &&
            (base == NULL || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
             mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0)) {
            found &= ~RF_SANDBOX_MOUNT_NAMESPACE;
        }
        syscall(SYS_exit_group, found);
    }
    int status = 0;
    if (child > 0) {
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        if (WIFEXITED(status)) {
            available |= WEXITSTATUS(status) &
                         (RF_SANDBOX_USER_NAMESPACE | RF_SANDBOX_MOUNT_NAMESPACE | RF_SANDBOX_NETWORK);
        }
    }
    return available;
}
