/* The plan renderfarm-bench writes for the C floor, and the drawing both share with the plugins. */
#ifndef RF_FLOOR_PLAN_H
#define RF_FLOOR_PLAN_H

#include <cairo.h>
#include <png.h>
#include <stdint.h>

/* One heart at one frame, as `renderfarm trace` reports it (only visible hearts are written). */
typedef struct floor_heart {
    double x, y;   /* bottom centre, points */
    double scale, alpha, size;
    double rgb[3]; /* fill */
} floor_heart;

typedef struct floor_frame {
    uint32_t index;
    uint32_t count;
    floor_heart *hearts;
} floor_frame;

/* File layout: every value a little-endian double, in this order:
 * magic 0x52464250 ("RFBP"), version 1, width px, height px, scale, canvas width pt, height pt,
 * background r g b a, level, adaptive (0/1), stroke r g b a, gradient (0/1), gradient from r g b a,
 * to r g b a, angle, vignette, frame count; then per frame: index, heart count, and per heart
 * x, y, scale, alpha, size, r, g, b. */
typedef struct floor_plan {
    uint32_t width, height;
    double scale, canvas_width, canvas_height;
    double background[4];
    int level, adaptive;
    double stroke[4];
    int gradient;
    double from[4], to[4], angle, vignette;
    uint32_t frame_count;
    floor_frame *frames;
} floor_plan;

int floor_plan_read(const char *path, floor_plan *plan);
void floor_plan_free(floor_plan *plan);

/* Paints the background colour and, when the plan has one, the gradient (gradient.c's maths). */
void floor_draw_background(const floor_plan *plan, cairo_surface_t *surface);

/* Draws the hearts of one frame over what is on `cr`'s surface (floating-heart's cairo calls). */
void floor_draw_hearts(const floor_plan *plan, const floor_frame *frame, cairo_t *cr);

/* Premultiplied ARGB32 → straight RGBA (lookup table), or RGB when `opaque`. */
void floor_convert_row(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque);

/* The C floor's writer: the image's rows through libpng at `level`, with every row filter (`adaptive`) or
 * none, RGB when `opaque`, with an sRGB chunk, onto `png`, whose output and error jump the caller set up
 * (libpng may longjmp out of here). `row` holds one converted row. */
void floor_libpng_write(png_structp png, png_infop info, const uint8_t *pixels, uint32_t width, uint32_t height,
                        size_t stride, int opaque, int level, int adaptive, uint8_t *row);

#endif
