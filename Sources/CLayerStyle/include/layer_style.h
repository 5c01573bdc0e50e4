/*
 * The pixel work of layer styles (the RenderFarm article ComposingLayers, "Layer styles"): a layer's
 * alpha grown or edged by a distance, blurred, and its colours adjusted. Every function works inside
 * one box of pixels, beyond which the plane is taken to go on as the box's edge pixels: the caller makes
 * the box reach past everything the layer drew by everything its styles reach, so that its edges are
 * transparent, except where the canvas ends it, and there a layer cut off by the canvas goes on as it
 * shows at the canvas's edge.
 *
 * Integer arithmetic where a result is stored, so the bytes are the same on every machine: the Gaussian
 * blur is three centred box blurs whose variances add up to the Gaussian's (Kovesi, "Fast Almost-Gaussian
 * Filtering", 2010), each box a running sum divided with rounding; distances come from an exact Euclidean distance transform
 * (Felzenszwalb and Huttenlocher, "Distance Transforms of Sampled Functions", 2012) in single precision,
 * turned into coverage with one rounding.
 */
#ifndef RF_LAYER_STYLE_H
#define RF_LAYER_STYLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A box of pixels: columns x..<x+width, rows y..<y+height. */
typedef struct rf_style_box {
    int x, y, width, height;
} rf_style_box;

/* How far a blur of `sigma` spreads a pixel, in pixels, each side. */
int rf_style_blur_reach(double sigma);

/* `alpha` (an A8 plane) := the alpha bytes of the premultiplied ARGB32 pixels `argb`, inside `box`. */
void rf_style_alpha_of(const uint8_t *argb, int argb_stride, uint8_t *alpha, int alpha_stride, rf_style_box box);

/* Blurs the A8 plane inside `box` with a Gaussian of standard deviation `sigma`
   pixels. Returns 0, or -1 when memory runs out (the plane is then unchanged). */
int rf_style_blur_alpha(uint8_t *alpha, int stride, rf_style_box box, double sigma);

/* The same for premultiplied ARGB32 pixels, each channel on its own. */
int rf_style_blur_argb(uint8_t *argb, int stride, rf_style_box box, double sigma);

/* `out` := `alpha` grown outward by `radius` pixels: the larger of each pixel's alpha and its coverage by
   the shape `alpha >= 128` dilated by `radius` (min(1, max(0, radius + 1 - d)), d the distance to the
   nearest pixel of the shape); a copy of `alpha` when `radius` is 0. Returns 0, or -1 when memory runs out. `out` may be `alpha`. */
int rf_style_grow(const uint8_t *alpha, int alpha_stride, uint8_t *out, int out_stride, rf_style_box box,
                  double radius);

/* `out` := the coverage of the band `width` pixels deep inside the shape `alpha >= 128`: min(1, max(0,
   width + 1 - d)), d the distance to the nearest pixel outside it.
   Returns 0, or -1 when memory runs out. */
int rf_style_inner_band(const uint8_t *alpha, int alpha_stride, uint8_t *out, int out_stride, rf_style_box box,
                        double width);

/* out := out * alpha / 255 (`inverse` 0), or out * (255 - alpha) / 255 (`inverse` 1), rounded. */
void rf_style_multiply(uint8_t *out, int out_stride, const uint8_t *alpha, int alpha_stride, rf_style_box box,
                       int inverse);

/* out := max(out, 255 - alpha). */
void rf_style_max_inverse(uint8_t *out, int out_stride, const uint8_t *alpha, int alpha_stride, rf_style_box box);

/* Colour adjustments of premultiplied ARGB32 pixels inside `box`, on their straight colour, each in
   0..1 units: brightness b adds b; contrast c maps v to (v - 0.5)(1 + c) + 0.5; saturation s moves v
   away from (s > 0) or towards (s < 0) the pixel's luminance, (1 + s) times as far; then the tint mixes
   in `amount` of the luminance times the tint colour (0..255 each). Alpha is kept. */
void rf_style_adjust(uint8_t *argb, int stride, rf_style_box box, double brightness, double contrast,
                     double saturation, int tint_red, int tint_green, int tint_blue, double tint_amount);

/* Motion blur's samples. `sums` holds four 16-bit sums per pixel, rows of `width` pixels: each byte of the
   premultiplied ARGB32 pixels inside `box`, times `weight` / 256 (0..256, a sample's opacity), rounded, is added
   to its sum. At most 64 samples of weight 256 fit. */
void rf_style_accumulate(uint16_t *sums, const uint8_t *argb, int stride, int width, rf_style_box box, int weight);

/* The pixels inside `box` := their sums divided by `count`, rounded; the sums are set to 0 again. */
void rf_style_average(uint16_t *sums, uint8_t *argb, int stride, int width, rf_style_box box, int count);

#ifdef __cplusplus
}
#endif

#endif
