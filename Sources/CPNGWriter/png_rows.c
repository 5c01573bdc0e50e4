/*
 * The fast path's row work (png_fast.c): cairo's premultiplied ARGB32 to straight RGB(A) bytes, and the
 * choice and application of a row filter. Each step has a portable C version and, on x86-64, SSE4.1 and
 * AVX2 versions (and AVX-512 ones of the filter's costs and Paeth) picked at run time from what the CPU has.
 * Every version writes the same bytes: the costs that choose a filter are exact integer sums, and the
 * predictions are the same integer formulas.
 */
#include "png_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define RF_X86 1
#define RF_TARGET(features) __attribute__((target(features)))
#endif

/* ---- Which version runs ---- */

/* The level tests asked for (rf_png_set_vector_level), or -1: the best the CPU has, found once. */
static atomic_int chosen_level = -1;
static pthread_once_t detection = PTHREAD_ONCE_INIT;
static int detected_level = RF_PNG_VECTOR_NONE;

static void detect_level(void) {
#if RF_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512bw")) {
        detected_level = RF_PNG_VECTOR_AVX512;
    } else if (__builtin_cpu_supports("avx2")) {
        detected_level = RF_PNG_VECTOR_AVX2;
    } else if (__builtin_cpu_supports("sse4.1")) {
        detected_level = RF_PNG_VECTOR_SSE41;
    }
#endif
}

int rf_png_vector_level(void) {
    int level = atomic_load_explicit(&chosen_level, memory_order_relaxed);
    if (level >= 0) return level;
    pthread_once(&detection, detect_level);
    return detected_level;
}

int rf_png_set_vector_level(int level) {
    pthread_once(&detection, detect_level);
    atomic_store_explicit(&chosen_level, level < 0 || level > detected_level ? -1 : level, memory_order_relaxed);
    return rf_png_vector_level();
}

/* ---- Pixels to bytes: rf_convert_row (png_writer.c) is the portable version and does the tails ---- */

#if RF_X86
/* Four pixels at a time: opaque ones are only reordered, transparent black ones are zeros, others go through
 * the table. */
RF_TARGET("sse4.1")
static int convert_row_sse41(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque) {
    const __m128i to_rgb = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m128i to_rgba = _mm_setr_epi8(2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15);
    const __m128i alpha = _mm_set1_epi32((int)0xFF000000u);
    uint32_t x = 0;
    if (opaque) {
        /* Every pixel's alpha is ANDed in as it is reordered: the row's opacity test costs no pass of its own. */
        __m128i all = _mm_set1_epi32(-1);
        for (; x + 4 <= width; x += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(src + x));
            all = _mm_and_si128(all, v);
            _mm_storeu_si128((__m128i *)(dst + 3 * (size_t)x), _mm_shuffle_epi8(v, to_rgb));
        }
        int tail_opaque = rf_argb32_is_opaque((const uint8_t *)(src + x), width - x, 1, 0);
        rf_convert_row(src + x, dst + 3 * (size_t)x, width - x, 1);
        return tail_opaque && _mm_test_all_ones(_mm_cmpeq_epi32(_mm_and_si128(all, alpha), alpha));
    }
    for (; x + 4 <= width; x += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(src + x));
        uint8_t *out = dst + 4 * (size_t)x;
        if (_mm_testz_si128(v, v)) {
            _mm_storeu_si128((__m128i *)out, v);
        } else if (_mm_test_all_ones(_mm_cmpeq_epi32(_mm_and_si128(v, alpha), alpha))) {
            _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(v, to_rgba));
        } else {
            for (int k = 0; k < 4; k++) rf_convert_pixel(src[x + k], out + 4 * k);
        }
    }
    rf_convert_row(src + x, dst + 4 * (size_t)x, width - x, 0);
    return 1;
}

RF_TARGET("avx2")
static int convert_row_avx2(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque) {
    const __m256i to_rgba = _mm256_setr_epi8(2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15, 2, 1, 0, 3, 6, 5,
                                             4, 7, 10, 9, 8, 11, 14, 13, 12, 15);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u);
    if (opaque) return convert_row_sse41(src, dst, width, 1);
    uint32_t x = 0;
    for (; x + 8 <= width; x += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + x));
        uint8_t *out = dst + 4 * (size_t)x;
        if (_mm256_testz_si256(v, v)) {
            _mm256_storeu_si256((__m256i *)out, v);
        } else if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_and_si256(v, alpha), alpha)) == -1) {
            _mm256_storeu_si256((__m256i *)out, _mm256_shuffle_epi8(v, to_rgba));
        } else {
            for (int k = 0; k < 8; k++) rf_convert_pixel(src[x + k], out + 4 * k);
        }
    }
    rf_convert_row(src + x, dst + 4 * (size_t)x, width - x, 0);
    return 1;
}
#endif

int rf_fast_convert_row(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque) {
    switch (rf_png_vector_level()) {
#if RF_X86
    case RF_PNG_VECTOR_AVX512: /* converting is bound by memory: AVX2 is as fast */
    case RF_PNG_VECTOR_AVX2: return convert_row_avx2(src, dst, width, opaque);
    case RF_PNG_VECTOR_SSE41: return convert_row_sse41(src, dst, width, opaque);
#endif
    default:
        if (opaque && !rf_argb32_is_opaque((const uint8_t *)src, width, 1, 0)) return 0;
        rf_convert_row(src, dst, width, opaque);
        return 1;
    }
}

/* ---- Row filters ---- */

/* How far a residual is from zero, as libpng's filter heuristic counts it: |r| as a signed byte. */
static inline uint32_t residual_cost(int r) { return (uint32_t)abs((int)(int8_t)(uint8_t)r); }

/* Paeth's predictor (PNG §9.4), a → b → c on ties. */
static inline int paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/* The sums of the residual costs of bytes [from, length) under Sub, Up and Paeth. */
static void costs_c(const uint8_t *cur, const uint8_t *prev, size_t from, size_t length, size_t bpp,
                    uint32_t costs[3]) {
    for (size_t i = from; i < length; i++) {
        int x = cur[i], a = cur[i - bpp], b = prev[i], c = prev[i - bpp];
        costs[0] += residual_cost(x - a);
        costs[1] += residual_cost(x - b);
        costs[2] += residual_cost(x - paeth(a, b, c));
    }
}

static void paeth_c(const uint8_t *cur, const uint8_t *prev, size_t from, size_t length, size_t bpp, uint8_t *out) {
    for (size_t i = from; i < length; i++) out[i] = (uint8_t)(cur[i] - paeth(cur[i - bpp], prev[i], prev[i - bpp]));
}

#if RF_X86
/* Paeth's prediction of 16 bytes in 8-bit lanes. pa = |b - c| and pb = |a - c| fit in a byte; so does
 * pc = |a + b - 2c| when a and b lie on opposite sides of c (it is then |pa - pb|). On the same side pc is
 * pa + pb, saturated at 255 here, which is still at least min(pa, pb): no choice below changes. Then as the
 * portable paeth(): b when pa > pb, else a; c when min(pa, pb) > pc. */
RF_TARGET("sse4.1")
static inline __m128i paeth_epi8(__m128i a, __m128i b, __m128i c) {
    __m128i pa = _mm_or_si128(_mm_subs_epu8(b, c), _mm_subs_epu8(c, b));
    __m128i pb = _mm_or_si128(_mm_subs_epu8(a, c), _mm_subs_epu8(c, a));
    __m128i apart = _mm_xor_si128(_mm_cmpeq_epi8(_mm_max_epu8(a, c), a), _mm_cmpeq_epi8(_mm_max_epu8(b, c), b));
    __m128i pc = _mm_blendv_epi8(_mm_adds_epu8(pa, pb), _mm_or_si128(_mm_subs_epu8(pa, pb), _mm_subs_epu8(pb, pa)),
                                 apart);
    __m128i nearest = _mm_min_epu8(pa, pb);
    __m128i ab = _mm_blendv_epi8(b, a, _mm_cmpeq_epi8(nearest, pa));
    return _mm_blendv_epi8(c, ab, _mm_cmpeq_epi8(_mm_min_epu8(nearest, pc), nearest));
}

RF_TARGET("sse4.1")
static inline uint32_t sum_epi64(__m128i v) { return (uint32_t)(_mm_cvtsi128_si64(v) + _mm_extract_epi64(v, 1)); }

RF_TARGET("sse4.1")
static void costs_sse41(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint32_t costs[3]) {
    __m128i z = _mm_setzero_si128(), sub = z, up = z, pae = z;
    size_t i = bpp;
    for (; i + 16 <= length; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(cur + i));
        __m128i a = _mm_loadu_si128((const __m128i *)(cur + i - bpp));
        __m128i b = _mm_loadu_si128((const __m128i *)(prev + i));
        __m128i c = _mm_loadu_si128((const __m128i *)(prev + i - bpp));
        __m128i any = _mm_or_si128(_mm_or_si128(x, a), _mm_or_si128(b, c));
        if (_mm_testz_si128(any, any)) continue; /* all zero (a transparent margin): every residual is 0 */
        sub = _mm_add_epi64(sub, _mm_sad_epu8(_mm_abs_epi8(_mm_sub_epi8(x, a)), z));
        up = _mm_add_epi64(up, _mm_sad_epu8(_mm_abs_epi8(_mm_sub_epi8(x, b)), z));
        pae = _mm_add_epi64(pae, _mm_sad_epu8(_mm_abs_epi8(_mm_sub_epi8(x, paeth_epi8(a, b, c))), z));
    }
    costs[0] += sum_epi64(sub);
    costs[1] += sum_epi64(up);
    costs[2] += sum_epi64(pae);
    costs_c(cur, prev, i, length, bpp, costs);
}

RF_TARGET("sse4.1")
static void paeth_sse41(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out) {
    size_t i = bpp;
    for (; i + 16 <= length; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(cur + i));
        __m128i a = _mm_loadu_si128((const __m128i *)(cur + i - bpp));
        __m128i b = _mm_loadu_si128((const __m128i *)(prev + i));
        __m128i c = _mm_loadu_si128((const __m128i *)(prev + i - bpp));
        _mm_storeu_si128((__m128i *)(out + i), _mm_sub_epi8(x, paeth_epi8(a, b, c)));
    }
    paeth_c(cur, prev, i, length, bpp, out);
}

/* The same in 256-bit registers. */
RF_TARGET("avx2")
static inline __m256i paeth_epi8_avx2(__m256i a, __m256i b, __m256i c) {
    __m256i pa = _mm256_or_si256(_mm256_subs_epu8(b, c), _mm256_subs_epu8(c, b));
    __m256i pb = _mm256_or_si256(_mm256_subs_epu8(a, c), _mm256_subs_epu8(c, a));
    __m256i apart = _mm256_xor_si256(_mm256_cmpeq_epi8(_mm256_max_epu8(a, c), a),
                                     _mm256_cmpeq_epi8(_mm256_max_epu8(b, c), b));
    __m256i pc = _mm256_blendv_epi8(_mm256_adds_epu8(pa, pb),
                                    _mm256_or_si256(_mm256_subs_epu8(pa, pb), _mm256_subs_epu8(pb, pa)), apart);
    __m256i nearest = _mm256_min_epu8(pa, pb);
    __m256i ab = _mm256_blendv_epi8(b, a, _mm256_cmpeq_epi8(nearest, pa));
    return _mm256_blendv_epi8(c, ab, _mm256_cmpeq_epi8(_mm256_min_epu8(nearest, pc), nearest));
}

RF_TARGET("avx2")
static inline uint32_t sum_epi64_avx2(__m256i v) {
    __m128i both = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint32_t)(_mm_cvtsi128_si64(both) + _mm_extract_epi64(both, 1));
}

RF_TARGET("avx2")
static void costs_avx2(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint32_t costs[3]) {
    __m256i z = _mm256_setzero_si256(), sub = z, up = z, pae = z;
    size_t i = bpp;
    for (; i + 32 <= length; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(cur + i));
        __m256i a = _mm256_loadu_si256((const __m256i *)(cur + i - bpp));
        __m256i b = _mm256_loadu_si256((const __m256i *)(prev + i));
        __m256i c = _mm256_loadu_si256((const __m256i *)(prev + i - bpp));
        __m256i any = _mm256_or_si256(_mm256_or_si256(x, a), _mm256_or_si256(b, c));
        if (_mm256_testz_si256(any, any)) continue; /* all zero (a transparent margin): every residual is 0 */
        sub = _mm256_add_epi64(sub, _mm256_sad_epu8(_mm256_abs_epi8(_mm256_sub_epi8(x, a)), z));
        up = _mm256_add_epi64(up, _mm256_sad_epu8(_mm256_abs_epi8(_mm256_sub_epi8(x, b)), z));
        pae = _mm256_add_epi64(pae, _mm256_sad_epu8(_mm256_abs_epi8(_mm256_sub_epi8(x, paeth_epi8_avx2(a, b, c))), z));
    }
    costs[0] += sum_epi64_avx2(sub);
    costs[1] += sum_epi64_avx2(up);
    costs[2] += sum_epi64_avx2(pae);
    costs_c(cur, prev, i, length, bpp, costs);
}

RF_TARGET("avx2")
static void paeth_avx2(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out) {
    size_t i = bpp;
    for (; i + 32 <= length; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(cur + i));
        __m256i a = _mm256_loadu_si256((const __m256i *)(cur + i - bpp));
        __m256i b = _mm256_loadu_si256((const __m256i *)(prev + i));
        __m256i c = _mm256_loadu_si256((const __m256i *)(prev + i - bpp));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_sub_epi8(x, paeth_epi8_avx2(a, b, c)));
    }
    paeth_c(cur, prev, i, length, bpp, out);
}

/* The same in 512-bit registers, with AVX-512BW's byte masks in place of blends by vector. */
RF_TARGET("avx512bw")
static inline __m512i paeth_epi8_avx512(__m512i a, __m512i b, __m512i c) {
    __m512i pa = _mm512_or_si512(_mm512_subs_epu8(b, c), _mm512_subs_epu8(c, b));
    __m512i pb = _mm512_or_si512(_mm512_subs_epu8(a, c), _mm512_subs_epu8(c, a));
    __mmask64 apart = _mm512_cmpge_epu8_mask(a, c) ^ _mm512_cmpge_epu8_mask(b, c);
    __m512i pc = _mm512_mask_blend_epi8(apart, _mm512_adds_epu8(pa, pb),
                                        _mm512_or_si512(_mm512_subs_epu8(pa, pb), _mm512_subs_epu8(pb, pa)));
    __m512i nearest = _mm512_min_epu8(pa, pb);
    __m512i ab = _mm512_mask_blend_epi8(_mm512_cmpeq_epi8_mask(nearest, pa), b, a);
    return _mm512_mask_blend_epi8(_mm512_cmpeq_epi8_mask(_mm512_min_epu8(nearest, pc), nearest), c, ab);
}

RF_TARGET("avx512bw")
static void costs_avx512(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint32_t costs[3]) {
    __m512i z = _mm512_setzero_si512(), sub = z, up = z, pae = z;
    size_t i = bpp;
    for (; i + 64 <= length; i += 64) {
        __m512i x = _mm512_loadu_si512((const void *)(cur + i));
        __m512i a = _mm512_loadu_si512((const void *)(cur + i - bpp));
        __m512i b = _mm512_loadu_si512((const void *)(prev + i));
        __m512i c = _mm512_loadu_si512((const void *)(prev + i - bpp));
        __m512i any = _mm512_or_si512(_mm512_or_si512(x, a), _mm512_or_si512(b, c));
        if (!_mm512_test_epi64_mask(any, any)) continue; /* all zero (a transparent margin): every residual is 0 */
        sub = _mm512_add_epi64(sub, _mm512_sad_epu8(_mm512_abs_epi8(_mm512_sub_epi8(x, a)), z));
        up = _mm512_add_epi64(up, _mm512_sad_epu8(_mm512_abs_epi8(_mm512_sub_epi8(x, b)), z));
        pae = _mm512_add_epi64(pae,
                               _mm512_sad_epu8(_mm512_abs_epi8(_mm512_sub_epi8(x, paeth_epi8_avx512(a, b, c))), z));
    }
    costs[0] += (uint32_t)_mm512_reduce_add_epi64(sub);
    costs[1] += (uint32_t)_mm512_reduce_add_epi64(up);
    costs[2] += (uint32_t)_mm512_reduce_add_epi64(pae);
    costs_c(cur, prev, i, length, bpp, costs);
}

RF_TARGET("avx512bw")
static void paeth_avx512(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out) {
    size_t i = bpp;
    for (; i + 64 <= length; i += 64) {
        __m512i x = _mm512_loadu_si512((const void *)(cur + i));
        __m512i a = _mm512_loadu_si512((const void *)(cur + i - bpp));
        __m512i b = _mm512_loadu_si512((const void *)(prev + i));
        __m512i c = _mm512_loadu_si512((const void *)(prev + i - bpp));
        _mm512_storeu_si512((void *)(out + i), _mm512_sub_epi8(x, paeth_epi8_avx512(a, b, c)));
    }
    paeth_c(cur, prev, i, length, bpp, out);
}
#endif

/* Sub, Up and Paeth costs of bytes from `bpp` on, added to costs[]. */
static void filter_costs(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint32_t costs[3]) {
    switch (rf_png_vector_level()) {
#if RF_X86
    case RF_PNG_VECTOR_AVX512: costs_avx512(cur, prev, length, bpp, costs); break;
    case RF_PNG_VECTOR_AVX2: costs_avx2(cur, prev, length, bpp, costs); break;
    case RF_PNG_VECTOR_SSE41: costs_sse41(cur, prev, length, bpp, costs); break;
#endif
    default: costs_c(cur, prev, bpp, length, bpp, costs); break;
    }
}

static void apply_paeth(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out) {
    switch (rf_png_vector_level()) {
#if RF_X86
    case RF_PNG_VECTOR_AVX512: paeth_avx512(cur, prev, length, bpp, out); break;
    case RF_PNG_VECTOR_AVX2: paeth_avx2(cur, prev, length, bpp, out); break;
    case RF_PNG_VECTOR_SSE41: paeth_sse41(cur, prev, length, bpp, out); break;
#endif
    default: paeth_c(cur, prev, bpp, length, bpp, out); break;
    }
}

void rf_png_filter_probe(const uint8_t *cur, const uint8_t *prev, size_t length, size_t bpp, uint32_t costs[3],
                         uint8_t *residuals) {
    size_t head = bpp < length ? bpp : length;
    for (size_t i = 0; i < head; i++) residuals[i] = (uint8_t)(cur[i] - prev[i]);
    if (length <= bpp) return;
    filter_costs(cur, prev, length, bpp, costs);
    apply_paeth(cur, prev, length, bpp, residuals);
}

void rf_fast_filter_row(const uint8_t *restrict cur, const uint8_t *restrict prev, size_t length, size_t bpp,
                        uint8_t *restrict out) {
    size_t head = bpp < length ? bpp : length;
    int type = 1;
    if (prev && memcmp(cur, prev, length) == 0) {
        /* The row above again (a flat area, transparent margins): Up costs 0, and Sub, which wins ties, only
         * when every byte is 0. The same choice as summing the costs, without summing them. */
        type = cur[0] == 0 && (length == 1 || memcmp(cur, cur + 1, length - 1) == 0) ? 1 : 2;
    } else if (prev) {
        /* The first pixel has no left neighbour: Sub keeps it, Up and Paeth subtract the pixel above. */
        uint32_t costs[3] = { 0, 0, 0 };
        for (size_t i = 0; i < head; i++) {
            costs[0] += residual_cost(cur[i]);
            costs[1] += residual_cost(cur[i] - prev[i]);
        }
        costs[2] = costs[1];
        if (length > bpp) filter_costs(cur, prev, length, bpp, costs);
        type = costs[0] <= costs[1] && costs[0] <= costs[2] ? 1 : costs[1] <= costs[2] ? 2 : 4;
    }
    out[0] = (uint8_t)type;
    uint8_t *residuals = out + 1;
    for (size_t i = 0; i < head; i++) residuals[i] = (uint8_t)(cur[i] - (type == 1 ? 0 : prev[i]));
    if (type == 1) {
        for (size_t i = bpp; i < length; i++) residuals[i] = (uint8_t)(cur[i] - cur[i - bpp]);
    } else if (type == 2) {
        for (size_t i = bpp; i < length; i++) residuals[i] = (uint8_t)(cur[i] - prev[i]);
    } else if (length > bpp) {
        apply_paeth(cur, prev, length, bpp, residuals);
    }
}
