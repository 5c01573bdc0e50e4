/*
 * The companion library of renderfarm_plugin.h (librenderfarm-plugin.a): helpers a plugin links
 * statically, for what the header cannot do inline under strict C99 (realpath is POSIX, not C).
 */
#define _XOPEN_SOURCE 700

#include "renderfarm_plugin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int refuse(int status, char *err, size_t errlen, const char *format, ...) {
    if (err && errlen > 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(err, errlen, format, arguments);
        va_end(arguments);
    }
    return status;
}

/* Whether `path` lies inside `folder`, not being it (both absolute, normal: no trailing '/' but "/" itself). */
static int inside(const char *path, const char *folder) {
    size_t length = strlen(folder);
    if (strncmp(path, folder, length) != 0) return 0;
    return folder[length - 1] == '/' || path[length] == '/';
}

/* `path` (absolute) without ".", ".." and repeated '/', written to `out`; no file system access. */
static void lexically_normal(const char *path, char *out) {
    size_t used = 0;
    const char *part = path;
    while (*part) {
        while (*part == '/') part++;
        size_t length = strcspn(part, "/");
        if (length == 0) break;
        if (length == 2 && part[0] == '.' && part[1] == '.') {
            while (used > 0 && out[used - 1] != '/') used--; /* drop the last component */
            if (used > 0) used--;                            /* and its '/' */
        } else if (!(length == 1 && part[0] == '.')) {
            out[used++] = '/';
            memcpy(out + used, part, length);
            used += length;
        }
        part += length;
    }
    if (used == 0) out[used++] = '/';
    out[used] = '\0';
}

int rf_path_inside(const char *folder, const char *path, char *out, size_t cap, char *err, size_t errlen) {
    if (!path || !*path) return refuse(RF_ERROR_PARAMS, err, errlen, "empty path");
    char *root = folder ? realpath(folder, NULL) : NULL;
    if (!root) return refuse(RF_ERROR_RESOURCE, err, errlen, "the folder %s cannot be resolved", folder ? folder : "(none)");
    size_t length = path[0] == '/' ? strlen(path) : strlen(root) + 1 + strlen(path);
    char *joined = malloc(length + 1), *normal = malloc(length + 2);
    if (!joined || !normal) {
        free(root), free(joined), free(normal);
        return refuse(RF_ERROR_RESOURCE, err, errlen, "out of memory");
    }
    if (path[0] == '/') {
        strcpy(joined, path);
    } else {
        sprintf(joined, "%s/%s", root, path);
    }
    /* Lexically first, so "../x.png" is refused the same way whether or not it exists. */
    lexically_normal(joined, normal);
    int status = RF_OK;
    char *resolved = NULL;
    if (!inside(normal, root)) {
        status = refuse(RF_ERROR_PARAMS, err, errlen, "%s resolves outside the folder %s", path, root);
    } else if (!(resolved = realpath(joined, NULL))) {
        status = refuse(RF_ERROR_RESOURCE, err, errlen, "%s not found in the folder %s", path, root);
    } else if (!inside(resolved, root)) {
        status = refuse(RF_ERROR_PARAMS, err, errlen, "%s resolves outside the folder %s", path, root);
    } else if (strlen(resolved) >= cap) {
        status = refuse(RF_ERROR_RESOURCE, err, errlen, "%s: its resolved path is longer than %zu bytes", path, cap - 1);
    } else {
        memcpy(out, resolved, strlen(resolved) + 1);
    }
    free(root), free(joined), free(normal), free(resolved);
    return status;
}
