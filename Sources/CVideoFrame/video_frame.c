#include "video_frame.h"

#include <stdlib.h>
#include <string.h>

/* Fixed-point coefficients (14 fractional bits, small enough for 16-bit SIMD lanes), already scaled
 * to limited range. Luma: (yr*R + yg*G + yb*B) >> 14, plus 16. Chroma from the sums of the four
 * pixels of a 2x2 block: (ur*R4 + ug*G4 + ub*B4) >> 16, plus 128. The scalar and the AVX2 loops do
 * exactly this arithmetic, so they give the same bytes. */
typedef struct coefficients {
    int16_t yr, yg, yb;
    int16_t ur, ug, ub;
    int16_t vr, vg, vb;
} coefficients;

enum { LUMA_OFFSET = (16 << 14) + (1 << 13), CHROMA_OFFSET = (128 << 16) + (1 << 15) };

static int16_t fixed(double value) { return (int16_t)(value * 16384.0 + (value < 0 ? -0.5 : 0.5)); }

static coefficients coefficients_of(rf_yuv_matrix matrix) {
    const double kr = matrix == RF_YUV_BT709 ? 0.2126 : 0.299;
    const double kb = matrix == RF_YUV_BT709 ? 0.0722 : 0.114;
    const double ys = 219.0 / 255.0, cs = 224.0 / 255.0;
    const double cb = 2.0 * (1.0 - kb), cr = 2.0 * (1.0 - kr);
    /* Green takes the rounding, so that grey stays exact: the luma coefficients add up to the
     * scale of 219/255, the chroma ones to zero (neutral chroma). */
    coefficients c;
    c.yr = fixed(kr * ys);
    c.yb = fixed(kb * ys);
    c.yg = (int16_t)(fixed(ys) - c.yr - c.yb);
    c.ur = fixed(-kr / cb * cs);
    c.ub = fixed((1.0 - kb) / cb * cs);
    c.ug = (int16_t)(-c.ur - c.ub);
    c.vr = fixed((1.0 - kr) / cr * cs);
    c.vb = fixed(-kb / cr * cs);
    c.vg = (int16_t)(-c.vr - c.vb);
    return c;
}

static inline uint8_t clamp_byte(int32_t value) { return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value); }

/* Columns [from, width) of one pair of output rows from two source rows (`width` and `from` even);
 * ro, go, bo locate R, G and B in a pixel. */
static inline __attribute__((always_inline)) void convert_rows(const uint8_t *row0, const uint8_t *row1, uint32_t from, uint32_t width,
                         const coefficients *c, int ro, int go, int bo, uint8_t *y0, uint8_t *y1, uint8_t *u,
                         uint8_t *v) {
    for (uint32_t i = from; i < width; i++) {
        const uint8_t *p = row0 + 4 * i, *q = row1 + 4 * i;
        y0[i] = clamp_byte((c->yr * p[ro] + c->yg * p[go] + c->yb * p[bo] + LUMA_OFFSET) >> 14);
        y1[i] = clamp_byte((c->yr * q[ro] + c->yg * q[go] + c->yb * q[bo] + LUMA_OFFSET) >> 14);
    }
    for (uint32_t i = from / 2; i < width / 2; i++) {
        const uint8_t *p = row0 + 8 * i, *q = row1 + 8 * i;
        const int32_t r = p[ro] + p[ro + 4] + q[ro] + q[ro + 4];
        const int32_t g = p[go] + p[go + 4] + q[go] + q[go + 4];
        const int32_t b = p[bo] + p[bo + 4] + q[bo] + q[bo + 4];
        u[i] = clamp_byte((c->ur * r + c->ug * g + c->ub * b + CHROMA_OFFSET) >> 16);
        v[i] = clamp_byte((c->vr * r + c->vg * g + c->vb * b + CHROMA_OFFSET) >> 16);
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

/* Eight int32 sums `coefficient · pixel`, in pixel order, for the 8 pixels (4 bytes each) of
 * `pixels`: bytes widened to 16 bits, multiplied and added in pairs (madd), pairs added (hadd). */
__attribute__((target("avx2"))) static inline __m256i dot8(__m256i pixels, __m256i coefficient) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i low = _mm256_madd_epi16(_mm256_unpacklo_epi8(pixels, zero), coefficient);
    const __m256i high = _mm256_madd_epi16(_mm256_unpackhi_epi8(pixels, zero), coefficient);
    return _mm256_hadd_epi32(low, high);
}

/* 16 bytes, saturated to 0–255, from two vectors of eight int32 each in order. */
__attribute__((target("avx2"))) static inline __m128i pack16(__m256i first, __m256i second) {
    const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(first, second), 0xD8);
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi16(words, words), 0x08));
}

/* 16-bit coefficients [R, G, B, 0] laid out in the pixel's byte order, for every pixel. */
__attribute__((target("avx2"))) static inline __m256i pixel_coefficients(int16_t r, int16_t g, int16_t b, int ro,
                                                                          int go, int bo) {
    int16_t lane[4] = {0, 0, 0, 0};
    lane[ro] = r;
    lane[go] = g;
    lane[bo] = b;
    const int32_t low = (uint16_t)lane[0] | ((uint32_t)(uint16_t)lane[1] << 16);
    const int32_t high = (uint16_t)lane[2] | ((uint32_t)(uint16_t)lane[3] << 16);
    return _mm256_set1_epi64x((int64_t)(uint32_t)low | ((int64_t)high << 32));
}

/* Chroma of the eight 2x2 blocks of 16 columns (`low`/`high`: the two rows added as 16-bit pixels,
 * unpacked low and high halves of the first and second 8 columns), before the offset. */
__attribute__((target("avx2"))) static inline __m256i chroma8(__m256i a_low, __m256i a_high, __m256i b_low,
                                                               __m256i b_high, __m256i coefficient) {
    /* Per pixel, in order within each half; then pairs of pixels, which come out as blocks
     * 0, 1, 4, 5 | 2, 3, 6, 7 and are put back in order. */
    const __m256i a = _mm256_hadd_epi32(_mm256_madd_epi16(a_low, coefficient), _mm256_madd_epi16(a_high, coefficient));
    const __m256i b = _mm256_hadd_epi32(_mm256_madd_epi16(b_low, coefficient), _mm256_madd_epi16(b_high, coefficient));
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    const __m256i sums = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(a, b), order);
    return _mm256_srai_epi32(_mm256_add_epi32(sums, _mm256_set1_epi32(CHROMA_OFFSET)), 16);
}

/* Sixteen columns at a time, then the scalar loop for the rest. */
__attribute__((target("avx2"))) static void convert_rows_avx2(
    const uint8_t *row0, const uint8_t *row1, uint32_t width, const coefficients *c, int ro, int go, int bo,
    uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v) {
    const __m256i cy = pixel_coefficients(c->yr, c->yg, c->yb, ro, go, bo);
    const __m256i cu = pixel_coefficients(c->ur, c->ug, c->ub, ro, go, bo);
    const __m256i cv = pixel_coefficients(c->vr, c->vg, c->vb, ro, go, bo);
    const __m256i luma_offset = _mm256_set1_epi32(LUMA_OFFSET);
    const __m256i zero = _mm256_setzero_si256();
    uint32_t i = 0;
    for (; i + 16 <= width; i += 16) {
        const __m256i a0 = _mm256_loadu_si256((const __m256i *)(row0 + 4 * i));
        const __m256i b0 = _mm256_loadu_si256((const __m256i *)(row0 + 4 * i + 32));
        const __m256i a1 = _mm256_loadu_si256((const __m256i *)(row1 + 4 * i));
        const __m256i b1 = _mm256_loadu_si256((const __m256i *)(row1 + 4 * i + 32));
        _mm_storeu_si128((__m128i *)(y0 + i),
                         pack16(_mm256_srai_epi32(_mm256_add_epi32(dot8(a0, cy), luma_offset), 14),
                                _mm256_srai_epi32(_mm256_add_epi32(dot8(b0, cy), luma_offset), 14)));
        _mm_storeu_si128((__m128i *)(y1 + i),
                         pack16(_mm256_srai_epi32(_mm256_add_epi32(dot8(a1, cy), luma_offset), 14),
                                _mm256_srai_epi32(_mm256_add_epi32(dot8(b1, cy), luma_offset), 14)));
        const __m256i a_low = _mm256_add_epi16(_mm256_unpacklo_epi8(a0, zero), _mm256_unpacklo_epi8(a1, zero));
        const __m256i a_high = _mm256_add_epi16(_mm256_unpackhi_epi8(a0, zero), _mm256_unpackhi_epi8(a1, zero));
        const __m256i b_low = _mm256_add_epi16(_mm256_unpacklo_epi8(b0, zero), _mm256_unpacklo_epi8(b1, zero));
        const __m256i b_high = _mm256_add_epi16(_mm256_unpackhi_epi8(b0, zero), _mm256_unpackhi_epi8(b1, zero));
        const __m128i chroma = pack16(chroma8(a_low, a_high, b_low, b_high, cu),
                                      chroma8(a_low, a_high, b_low, b_high, cv));
        _mm_storel_epi64((__m128i *)(u + i / 2), chroma);
        _mm_storel_epi64((__m128i *)(v + i / 2), _mm_srli_si128(chroma, 8));
    }
    convert_rows(row0, row1, i, width, c, ro, go, bo, y0, y1, u, v);
}
#endif

/* The AVX2 loop where the processor has it (x86-64), else the scalar one: the same bytes either
 * way. Tests switch the AVX2 loop off with rf_yuv420_force_scalar to compare them. */
static int force_scalar = 0;

void rf_yuv420_force_scalar(int scalar) { force_scalar = scalar; }

static void convert_pair(const uint8_t *row0, const uint8_t *row1, uint32_t width, const coefficients *c, int ro,
                         int go, int bo, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v) {
#if defined(__x86_64__)
    if (!force_scalar && __builtin_cpu_supports("avx2")) {
        convert_rows_avx2(row0, row1, width, c, ro, go, bo, y0, y1, u, v);
        return;
    }
#endif
    /* Constant offsets for the two orders, so that the compiler vectorises the scalar loop too. */
    if (ro == 2 && go == 1 && bo == 0)
        convert_rows(row0, row1, 0, width, c, 2, 1, 0, y0, y1, u, v);
    else if (ro == 0 && go == 1 && bo == 2)
        convert_rows(row0, row1, 0, width, c, 0, 1, 2, y0, y1, u, v);
    else
        convert_rows(row0, row1, 0, width, c, ro, go, bo, y0, y1, u, v);
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
        convert_pair(row0, row1, w, &c, o.r, o.g, o.b, y0, y0 + w, uj, vj);
        if (a0) {
            for (uint32_t i = 0; i < w; i++) {
                a0[i] = row0[4 * i + o.a];
                a0[w + i] = row1[4 * i + o.a];
            }
        }
    }
    free(padding_row);
    free(scratch);
    return 0;
}

size_t rf_yuva444p10_frame_size(uint32_t width, uint32_t height) { return (size_t)width * height * 4 * 2; }

/* 16 fractional bits, scaled to 10-bit limited range (876 and 896 steps for 0...255); green takes
 * the rounding as in coefficients_of, so grey stays exact. */
static void coefficients10_of(rf_yuv_matrix matrix, int32_t k[9]) {
    const double kr = matrix == RF_YUV_BT709 ? 0.2126 : 0.299;
    const double kb = matrix == RF_YUV_BT709 ? 0.0722 : 0.114;
    const double ys = 876.0 / 255.0, cs = 896.0 / 255.0;
    const double cb = 2.0 * (1.0 - kb), cr = 2.0 * (1.0 - kr);
#define FIXED16(value) ((int32_t)((value) * 65536.0 + ((value) < 0 ? -0.5 : 0.5)))
    k[0] = FIXED16(kr * ys);
    k[2] = FIXED16(kb * ys);
    k[1] = FIXED16(ys) - k[0] - k[2];
    k[3] = FIXED16(-kr / cb * cs);
    k[5] = FIXED16((1.0 - kb) / cb * cs);
    k[4] = -k[3] - k[5];
    k[6] = FIXED16((1.0 - kr) / cr * cs);
    k[8] = FIXED16(-kb / cr * cs);
    k[7] = -k[6] - k[8];
#undef FIXED16
}

static inline void put16(uint8_t *plane, size_t index, int32_t value) {
    const uint32_t sample = (uint32_t)(value < 0 ? 0 : value > 1023 ? 1023 : value);
    plane[2 * index] = (uint8_t)(sample & 0xFF);
    plane[2 * index + 1] = (uint8_t)(sample >> 8);
}

void rf_yuva444p10_convert(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                           rf_pixel_order order, rf_yuv_matrix matrix, uint8_t *dst) {
    int32_t k[9];
    coefficients10_of(matrix, k);
    const offsets o = offsets_of(order);
    const size_t plane = (size_t)width * height * 2;
    uint8_t *y = dst, *u = dst + plane, *v = dst + 2 * plane, *a = dst + 3 * plane;
    const int32_t half = 1 << 15;
    for (uint32_t j = 0; j < height; j++) {
        const uint8_t *row = pixels + (size_t)j * stride;
        for (uint32_t i = 0; i < width; i++) {
            const int32_t r = row[4 * i + o.r], g = row[4 * i + o.g], b = row[4 * i + o.b];
            const size_t index = (size_t)j * width + i;
            put16(y, index, (k[0] * r + k[1] * g + k[2] * b + (64 << 16) + half) >> 16);
            put16(u, index, (k[3] * r + k[4] * g + k[5] * b + (512 << 16) + half) >> 16);
            put16(v, index, (k[6] * r + k[7] * g + k[8] * b + (512 << 16) + half) >> 16);
            put16(a, index, (row[4 * i + o.a] * 1023 + 127) / 255);
        }
    }
}

void rf_alpha_packed_compose(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                             uint32_t alpha_x, uint32_t alpha_y, uint8_t *dst, uint32_t dst_width,
                             uint32_t dst_height) {
    const uint32_t black = 0xFF000000u;
    uint32_t *out = (uint32_t *)(void *)dst;
    for (size_t i = 0; i < (size_t)dst_width * dst_height; i++) out[i] = black;
    for (uint32_t j = 0; j < height; j++) {
        const uint32_t *row = (const uint32_t *)(const void *)(pixels + (size_t)j * stride);
        uint32_t *colour = out + (size_t)j * dst_width;
        uint32_t *grey = out + (size_t)(alpha_y + j) * dst_width + alpha_x;
        for (uint32_t i = 0; i < width; i++) {
            const uint32_t a = row[i] >> 24;
            colour[i] = row[i] | black;
            grey[i] = black | a << 16 | a << 8 | a;
        }
    }
}
