/*
 * A tiny libpng shim. libpng reports errors with longjmp, which Swift cannot survive, so the
 * whole encode runs here and returns a status code and a message instead.
 *
 * Input is cairo's CAIRO_FORMAT_ARGB32: native-endian 32-bit words A<<24 | R<<16 | G<<8 | B,
 * premultiplied. Output is a complete PNG file in memory: straight-alpha RGBA, or RGB when every
 * pixel is opaque (smaller and faster to encode).
 *
 * Three paths, chosen by the level and the row filter (RenderFarm article Performance has the figures):
 * - level 1 with RF_PNG_FILTER_NONE, the default: RenderFarm's own encoder (png_fast.c, png_rows.c). Each
 *   row gets the one of the Sub, Up and Paeth filters that leaves the smallest residuals, and the residuals
 *   are coded in one deflate block with Huffman tables fitted to the frame, runs of zeros as matches. It is
 *   vectorised with SSE4.1 or AVX2 when the CPU has them (rf_png_vector_level), with the same bytes.
 * - other levels with RF_PNG_FILTER_NONE: the rows are converted into one buffer and compressed in one
 *   call, by libdeflate at level 0 and 2, or by zlib otherwise, and the PNG chunks are written here.
 *   libdeflate 1.14's fast levels are slow on long runs of one byte value (transparent or grey areas), so a
 *   frame in which at least a quarter of the pixels are such "flat" pixels goes to zlib instead. The
 *   choice depends only on the pixels, so output stays deterministic.
 * - any other filter: libpng, which picks row filters (adaptive: per row among all five).
 */
#ifndef RF_PNG_WRITER_H
#define RF_PNG_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Row filters, as libpng's PNG_FILTER_* bit sets (re-exported: Swift cannot import them). */
typedef enum rf_png_filter {
    RF_PNG_FILTER_NONE = 0,     /* fastest; RenderFarm article Performance */
    RF_PNG_FILTER_SUB = 1,
    RF_PNG_FILTER_UP = 2,
    RF_PNG_FILTER_PAETH = 3,
    RF_PNG_FILTER_ADAPTIVE = 4, /* libpng picks per row among all five: smallest, slowest */
} rf_png_filter;

/* Which library compressed the IDAT stream of the last image. */
typedef enum rf_png_compressor {
    RF_PNG_COMPRESSOR_LIBPNG = 0,     /* libpng (zlib underneath), with row filters */
    RF_PNG_COMPRESSOR_ZLIB = 1,       /* zlib in one call, no row filters */
    RF_PNG_COMPRESSOR_LIBDEFLATE = 2, /* libdeflate in one call, no row filters */
    RF_PNG_COMPRESSOR_RENDERFARM = 3, /* RenderFarm's own: Sub/Up/Paeth rows, Huffman and zero runs */
} rf_png_compressor;

/* An encoder's reusable memory: the PNG bytes of the last frame and a row buffer. Zero it
 * before first use; keep one per worker thread; free with rf_png_encoder_free(). */
typedef struct rf_png_encoder {
    uint8_t *data;     /* the encoded PNG file */
    size_t length;
    size_t capacity;
    uint8_t *row;      /* one converted row */
    size_t row_capacity;
    int opaque;        /* 1 when the last image had no transparency and was written as RGB */
    rf_png_compressor compressor; /* which compressor wrote the last image's IDAT stream */
    uint8_t *scanlines; /* every converted row, each after its filter byte (RF_PNG_FILTER_NONE) */
    size_t scanlines_capacity;
    void *deflater;     /* struct libdeflate_compressor *, kept for deflater_level */
    int deflater_level;
    void *zstream;      /* z_stream *, kept for zstream_level */
    int zstream_level;
} rf_png_encoder;

/* Where an encode spent its time, in nanoseconds (pixel conversion vs compression). */
typedef struct rf_png_timing {
    uint64_t convert_ns;
    uint64_t encode_ns;
} rf_png_timing;

/* Returns 1 when every pixel has alpha 255. */
int rf_argb32_is_opaque(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride);

/* Encodes the image into enc->data / enc->length. compression: zlib level 0–9.
 * Returns 0 on success; otherwise writes a one-line message to err and returns -1.
 * timing may be NULL. Thread-safe for distinct encoders. */
int rf_png_encode_argb32(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width,
                         uint32_t height, size_t stride, int compression, rf_png_filter filter,
                         rf_png_timing *timing, char *err, size_t errlen);

void rf_png_encoder_free(rf_png_encoder *enc);

/* Converts the image to straight-alpha RGBA bytes (width * 4 per row, no padding) with the same
 * unpremultiply table the PNG encoder uses, so raw frames equal the decoded PNGs exactly.
 * dst must hold width * height * 4 bytes. Thread-safe. */
void rf_argb32_to_rgba(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                       uint8_t *dst);

/* The vector instructions the default encoder (level 1 without filters) uses, picked from the CPU's. Every
 * level writes the same bytes; tests set a lower one to check that. */
typedef enum rf_png_vector {
    RF_PNG_VECTOR_NONE = 0,  /* portable C */
    RF_PNG_VECTOR_SSE41 = 1, /* x86-64 with SSE4.1 */
    RF_PNG_VECTOR_AVX2 = 2,  /* x86-64 with AVX2 */
    RF_PNG_VECTOR_AVX512 = 3, /* x86-64 with AVX-512BW: the filter's costs and Paeth in 64-byte vectors */
} rf_png_vector;

/* The level in use. */
int rf_png_vector_level(void);

/* Uses `level` from now on (at most what the CPU has; -1: the best it has); returns the level in use. */
int rf_png_set_vector_level(int level);

/* For tests of the vector levels: the sums of |residual| that choose a row's filter (Sub, Up, Paeth, bytes
 * `bpp`… of the row `cur` under `prev`) added to costs[], and the row's Paeth residuals in residuals[0…length),
 * at the level in use. */
void rf_png_filter_probe(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint32_t costs[3],
                         uint8_t *residuals);

/* The libpng version in use, e.g. "1.6.39". */
const char *rf_png_library_version(void);

/* The zlib and libdeflate versions in use, e.g. "1.2.13" and "1.14". */
const char *rf_zlib_library_version(void);
const char *rf_libdeflate_library_version(void);

#ifdef __cplusplus
}
#endif

#endif
