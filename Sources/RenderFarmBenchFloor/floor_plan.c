#include "floor_plan.h"
#include "floor_scene.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    FILE *file;
    int failed;
} reader;

static double next(reader *r) {
    double value = 0;
    if (fread(&value, sizeof(value), 1, r->file) != 1) r->failed = 1;
    return value;
}

static void next_n(reader *r, double *out, int n) {
    for (int i = 0; i < n; i++) out[i] = next(r);
}

int floor_plan_read(const char *path, floor_plan *plan) {
    memset(plan, 0, sizeof(*plan));
    reader r = { fopen(path, "rb"), 0 };
    if (!r.file) return -1;
    if (next(&r) != (double)0x52464250 || next(&r) != 1.0) r.failed = 1;
    plan->width = (uint32_t)next(&r);
    plan->height = (uint32_t)next(&r);
    plan->scale = next(&r);
    plan->canvas_width = next(&r);
    plan->canvas_height = next(&r);
    next_n(&r, plan->background, 4);
    plan->level = (int)next(&r);
    plan->adaptive = next(&r) != 0;
    next_n(&r, plan->stroke, 4);
    plan->gradient = next(&r) != 0;
    next_n(&r, plan->from, 4);
    next_n(&r, plan->to, 4);
    plan->angle = next(&r);
    plan->vignette = next(&r);
    double frames = next(&r);
    if (r.failed || frames < 0 || frames > 1e7 || plan->width == 0 || plan->height == 0) {
        fclose(r.file);
        return -1;
    }
    plan->frame_count = (uint32_t)frames;
    plan->frames = calloc(plan->frame_count ? plan->frame_count : 1, sizeof(floor_frame));
    for (uint32_t f = 0; f < plan->frame_count && !r.failed; f++) {
        floor_frame *frame = &plan->frames[f];
        frame->index = (uint32_t)next(&r);
        double count = next(&r);
        if (count < 0 || count > 1e6) {
            r.failed = 1;
            break;
        }
        frame->count = (uint32_t)count;
        frame->hearts = calloc(frame->count ? frame->count : 1, sizeof(floor_heart));
        for (uint32_t h = 0; h < frame->count; h++) {
            floor_heart *heart = &frame->hearts[h];
            heart->x = next(&r);
            heart->y = next(&r);
            heart->scale = next(&r);
            heart->alpha = next(&r);
            heart->size = next(&r);
            next_n(&r, heart->rgb, 3);
        }
    }
    fclose(r.file);
    if (r.failed) {
        floor_plan_free(plan);
        return -1;
    }
    return 0;
}

void floor_plan_free(floor_plan *plan) {
    for (uint32_t f = 0; plan->frames && f < plan->frame_count; f++) free(plan->frames[f].hearts);
    free(plan->frames);
    plan->frames = NULL;
}

/* plugins/gradient/gradient.c's render, with the host's state around it. */
void floor_draw_background(const floor_plan *plan, cairo_surface_t *surface) {
    cairo_t *cr = cairo_create(surface);
    cairo_save(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_rgba(cr, plan->background[0], plan->background[1], plan->background[2], plan->background[3]);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    cairo_scale(cr, plan->scale, plan->scale);
    if (plan->gradient) {
        cairo_save(cr);
        double radians = plan->angle * M_PI / 180.0;
        double cx = plan->canvas_width / 2, cy = plan->canvas_height / 2;
        double reach = (fabs(cos(radians)) * plan->canvas_width + fabs(sin(radians)) * plan->canvas_height) / 2;
        double dx = cos(radians) * reach, dy = sin(radians) * reach;
        cairo_pattern_t *linear = cairo_pattern_create_linear(cx - dx, cy - dy, cx + dx, cy + dy);
        cairo_pattern_add_color_stop_rgba(linear, 0, plan->from[0], plan->from[1], plan->from[2], plan->from[3]);
        cairo_pattern_add_color_stop_rgba(linear, 1, plan->to[0], plan->to[1], plan->to[2], plan->to[3]);
        cairo_set_source(cr, linear);
        cairo_paint(cr);
        cairo_pattern_destroy(linear);
        if (plan->vignette > 0) {
            double outer = sqrt(cx * cx + cy * cy);
            cairo_pattern_t *radial = cairo_pattern_create_radial(cx, cy, outer * 0.45, cx, cy, outer);
            cairo_pattern_add_color_stop_rgba(radial, 0, 0, 0, 0, 0);
            cairo_pattern_add_color_stop_rgba(radial, 1, 0, 0, 0, plan->vignette);
            cairo_set_source(cr, radial);
            cairo_paint(cr);
            cairo_pattern_destroy(radial);
        }
        cairo_restore(cr);
    }
    cairo_restore(cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
}

/* DrawingContext.quadCurve: a quadratic Bezier from the current point, elevated to a cubic. */
static void quad_to(cairo_t *cr, double x, double y, double cx, double cy) {
    double x0 = 0, y0 = 0;
    cairo_get_current_point(cr, &x0, &y0);
    cairo_curve_to(cr, x0 + 2.0 / 3.0 * (cx - x0), y0 + 2.0 / 3.0 * (cy - y0), x + 2.0 / 3.0 * (cx - x),
                   y + 2.0 / 3.0 * (cy - y), x, y);
}

/* plugins/floating-heart: HeartShape.addPath and FloatingHeart.draw. */
static void draw_heart(const floor_plan *plan, const floor_heart *h, cairo_t *cr) {
    const double padding = 2.0, size = h->size;
    double radius = floor((size - 2 * padding) / 4);
    double tip_x = floor(size / 2), tip_y = size - padding;
    double left_x = padding, left_y = floor(size / 3);
    cairo_save(cr);
    cairo_translate(cr, h->x, h->y);
    cairo_scale(cr, h->scale, h->scale);
    cairo_translate(cr, -size / 2, -size);
    cairo_rectangle(cr, -1, -1, size + 2, size + 2);
    cairo_clip(cr);
    cairo_push_group(cr);
    cairo_move_to(cr, tip_x, tip_y);
    quad_to(cr, left_x, left_y, left_x, left_y + radius);
    cairo_arc(cr, left_x + radius, left_y, radius, M_PI, 2 * M_PI);
    cairo_arc(cr, left_x + 3 * radius, left_y, radius, M_PI, 2 * M_PI);
    quad_to(cr, tip_x, tip_y, left_x + 4 * radius, left_y + radius);
    cairo_set_source_rgba(cr, h->rgb[0], h->rgb[1], h->rgb[2], 1);
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, plan->stroke[0], plan->stroke[1], plan->stroke[2], plan->stroke[3]);
    cairo_set_line_width(cr, 1);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_stroke(cr);
    cairo_pop_group_to_source(cr);
    cairo_paint_with_alpha(cr, h->alpha);
    cairo_restore(cr);
}

void floor_draw_hearts(const floor_plan *plan, const floor_frame *frame, cairo_t *cr) {
    cairo_save(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    cairo_scale(cr, plan->scale, plan->scale);
    cairo_save(cr);
    for (uint32_t h = 0; h < frame->count; h++) draw_heart(plan, &frame->hearts[h], cr);
    cairo_restore(cr);
    cairo_restore(cr);
}

static uint8_t unpremultiply[256][256];
static pthread_once_t unpremultiply_once = PTHREAD_ONCE_INIT;

static void build_unpremultiply(void) {
    for (int a = 1; a < 256; a++) {
        for (int c = 0; c < 256; c++) {
            int v = (c * 255 + a / 2) / a;
            unpremultiply[a][c] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

void floor_convert_row(const uint32_t *src, uint8_t *dst, uint32_t width, int opaque) {
    pthread_once(&unpremultiply_once, build_unpremultiply);
    for (uint32_t x = 0; x < width; x++) {
        uint32_t p = src[x];
        if (opaque) {
            dst[0] = (uint8_t)(p >> 16);
            dst[1] = (uint8_t)(p >> 8);
            dst[2] = (uint8_t)p;
            dst += 3;
        } else {
            const uint8_t *lut = unpremultiply[p >> 24];
            dst[0] = lut[(p >> 16) & 0xFF];
            dst[1] = lut[(p >> 8) & 0xFF];
            dst[2] = lut[p & 0xFF];
            dst[3] = (uint8_t)(p >> 24);
            dst += 4;
        }
    }
}

/* ---- floor_scene.h for the hearts plan: the gradient (a frame-invariant layer) drawn once per thread
 * over the background and copied into each frame, else the background painted on each frame; then the
 * hearts. That is FrameWorker.draw's rule, and it matters beyond speed: painting a fully transparent
 * background leaves cairo's image surface marked clear, and on a clear surface cairo reduces the first
 * OVER to SOURCE, whose pixman path rounds faint pixels differently (1 level out of 255) from an OVER
 * onto copied-in zero pixels. */

static int hearts_begin(const floor_scene *scene, cairo_surface_t *surface, void **state) {
    (void)surface;
    const floor_plan *plan = scene->plan;
    *state = NULL;
    if (!plan->gradient) return 0;
    cairo_surface_t *background =
        cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)scene->width, (int)scene->height);
    if (cairo_surface_status(background) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(background);
        return -1;
    }
    floor_draw_background(plan, background);
    *state = background;
    return 0;
}

static int hearts_draw(const floor_scene *scene, void *state, uint32_t f, cairo_surface_t *surface, cairo_t *cr) {
    const floor_plan *plan = scene->plan;
    cairo_surface_t *copy = state;
    if (copy) {
        /* ImageSurface.copyPixels: same size and format, so the rows line up. */
        size_t bytes = (size_t)cairo_image_surface_get_stride(surface) * plan->height;
        cairo_surface_flush(surface);
        memcpy(cairo_image_surface_get_data(surface), cairo_image_surface_get_data(copy), bytes);
        cairo_surface_mark_dirty(surface);
    } else {
        /* FrameWorker.drawLayers' background, on the frame's own context. */
        cairo_save(cr);
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
        cairo_set_source_rgba(cr, plan->background[0], plan->background[1], plan->background[2], plan->background[3]);
        cairo_paint(cr);
        cairo_restore(cr);
    }
    floor_draw_hearts(plan, &plan->frames[f], cr);
    cairo_surface_flush(surface);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

static void hearts_name(const floor_scene *scene, uint32_t f, char *out, size_t size) {
    const floor_plan *plan = scene->plan;
    snprintf(out, size, "frame_%05u.png", plan->frames[f].index);
}

static void hearts_end(void *state) {
    if (state) cairo_surface_destroy(state);
}

static void hearts_release(floor_scene *scene) {
    floor_plan_free(scene->plan);
    free(scene->plan);
    scene->plan = NULL;
}

int floor_hearts_scene(const char *path, floor_scene *scene) {
    floor_plan *plan = malloc(sizeof(*plan));
    if (!plan || floor_plan_read(path, plan) != 0) {
        fprintf(stderr, "renderfarm-bench-floor: %s is not a hearts plan\n", path);
        free(plan);
        return -1;
    }
    *scene = (floor_scene){
        .width = plan->width, .height = plan->height, .frame_count = plan->frame_count, .level = plan->level,
        .adaptive = plan->adaptive, .opaque = plan->background[3] >= 1.0, .plan = plan, .begin = hearts_begin,
        .draw = hearts_draw, .name = hearts_name, .end = hearts_end, .release = hearts_release,
    };
    return 0;
}

void floor_libpng_write(png_structp png, png_infop info, const uint8_t *pixels, uint32_t width, uint32_t height,
                        size_t stride, int opaque, int level, int adaptive, uint8_t *row) {
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, adaptive ? PNG_ALL_FILTERS : PNG_FILTER_NONE);
    png_set_IHDR(png, info, width, height, 8, opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) {
        floor_convert_row((const uint32_t *)(pixels + y * stride), row, width, opaque);
        png_write_row(png, row);
    }
    png_write_end(png, info);
}
