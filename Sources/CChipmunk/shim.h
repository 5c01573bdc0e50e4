// Debian's libchipmunk-dev ships no pkg-config file: the headers live in /usr/include/chipmunk.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <chipmunk/chipmunk.h>

// Debian builds Chipmunk without NDEBUG, so the first cpSpaceInit of a process prints a two-line banner with
// printf. Creating and freeing one space while descriptor 1 points at /dev/null absorbs it (renderfarm has moved
// its results off descriptor 1, ResultsOutput, but the banner would still be noise on standard error). Every copy
// of EffectKit in a process (the host's, one per plugin library) calls this once, at its first space, while other
// threads may be printing: it holds the `stdout` stream's lock throughout, so stdio on `stdout` in other threads
// (and another copy's call) waits, and writes their earlier output where it belongs first. Only writes straight to
// descriptor 1 during those microseconds go to /dev/null. (It once pointed `stdout` itself at a /dev/null stream
// and closed it after: two copies at once left `stdout` pointing at a closed stream, and a thread printing
// meanwhile could flush a freed one.)
static inline void rf_chipmunk_absorb_banner(void) {
    int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (quiet < 0) return;
    flockfile(stdout);
    fflush(stdout);
    int saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (saved >= 0 && dup2(quiet, STDOUT_FILENO) >= 0) {
        cpSpaceFree(cpSpaceNew());
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
    }
    if (saved >= 0) close(saved);
    funlockfile(stdout);
    close(quiet);
}

// The C `stdout` stream as it is now, for the tests of the above (Swift 6 refuses the mutable global itself).
static inline FILE *rf_chipmunk_stdout(void) { return stdout; }
