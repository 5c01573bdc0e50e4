#define _GNU_SOURCE
#include "sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The worker's root: a tmpfs holding only the paths it may read (read-only bind mounts of the host's
 * files and folders), the folders it may write (read-write binds) and the symbolic links on the way to
 * them, entered with pivot_root as bubblewrap does; the host's root is then unmounted from the
 * namespace. The same system calls as bubblewrap, without starting a program: the worker builds its
 * root after its plugins are created, in the mount namespace rf_sandbox_enter made for it.
 *
 * Each path is walked component by component on the host: a symbolic link on the way is made again in
 * the new root, with the same text, and its target walked in turn, so that a path resolves there as
 * it did on the host; what the walk ends on (no link left) is bound at the same place. */

enum kind { BIND_READ, BIND_WRITE, LINK };

typedef struct entry {
    char *path;   /* where in the new root (the same as on the host) */
    char *target; /* a link's text */
    enum kind kind;
    int directory;
    int device;
    int tree; /* the clone of the host's mount (open_tree), for binds */
} entry;

typedef struct plan {
    entry *entries;
    size_t count, capacity;
} plan;

static void add(plan *p, enum kind kind, const char *path, const char *target, const struct stat *status) {
    for (size_t index = 0; index < p->count; index++) {
        entry *e = &p->entries[index];
        if (strcmp(e->path, path) != 0) continue;
        if (kind == BIND_WRITE && e->kind == BIND_READ) e->kind = BIND_WRITE; /* writable wins */
        return;
    }
    if (p->count == p->capacity) {
        size_t capacity = p->capacity ? p->capacity * 2 : 64;
        entry *grown = realloc(p->entries, capacity * sizeof *grown);
        if (grown == NULL) return;
        p->entries = grown;
        p->capacity = capacity;
    }
    entry *e = &p->entries[p->count];
    memset(e, 0, sizeof *e);
    e->path = strdup(path);
    e->target = target ? strdup(target) : NULL;
    if (e->path == NULL || (target != NULL && e->target == NULL)) return;
    e->kind = kind;
    e->tree = -1;
    if (status != NULL) {
        e->directory = S_ISDIR(status->st_mode);
        e->device = S_ISCHR(status->st_mode) || S_ISBLK(status->st_mode);
    }
    p->count++;
}

/* Walks `path` on the host (see above) and adds what the new root needs for it; `depth` counts links. */
static void walk(plan *p, const char *path, enum kind kind, int depth) {
    char clean[RF_PATH_SIZE];
    if (depth > 40 || !rf_sandbox_clean_path(path, clean) || strcmp(clean, "/") == 0) return;
    char reached[RF_PATH_SIZE] = "";
    size_t length = 0;
    const char *rest = clean;
    struct stat status;
    while (*rest != '\0') {
        while (*rest == '/') rest++;
        const char *end = strchr(rest, '/');
        size_t part = end ? (size_t)(end - rest) : strlen(rest);
        if (part == 0) break;
        if (length + 1 + part >= sizeof reached) return;
        reached[length] = '/';
        memcpy(reached + length + 1, rest, part);
        size_t before = length;
        length += 1 + part;
        reached[length] = '\0';
        rest += part;
        if (lstat(reached, &status) != 0) return; /* missing: left out */
        if (!S_ISLNK(status.st_mode)) continue;
        char text[RF_PATH_SIZE];
        ssize_t count = readlink(reached, text, sizeof text - 1);
        if (count <= 0) return;
        text[count] = '\0';
        add(p, LINK, reached, text, NULL);
        /* The link's target, then what followed it. */
        char next[RF_PATH_SIZE * 2];
        reached[before] = '\0';
        snprintf(next, sizeof next, "%s%s%s%s", text[0] == '/' ? "" : reached, text[0] == '/' ? "" : "/", text,
                 rest);
        if (strlen(next) >= RF_PATH_SIZE) return;
        walk(p, next, kind, depth + 1);
        return;
    }
    if (length == 0 || lstat(reached, &status) != 0) return;
    add(p, kind, reached, NULL, &status);
}

static int compare(const void *a, const void *b) {
    return strcmp(((const entry *)a)->path, ((const entry *)b)->path);
}

/* Whether `path` lies strictly inside `folder`. */
static int inside(const char *path, const char *folder) {
    size_t length = strlen(folder);
    return strncmp(path, folder, length) == 0 && path[length] == '/';
}

/* Whether an earlier (shorter) entry already provides `e`: a bind inside a bound folder, unless it is
 * writable there and the folder is not; a link inside a bound folder. */
static int covered(const plan *p, size_t index) {
    const entry *e = &p->entries[index];
    for (size_t other = 0; other < index; other++) {
        const entry *o = &p->entries[other];
        if (o->kind == LINK || !o->directory || !inside(e->path, o->path)) continue;
        if (e->kind == BIND_WRITE && o->kind == BIND_READ) continue;
        return 1;
    }
    return 0;
}

/* Makes every missing folder of `path` (below `base`, already made) in the new root. */
static int make_folders(const char *path) {
    char partial[RF_PATH_SIZE * 2];
    snprintf(partial, sizeof partial, "%s", path);
    for (char *slash = strchr(partial + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        struct stat status;
        if (mkdir(partial, 0755) != 0 && !(stat(partial, &status) == 0 && S_ISDIR(status.st_mode))) return 0;
        *slash = '/';
    }
    return 1;
}

/* Where the new root is put together: a folder of the host's tree that exists everywhere, hidden under
 * the tmpfs only inside this namespace. */
const char *rf_sandbox_root_base(void) {
    static const char *const candidates[] = {"/tmp", "/mnt", "/run", "/var/tmp", "/dev"};
    for (size_t index = 0; index < sizeof candidates / sizeof candidates[0]; index++) {
        struct stat status;
        if (lstat(candidates[index], &status) == 0 && S_ISDIR(status.st_mode)) return candidates[index];
    }
    return NULL;
}

/* Clones the host's tree at each bind (before the tmpfs hides any of it), read-only where it is read. */
static int clone_trees(plan *p, char *problems, size_t size) {
    for (size_t index = 0; index < p->count; index++) {
        entry *e = &p->entries[index];
        if (e->kind == LINK || covered(p, index)) continue;
        e->tree = open_tree(AT_FDCWD, e->path,
                            OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
        if (e->tree < 0) {
            char text[RF_PATH_SIZE + 128];
            snprintf(text, sizeof text, "root (cannot bind %s: %s)", e->path, strerror(errno));
            rf_sandbox_note(problems, size, text);
            return 0;
        }
        struct mount_attr attributes = {.attr_set = MOUNT_ATTR_NOSUID};
        if (e->kind == BIND_READ) attributes.attr_set |= MOUNT_ATTR_RDONLY;
        if (e->kind == BIND_WRITE) attributes.attr_set |= MOUNT_ATTR_NOEXEC;
        if (!e->device) attributes.attr_set |= MOUNT_ATTR_NODEV;
        if (mount_setattr(e->tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attributes, sizeof attributes) != 0) {
            char text[RF_PATH_SIZE + 128];
            snprintf(text, sizeof text, "root (cannot make %s read-only: %s)", e->path, strerror(errno));
            rf_sandbox_note(problems, size, text);
            return 0;
        }
    }
    return 1;
}

/* Puts the links and the cloned trees into the tmpfs at `base`. */
static int fill(const plan *p, const char *base, char *problems, size_t size) {
    for (size_t index = 0; index < p->count; index++) {
        const entry *e = &p->entries[index];
        char where[RF_PATH_SIZE * 2];
        snprintf(where, sizeof where, "%s%s", base, e->path);
        if (e->kind == LINK) {
            if (covered(p, index)) continue;
            if (!make_folders(where) || (symlink(e->target, where) != 0 && errno != EEXIST)) goto failed;
            continue;
        }
        if (e->tree < 0) continue;
        if (!make_folders(where)) goto failed;
        if (e->directory) {
            struct stat status;
            if (mkdir(where, 0755) != 0 && !(stat(where, &status) == 0 && S_ISDIR(status.st_mode))) goto failed;
        } else {
            int file = open(where, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            if (file < 0 && errno != EROFS && errno != EEXIST) goto failed;
            if (file >= 0) close(file);
        }
        if (move_mount(e->tree, "", AT_FDCWD, where, MOVE_MOUNT_F_EMPTY_PATH) != 0) goto failed;
        continue;
    failed: {
        char text[RF_PATH_SIZE + 128];
        snprintf(text, sizeof text, "root (cannot place %s: %s)", e->path, strerror(errno));
        rf_sandbox_note(problems, size, text);
        return 0;
    }
    }
    return 1;
}

static void release(plan *p) {
    for (size_t index = 0; index < p->count; index++) {
        if (p->entries[index].tree >= 0) close(p->entries[index].tree);
        free(p->entries[index].path);
        free(p->entries[index].target);
    }
    free(p->entries);
}

int rf_sandbox_build_root(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                          char *problems, size_t size) {
    char text[256];
    const char *base = rf_sandbox_root_base();
    char working[RF_PATH_SIZE];
    if (base == NULL || getcwd(working, sizeof working) == NULL) {
        rf_sandbox_note(problems, size, "root (no folder to build it in)");
        return 0;
    }
    plan p = {0};
    for (size_t index = 0; index < read_count; index++) walk(&p, read[index], BIND_READ, 0);
    for (size_t index = 0; index < write_count; index++) walk(&p, write[index], BIND_WRITE, 0);
    qsort(p.entries, p.count, sizeof *p.entries, compare);
    int built = 0;
    if (!clone_trees(&p, problems, size)) goto done;
    if (mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0) {
        snprintf(text, sizeof text, "root (cannot mount a tmpfs on %s: %s)", base, strerror(errno));
        rf_sandbox_note(problems, size, text);
        goto done;
    }
    if (!fill(&p, base, problems, size)) {
        umount2(base, MNT_DETACH);
        goto done;
    }
    if (chdir(base) != 0 || syscall(SYS_pivot_root, ".", ".") != 0) {
        snprintf(text, sizeof text, "root (pivot_root: %s)", strerror(errno));
        rf_sandbox_note(problems, size, text);
        umount2(base, MNT_DETACH);
        if (chdir(working) != 0) {}
        goto done;
    }
    /* pivot_root(".", ".") stacked the host's root over the new one: unmounted, it is gone from here. */
    if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0) {
        snprintf(text, sizeof text, "root (cannot unmount the host's: %s)", strerror(errno));
        rf_sandbox_note(problems, size, text);
        goto done;
    }
    /* Nothing may be made in the root itself; the binds keep their own flags. */
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0) {
        snprintf(text, sizeof text, "root (cannot make it read-only: %s)", strerror(errno));
        rf_sandbox_note(problems, size, text);
        goto done;
    }
    if (chdir(working) != 0 && chdir("/") != 0) {}
    built = 1;
done:
    release(&p);
    return built;
}
