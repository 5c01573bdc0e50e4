#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <unistd.h>

#include "fault_report.h"
#include "signal_safe_line.h"

/* Landlock rights newer than Debian 12's header (linux/landlock.h of Linux 6.1). */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#define RF_LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define RF_LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define RF_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#define RF_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define RF_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define RF_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; the size passed says which fields the kernel reads. */
struct rf_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

/* ---- what the SIGSYS handler needs, fixed before the filter is loaded ---- */

#define MAX_ROOTS 256
#define PATH_SIZE 4096
typedef struct root {
    char path[PATH_SIZE];
    size_t length;
    int writable;
} root;
static root roots[MAX_ROOTS];
static size_t root_count;
static int report_descriptor = -1;
/* open/openat calls whose mode carries this value in its upper bits (which the kernel ignores)
 * are the handler's own, re-issued after the path check; the filter lets them through. */
static unsigned long open_mark;
#define MARK_MASK 0x7fff0000ul
#define NAME_COUNT 512
static const char *syscall_names[NAME_COUNT];
/* /proc/self/statm, opened before the sandbox, and the address-space limit. */
static int statm_descriptor = -1;
static unsigned long long address_limit;

/* Writes "fail sandbox <who> <what>: denied by the sandbox" to the parent and ends the process:
 * a plugin that tried once gets no second frame in this worker. */
static void deny(const char *what, const char *detail) {
    char text[PATH_SIZE + 512];
    rf_line report = {text, sizeof text, 0};
    rf_line_append(&report, "fail sandbox ");
    const char *label = rf_fault_report_current_label();
    if (label != NULL) {
        rf_line_append(&report, "plugin \"");
        /* The label is "id (library path)": the id is enough here. */
        rf_line_append_until(&report, label, ' ');
        rf_line_append(&report, "\"");
    } else {
        rf_line_append(&report, "the worker process");
    }
    rf_line_append(&report, " tried to ");
    rf_line_append(&report, what);
    rf_line_append(&report, detail);
    rf_line_append(&report, ": denied by the sandbox\n");
    if (report_descriptor >= 0) {
        ssize_t ignored = write(report_descriptor, report.text, report.length);
        (void)ignored;
    }
    syscall(SYS_exit_group, 70);
}

/* `path` made absolute (relative to `directory`, AT_FDCWD or a descriptor) and without "." or
 * ".." parts, into `out`; 0 when it does not fit. */
static int absolute(int directory, const char *path, char *out) {
    size_t length = 0;
    if (path[0] != '/') {
        if (directory == AT_FDCWD) {
            if (syscall(SYS_getcwd, out, PATH_SIZE) <= 0) return 0;
            length = strlen(out);
        } else {
            char link[64] = "/proc/self/fd/";
            char digits[24];
            rf_line number = {digits, sizeof digits, 0};
            rf_line_append_long(&number, directory);
            strcat(link, rf_line_terminated(&number));
            long count = syscall(SYS_readlinkat, AT_FDCWD, link, out, PATH_SIZE - 1);
            if (count <= 0) return 0;
            length = (size_t)count;
        }
        if (length + 1 >= PATH_SIZE) return 0;
        out[length++] = '/';
    }
    size_t path_length = strlen(path);
    if (length + path_length + 1 >= PATH_SIZE) return 0;
    memcpy(out + length, path, path_length + 1);
    /* Lexical clean-up, in place. */
    char *read = out, *write = out;
    while (*read != '\0') {
        while (*read == '/') read++;
        if (*read == '\0') break;
        char *end = read;
        while (*end != '\0' && *end != '/') end++;
        size_t part = (size_t)(end - read);
        if (part == 1 && read[0] == '.') {
        } else if (part == 2 && read[0] == '.' && read[1] == '.') {
            while (write > out && *--write != '/') {}
        } else {
            *write++ = '/';
            memmove(write, read, part);
            write += part;
        }
        read = end;
    }
    if (write == out) *write++ = '/';
    *write = '\0';
    return 1;
}

static int allowed(const char *path, int writing) {
    size_t length = strlen(path);
    for (size_t index = 0; index < root_count; index++) {
        const root *r = &roots[index];
        if (writing && !r->writable) continue;
        if (length < r->length || memcmp(path, r->path, r->length) != 0) continue;
        if (length == r->length || path[r->length] == '/' || (r->length == 1 && r->path[0] == '/')) return 1;
    }
    return 0;
}

#if defined(__x86_64__)
#define ARGUMENT(context, n)                                                                                   \
    ((unsigned long)(context)->uc_mcontext.gregs[(int[]){REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9}[n]])
#define SET_RESULT(context, value) ((context)->uc_mcontext.gregs[REG_RAX] = (greg_t)(value))
#elif defined(__aarch64__)
#define ARGUMENT(context, n) ((unsigned long)(context)->uc_mcontext.regs[n])
#define SET_RESULT(context, value) ((context)->uc_mcontext.regs[0] = (unsigned long long)(value))
#else
#error "the worker sandbox supports x86_64 and aarch64"
#endif

/* `full` as /proc/self/task/<tid>/stat when it is "/proc/<tid>/stat" of a thread of this process, into
 * `task`; 0 otherwise. libdispatch's thread-pool monitor reads its worker threads' /proc/<tid>/stat once a
 * second while work waits (swift-corelibs-libdispatch, src/event/workqueue.c) and stops the process when
 * the open fails; the task folder holds the same text, and the Landlock rule on it admits this process's
 * threads only. */
static int own_thread_stat(const char *full, char *task, size_t size) {
    static const char prefix[] = "/proc/";
    if (strncmp(full, prefix, sizeof prefix - 1) != 0) return 0;
    const char *digits = full + sizeof prefix - 1;
    size_t count = strspn(digits, "0123456789");
    if (count == 0 || count > 10 || strcmp(digits + count, "/stat") != 0) return 0;
    rf_line line = {task, size, 0};
    rf_line_append(&line, "/proc/self/task/");
    rf_line_append_until(&line, digits, '/');
    struct stat status;
    if (syscall(SYS_newfstatat, AT_FDCWD, rf_line_terminated(&line), &status, 0) != 0) return 0;
    rf_line_append(&line, "/stat");
    rf_line_terminated(&line);
    return 1;
}

/* An open the filter trapped: checked against the roots, then made again with the mark. */
static long checked_open(int directory, const char *path, int flags, unsigned long mode) {
    char full[PATH_SIZE];
    int writing = (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
    if (path == NULL || !absolute(directory, path, full)) return -EFAULT;
    char task[96];
    if (!writing && own_thread_stat(full, task, sizeof task)) {
        return syscall(SYS_openat, AT_FDCWD, task, flags, open_mark);
    }
    if (!allowed(full, writing)) deny(writing ? "write " : "open ", full);
    return syscall(SYS_openat, directory, path, flags, (mode & 07777) | open_mark);
}

static void trapped(int signal, siginfo_t *info, void *raw) {
    (void)signal;
    ucontext_t *context = raw;
    int saved = errno;
    long number = info->si_syscall;
    long result = -ENOSYS;
    if (number == SYS_openat) {
        result = checked_open((int)ARGUMENT(context, 0), (const char *)ARGUMENT(context, 1), (int)ARGUMENT(context, 2),
                              ARGUMENT(context, 3));
#ifdef SYS_open
    } else if (number == SYS_open) {
        result = checked_open(AT_FDCWD, (const char *)ARGUMENT(context, 0), (int)ARGUMENT(context, 1),
                              ARGUMENT(context, 2));
    } else if (number == SYS_creat) {
        result = checked_open(AT_FDCWD, (const char *)ARGUMENT(context, 0), O_CREAT | O_WRONLY | O_TRUNC,
                              ARGUMENT(context, 1));
#endif
    } else if (number == SYS_execve) {
        deny("run ", (const char *)ARGUMENT(context, 0));
    } else if (number == SYS_execveat) {
        deny("run ", (const char *)ARGUMENT(context, 1));
    } else if (number == SYS_socket || number == SYS_socketpair) {
        deny("open a socket", "");
    } else if (number == SYS_connect || number == SYS_bind || number == SYS_listen) {
        deny("use the network", "");
    } else if (number == SYS_clone || number == SYS_clone3
#ifdef SYS_fork
               || number == SYS_fork || number == SYS_vfork
#endif
    ) {
        deny("start a process", "");
    } else if (number == SYS_ptrace || number == SYS_process_vm_writev || number == SYS_process_vm_readv) {
        deny("inspect another process", "");
    } else if (number == SYS_mount || number == SYS_umount2 || number == SYS_unshare || number == SYS_setns ||
               number == SYS_pivot_root || number == SYS_chroot) {
        deny("change its mounts or namespaces", "");
    } else {
        const char *name = number >= 0 && number < NAME_COUNT ? syscall_names[number] : NULL;
        char text[128];
        rf_line detail = {text, sizeof text, 0};
        rf_line_append(&detail, "make the system call ");
        if (name != NULL) {
            rf_line_append(&detail, name);
        } else {
            rf_line_append(&detail, "number ");
            rf_line_append_long(&detail, number);
        }
        deny(rf_line_terminated(&detail), "");
    }
    SET_RESULT(context, result);
    errno = saved;
}

/* ---- the layers ---- */

int rf_sandbox_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

static int write_file(const char *path, const char *text) {
    int descriptor = open(path, O_WRONLY | O_CLOEXEC);
    if (descriptor < 0) return errno;
    ssize_t written = write(descriptor, text, strlen(text));
    int error = written < 0 ? errno : 0;
    close(descriptor);
    return error;
}

int rf_sandbox_isolate_network(void) {
    if (unshare(CLONE_NEWNET) == 0) return 0;
    /* Without CAP_SYS_ADMIN: a user namespace of its own first, mapping this user to itself. */
    uid_t user = getuid();
    gid_t group = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) return errno;
    char map[64];
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)user, (unsigned)user);
    int error = write_file("/proc/self/uid_map", map);
    if (error == 0) error = write_file("/proc/self/setgroups", "deny\n");
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)group, (unsigned)group);
    if (error == 0) error = write_file("/proc/self/gid_map", map);
    return error;
}

int rf_sandbox_probe(void) {
    int available = RF_SANDBOX_LIMITS | RF_SANDBOX_NO_NEW_PRIVS;
    if (rf_sandbox_landlock_abi() > 0) available |= RF_SANDBOX_LANDLOCK;
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && seccomp_api_get() >= 1) available |= RF_SANDBOX_SECCOMP;
    /* Only async-signal-safe calls in the child of a (possibly) multithreaded process. */
    pid_t child = fork();
    if (child == 0) _exit(unshare(CLONE_NEWNET) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
    int status = 0;
    if (child > 0) {
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) available |= RF_SANDBOX_NETWORK;
    }
    return available;
}

static void note(char *problems, size_t size, const char *text) {
    if (problems == NULL || size == 0) return;
    size_t used = strlen(problems);
    snprintf(problems + used, size - used, "%s%s", used > 0 ? "; " : "", text);
}

static void add_root(const char *path, int writable) {
    char resolved[PATH_SIZE];
    const char *forms[2] = {path, realpath(path, resolved)};
    for (int form = 0; form < 2; form++) {
        if (forms[form] == NULL || root_count == MAX_ROOTS) continue;
        char clean[PATH_SIZE];
        if (!absolute(AT_FDCWD, forms[form], clean)) continue;
        root *r = &roots[root_count++];
        snprintf(r->path, sizeof r->path, "%s", clean);
        r->length = strlen(r->path);
        r->writable = writable;
    }
}

static int landlock(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                    char *problems, size_t size) {
    int abi = rf_sandbox_landlock_abi();
    if (abi <= 0) {
        note(problems, size, "Landlock (the kernel does not offer it: file access is checked by seccomp only)");
        return 0;
    }
    uint64_t reading = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    uint64_t writing = reading | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                       LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR;
    struct rf_ruleset_attr attr = {.handled_access_fs = (1ULL << 13) - 1};
    size_t attr_size = sizeof attr.handled_access_fs;
    if (abi >= 2) {
        attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
        writing |= LANDLOCK_ACCESS_FS_REFER;
    }
    if (abi >= 3) {
        attr.handled_access_fs |= RF_LANDLOCK_ACCESS_FS_TRUNCATE;
        writing |= RF_LANDLOCK_ACCESS_FS_TRUNCATE;
    }
    if (abi >= 4) {
        attr.handled_access_net = RF_LANDLOCK_ACCESS_NET_BIND_TCP | RF_LANDLOCK_ACCESS_NET_CONNECT_TCP;
        attr_size = offsetof(struct rf_ruleset_attr, scoped);
    }
    if (abi >= 5) attr.handled_access_fs |= RF_LANDLOCK_ACCESS_FS_IOCTL_DEV;
    if (abi >= 6) {
        attr.scoped = RF_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | RF_LANDLOCK_SCOPE_SIGNAL;
        attr_size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0) {
        note(problems, size, "Landlock (cannot create a ruleset)");
        return 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        const char *const *paths = pass == 0 ? read : write;
        size_t count = pass == 0 ? read_count : write_count;
        for (size_t index = 0; index < count; index++) {
            int descriptor = open(paths[index], O_PATH | O_CLOEXEC);
            if (descriptor < 0) continue;
            struct stat status;
            int is_directory = fstat(descriptor, &status) == 0 && S_ISDIR(status.st_mode);
            uint64_t rights = pass == 0 ? reading : writing;
            if (!is_directory) rights &= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                         RF_LANDLOCK_ACCESS_FS_TRUNCATE;
            struct landlock_path_beneath_attr beneath = {.allowed_access = rights, .parent_fd = descriptor};
            syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
            close(descriptor);
        }
    }
    /* This process's threads, read by libdispatch (`own_thread_stat`). The folder stays open: procfs makes
     * a new inode when it looks up a folder no one holds, and a rule belongs to an inode. */
    static int tasks = -1;
    if (tasks < 0) tasks = open("/proc/self/task", O_PATH | O_CLOEXEC);
    if (tasks >= 0) {
        struct landlock_path_beneath_attr beneath = {.allowed_access = reading, .parent_fd = tasks};
        syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
    }
    int applied = syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
    close(ruleset);
    if (!applied) note(problems, size, "Landlock (restrict_self failed)");
    return applied;
}

static int seccomp(char *problems, size_t size) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_TRAP);
    if (filter == NULL) {
        note(problems, size, "seccomp (libseccomp cannot make a filter)");
        return 0;
    }
    seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    static const int allowed_calls[] = {
        SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
        SCMP_SYS(pwrite64), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(stat),
        SCMP_SYS(lstat), SCMP_SYS(statx), SCMP_SYS(lseek), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect),
        SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(brk), SCMP_SYS(mincore), SCMP_SYS(msync), SCMP_SYS(futex),
        SCMP_SYS(futex_waitv), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq),
        SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_getparam),
        SCMP_SYS(sched_getscheduler), SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid),
        SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(getresuid), SCMP_SYS(getresgid),
        SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
        SCMP_SYS(gettimeofday), SCMP_SYS(time), SCMP_SYS(getrandom), SCMP_SYS(rt_sigaction),
        SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(exit),
        SCMP_SYS(exit_group), SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
        SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait),
        SCMP_SYS(recvfrom), SCMP_SYS(recvmsg), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(shutdown),
        SCMP_SYS(getsockopt), SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(fcntl), SCMP_SYS(getcwd),
        SCMP_SYS(readlink), SCMP_SYS(readlinkat), SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
        SCMP_SYS(getdents64), SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rename), SCMP_SYS(renameat),
        SCMP_SYS(renameat2), SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(rmdir), SCMP_SYS(fsync),
        SCMP_SYS(fdatasync), SCMP_SYS(ftruncate), SCMP_SYS(fchmod), SCMP_SYS(utimensat), SCMP_SYS(uname),
        SCMP_SYS(sysinfo), SCMP_SYS(getrusage), SCMP_SYS(times), SCMP_SYS(prctl), SCMP_SYS(arch_prctl),
        SCMP_SYS(set_tid_address), SCMP_SYS(membarrier), SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(eventfd2),
        SCMP_SYS(memfd_create), SCMP_SYS(flock), SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(fadvise64),
        SCMP_SYS(getrlimit), SCMP_SYS(sched_setaffinity), SCMP_SYS(pause), SCMP_SYS(rt_sigsuspend),
        SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigpending), SCMP_SYS(alarm), SCMP_SYS(getitimer),
        SCMP_SYS(setitimer), SCMP_SYS(timer_create), SCMP_SYS(timer_settime), SCMP_SYS(timer_gettime),
        SCMP_SYS(timer_getoverrun), SCMP_SYS(timer_delete), SCMP_SYS(timerfd_create), SCMP_SYS(timerfd_settime),
        SCMP_SYS(timerfd_gettime), SCMP_SYS(sched_getattr), SCMP_SYS(sched_get_priority_max),
        SCMP_SYS(sched_get_priority_min), SCMP_SYS(getpgrp), SCMP_SYS(getpgid), SCMP_SYS(getsid),
        SCMP_SYS(getpriority), SCMP_SYS(getcpu), SCMP_SYS(capget), SCMP_SYS(getxattr), SCMP_SYS(lgetxattr),
        SCMP_SYS(fgetxattr), SCMP_SYS(epoll_pwait2), SCMP_SYS(chdir), SCMP_SYS(fchdir), SCMP_SYS(readahead),
        SCMP_SYS(fallocate), SCMP_SYS(copy_file_range), SCMP_SYS(sendfile), SCMP_SYS(mlock), SCMP_SYS(munlock),
        SCMP_SYS(get_mempolicy), SCMP_SYS(wait4), SCMP_SYS(waitid),
    };
    int failed = 0;
    for (size_t index = 0; index < sizeof allowed_calls / sizeof allowed_calls[0]; index++) {
        if (allowed_calls[index] < 0) continue; /* not a call of this architecture */
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, allowed_calls[index], 0) != 0;
    }
    /* Threads, not processes. clone3 hides its flags from the filter: ENOSYS makes glibc use clone. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                               SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0;
    /* Signals to itself only (abort, raise). */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, getpid())) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, getpid())) != 0;
    /* Its own limits, read or lowered (the soft CPU limit is moved per frame). */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A0(SCMP_CMP_EQ, 0)) != 0;
    /* Its own thread's niceness (libdispatch's worker threads set theirs); no other process's. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(setpriority), 2, SCMP_A0(SCMP_CMP_EQ, PRIO_PROCESS),
                               SCMP_A1(SCMP_CMP_EQ, 0)) != 0;
    /* No typing into the terminal. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_NE, TIOCSTI)) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) != 0;
    /* Opens: the handler's own (marked) pass; the others trap and are checked. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
                               SCMP_A3(SCMP_CMP_MASKED_EQ, MARK_MASK, open_mark)) != 0;
    if (failed) {
        seccomp_release(filter);
        note(problems, size, "seccomp (libseccomp refused a rule)");
        return 0;
    }
    for (int number = 0; number < NAME_COUNT; number++) {
        syscall_names[number] = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, number);
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = trapped;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSYS, &action, NULL);
    int loaded = seccomp_load(filter) == 0;
    seccomp_release(filter);
    if (!loaded) note(problems, size, "seccomp (the kernel refused the filter)");
    return loaded;
}

int rf_sandbox_allow_cpu(unsigned long seconds) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return errno;
    struct rlimit limit;
    if (getrlimit(RLIMIT_CPU, &limit) != 0) return errno;
    rlim_t used = (rlim_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec);
    limit.rlim_cur = used + seconds;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_cur > limit.rlim_max) limit.rlim_cur = limit.rlim_max;
    return setrlimit(RLIMIT_CPU, &limit) == 0 ? 0 : errno;
}

int rf_sandbox_apply(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                     unsigned long long address_space, int report_fd, int skip, char *problems, size_t problems_size) {
    int applied = 0;
    if (problems != NULL && problems_size > 0) problems[0] = '\0';
    report_descriptor = report_fd;
    root_count = 0;
    for (size_t index = 0; index < read_count; index++) add_root(read[index], 0);
    for (size_t index = 0; index < write_count; index++) add_root(write[index], 1);
    unsigned int random = 0;
    if (getrandom(&random, sizeof random, 0) != sizeof random) random = (unsigned int)getpid();
    open_mark = ((unsigned long)(random % 0x7ffe) + 1) << 16;

    if (statm_descriptor < 0) statm_descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    address_limit = address_space;
    struct rlimit memory = {.rlim_cur = address_space, .rlim_max = address_space};
    int limited = address_space == 0 || setrlimit(RLIMIT_AS, &memory) == 0;
    if (limited && rf_sandbox_allow_cpu(600) == 0) {
        applied |= RF_SANDBOX_LIMITS;
    } else {
        note(problems, problems_size, "resource limits (setrlimit failed)");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
        applied |= RF_SANDBOX_NO_NEW_PRIVS;
    } else {
        note(problems, problems_size, "no_new_privs (prctl failed)");
    }
    if (!(skip & RF_SANDBOX_LANDLOCK) && landlock(read, read_count, write, write_count, problems, problems_size))
        applied |= RF_SANDBOX_LANDLOCK;
    if (!(skip & RF_SANDBOX_SECCOMP) && (applied & RF_SANDBOX_NO_NEW_PRIVS) && seccomp(problems, problems_size))
        applied |= RF_SANDBOX_SECCOMP;
    return applied;
}

int rf_sandbox_near_address_limit(unsigned long long *limit) {
    *limit = address_limit;
    if (statm_descriptor < 0 || address_limit == 0) return 0;
    char text[128];
    ssize_t count = pread(statm_descriptor, text, sizeof text - 1, 0);
    if (count <= 0) return 0;
    text[count] = '\0';
    unsigned long long pages = strtoull(text, NULL, 10);
    unsigned long long size = pages * (unsigned long long)sysconf(_SC_PAGESIZE);
    /* malloc asks for 64 MiB arenas and large blocks at once: within 256 MiB counts as reached. */
    return size + (256ull << 20) >= address_limit;
}
