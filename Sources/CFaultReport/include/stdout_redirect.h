#ifndef RENDERFARM_STDOUT_REDIRECT_H
#define RENDERFARM_STDOUT_REDIRECT_H

/* Points file descriptor 1 somewhere else for a while, as `renderfarm plugin check` does to see whether a
 * plugin prints.
 *
 * Descriptor 1 belongs to the whole process, and so does the C `stdout` stream over it. Both calls hold that
 * stream's lock while they move the descriptor, as EffectKit does when it absorbs Chipmunk's banner (CChipmunk),
 * so the two never interleave (one saving the descriptor the other is about to restore), and stdio output
 * written before a move is flushed to where it was going. Swift 6 cannot name `stdout` itself (a mutable C
 * global), hence C. */

#ifdef __cplusplus
extern "C" {
#endif

/* Points descriptor 1 at `descriptor` and returns a duplicate (close-on-exec) of what it pointed at before,
 * for rf_stdout_restore; -1 when it could not, descriptor 1 then unchanged. */
int rf_stdout_redirect(int descriptor);

/* Flushes `stdout`, points descriptor 1 back at `saved` (from rf_stdout_redirect) and closes `saved`. */
void rf_stdout_restore(int saved);

#ifdef __cplusplus
}
#endif

#endif
