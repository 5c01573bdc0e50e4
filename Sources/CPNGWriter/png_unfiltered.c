/*
 * The RF_PNG_FILTER_NONE encode path of every level but 1 (which png_fast.c writes): every row is
 * converted into one buffer (filter byte 0 first), compressed in a single call by libdeflate or zlib
 * straight into the output buffer, and framed by the PNG chunks written here: signature, IHDR, sRGB,
 * one IDAT, IEND.
 */
#include "png_internal.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A frame with at least this share of flat pixels goes to zlib (see png_writer.h). */
#define RF_FLAT_SHARE_FOR_ZLIB 4 /* 1 / 4 */

/* Converts every row into enc->scanlines and returns how many pixels of every fourth row are
 * flat: every byte of the pixel as written is the same value (transparent black, opaque grey),
 * the case that libdeflate's fastest level handles slowly. */
static size_t convert_rows(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height,
                           size_t stride, int opaque, size_t row_bytes) {
    size_t flat = 0;
    for (uint32_t y = 0; y < height; y++) {
        const uint32_t *src = (const uint32_t *)(pixels + (size_t)y * stride);
        uint8_t *dst = enc->scanlines + (size_t)y * (row_bytes + 1);
        dst[0] = 0; /* filter type None */
        rf_convert_row(src, dst + 1, width, opaque);
        if (y % 4 != 0) continue;
        for (uint32_t x = 0; x < width; x++) {
            uint32_t p = src[x];
            flat += opaque ? (p & 0xFFFFFFu) == (p & 0xFFu) * 0x010101u : p == (p & 0xFFu) * 0x01010101u;
        }
    }
    return flat;
}

static size_t compress_libdeflate(rf_png_encoder *enc, int level, const uint8_t *in, size_t length,
                                  uint8_t *out, size_t capacity) {
    if (!enc->deflater || enc->deflater_level != level) {
        if (enc->deflater) libdeflate_free_compressor(enc->deflater);
        enc->deflater = libdeflate_alloc_compressor(level);
        enc->deflater_level = level;
        if (!enc->deflater) return 0;
    }
    return libdeflate_zlib_compress(enc->deflater, in, length, out, capacity);
}

static size_t compress_zlib(rf_png_encoder *enc, int level, const uint8_t *in, size_t length, uint8_t *out,
                            size_t capacity) {
    z_stream *z = enc->zstream;
    if (z && enc->zstream_level != level) {
        deflateEnd(z);
        free(z);
        z = enc->zstream = NULL;
    }
    if (!z) {
        z = calloc(1, sizeof(*z));
        if (!z) return 0;
        if (deflateInit2(z, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            free(z);
            return 0;
        }
        enc->zstream = z;
        enc->zstream_level = level;
    } else if (deflateReset(z) != Z_OK) {
        return 0;
    }
    size_t produced = 0;
    z->next_in = (Bytef *)in; /* zlib's API is not const-correct; it only reads the input */
    z->next_out = out;
    /* Feed at most 1 GiB per call: zlib counts in 32-bit uInt. */
    size_t in_left = length, out_left = capacity;
    int status = Z_OK;
    while (status == Z_OK) {
        uInt in_step = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
        uInt out_step = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
        z->avail_in = in_step;
        z->avail_out = out_step;
        status = deflate(z, in_step == in_left ? Z_FINISH : Z_NO_FLUSH);
        in_left -= in_step - z->avail_in;
        out_left -= out_step - z->avail_out;
        produced += out_step - z->avail_out;
        if (status == Z_BUF_ERROR || (status == Z_OK && out_left == 0)) return 0;
    }
    return status == Z_STREAM_END ? produced : 0;
}

int rf_png_encode_unfiltered(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height,
                             size_t stride, int opaque, int compression, rf_png_timing *timing, char *err,
                             size_t errlen) {
    size_t row_bytes = (size_t)width * (opaque ? 3 : 4);
    size_t raw_length = (row_bytes + 1) * height;
    if (rf_png_grow(&enc->scanlines, &enc->scanlines_capacity, raw_length) != 0) {
        if (err && errlen) snprintf(err, errlen, "out of memory for %zu bytes of PNG rows", raw_length);
        return -1;
    }
    uint64_t start = rf_now_ns();
    size_t flat = convert_rows(enc, pixels, width, height, stride, opaque, row_bytes);
    uint64_t converted = rf_now_ns();

    int use_libdeflate = compression == 0
        || (compression == 2 && flat * RF_FLAT_SHARE_FOR_ZLIB < (size_t)width * ((height + 3) / 4));
    size_t bound = use_libdeflate ? libdeflate_zlib_compress_bound(NULL, raw_length)
                                  : (size_t)compressBound((uLong)raw_length) + 64;
    size_t idat = RF_PNG_HEAD_BYTES; /* offset of the IDAT chunk */
    if (bound > 0x7FFFFFFFu || rf_png_reserve(enc, idat + 12 + bound + 12) != 0) {
        if (err && errlen) snprintf(err, errlen, "out of memory for a %zu-byte PNG", idat + bound + 24);
        return -1;
    }
    uint8_t *out = enc->data;
    size_t length = rf_png_write_head(out, width, height, opaque);
    uint8_t *stream = out + length + 8;
    size_t compressed = use_libdeflate
        ? compress_libdeflate(enc, compression, enc->scanlines, raw_length, stream, bound)
        : compress_zlib(enc, compression, enc->scanlines, raw_length, stream, bound);
    if (compressed == 0) {
        const char *library = use_libdeflate ? "libdeflate" : "zlib";
        if (err && errlen) snprintf(err, errlen, "%s could not compress the image", library);
        return -1;
    }
    length += rf_png_finish_chunk(out + length, "IDAT", (uint32_t)compressed);
    length += rf_png_finish_chunk(out + length, "IEND", 0);
    enc->length = length;
    enc->compressor = use_libdeflate ? RF_PNG_COMPRESSOR_LIBDEFLATE : RF_PNG_COMPRESSOR_ZLIB;
    if (timing) {
        timing->convert_ns = converted - start;
        timing->encode_ns = rf_now_ns() - converted;
    }
    return 0;
}

void rf_png_unfiltered_free(rf_png_encoder *enc) {
    free(enc->scanlines);
    if (enc->deflater) libdeflate_free_compressor(enc->deflater);
    if (enc->zstream) {
        deflateEnd(enc->zstream);
        free(enc->zstream);
    }
}

const char *rf_zlib_library_version(void) { return zlibVersion(); }

const char *rf_libdeflate_library_version(void) { return LIBDEFLATE_VERSION_STRING; }
