#define _GNU_SOURCE
#include "sandbox.h"
#include "sandbox_internal.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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

int rf_sandbox_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

int rf_sandbox_landlock(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                        char *problems, size_t size) {
    int abi = rf_sandbox_landlock_abi();
    if (abi <= 0) {
        rf_sandbox_note(problems, size, "Landlock (the kernel does not offer it)");
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
    /* ioctl on devices (ABI 5): none allowed, /dev/null included (seccomp allows a few on any descriptor). */
    if (abi >= 5) attr.handled_access_fs |= RF_LANDLOCK_ACCESS_FS_IOCTL_DEV;
    if (abi >= 6) {
        attr.scoped = RF_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | RF_LANDLOCK_SCOPE_SIGNAL;
        attr_size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0) {
        rf_sandbox_note(problems, size, "Landlock (cannot create a ruleset)");
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
            if (!is_directory) {
                rights &= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | RF_LANDLOCK_ACCESS_FS_TRUNCATE;
            }
            struct landlock_path_beneath_attr beneath = {.allowed_access = rights, .parent_fd = descriptor};
            syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
            close(descriptor);
        }
    }
    int applied = syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
    close(ruleset);
    if (!applied) rf_sandbox_note(problems, size, "Landlock (restrict_self failed)");
    return applied;
}
