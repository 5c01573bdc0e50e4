#ifndef RENDERFARM_SANDBOX_INTERNAL_H
#define RENDERFARM_SANDBOX_INTERNAL_H

/* What the files of the worker sandbox share (sandbox.h says what each layer does). */

#include <stddef.h>

#define RF_PATH_SIZE 4096

/* Appends `text` to the "; "-separated `problems` (NULL: nothing). */
void rf_sandbox_note(char *problems, size_t size, const char *text);

/* `path` made absolute (relative to the working folder) and without "." or ".." parts, lexically,
 * into `out` (RF_PATH_SIZE bytes); 0 when it does not fit or the working folder is unknown.
 * Async-signal-safe. */
int rf_sandbox_clean_path(const char *path, char *out);

/* Leaves the process only the capabilities in `keep` (a mask of CAP_* bits), in every set of the
 * calling thread: effective, permitted, inheritable (none), ambient (none) and bounding; locks the
 * securebits that keep root from regaining any. 1 when the sets hold `keep` at most afterwards. */
int rf_sandbox_limit_capabilities(unsigned long long keep);

/* Builds the worker's root (namespaces.c says where it is entered) and moves the process into it:
 * 1 on success; `problems` gets why not otherwise, and the process keeps the root it had. */
int rf_sandbox_build_root(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                          char *problems, size_t size);

/* The folder of the host's tree the new root is put together in (hidden under a tmpfs inside the
 * worker's mount namespace only); NULL when there is none. */
const char *rf_sandbox_root_base(void);

/* The Landlock ruleset of the paths, applied to the calling thread and the threads it starts. */
int rf_sandbox_landlock(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                        char *problems, size_t size);

/* The seccomp filter (all threads) and its SIGSYS handler, which checks opens against `read` and
 * `write` to name a denial and writes it to `report_fd`. `narrowing_later`: the Landlock calls stay
 * allowed, for rf_sandbox_narrow. */
int rf_sandbox_seccomp(const char *const *read, size_t read_count, const char *const *write, size_t write_count,
                       int report_fd, int narrowing_later, char *problems, size_t size);

/* The handler's open check narrowed to `read` and `write`, and a second filter (all threads) that
 * forbids the Landlock calls the first allowed. */
int rf_sandbox_seccomp_narrow(const char *const *read, size_t read_count, const char *const *write,
                              size_t write_count, char *problems, size_t size);

#endif
