// Debian's libchipmunk-dev ships no pkg-config file: the headers live in /usr/include/chipmunk.
#include <stdio.h>
#include <chipmunk/chipmunk.h>

// Debian builds Chipmunk without NDEBUG, so the first cpSpaceInit of a process prints a two-line banner
// with printf. On stdout it would corrupt `renderfarm trace` output (JSON lines). Creating and freeing one
// space while the C `stdout` stream points at /dev/null absorbs it. Call once per process, before any other
// space is made; printf output of other threads during those microseconds is discarded too.
static inline void rf_chipmunk_absorb_banner(void) {
    FILE *quiet = fopen("/dev/null", "w");
    if (quiet == NULL) return;
    FILE *saved = stdout;
    fflush(saved);
    stdout = quiet;
    cpSpaceFree(cpSpaceNew());
    fflush(quiet);
    stdout = saved;
    fclose(quiet);
}
