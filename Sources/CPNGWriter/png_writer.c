#include "png_internal.h"

#include <libdeflate.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The unpremultiply lookup table (RenderFarm article Performance, "How a frame is made fast"). */
uint8_t rf_unpremultiply[256][256];
static pthread_once_t unpremultiply_once = PTHREAD_ONCE_INIT;

static void build_unpremultiply(void) {
    for (int a = 0; a < 256; a++) {
        for (int c = 0; c < 256; c++) {
            if (a == 0) {
                rf_unpremultiply[a][c] = 0;
            } else {
                int v = (c * 255 + a / 2) / a;
                rf_unpremultiply[a][c] = (uint8_t)(v > 255 ? 255 : v);
            }
        }
    }
}

void rf_png_prepare_tables(void) { pthread_once(&unpremultiply_once, build_unpremultiply); }

uint64_t rf_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int rf_argb32_is_opaque(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride) {
    for (uint32_t y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(pixels + (size_t)y * stride);
        /* An AND over the row without an early exit: the compiler vectorises it. */
        uint32_t all = 0xFFFFFFFFu;
        for (uint32_t x = 0; x < width; x++) all &= row[x];
        if ((all >> 24) != 0xFF) return 0;
    }
    return 1;
}

typedef struct write_state {
    rf_png_encoder *enc;
    int failed;
} write_state;

int rf_png_grow(uint8_t **data, size_t *capacity, size_t needed) {
    if (needed <= *capacity) return 0;
    size_t grown_capacity = *capacity ? *capacity : 1u << 16;
    while (grown_capacity < needed) grown_capacity *= 2;
    uint8_t *grown = realloc(*data, grown_capacity);
    if (!grown) return -1;
    *data = grown;
    *capacity = grown_capacity;
    return 0;
}

void rf_png_put_u32(uint8_t *out, uint32_t value) {
    out[0] = (uint8_t)(value >> 24);
    out[1] = (uint8_t)(value >> 16);
    out[2] = (uint8_t)(value >> 8);
    out[3] = (uint8_t)value;
}

size_t rf_png_finish_chunk(uint8_t *out, const char type[4], uint32_t length) {
    rf_png_put_u32(out, length);
    memcpy(out + 4, type, 4);
    rf_png_put_u32(out + 8 + length, libdeflate_crc32(0, out + 4, (size_t)length + 4));
    return (size_t)length + 12;
}

size_t rf_png_write_head(uint8_t *out, uint32_t width, uint32_t height, int opaque) {
    static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
    memcpy(out, signature, sizeof(signature));
    uint8_t *ihdr = out + sizeof(signature);
    rf_png_put_u32(ihdr + 8, width);
    rf_png_put_u32(ihdr + 12, height);
    ihdr[16] = 8;                       /* bit depth */
    ihdr[17] = opaque ? 2 : 6;          /* colour type: truecolour, or truecolour with alpha */
    ihdr[18] = ihdr[19] = ihdr[20] = 0; /* deflate, adaptive filtering method, no interlace */
    size_t length = sizeof(signature) + rf_png_finish_chunk(ihdr, "IHDR", 13);
    out[length + 8] = 0; /* sRGB rendering intent: perceptual, as libpng writes it */
    return length + rf_png_finish_chunk(out + length, "sRGB", 1);
}

int rf_png_reserve(rf_png_encoder *enc, size_t needed) { return rf_png_grow(&enc->data, &enc->capacity, needed); }

static void write_bytes(png_structp png, png_bytep bytes, png_size_t count) {
    write_state *state = (write_state *)png_get_io_ptr(png);
    rf_png_encoder *enc = state->enc;
    if (rf_png_reserve(enc, enc->length + count) != 0) {
        state->failed = 1;
        png_error(png, "out of memory growing the PNG buffer");
    }
    memcpy(enc->data + enc->length, bytes, count);
    enc->length += count;
}

static void flush_bytes(png_structp png) { (void)png; }

typedef struct error_state {
    char *message;
    size_t length;
} error_state;

static void on_error(png_structp png, png_const_charp message) {
    error_state *state = (error_state *)png_get_error_ptr(png);
    if (state && state->message && state->length) snprintf(state->message, state->length, "libpng: %s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

void rf_convert_row(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque) {
    if (opaque) {
        for (uint32_t x = 0; x < width; x++) {
            uint32_t p = src[x];
            dst[0] = (uint8_t)(p >> 16);
            dst[1] = (uint8_t)(p >> 8);
            dst[2] = (uint8_t)p;
            dst += 3;
        }
        return;
    }
    for (uint32_t x = 0; x < width; x++) rf_convert_pixel(src[x], dst + 4 * (size_t)x);
}

static int filter_bits(rf_png_filter filter) {
    switch (filter) {
    case RF_PNG_FILTER_NONE: return PNG_FILTER_NONE;
    case RF_PNG_FILTER_SUB: return PNG_FILTER_SUB;
    case RF_PNG_FILTER_UP: return PNG_FILTER_UP;
    case RF_PNG_FILTER_PAETH: return PNG_FILTER_PAETH;
    case RF_PNG_FILTER_ADAPTIVE: return PNG_ALL_FILTERS;
    }
    return PNG_FILTER_NONE;
}

/* Creates libpng's write structs, with errors reported into `errors` and output appended through
 * `output`; -1 (with the message in errors) when libpng cannot. Later libpng errors longjmp to the
 * caller's setjmp on png_jmpbuf(*png). */
static int start_libpng(png_structp *png, png_infop *info, error_state *errors, write_state *output) {
    *png = png_create_write_struct(PNG_LIBPNG_VER_STRING, errors, on_error, on_warning);
    if (!*png) {
        if (errors->message && errors->length)
            snprintf(errors->message, errors->length, "libpng: cannot create a write struct");
        return -1;
    }
    *info = png_create_info_struct(*png);
    if (!*info) {
        png_destroy_write_struct(png, NULL);
        if (errors->message && errors->length)
            snprintf(errors->message, errors->length, "libpng: cannot create an info struct");
        return -1;
    }
    png_set_write_fn(*png, output, write_bytes, flush_bytes);
    return 0;
}

/* Writes the header, every row (converted into enc->row) and the end; adds the time spent converting
 * and encoding to `convert_ns` and `encode_ns`. May longjmp on a libpng error. */
static void write_libpng(png_structp png, png_infop info, rf_png_encoder *enc, const uint8_t *pixels,
                         uint32_t width, uint32_t height, size_t stride, int compression, rf_png_filter filter,
                         uint64_t *convert_ns, uint64_t *encode_ns) {
    int opaque = enc->opaque;
    png_set_compression_level(png, compression);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filter_bits(filter));
    png_set_IHDR(png, info, width, height, 8, opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) {
        uint64_t t0 = rf_now_ns();
        rf_convert_row((const uint32_t *)(pixels + (size_t)y * stride), enc->row, width, opaque);
        uint64_t t1 = rf_now_ns();
        png_write_row(png, enc->row);
        uint64_t t2 = rf_now_ns();
        *convert_ns += t1 - t0;
        *encode_ns += t2 - t1;
    }
    uint64_t t3 = rf_now_ns();
    png_write_end(png, info);
    *encode_ns += rf_now_ns() - t3;
}

/* The filtered path: libpng with `filter`, one converted row at a time. */
static int encode_libpng(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height,
                         size_t stride, int compression, rf_png_filter filter, uint64_t convert_ns,
                         rf_png_timing *timing, char *err, size_t errlen) {
    enc->compressor = RF_PNG_COMPRESSOR_LIBPNG;
    size_t row_bytes = (size_t)width * (enc->opaque ? 3 : 4);
    if (rf_png_grow(&enc->row, &enc->row_capacity, row_bytes) != 0) {
        if (err && errlen) snprintf(err, errlen, "out of memory for a %zu-byte PNG row", row_bytes);
        return -1;
    }
    enc->length = 0;

    error_state errors = { err, errlen };
    write_state output = { enc, 0 };
    png_structp png;
    png_infop info;
    if (start_libpng(&png, &info, &errors, &output) != 0) return -1;
    uint64_t encode_ns = 0;
    /* Everything libpng touches after this point may longjmp back here. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    write_libpng(png, info, enc, pixels, width, height, stride, compression, filter, &convert_ns, &encode_ns);
    png_destroy_write_struct(&png, &info);
    if (timing) {
        timing->convert_ns = convert_ns;
        timing->encode_ns = encode_ns;
    }
    return 0;
}

int rf_png_encode_argb32(rf_png_encoder *enc, const uint8_t *pixels, uint32_t width,
                         uint32_t height, size_t stride, int compression, rf_png_filter filter,
                         rf_png_timing *timing, char *err, size_t errlen) {
    if (err && errlen) err[0] = '\0';
    if (!enc || !pixels || width == 0 || height == 0 || compression < 0 || compression > 9) {
        if (err && errlen) snprintf(err, errlen, "invalid arguments to the PNG encoder");
        return -1;
    }
    rf_png_prepare_tables();

    /* The fast path finds out whether the frame is opaque as it goes. */
    if (filter == RF_PNG_FILTER_NONE && compression == 1)
        return rf_png_encode_fast(enc, pixels, width, height, stride, timing, err, errlen);
    uint64_t start = rf_now_ns();
    int opaque = rf_argb32_is_opaque(pixels, width, height, stride);
    enc->opaque = opaque;
    uint64_t convert_ns = rf_now_ns() - start;
    if (filter != RF_PNG_FILTER_NONE)
        return encode_libpng(enc, pixels, width, height, stride, compression, filter, convert_ns, timing, err,
                             errlen);
    int status =
        rf_png_encode_unfiltered(enc, pixels, width, height, stride, opaque, compression, timing, err, errlen);
    if (timing) timing->convert_ns += convert_ns;
    return status;
}

void rf_argb32_to_rgba(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                       uint8_t *dst) {
    rf_png_prepare_tables();
    for (uint32_t y = 0; y < height; y++) {
        rf_convert_row((const uint32_t *)(pixels + (size_t)y * stride), dst + (size_t)y * width * 4, width, 0);
    }
}

void rf_png_encoder_free(rf_png_encoder *enc) {
    if (!enc) return;
    free(enc->data);
    free(enc->row);
    rf_png_unfiltered_free(enc);
    memset(enc, 0, sizeof(*enc));
}

const char *rf_png_library_version(void) { return png_get_libpng_ver(NULL); }
