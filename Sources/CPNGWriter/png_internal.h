/* Helpers shared by the two encode paths of png_writer.c and png_unfiltered.c (not public). */
#ifndef RF_PNG_INTERNAL_H
#define RF_PNG_INTERNAL_H

#include "png_writer.h"

/* rf_unpremultiply[a][c] = round(c * 255 / a): 64 KiB, built once by rf_png_prepare_tables(). */
extern uint8_t rf_unpremultiply[256][256];

void rf_png_prepare_tables(void);
uint64_t rf_now_ns(void);

/* Converts one row of premultiplied ARGB32 to straight RGBA, or to RGB when `opaque`. */
void rf_convert_row(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque);

/* Grows the buffer *data of *capacity bytes to at least `needed` bytes (doubling, from 64 KiB), keeping its
 * contents: the one place the encoder's buffers grow. 0 on success, -1 when out of memory. */
int rf_png_grow(uint8_t **data, size_t *capacity, size_t needed);

/* Grows enc->data to at least `capacity` bytes; 0 on success, -1 when out of memory. */
int rf_png_reserve(rf_png_encoder *enc, size_t capacity);

/* The RF_PNG_FILTER_NONE path: one buffer of rows, one compressor call, chunks written here.
 * Same contract as rf_png_encode_argb32, after its argument checks and opacity test. */
int rf_png_encode_unfiltered(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height,
                             size_t stride, int opaque, int compression, rf_png_timing *timing, char *err,
                             size_t errlen);

void rf_png_unfiltered_free(rf_png_encoder *enc);

#endif
