/*
 * Converts frames to the planar YUV 4:2:0 formats ffmpeg's encoders take, so that the renderer's
 * workers do the conversion in parallel and ffmpeg runs no filter graph (`render --video`, `encode`).
 *
 * Limited ("tv") range, BT.601 or BT.709 coefficients. Luma per pixel; chroma from the mean of each
 * 2x2 block (centre-sited). Odd widths and heights are padded on the right and bottom to even ones
 * with black (opaque for yuv420p, transparent for yuva420p), as ffmpeg's `pad` filter did before.
 *
 * A hand loop rather than libswscale: at 1280x720 on the 2-core development machine (loaded),
 * swscale's BGRA -> yuv420p with the flags ffmpeg's `scale` filter uses (bicubic) took 15.0 ms a
 * frame and a plain C loop 2.6 ms, in the same run; the AVX2 loop here takes 0.5 ms of CPU time a
 * frame where the processor has AVX2 (best of 30-frame runs), against 1.9 ms for the scalar loop it
 * falls back to.
 */
#ifndef RF_VIDEO_FRAME_H
#define RF_VIDEO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The byte order of 32-bit pixels. */
typedef enum rf_pixel_order {
    RF_PIXEL_ARGB32 = 0, /* cairo's CAIRO_FORMAT_ARGB32: native-endian words A<<24 | R<<16 | G<<8 | B */
    RF_PIXEL_RGBA = 1,   /* bytes R, G, B, A (rf_argb32_to_rgba's straight-alpha output) */
} rf_pixel_order;

/* The YUV coefficients (both limited range). */
typedef enum rf_yuv_matrix {
    RF_YUV_BT601 = 0,
    RF_YUV_BT709 = 1,
} rf_yuv_matrix;

/* The size in bytes of one converted frame: the Y, U and V planes (and A with alpha) of the
 * frame padded to even width and height, each plane without row padding. */
size_t rf_yuv420_frame_size(uint32_t width, uint32_t height, int alpha);

/* Converts width x height pixels (rows `stride` bytes apart) into dst, which holds
 * rf_yuv420_frame_size bytes: Y, then U, then V, then (alpha != 0) the alpha plane.
 * Without alpha the colour is taken as is (the caller composites it over an opaque background
 * first); with alpha the colour must be straight (not premultiplied). Returns 0, or -1 when an
 * odd size's padding rows cannot be allocated. Thread-safe. */
int rf_yuv420_convert(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                      rf_pixel_order order, rf_yuv_matrix matrix, int alpha, uint8_t *dst);

/* The size in bytes of one yuva444p10le frame: Y, U, V and A planes of width x height 16-bit
 * little-endian samples (10 bits used), without padding. */
size_t rf_yuva444p10_frame_size(uint32_t width, uint32_t height);

/* Converts width x height straight-alpha pixels (rows `stride` bytes apart) into dst, which holds
 * rf_yuva444p10_frame_size bytes, for ProRes 4444: 10-bit limited-range Y, U and V of `matrix`
 * per pixel (no subsampling) and full-range alpha (a * 1023 / 255, rounded). Grey stays neutral.
 * Thread-safe. */
void rf_yuva444p10_convert(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                           rf_pixel_order order, rf_yuv_matrix matrix, uint8_t *dst);

/* Lays out an alpha-packed (VAP) frame of dst_width x dst_height ARGB32 pixels in dst: the colour of
 * the width x height ARGB32 image at (0, 0) as it is stored, premultiplied, which is the colour
 * composited over black; its alpha as grey (R = G = B = alpha) at (alpha_x, alpha_y); opaque black
 * everywhere else. Both regions must fit in dst. Thread-safe. */
void rf_alpha_packed_compose(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                             uint32_t alpha_x, uint32_t alpha_y, uint8_t *dst, uint32_t dst_width,
                             uint32_t dst_height);

/* Tests: nonzero makes every later conversion use the scalar loop instead of the AVX2 one (the
 * bytes must not change). Not thread-safe; set it before converting. */
void rf_yuv420_force_scalar(int scalar);

#ifdef __cplusplus
}
#endif

#endif
