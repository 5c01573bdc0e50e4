#include "signal_safe_line.h"

void rf_line_append(rf_line *out, const char *text) {
    while (text != NULL && *text != '\0' && out->length + 1 < out->capacity) out->text[out->length++] = *text++;
}

void rf_line_append_until(rf_line *out, const char *text, char stop) {
    while (text != NULL && *text != '\0' && *text != stop && out->length + 1 < out->capacity)
        out->text[out->length++] = *text++;
}

void rf_line_append_long(rf_line *out, long value) {
    char digits[24];
    int at = (int)sizeof digits - 1;
    unsigned long magnitude = value < 0 ? 0ul - (unsigned long)value : (unsigned long)value;
    digits[at] = '\0';
    do {
        digits[--at] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0 && at > 1);
    if (value < 0) digits[--at] = '-';
    rf_line_append(out, digits + at);
}

const char *rf_line_terminated(rf_line *out) {
    if (out->capacity == 0) return "";
    out->text[out->length < out->capacity ? out->length : out->capacity - 1] = '\0';
    return out->text;
}
