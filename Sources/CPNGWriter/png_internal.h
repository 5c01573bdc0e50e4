/* Helpers shared by the two encode paths of png_writer.c and png_unfiltered.c (not public). */
#ifndef RF_PNG_INTERNAL_H
#define RF_PNG_INTERNAL_H

#include "png_writer.h"

/* rf_unpremultiply[a][c] = round(c * 255 / a): 64 KiB, built once by rf_png_prepare_tables(). */
extern uint8_t rf_unpremultiply[256][256];

void rf_png_prepare_tables(void);

/* One premultiplied ARGB32 pixel as straight R, G, B, A bytes. */
static inline void rf_convert_pixel(uint32_t p, uint8_t *dst) {
    uint8_t a = (uint8_t)(p >> 24);
    const uint8_t *lut = rf_unpremultiply[a];
    dst[0] = lut[(p >> 16) & 0xFF];
    dst[1] = lut[(p >> 8) & 0xFF];
    dst[2] = lut[p & 0xFF];
    dst[3] = a;
}

uint64_t rf_now_ns(void);

/* Converts one row of premultiplied ARGB32 to straight RGBA, or to RGB when `opaque`. */
void rf_convert_row(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque);

/* Grows the buffer *data of *capacity bytes to at least `needed` bytes (doubling, from 64 KiB), keeping its
 * contents: the one place the encoder's buffers grow. 0 on success, -1 when out of memory. */
int rf_png_grow(uint8_t **data, size_t *capacity, size_t needed);

/* The PNG's first chunks (signature, IHDR, sRGB) at out: RF_PNG_HEAD_BYTES bytes, where IDAT starts. */
enum { RF_PNG_HEAD_BYTES = 8 + 25 + 13 };
size_t rf_png_write_head(uint8_t *out, uint32_t width, uint32_t height, int opaque);

/* Writes the length, type and CRC of a chunk whose `length` data bytes are already at out + 8; returns the
 * chunk's size. */
size_t rf_png_finish_chunk(uint8_t *out, const char type[4], uint32_t length);

/* `value` as four big-endian bytes. */
void rf_png_put_u32(uint8_t *out, uint32_t value);

/* Grows enc->data to at least `capacity` bytes; 0 on success, -1 when out of memory. */
int rf_png_reserve(rf_png_encoder *enc, size_t capacity);

/* The RF_PNG_FILTER_NONE path: one buffer of rows, one compressor call, chunks written here.
 * Same contract as rf_png_encode_argb32, after its argument checks and opacity test. */
int rf_png_encode_unfiltered(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height,
                             size_t stride, int opaque, int compression, rf_png_timing *timing, char *err,
                             size_t errlen);

void rf_png_unfiltered_free(rf_png_encoder *enc);

/* The fast path's row work (png_rows.c), vectorised as rf_png_vector_level() says. */
/* Like rf_convert_row; dst must have 16 bytes of room past the row. With `opaque`, returns 0 when a pixel of the
 * row is not (its bytes are then to be thrown away), else 1. */
int rf_fast_convert_row(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque);
/* Writes the row `cur` (the previous row `prev`, NULL for the first) to out[0] (the filter type) and out[1…]
 * (the residuals), with whichever of Sub, Up and Paeth leaves the smallest sum of |residual| (Sub first). */
void rf_fast_filter_row(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out);

/* The fast path (level 1 without libpng's filters, png_fast.c): rows filtered here, one deflate block
 * of Huffman-coded residuals and zero runs. Same contract as rf_png_encode_argb32, after its argument checks;
 * it tests the frame's opacity itself, row by row, and sets enc->opaque. */
int rf_png_encode_fast(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                       rf_png_timing *timing, char *err, size_t errlen);

#endif
