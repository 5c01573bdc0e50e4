#define _GNU_SOURCE
#include "sandbox.h"
#include "sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <termios.h>
#include <unistd.h>

#include "fault_report.h"
#include "signal_safe_line.h"

/* The seccomp filter and its SIGSYS handler. What the handler checks names a denial; it is not what keeps
 * a plugin in: a plugin runs in this process, may read the handler's state and may install its own
 * handler (which seccomp refuses) or call the kernel past it. The root (root.c) and Landlock hold then. */

/* ---- what the SIGSYS handler needs, fixed before the filter is loaded ---- */

#define MAX_ROOTS 512
typedef struct root {
    char path[RF_PATH_SIZE];
    size_t length;
    int writable;
} root;
static root roots[MAX_ROOTS];
static size_t root_count;
static int report_descriptor = -1;
/* open/openat calls whose mode carries this value in its upper bits (which the kernel ignores: mode is a
 * umode_t) are the handler's own, re-issued after the path check; the filter lets them through. A plugin
 * that finds the value reaches only what the root and Landlock let it. */
static unsigned long open_mark;
#define MARK_MASK 0xffffffffffff0000ul
#define NAME_COUNT 512
static const char *syscall_names[NAME_COUNT];

/* Writes "fail sandbox <who> <what>: denied by the sandbox" to the parent and ends the process:
 * a plugin that tried once gets no second frame in this worker. */
static void deny(const char *what, const char *detail) {
    char text[RF_PATH_SIZE + 512];
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

/* libdispatch's thread-pool monitor reads its worker threads' /proc/<tid>/stat once a second while work
 * waits (swift-corelibs-libdispatch, src/event/workqueue.c) and stops the process when the open fails; the
 * worker's root has no /proc. For a thread of this process the handler answers with a file of its own
 * holding the line's first three fields, the state "S": Dispatch then counts the thread as blocked and may
 * add one more while work waits (what it does for a stalled pool), never fewer. -1: not such a path. */
static long own_thread_stat(const char *full) {
    static const char prefix[] = "/proc/";
    if (strncmp(full, prefix, sizeof prefix - 1) != 0) return -1;
    const char *digits = full + sizeof prefix - 1;
    size_t count = strspn(digits, "0123456789");
    if (count == 0 || count > 9 || strcmp(digits + count, "/stat") != 0) return -1;
    long thread = 0;
    for (size_t index = 0; index < count; index++) thread = thread * 10 + (digits[index] - '0');
    if (syscall(SYS_tgkill, getpid(), thread, 0) != 0) return -1;
    char text[64];
    rf_line line = {text, sizeof text, 0};
    rf_line_append_long(&line, thread);
    rf_line_append(&line, " (worker) S 0\n");
    long file = syscall(SYS_memfd_create, "stat", MFD_CLOEXEC);
    if (file < 0) return -errno;
    if (write((int)file, line.text, line.length) != (ssize_t)line.length || lseek((int)file, 0, SEEK_SET) != 0) {
        close((int)file);
        return -EIO;
    }
    return file;
}

/* An open the filter trapped: checked against the roots, then made again with the mark. A path relative to
 * a descriptor other than the working folder is not checked here (the root has no /proc to name it by). */
static long checked_open(int directory, const char *path, int flags, unsigned long mode) {
    if (path == NULL) return -EFAULT;
    int writing = (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
    if (path[0] == '/' || directory == AT_FDCWD) {
        char full[RF_PATH_SIZE];
        if (!rf_sandbox_clean_path(path, full)) return -ENAMETOOLONG;
        long answer = writing ? -1 : own_thread_stat(full);
        if (answer != -1) return answer;
        if (!allowed(full, writing)) deny(writing ? "write " : "open ", full);
    }
    /* syscall() answers -1 and sets errno; the trapped call's result register wants -errno. */
    long result = syscall(SYS_openat, directory, path, flags, (mode & 07777) | open_mark);
    return result < 0 ? -errno : result;
}

/* What `request` of ioctl does, for the denial's message. */
static const char *ioctl_name(unsigned long request) {
    switch (request) {
    case SIOCSIFFLAGS: return "SIOCSIFFLAGS (set a network interface's flags)";
    case SIOCSIFMTU: return "SIOCSIFMTU (set a network interface's MTU)";
    case SIOCSIFADDR: return "SIOCSIFADDR (set a network interface's address)";
    case FIFREEZE: return "FIFREEZE (freeze a file system)";
    case FITHAW: return "FITHAW (thaw a file system)";
    case FS_IOC_SETFLAGS: return "FS_IOC_SETFLAGS (set a file's attributes)";
    case FS_IOC_GETFLAGS: return "FS_IOC_GETFLAGS (read a file's attributes)";
    case TIOCSTI: return "TIOCSTI (type into the terminal)";
    default: return NULL;
    }
}

static void denied_call(long number, ucontext_t *context) {
    char text[192];
    rf_line detail = {text, sizeof text, 0};
    if (number == SYS_ioctl) {
        unsigned long request = ARGUMENT(context, 1);
        const char *name = ioctl_name(request);
        rf_line_append(&detail, "use ioctl ");
        if (name != NULL) {
            rf_line_append(&detail, name);
        } else {
            static const char digits[] = "0123456789abcdef";
            char hex[20] = "request 0x";
            int length = 10;
            for (int shift = 28; shift >= 0; shift -= 4) hex[length++] = digits[(request >> shift) & 0xf];
            hex[length] = '\0';
            rf_line_append(&detail, hex);
        }
        rf_line_append(&detail, " on descriptor ");
        rf_line_append_long(&detail, (long)ARGUMENT(context, 0));
    } else if (number == SYS_prctl && ARGUMENT(context, 0) == PR_SET_PDEATHSIG) {
        rf_line_append(&detail, "change its parent-death signal");
    } else if (number == SYS_prlimit64 || number == SYS_setrlimit) {
        rf_line_append(&detail, "change its resource limits");
    } else if (number == SYS_rt_sigaction) {
        rf_line_append(&detail, "replace the sandbox's SIGSYS handler");
    } else {
        const char *name = number >= 0 && number < NAME_COUNT ? syscall_names[number] : NULL;
        rf_line_append(&detail, "make the system call ");
        if (name != NULL) {
            rf_line_append(&detail, name);
        } else {
            rf_line_append(&detail, "number ");
            rf_line_append_long(&detail, number);
        }
        if (number == SYS_prctl) {
            rf_line_append(&detail, " (option ");
            rf_line_append_long(&detail, (long)ARGUMENT(context, 0));
            rf_line_append(&detail, ")");
        }
    }
    deny(rf_line_terminated(&detail), "");
}

/* What a trapped call of a family the filter refuses tried, in the denial's words; NULL for any other. */
static const char *family(long number) {
    switch (number) {
    case SYS_socket:
    case SYS_socketpair: return "open a socket";
    case SYS_connect:
    case SYS_bind:
    case SYS_listen: return "use the network";
    case SYS_clone:
    case SYS_clone3:
#ifdef SYS_fork
    case SYS_fork:
    case SYS_vfork:
#endif
        return "start a process";
    case SYS_ptrace:
    case SYS_process_vm_writev:
    case SYS_process_vm_readv: return "inspect another process";
    case SYS_mount:
    case SYS_umount2:
    case SYS_unshare:
    case SYS_setns:
    case SYS_pivot_root:
    case SYS_chroot:
    case SYS_open_tree:
    case SYS_move_mount:
    case SYS_fsopen:
    case SYS_fsconfig:
    case SYS_fsmount:
    case SYS_fspick:
    case SYS_mount_setattr: return "change its mounts or namespaces";
#ifdef SYS_chmod
    case SYS_chmod:
#endif
    case SYS_fchmod:
    case SYS_fchmodat: return "change a file's mode";
#ifdef SYS_chown
    case SYS_chown:
    case SYS_lchown:
#endif
    case SYS_fchown:
    case SYS_fchownat: return "change a file's owner";
#ifdef SYS_utimes
    case SYS_utimes:
    case SYS_futimesat:
    case SYS_utime:
#endif
    case SYS_utimensat: return "change a file's times";
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_fsetxattr:
    case SYS_removexattr:
    case SYS_lremovexattr:
    case SYS_fremovexattr: return "change a file's extended attributes";
#ifdef SYS_mknod
    case SYS_mknod:
    case SYS_link:
    case SYS_symlink:
#endif
    case SYS_mknodat:
    case SYS_linkat:
    case SYS_symlinkat: return "make a link or a special file";
    case SYS_capset:
    case SYS_setuid:
    case SYS_setgid:
    case SYS_setreuid:
    case SYS_setregid:
    case SYS_setresuid:
    case SYS_setresgid:
    case SYS_setgroups:
    case SYS_setfsuid:
    case SYS_setfsgid: return "change its user or its capabilities";
    default: return NULL;
    }
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
    } else if (family(number) != NULL) {
        deny(family(number), "");
    } else {
        denied_call(number, context);
    }
    SET_RESULT(context, result);
    errno = saved;
}

/* ---- the filter ---- */

/* Every call a worker makes once locked in (strace of the example jobs under --isolate, plus what
 * glibc, Dispatch and the plugins' libraries use on other paths); anything else traps. */
static const int allowed_calls[] = {
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64), SCMP_SYS(pwrite64),
    SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(statx),
    SCMP_SYS(lseek), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap), SCMP_SYS(madvise),
    SCMP_SYS(brk), SCMP_SYS(mincore), SCMP_SYS(msync), SCMP_SYS(futex), SCMP_SYS(futex_waitv),
    SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq), SCMP_SYS(sched_yield),
    SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_getparam), SCMP_SYS(sched_getscheduler), SCMP_SYS(getpid),
    SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid),
    SCMP_SYS(getresuid), SCMP_SYS(getresgid), SCMP_SYS(getgroups), SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
    SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday), SCMP_SYS(time), SCMP_SYS(getrandom),
    SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(exit), SCMP_SYS(exit_group),
    SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(epoll_create1),
    SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2), SCMP_SYS(recvfrom),
    SCMP_SYS(recvmsg), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(shutdown), SCMP_SYS(getsockopt),
    SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(fcntl), SCMP_SYS(getcwd), SCMP_SYS(readlink),
    SCMP_SYS(readlinkat), SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(getdents64),
    SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
    SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(rmdir), SCMP_SYS(fsync), SCMP_SYS(fdatasync),
    SCMP_SYS(ftruncate), SCMP_SYS(uname), SCMP_SYS(sysinfo), SCMP_SYS(getrusage), SCMP_SYS(times),
    SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address), SCMP_SYS(membarrier), SCMP_SYS(pipe), SCMP_SYS(pipe2),
    SCMP_SYS(eventfd2), SCMP_SYS(memfd_create), SCMP_SYS(flock), SCMP_SYS(statfs), SCMP_SYS(fstatfs),
    SCMP_SYS(fadvise64), SCMP_SYS(getrlimit), SCMP_SYS(sched_setaffinity), SCMP_SYS(pause),
    SCMP_SYS(rt_sigsuspend), SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigpending), SCMP_SYS(alarm),
    SCMP_SYS(getitimer), SCMP_SYS(setitimer), SCMP_SYS(timer_create), SCMP_SYS(timer_settime),
    SCMP_SYS(timer_gettime), SCMP_SYS(timer_getoverrun), SCMP_SYS(timer_delete), SCMP_SYS(timerfd_create),
    SCMP_SYS(timerfd_settime), SCMP_SYS(timerfd_gettime), SCMP_SYS(sched_getattr), SCMP_SYS(sched_get_priority_max),
    SCMP_SYS(sched_get_priority_min), SCMP_SYS(getpgrp), SCMP_SYS(getpgid), SCMP_SYS(getsid),
    SCMP_SYS(getpriority), SCMP_SYS(getcpu), SCMP_SYS(capget), SCMP_SYS(getxattr), SCMP_SYS(lgetxattr),
    SCMP_SYS(fgetxattr), SCMP_SYS(chdir), SCMP_SYS(fchdir), SCMP_SYS(readahead), SCMP_SYS(fallocate),
    SCMP_SYS(copy_file_range), SCMP_SYS(sendfile), SCMP_SYS(mlock), SCMP_SYS(munlock), SCMP_SYS(get_mempolicy),
    SCMP_SYS(wait4), SCMP_SYS(waitid),
};

/* prctl options that only read the process's settings or name a thread or a mapping. Changing the
 * parent-death signal, dumpability, securebits, capabilities or the memory map is not among them. */
static const unsigned long allowed_prctls[] = {
    PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_GET_KEEPCAPS, PR_SET_NAME, PR_GET_NAME, PR_GET_SECCOMP,
    PR_CAPBSET_READ, PR_GET_SECUREBITS, PR_GET_TIMERSLACK, PR_SET_TIMERSLACK, PR_MCE_KILL_GET,
    PR_GET_TID_ADDRESS, PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_GET_THP_DISABLE,
    PR_GET_SPECULATION_CTRL, 0x53564d41 /* PR_SET_VMA: names an anonymous mapping (glibc's malloc) */,
};

/* ioctl requests a worker may make, on any descriptor: whether a descriptor is a terminal and its size
 * (glibc's stdio, on the first write to standard output) and how many bytes wait on it. No request that
 * changes a device, a file system, a file's attributes or a network interface. */
static const unsigned long allowed_ioctls[] = {TCGETS, TIOCGWINSZ, FIONREAD};

static int add_rules(scmp_filter_ctx filter, int narrowing_later) {
    int failed = 0;
    /* A worker locked in before its plugins are created narrows its Landlock ruleset once they are
     * (rf_sandbox_narrow), which then forbids these calls with a second filter. */
    if (narrowing_later) {
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(landlock_create_ruleset), 0) != 0;
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(landlock_add_rule), 0) != 0;
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(landlock_restrict_self), 0) != 0;
        /* The second filter's load: a filter can only take more away. */
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(seccomp), 1,
                                   SCMP_A0(SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER)) != 0;
    }
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
    /* Any signal's handler but SIGSYS's, which only the sandbox sets (read it, yes). */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1,
                               SCMP_A0(SCMP_CMP_NE, SIGSYS)) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 2, SCMP_A0(SCMP_CMP_EQ, SIGSYS),
                               SCMP_A1(SCMP_CMP_EQ, 0)) != 0;
    /* Its own limits, read only: they are hard, and setrlimit traps. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, 0),
                               SCMP_A2(SCMP_CMP_EQ, 0)) != 0;
    /* Its own thread's niceness (libdispatch's worker threads set theirs); no other process's. A higher
     * priority (a negative value) needs CAP_SYS_NICE, which no worker has: it is answered "done" and not
     * made, as libdispatch would otherwise report the refusal through syslog, which opens a socket. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(setpriority), 3, SCMP_A0(SCMP_CMP_EQ, PRIO_PROCESS),
                               SCMP_A1(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_MASKED_EQ, 0x80000000u, 0)) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(0), SCMP_SYS(setpriority), 3, SCMP_A0(SCMP_CMP_EQ, PRIO_PROCESS),
                               SCMP_A1(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_MASKED_EQ, 0x80000000u, 0x80000000u)) != 0;
    for (size_t index = 0; index < sizeof allowed_prctls / sizeof allowed_prctls[0]; index++) {
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
                                   SCMP_A0(SCMP_CMP_EQ, allowed_prctls[index])) != 0;
    }
    /* The ambient set may be asked about, not raised. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 2, SCMP_A0(SCMP_CMP_EQ, PR_CAP_AMBIENT),
                               SCMP_A1(SCMP_CMP_EQ, PR_CAP_AMBIENT_IS_SET)) != 0;
    for (size_t index = 0; index < sizeof allowed_ioctls / sizeof allowed_ioctls[0]; index++) {
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
                                   SCMP_A1(SCMP_CMP_EQ, allowed_ioctls[index])) != 0;
    }
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) != 0;
    /* Opens: the handler's own (marked) pass; the others trap and are checked. */
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
                               SCMP_A3(SCMP_CMP_MASKED_EQ, MARK_MASK, open_mark)) != 0;
    return failed;
}

/* The paths the handler's open check allows: `read`, and `write` for writing too. */
static void set_roots(const char *const *read, size_t read_count, const char *const *write, size_t write_count);

static void add_root(const char *path, int writable) {
    char resolved[RF_PATH_SIZE];
    const char *forms[2] = {path, realpath(path, resolved)};
    for (int form = 0; form < 2; form++) {
        if (forms[form] == NULL || root_count == MAX_ROOTS) continue;
        char clean[RF_PATH_SIZE];
        if (!rf_sandbox_clean_path(forms[form], clean)) continue;
        root *r = &roots[root_count++];
        snprintf(r->path, sizeof r->path, "%s", clean);
        r->length = strlen(r->path);
        r->writable = writable;
    }
}

static void set_roots(const char *const *read, size_t read_count, const char *const *write, size_t write_count) {
    root_count = 0;
    for (size_t index = 0; index < read_count; index++) add_root(read[index], 0);
    for (size_t index = 0; index < write_count; index++) add_root(write[index], 1);
}

/* Whether the table could not hold every path: the check would then name allowed opens as denials. */
static int roots_full(void) { return root_count == MAX_ROOTS; }

int rf_sandbox_seccomp(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                       int report_fd, int narrowing_later, char *problems, size_t size) {
    report_descriptor = report_fd;
    set_roots(read, read_count, write, write_count);
    if (roots_full()) {
        rf_sandbox_note(problems, size, "seccomp (more paths than its open check holds)");
        return 0;
    }
    uint64_t random = 0;
    if (getrandom(&random, sizeof random, 0) != sizeof random) random = (uint64_t)getpid() * 2654435761u;
    open_mark = ((unsigned long)random | 0x10000ul) & MARK_MASK;

    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_TRAP);
    if (filter == NULL) {
        rf_sandbox_note(problems, size, "seccomp (libseccomp cannot make a filter)");
        return 0;
    }
    seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    if (add_rules(filter, narrowing_later) != 0) {
        seccomp_release(filter);
        rf_sandbox_note(problems, size, "seccomp (libseccomp refused a rule)");
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
    if (!loaded) rf_sandbox_note(problems, size, "seccomp (the kernel refused the filter)");
    return loaded;
}

int rf_sandbox_seccomp_narrow(const char *const *read, size_t read_count, const char *const *write,
                              size_t write_count, char *problems, size_t size) {
    /* Other threads may be in the handler now: a check against a table being rewritten names a denial
     * wrongly at worst; the root and Landlock decide. */
    set_roots(read, read_count, write, write_count);
    if (roots_full()) {
        rf_sandbox_note(problems, size, "seccomp (more paths than its open check holds)");
        return 0;
    }
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == NULL) {
        rf_sandbox_note(problems, size, "seccomp (libseccomp cannot make the second filter)");
        return 0;
    }
    seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    int failed = seccomp_rule_add(filter, SCMP_ACT_TRAP, SCMP_SYS(landlock_create_ruleset), 0) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_TRAP, SCMP_SYS(landlock_add_rule), 0) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_TRAP, SCMP_SYS(landlock_restrict_self), 0) != 0;
    failed |= seccomp_rule_add(filter, SCMP_ACT_TRAP, SCMP_SYS(seccomp), 0) != 0;
    int loaded = !failed && seccomp_load(filter) == 0;
    seccomp_release(filter);
    if (!loaded) rf_sandbox_note(problems, size, "seccomp (the kernel refused the second filter)");
    return loaded;
}
