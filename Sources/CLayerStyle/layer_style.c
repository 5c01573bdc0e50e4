#include "layer_style.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF

/* Box sizes stay below this, so that the reciprocal below divides exactly (see `divide`). */
enum { MAX_BOX = 4095 };

/* The sizes of the three centred boxes whose variances add up nearest to sigma^2 (Kovesi, "Fast Almost-Gaussian
   Filtering", 2010): odd sizes `low` and `low + 2`, the smaller one for the first `count_low` passes. A box of
   size w has variance (w^2 - 1) / 12. */
static void box_sizes(double sigma, int sizes[3]) {
    const int n = 3;
    double ideal = sqrt(12.0 * sigma * sigma / n + 1.0);
    int low = (int)floor(ideal);
    if (low % 2 == 0) low--;
    if (low < 1) low = 1;
    if (low > MAX_BOX - 2) low = MAX_BOX - 2;
    double m = (12.0 * sigma * sigma - n * low * low - 4.0 * n * low - 3.0 * n) / (-4.0 * low - 4.0);
    int count_low = (int)floor(m + 0.5);
    if (count_low < 0) count_low = 0;
    if (count_low > n) count_low = n;
    for (int i = 0; i < n; i++) sizes[i] = i < count_low ? low : low + 2;
}

int rf_style_blur_reach(double sigma) {
    if (!(sigma > 0)) return 0;
    int sizes[3], reach = 0;
    box_sizes(sigma, sizes);
    for (int i = 0; i < 3; i++) reach += sizes[i] / 2;
    return reach;
}

void rf_style_alpha_of(const uint8_t *argb, int argb_stride, uint8_t *alpha, int alpha_stride, rf_style_box box) {
    for (int y = box.y; y < box.y + box.height; y++) {
        const uint32_t *row = (const uint32_t *)(argb + (size_t)y * argb_stride);
        uint8_t *out = alpha + (size_t)y * alpha_stride;
        for (int x = box.x; x < box.x + box.width; x++) out[x] = (uint8_t)(row[x] >> 24);
    }
}

/* (sum + size / 2) / size for sum <= 255 * MAX_BOX: with this 32.32 reciprocal the error is below 2^-12 of one,
   less than the 1 / size a quotient's fraction keeps from the next integer. */
static inline uint32_t divide(uint64_t sum, uint64_t reciprocal, uint32_t half) {
    return (uint32_t)(((sum + half) * reciprocal) >> 32);
}

static uint64_t reciprocal_of(int size) { return ((uint64_t)1 << 32) / (uint64_t)size + 1; }

/* One box along a line of `count` samples `step` bytes apart, from `src` to `dst` (distinct); beyond the line's
   ends it goes on as its end samples. */
static void box_line(const uint8_t *src, uint8_t *dst, int count, int step, int left, int right) {
    int size = left + right + 1, last = count - 1;
    uint64_t reciprocal = reciprocal_of(size);
    uint32_t half = (uint32_t)size / 2, sum = 0;
    for (int k = -left; k <= right; k++) sum += src[(size_t)(k < 0 ? 0 : k > last ? last : k) * step];
    for (int i = 0; i < count; i++) {
        dst[(size_t)i * step] = (uint8_t)divide(sum, reciprocal, half);
        int add = i + right + 1, sub = i - left;
        sum += src[(size_t)(add > last ? last : add) * step];
        sum -= src[(size_t)(sub < 0 ? 0 : sub) * step];
    }
}

/* One box down the columns of a plane of `rows` rows of `bytes` bytes, `src` to `dst` (distinct, packed):
   a running sum per byte column, so the inner loop runs along a row. Beyond the first and last rows the plane
   goes on as those rows. */
static void box_columns(const uint8_t *src, uint8_t *dst, int rows, int bytes, int left, int right, uint32_t *sums) {
    int size = left + right + 1, last = rows - 1;
    uint64_t reciprocal = reciprocal_of(size);
    uint32_t half = (uint32_t)size / 2;
    memset(sums, 0, (size_t)bytes * sizeof *sums);
    for (int k = -left; k <= right; k++) {
        const uint8_t *row = src + (size_t)(k < 0 ? 0 : k > last ? last : k) * bytes;
        for (int x = 0; x < bytes; x++) sums[x] += row[x];
    }
    for (int y = 0; y < rows; y++) {
        uint8_t *out = dst + (size_t)y * bytes;
        for (int x = 0; x < bytes; x++) out[x] = (uint8_t)divide(sums[x], reciprocal, half);
        int add = y + right + 1, sub = y - left;
        const uint8_t *added = src + (size_t)(add > last ? last : add) * bytes;
        const uint8_t *removed = src + (size_t)(sub < 0 ? 0 : sub) * bytes;
        for (int x = 0; x < bytes; x++) sums[x] = sums[x] + added[x] - removed[x];
    }
}

/* The blur of a plane of `channels`-byte pixels: three boxes along the rows, then three down the columns. */
static int blur(uint8_t *pixels, int stride, rf_style_box box, double sigma, int channels) {
    if (!(sigma > 0) || box.width <= 0 || box.height <= 0) return 0;
    int sizes[3], left[3], right[3];
    box_sizes(sigma, sizes);
    if (sizes[2] == 1) return 0;
    for (int i = 0; i < 3; i++) left[i] = right[i] = sizes[i] / 2;
    size_t bytes = (size_t)box.width * channels;
    uint8_t *a = malloc(bytes * box.height), *b = malloc(bytes * box.height);
    uint32_t *sums = malloc(bytes * sizeof *sums);
    if (!a || !b || !sums) {
        free(a), free(b), free(sums);
        return -1;
    }
    for (int y = 0; y < box.height; y++) {
        const uint8_t *row = pixels + (size_t)(box.y + y) * stride + (size_t)box.x * channels;
        uint8_t *first = a + (size_t)y * bytes, *second = b + (size_t)y * bytes;
        for (int c = 0; c < channels; c++) {
            box_line(row + c, first + c, box.width, channels, left[0], right[0]);
            box_line(first + c, second + c, box.width, channels, left[1], right[1]);
            box_line(second + c, first + c, box.width, channels, left[2], right[2]);
        }
    }
    box_columns(a, b, box.height, (int)bytes, left[0], right[0], sums);
    box_columns(b, a, box.height, (int)bytes, left[1], right[1], sums);
    box_columns(a, b, box.height, (int)bytes, left[2], right[2], sums);
    for (int y = 0; y < box.height; y++)
        memcpy(pixels + (size_t)(box.y + y) * stride + (size_t)box.x * channels, b + (size_t)y * bytes, bytes);
    free(a), free(b), free(sums);
    return 0;
}

int rf_style_blur_alpha(uint8_t *alpha, int stride, rf_style_box box, double sigma) {
    return blur(alpha, stride, box, sigma, 1);
}

int rf_style_blur_argb(uint8_t *argb, int stride, rf_style_box box, double sigma) {
    return blur(argb, stride, box, sigma, 4);
}

/* Far: no site on the line. Squared distances stay far below it. */
static const double FAR = 1e20;

/* Felzenszwalb and Huttenlocher's 1-D squared distance transform of `f` (n samples) into `d`. */
static void distance_line(const double *f, double *d, int n, int *v, double *z) {
    int k = 0;
    v[0] = 0, z[0] = -FAR, z[1] = FAR;
    for (int q = 1; q < n; q++) {
        double s;
        for (;;) {
            int p = v[k];
            s = ((f[q] + (double)q * q) - (f[p] + (double)p * p)) / (2.0 * (q - p));
            if (s > z[k] || k == 0) break;
            k--;
        }
        k++;
        v[k] = q, z[k] = s, z[k + 1] = FAR;
    }
    k = 0;
    for (int q = 0; q < n; q++) {
        while (z[k + 1] < q) k++;
        double offset = q - v[k];
        d[q] = offset * offset + f[v[k]];
    }
}

/* Squared distances from each pixel of `box` to the nearest site: alpha >= 128 (`inside` 1) or alpha < 128.
   Beyond the box the plane goes on as its edge pixels, which adds no site nearer than one inside it. */
static double *distances(const uint8_t *alpha, int stride, rf_style_box box, int inside) {
    int w = box.width, h = box.height, n = w > h ? w : h;
    double *grid = malloc((size_t)w * h * sizeof *grid);
    double *f = malloc((size_t)n * sizeof *f), *d = malloc((size_t)n * sizeof *d);
    double *z = malloc((size_t)(n + 1) * sizeof *z);
    int *v = malloc((size_t)n * sizeof *v);
    if (!grid || !f || !d || !z || !v) {
        free(grid), free(f), free(d), free(z), free(v);
        return NULL;
    }
    for (int y = 0; y < h; y++) {
        const uint8_t *row = alpha + (size_t)(box.y + y) * stride + box.x;
        for (int x = 0; x < w; x++) grid[(size_t)y * w + x] = (inside ? row[x] >= 128 : row[x] < 128) ? 0 : FAR;
    }
    for (int x = 0; x < w; x++) {
        for (int y = 0; y < h; y++) f[y] = grid[(size_t)y * w + x];
        distance_line(f, d, h, v, z);
        for (int y = 0; y < h; y++) grid[(size_t)y * w + x] = d[y];
    }
    for (int y = 0; y < h; y++) {
        memcpy(f, grid + (size_t)y * w, (size_t)w * sizeof *f);
        distance_line(f, grid + (size_t)y * w, w, v, z);
    }
    free(f), free(d), free(z), free(v);
    return grid;
}

static inline uint8_t coverage(double reach, double squared) {
    double c = reach + 1.0 - sqrt(squared);
    if (!(c > 0)) return 0;
    if (c >= 1) return 255;
    return (uint8_t)(c * 255.0 + 0.5);
}

int rf_style_grow(const uint8_t *alpha, int alpha_stride, uint8_t *out, int out_stride, rf_style_box box,
                  double radius) {
    if (box.width <= 0 || box.height <= 0) return 0;
    if (!(radius > 0)) {
        for (int y = box.y; y < box.y + box.height; y++)
            memmove(out + (size_t)y * out_stride + box.x, alpha + (size_t)y * alpha_stride + box.x, (size_t)box.width);
        return 0;
    }
    double *grid = distances(alpha, alpha_stride, box, 1);
    if (!grid) return -1;
    for (int y = 0; y < box.height; y++) {
        const uint8_t *in = alpha + (size_t)(box.y + y) * alpha_stride + box.x;
        uint8_t *row = out + (size_t)(box.y + y) * out_stride + box.x;
        const double *squared = grid + (size_t)y * box.width;
        for (int x = 0; x < box.width; x++) {
            uint8_t grown = coverage(radius, squared[x]);
            row[x] = grown > in[x] ? grown : in[x];
        }
    }
    free(grid);
    return 0;
}

int rf_style_inner_band(const uint8_t *alpha, int alpha_stride, uint8_t *out, int out_stride, rf_style_box box,
                        double width) {
    if (box.width <= 0 || box.height <= 0) return 0;
    double *grid = distances(alpha, alpha_stride, box, 0);
    if (!grid) return -1;
    for (int y = 0; y < box.height; y++) {
        uint8_t *row = out + (size_t)(box.y + y) * out_stride + box.x;
        const double *squared = grid + (size_t)y * box.width;
        for (int x = 0; x < box.width; x++) row[x] = coverage(width, squared[x]);
    }
    free(grid);
    return 0;
}

void rf_style_multiply(uint8_t *out, int out_stride, const uint8_t *alpha, int alpha_stride, rf_style_box box,
                       int inverse) {
    for (int y = box.y; y < box.y + box.height; y++) {
        uint8_t *row = out + (size_t)y * out_stride;
        const uint8_t *a = alpha + (size_t)y * alpha_stride;
        for (int x = box.x; x < box.x + box.width; x++) {
            uint32_t factor = inverse ? 255u - a[x] : a[x];
            uint32_t t = row[x] * factor + 128;
            row[x] = (uint8_t)((t + (t >> 8)) >> 8);
        }
    }
}

void rf_style_max_inverse(uint8_t *out, int out_stride, const uint8_t *alpha, int alpha_stride, rf_style_box box) {
    for (int y = box.y; y < box.y + box.height; y++) {
        uint8_t *row = out + (size_t)y * out_stride;
        const uint8_t *a = alpha + (size_t)y * alpha_stride;
        for (int x = box.x; x < box.x + box.width; x++) {
            uint8_t inverse = (uint8_t)(255u - a[x]);
            if (inverse > row[x]) row[x] = inverse;
        }
    }
}

static inline double clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

void rf_style_adjust(uint8_t *argb, int stride, rf_style_box box, double brightness, double contrast,
                     double saturation, int tint_red, int tint_green, int tint_blue, double tint_amount) {
    /* The luminance weights of CSS Masking, as the masks use them. */
    const double wr = 0.2125, wg = 0.7154, wb = 0.0721;
    const double tint[3] = {tint_red / 255.0, tint_green / 255.0, tint_blue / 255.0};
    for (int y = box.y; y < box.y + box.height; y++) {
        uint32_t *row = (uint32_t *)(argb + (size_t)y * stride);
        for (int x = box.x; x < box.x + box.width; x++) {
            uint32_t pixel = row[x], a = pixel >> 24;
            if (a == 0) continue;
            double v[3];
            for (int c = 0; c < 3; c++) {
                double value = (double)((pixel >> (16 - 8 * c)) & 0xFF) / a;
                value = clamp01(value) + brightness;
                v[c] = (value - 0.5) * (1.0 + contrast) + 0.5;
            }
            double luminance = wr * v[0] + wg * v[1] + wb * v[2];
            for (int c = 0; c < 3; c++) v[c] = luminance + (v[c] - luminance) * (1.0 + saturation);
            luminance = clamp01(wr * v[0] + wg * v[1] + wb * v[2]);
            uint32_t result = a << 24;
            for (int c = 0; c < 3; c++) {
                double value = clamp01(v[c] + tint_amount * (luminance * tint[c] - v[c]));
                result |= (uint32_t)(value * a + 0.5) << (16 - 8 * c);
            }
            row[x] = result;
        }
    }
}

void rf_style_accumulate(uint16_t *sums, const uint8_t *argb, int stride, int width, rf_style_box box, int weight) {
    for (int y = box.y; y < box.y + box.height; y++) {
        const uint8_t *row = argb + (size_t)y * stride + (size_t)box.x * 4;
        uint16_t *sum = sums + ((size_t)y * width + box.x) * 4;
        for (int x = 0; x < box.width * 4; x++) sum[x] = (uint16_t)(sum[x] + ((row[x] * weight + 128) >> 8));
    }
}

void rf_style_average(uint16_t *sums, uint8_t *argb, int stride, int width, rf_style_box box, int count) {
    uint32_t half = (uint32_t)count / 2;
    for (int y = box.y; y < box.y + box.height; y++) {
        uint8_t *row = argb + (size_t)y * stride + (size_t)box.x * 4;
        uint16_t *sum = sums + ((size_t)y * width + box.x) * 4;
        for (int x = 0; x < box.width * 4; x++) {
            row[x] = (uint8_t)((sum[x] + half) / (uint32_t)count);
            sum[x] = 0;
        }
    }
}
