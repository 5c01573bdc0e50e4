#include "video_frame.h"

#include <stdlib.h>
#include <string.h>

/* Fixed-point coefficients (16 fractional bits) of one matrix, already scaled to limited range. */
typedef struct coefficients {
    int32_t yr, yg, yb;
    int32_t ur, ug, ub;
    int32_t vr, vg, vb;
} coefficients;

static int32_t fixed(double value) { return (int32_t)(value * 65536.0 + (value < 0 ? -0.5 : 0.5)); }

static coefficients coefficients_of(rf_yuv_matrix matrix) {
    const double kr = matrix == RF_YUV_BT709 ? 0.2126 : 0.299;
    const double kb = matrix == RF_YUV_BT709 ? 0.0722 : 0.114;
    const double kg = 1.0 - kr - kb;
    const double ys = 219.0 / 255.0, cs = 224.0 / 255.0;
    const double cb = 2.0 * (1.0 - kb), cr = 2.0 * (1.0 - kr);
    coefficients c = {
        fixed(kr * ys), fixed(kg * ys), fixed(kb * ys),
        fixed(-kr / cb * cs), fixed(-kg / cb * cs), fixed((1.0 - kb) / cb * cs),
        fixed((1.0 - kr) / cr * cs), fixed(-kg / cr * cs), fixed(-kb / cr * cs),
    };
    return c;
}

static inline uint8_t clamp_byte(int32_t value) { return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value); }

/* One pair of output rows from two source rows of `width` (even) pixels; offsets locate R, G, B, A. */
static inline __attribute__((always_inline)) void convert_rows(
    const uint8_t *row0, const uint8_t *row1, uint32_t width, const coefficients *c, int ro, int go, int bo,
    int ao, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, uint8_t *a0, uint8_t *a1) {
    const int32_t luma_offset = (16 << 16) + (1 << 15);
    for (uint32_t i = 0; i < width; i++) {
        const uint8_t *p = row0 + 4 * i, *q = row1 + 4 * i;
        y0[i] = clamp_byte((c->yr * p[ro] + c->yg * p[go] + c->yb * p[bo] + luma_offset) >> 16);
        y1[i] = clamp_byte((c->yr * q[ro] + c->yg * q[go] + c->yb * q[bo] + luma_offset) >> 16);
    }
    /* Four pixels summed: the offset and rounding are four times those of one pixel. */
    const int32_t chroma_offset = (512 << 16) + (1 << 17);
    for (uint32_t i = 0; i < width / 2; i++) {
        const uint8_t *p = row0 + 8 * i, *q = row1 + 8 * i;
        const int32_t r = p[ro] + p[ro + 4] + q[ro] + q[ro + 4];
        const int32_t g = p[go] + p[go + 4] + q[go] + q[go + 4];
        const int32_t b = p[bo] + p[bo + 4] + q[bo] + q[bo + 4];
        u[i] = clamp_byte((c->ur * r + c->ug * g + c->ub * b + chroma_offset) >> 18);
        v[i] = clamp_byte((c->vr * r + c->vg * g + c->vb * b + chroma_offset) >> 18);
    }
    if (a0) {
        for (uint32_t i = 0; i < width; i++) {
            a0[i] = row0[4 * i + ao];
            a1[i] = row1[4 * i + ao];
        }
    }
}

size_t rf_yuv420_frame_size(uint32_t width, uint32_t height, int alpha) {
    const size_t w = (width + 1) & ~1u, h = (height + 1) & ~1u;
    return w * h + 2 * (w / 2) * (h / 2) + (alpha ? w * h : 0);
}

/* Byte offsets of R, G, B and A in a 32-bit pixel of `order`. */
typedef struct offsets {
    int r, g, b, a;
} offsets;

static offsets offsets_of(rf_pixel_order order) {
    if (order == RF_PIXEL_RGBA) return (offsets){0, 1, 2, 3};
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (offsets){1, 2, 3, 0};
#else
    return (offsets){2, 1, 0, 3};
#endif
}

/* Rows `j` and `j + 1` of the padded frame: source rows, or copies with a padding pixel (odd
 * width), or the padding row (below an odd height). */
static void pair_of_rows(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, uint32_t j,
                         const uint8_t *padding_row, uint8_t *scratch, const uint8_t **row0,
                         const uint8_t **row1) {
    const uint8_t *rows[2];
    for (uint32_t k = 0; k < 2; k++) {
        if (j + k >= height) {
            rows[k] = padding_row;
        } else if (width % 2 == 0) {
            rows[k] = pixels + (size_t)(j + k) * stride;
        } else {
            uint8_t *copy = scratch + (size_t)k * 4 * (width + 1);
            memcpy(copy, pixels + (size_t)(j + k) * stride, 4 * (size_t)width);
            memcpy(copy + 4 * (size_t)width, padding_row, 4);
            rows[k] = copy;
        }
    }
    *row0 = rows[0];
    *row1 = rows[1];
}

int rf_yuv420_convert(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                      rf_pixel_order order, rf_yuv_matrix matrix, int alpha, uint8_t *dst) {
    const coefficients c = coefficients_of(matrix);
    const offsets o = offsets_of(order);
    const uint32_t w = (width + 1) & ~1u, h = (height + 1) & ~1u;
    uint8_t *y = dst, *u = y + (size_t)w * h, *v = u + (size_t)(w / 2) * (h / 2);
    uint8_t *a = alpha ? v + (size_t)(w / 2) * (h / 2) : NULL;
    /* Odd sizes: one row of padding pixels (black; opaque without an alpha plane, transparent with
     * one), and room for two rows copied with their padding pixel. */
    uint8_t *padding_row = NULL, *scratch = NULL;
    if (w != width || h != height) {
        padding_row = calloc(w, 4);
        scratch = malloc(2 * 4 * (size_t)w);
        if (!padding_row || !scratch) {
            free(padding_row);
            free(scratch);
            return -1;
        }
        if (!alpha) {
            for (uint32_t i = 0; i < w; i++) padding_row[4 * i + o.a] = 255;
        }
    }
    for (uint32_t j = 0; j < h; j += 2) {
        const uint8_t *row0, *row1;
        pair_of_rows(pixels, width, height, stride, j, padding_row, scratch, &row0, &row1);
        uint8_t *y0 = y + (size_t)j * w, *a0 = a ? a + (size_t)j * w : NULL;
        uint8_t *uj = u + (size_t)(j / 2) * (w / 2), *vj = v + (size_t)(j / 2) * (w / 2);
        /* Constant offsets per order, so that the compiler vectorises each loop. */
        if (o.r == 2)
            convert_rows(row0, row1, w, &c, 2, 1, 0, 3, y0, y0 + w, uj, vj, a0, a0 ? a0 + w : NULL);
        else if (o.r == 0)
            convert_rows(row0, row1, w, &c, 0, 1, 2, 3, y0, y0 + w, uj, vj, a0, a0 ? a0 + w : NULL);
        else
            convert_rows(row0, row1, w, &c, 1, 2, 3, 0, y0, y0 + w, uj, vj, a0, a0 ? a0 + w : NULL);
    }
    free(padding_row);
    free(scratch);
    return 0;
}
