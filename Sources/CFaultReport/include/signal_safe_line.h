#ifndef RENDERFARM_SIGNAL_SAFE_LINE_H
#define RENDERFARM_SIGNAL_SAFE_LINE_H

#include <stddef.h>

/* A line of text assembled inside a signal handler, to be written with one write(2) so that
 * reports of several processes sharing a terminal do not interleave. No allocation, no locale,
 * no stdio: every function here is async-signal-safe. Text that does not fit is cut; one byte
 * is always left free, so the caller may end the text with a NUL.
 *
 * Used by the crash report (fault_report.c) and the worker sandbox's SIGSYS handler (CSandbox). */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rf_line {
    char *text;      /* the caller's buffer */
    size_t capacity; /* its size in bytes */
    size_t length;   /* bytes used */
} rf_line;

/* Appends `text` (NULL appends nothing). */
void rf_line_append(rf_line *out, const char *text);

/* Appends `text` up to its end or its first `stop` character, whichever comes first. */
void rf_line_append_until(rf_line *out, const char *text, char stop);

/* Appends `value` in decimal. */
void rf_line_append_long(rf_line *out, long value);

/* Ends the text with a NUL (after the last byte that fit) and returns it. */
const char *rf_line_terminated(rf_line *out);

#ifdef __cplusplus
}
#endif

#endif
