/*
 * `renderfarm-bench-floor encoders FRAME.png…`: the PNG encoders alone, on frames RenderFarm rendered.
 * Each frame is read into a cairo ARGB32 surface (what a worker holds after drawing), then encoded
 * ROUNDS times by each encoder, interleaved, on one thread:
 *
 *   renderfarm   RenderFarm's level 1 (CPNGWriter, the default): its own filters, Huffman and zero runs
 *   libpng       the C floor's writer (floor_libpng_write) at level 1 without row filters, into memory
 *   libdeflate   the rows converted as the encoder does, then libdeflate's level 1 in one call
 *
 * Prints one line per encoder: megapixels per second (the median round) and bytes per frame.
 */
#include "floor_encoders.h"
#include "floor_plan.h" /* floor_convert_row */

#include <cairo.h>
#include <libdeflate.h>
#include <png.h>
#include <png_writer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDS = 7, ENCODERS = 3 };

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct memory_png {
    uint8_t *data;
    size_t length, capacity;
} memory_png;

static void append(png_structp png, png_bytep bytes, png_size_t count) {
    memory_png *out = png_get_io_ptr(png);
    if (out->length + count > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 1 << 16;
        while (capacity < out->length + count) capacity *= 2;
        uint8_t *grown = realloc(out->data, capacity);
        if (!grown) png_error(png, "out of memory");
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->length, bytes, count);
    out->length += count;
}

static void no_flush(png_structp png) { (void)png; }

/* The floor's writer (floor_libpng_write) at level 1 without filters, into memory. Bytes written, 0 on failure. */
static size_t encode_libpng(const uint8_t *pixels, int width, int height, int stride, int opaque, uint8_t *row,
                            memory_png *out) {
    out->length = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return 0;
    }
    png_set_write_fn(png, out, append, no_flush);
    floor_libpng_write(png, info, pixels, (uint32_t)width, (uint32_t)height, (size_t)stride, opaque, 1, 0, row);
    png_destroy_write_struct(&png, &info);
    return out->length;
}

/* The rows as the encoders convert them, then libdeflate's level 1 (the stream alone: no chunks). */
static size_t encode_libdeflate(const uint8_t *pixels, int width, int height, int stride, int opaque,
                                struct libdeflate_compressor *compressor, uint8_t *rows, uint8_t *out,
                                size_t capacity) {
    size_t row_bytes = (size_t)width * (opaque ? 3 : 4);
    for (int y = 0; y < height; y++) {
        uint8_t *line = rows + (size_t)y * (row_bytes + 1);
        line[0] = 0;
        floor_convert_row((const uint32_t *)(pixels + (size_t)y * (size_t)stride), line + 1, (uint32_t)width, opaque);
    }
    return libdeflate_zlib_compress(compressor, rows, (row_bytes + 1) * (size_t)height, out, capacity);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int floor_encoders(int count, char **paths) {
    static const char *names[ENCODERS] = { "renderfarm", "libpng", "libdeflate" };
    double seconds[ENCODERS][ROUNDS] = { { 0 } };
    double bytes[ENCODERS] = { 0 }, megapixels = 0;
    rf_png_encoder encoder = { 0 };
    memory_png png = { 0 };
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(1);
    int status = compressor ? 0 : 71;
    for (int f = 0; f < count && status == 0; f++) {
        cairo_surface_t *surface = cairo_image_surface_create_from_png(paths[f]);
        if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
            fprintf(stderr, "renderfarm-bench-floor: cannot read %s\n", paths[f]);
            cairo_surface_destroy(surface);
            status = 66;
            break;
        }
        cairo_surface_flush(surface);
        const uint8_t *pixels = cairo_image_surface_get_data(surface);
        int width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface);
        int stride = cairo_image_surface_get_stride(surface);
        int opaque = rf_argb32_is_opaque(pixels, (uint32_t)width, (uint32_t)height, (size_t)stride);
        size_t raw = ((size_t)width * 4 + 1) * (size_t)height, bound = libdeflate_zlib_compress_bound(compressor, raw);
        uint8_t *row = malloc((size_t)width * 4), *rows = malloc(raw), *out = malloc(bound);
        char message[256];
        for (int round = 0; round < ROUNDS && row && rows && out; round++) {
            for (int e = 0; e < ENCODERS; e++) {
                double start = now_seconds();
                size_t written = 0;
                if (e == 0) {
                    written = rf_png_encode_argb32(&encoder, pixels, (uint32_t)width, (uint32_t)height, (size_t)stride,
                                                   1, RF_PNG_FILTER_NONE, NULL, message, sizeof(message)) == 0
                        ? encoder.length
                        : 0;
                } else if (e == 1) {
                    written = encode_libpng(pixels, width, height, stride, opaque, row, &png);
                } else {
                    written = encode_libdeflate(pixels, width, height, stride, opaque, compressor, rows, out, bound);
                }
                seconds[e][round] += now_seconds() - start;
                if (written == 0) status = 70;
                if (round == 0) bytes[e] += (double)written;
            }
        }
        if (!row || !rows || !out) status = 71;
        megapixels += (double)width * height / 1e6;
        free(row);
        free(rows);
        free(out);
        cairo_surface_destroy(surface);
    }
    for (int e = 0; e < ENCODERS && status == 0; e++) {
        qsort(seconds[e], ROUNDS, sizeof(double), by_value);
        printf("%s %.1f %.0f\n", names[e], megapixels / seconds[e][ROUNDS / 2], bytes[e] / count);
    }
    rf_png_encoder_free(&encoder);
    free(png.data);
    if (compressor) libdeflate_free_compressor(compressor);
    return status;
}
