#define _GNU_SOURCE
#include "sandbox.h"
#include "sandbox_internal.h"

#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault_report.h"

/* rf_sandbox_apply: the layers in the order each needs (the root needs CAP_SYS_ADMIN, seccomp comes last
 * since it refuses what the others call), and what the Swift side asks of the limits. */

/* /proc/self/statm, opened before the root hides /proc, and the address-space limit. */
static int statm_descriptor = -1;
static unsigned long long address_limit;
static unsigned long long page_size;
/* The layers rf_sandbox_apply put in force, which rf_sandbox_narrow narrows. */
static int first_layers;

void rf_sandbox_note(char *problems, size_t size, const char *text) {
    if (problems == NULL || size == 0) return;
    size_t used = strlen(problems);
    snprintf(problems + used, size - used, "%s%s", used > 0 ? "; " : "", text);
}

int rf_sandbox_clean_path(const char *path, char *out) {
    size_t length = 0;
    if (path[0] != '/') {
        if (syscall(SYS_getcwd, out, RF_PATH_SIZE) <= 0) return 0;
        length = strlen(out);
        if (length + 1 >= RF_PATH_SIZE) return 0;
        out[length++] = '/';
    }
    size_t path_length = strlen(path);
    if (length + path_length + 1 >= RF_PATH_SIZE) return 0;
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

static unsigned long cpu_used(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return (unsigned long)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1;
}

/* Address space, CPU time (soft and hard alike: past it the kernel sends SIGKILL, and no process without
 * CAP_SYS_RESOURCE in the host's user namespace can raise a hard limit), and no core file. */
static int limit(unsigned long long address_space, unsigned long cpu_seconds) {
    int limited = 1;
    address_limit = address_space;
    if (address_space > 0) {
        struct rlimit memory = {.rlim_cur = address_space, .rlim_max = address_space};
        limited &= setrlimit(RLIMIT_AS, &memory) == 0;
    }
    if (cpu_seconds > 0) {
        struct rlimit cpu;
        limited &= getrlimit(RLIMIT_CPU, &cpu) == 0;
        rlim_t until = (rlim_t)(cpu_used() + cpu_seconds);
        if (cpu.rlim_max != RLIM_INFINITY && cpu.rlim_max < until) until = cpu.rlim_max;
        cpu.rlim_cur = cpu.rlim_max = until;
        limited &= setrlimit(RLIMIT_CPU, &cpu) == 0;
    }
    struct rlimit core = {0, 0};
    limited &= setrlimit(RLIMIT_CORE, &core) == 0;
    /* No core dump through a piped core_pattern either, and no process of the user may attach. */
    limited &= prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0;
    return limited;
}

int rf_sandbox_apply(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                     unsigned long long address_space, unsigned long cpu_seconds, int report_fd, int entered,
                     int skip, int narrowing_later, char *problems, size_t problems_size) {
    int applied = entered & (RF_SANDBOX_USER_NAMESPACE | RF_SANDBOX_NETWORK);
    if (problems != NULL && problems_size > 0) problems[0] = '\0';
    /* Set before anything a plugin could undo it with (seccomp refuses PR_SET_PDEATHSIG from here on). */
    if (!rf_worker_tied_to_parent()) syscall(SYS_exit_group, 0);
    if (statm_descriptor < 0) statm_descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    page_size = (unsigned long long)sysconf(_SC_PAGESIZE);
    /* A plugin that crashes on a failed allocation is then reported as out of memory, not only as a SIGSEGV. */
    rf_fault_report_on_memory_limit(rf_sandbox_near_address_limit);

    if (limit(address_space, cpu_seconds)) {
        applied |= RF_SANDBOX_LIMITS;
    } else {
        rf_sandbox_note(problems, problems_size, "resource limits (setrlimit failed)");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
        applied |= RF_SANDBOX_NO_NEW_PRIVS;
    } else {
        rf_sandbox_note(problems, problems_size, "no_new_privs (prctl failed)");
    }
    if (skip & RF_SANDBOX_MOUNT_NAMESPACE) rf_sandbox_note(problems, problems_size, "root (left out on purpose)");
    if (skip & RF_SANDBOX_LANDLOCK) rf_sandbox_note(problems, problems_size, "Landlock (left out on purpose)");
    if (skip & RF_SANDBOX_SECCOMP) rf_sandbox_note(problems, problems_size, "seccomp (left out on purpose)");
    if ((entered & RF_SANDBOX_MOUNT_NAMESPACE) && !(skip & RF_SANDBOX_MOUNT_NAMESPACE) &&
        rf_sandbox_build_root(read, read_count, write, write_count, problems, problems_size)) {
        applied |= RF_SANDBOX_MOUNT_NAMESPACE;
    }
    if (!(skip & RF_SANDBOX_LANDLOCK) &&
        rf_sandbox_landlock(read, read_count, write, write_count, problems, problems_size)) {
        applied |= RF_SANDBOX_LANDLOCK;
    }
    if (rf_sandbox_limit_capabilities(0)) {
        applied |= RF_SANDBOX_CAPABILITIES;
    } else {
        rf_sandbox_note(problems, problems_size, "capabilities (capset failed)");
    }
    if (!(skip & RF_SANDBOX_SECCOMP) && (applied & RF_SANDBOX_NO_NEW_PRIVS) &&
        rf_sandbox_seccomp(read, read_count, write, write_count, report_fd, narrowing_later, problems,
                           problems_size)) {
        applied |= RF_SANDBOX_SECCOMP;
    }
    first_layers = applied;
    return applied;
}

int rf_sandbox_narrow(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                      char *problems, size_t problems_size) {
    if (problems != NULL && problems_size > 0) problems[0] = '\0';
    int narrowed = 0;
    if ((first_layers & RF_SANDBOX_LANDLOCK) &&
        rf_sandbox_landlock(read, read_count, write, write_count, problems, problems_size)) {
        narrowed |= RF_SANDBOX_LANDLOCK;
    }
    if ((first_layers & RF_SANDBOX_SECCOMP) &&
        rf_sandbox_seccomp_narrow(read, read_count, write, write_count, problems, problems_size)) {
        narrowed |= RF_SANDBOX_SECCOMP;
    }
    return narrowed;
}

int rf_sandbox_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int rf_sandbox_frame_memory(size_t bytes) {
    int descriptor = memfd_create("renderfarm-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (descriptor < 0) return -1;
    if (ftruncate(descriptor, (off_t)bytes) != 0 ||
        fcntl(descriptor, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int saved = errno;
        close(descriptor);
        errno = saved;
        return -1;
    }
    return descriptor;
}

int rf_sandbox_is_frame_memory(int descriptor, size_t *bytes) {
    int seals = fcntl(descriptor, F_GET_SEALS);
    int wanted = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
    struct stat status;
    if (seals < 0 || (seals & wanted) != wanted || fstat(descriptor, &status) != 0 || !S_ISREG(status.st_mode))
        return 0;
    *bytes = (size_t)status.st_size;
    return 1;
}

long rf_sandbox_cpu_left(void) {
    struct rlimit cpu;
    if (getrlimit(RLIMIT_CPU, &cpu) != 0 || cpu.rlim_max == RLIM_INFINITY) return -1;
    unsigned long used = cpu_used();
    return used >= cpu.rlim_max ? 0 : (long)(cpu.rlim_max - used);
}

int rf_sandbox_near_address_limit(unsigned long long *limit) {
    *limit = address_limit;
    if (statm_descriptor < 0 || address_limit == 0) return 0;
    /* Async-signal-safe (the crash report calls it): pread and digits read by hand. */
    char text[128];
    ssize_t count = pread(statm_descriptor, text, sizeof text, 0);
    unsigned long long pages = 0;
    for (ssize_t index = 0; index < count && text[index] >= '0' && text[index] <= '9'; index++) {
        pages = pages * 10 + (unsigned long long)(text[index] - '0');
    }
    unsigned long long size = pages * page_size;
    /* malloc asks for 64 MiB arenas and large blocks at once: within 256 MiB counts as reached. */
    return size + (256ull << 20) >= address_limit;
}

typedef struct library_list {
    char *text;
    size_t size, used;
} library_list;

static int add_library(struct dl_phdr_info *info, size_t info_size, void *data) {
    (void)info_size;
    library_list *list = data;
    const char *name = info->dlpi_name;
    if (name == NULL || name[0] != '/') return 0;
    size_t length = strlen(name);
    if (list->used + length + 2 > list->size) return 1;
    memcpy(list->text + list->used, name, length);
    list->used += length;
    list->text[list->used++] = '\n';
    list->text[list->used] = '\0';
    return 0;
}

size_t rf_sandbox_loaded_libraries(char *text, size_t size) {
    library_list list = {text, size, 0};
    if (size > 0) text[0] = '\0';
    dl_iterate_phdr(add_library, &list);
    return list.used;
}
