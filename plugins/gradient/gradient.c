/*
 * gradient: a background effect in plain C against renderfarm_plugin.h, proving the ABI needs
 * no Swift. A linear gradient between two colours at any angle, with an optional vignette
 * (darkened corners). Stateless after create, so render is fully thread-safe.
 */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradient.h"

typedef struct gradient {
    double width, height;
    double from[4], to[4]; /* straight RGBA */
    double angle;          /* degrees; 90 = top to bottom */
    double vignette;       /* 0…1: corner darkening */
} gradient;

static const rf_param parameters[] = {
    { "from", RF_PARAM_COLOR, "\"#1B1B2F\"", 0, 0, NULL, "colour where the gradient starts", 0 },
    { "to", RF_PARAM_COLOR, "\"#3A1C71\"", 0, 0, NULL, "colour where the gradient ends", 0 },
    { "angle", RF_PARAM_NUMBER, "90", -360, 360, NULL,
      "direction in degrees: 0 = left to right, 90 = top to bottom", 0 },
    { "vignette", RF_PARAM_NUMBER, "0", 0, 1, NULL, "how much the corners darken (0 = none, 1 = black)", 0 },
};

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    gradient *g = calloc(1, sizeof(*g));
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    g->width = ctx->width;
    g->height = ctx->height;
    const rf_param_access *access = args->access;
    if (access->numbers(args->params, "from", g->from, 4) != 4 ||
        access->numbers(args->params, "to", g->to, 4) != 4) {
        snprintf(err, errlen, "from, to: expected colours");
        free(g);
        return RF_ERROR_PARAMS;
    }
    if (!access->number(args->params, "angle", &g->angle) ||
        !access->number(args->params, "vignette", &g->vignette)) {
        snprintf(err, errlen, "angle, vignette: expected numbers");
        free(g);
        return RF_ERROR_PARAMS;
    }
    *out = g;
    return RF_OK;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)frame;
    const gradient *g = instance;
    double radians = g->angle * M_PI / 180.0;
    double cx = g->width / 2, cy = g->height / 2;
    /* Half the extent of the canvas along the gradient direction: the line covers every pixel. */
    double reach = (fabs(cos(radians)) * g->width + fabs(sin(radians)) * g->height) / 2;
    double dx = cos(radians) * reach, dy = sin(radians) * reach;

    cairo_pattern_t *linear = cairo_pattern_create_linear(cx - dx, cy - dy, cx + dx, cy + dy);
    cairo_pattern_add_color_stop_rgba(linear, 0, g->from[0], g->from[1], g->from[2], g->from[3]);
    cairo_pattern_add_color_stop_rgba(linear, 1, g->to[0], g->to[1], g->to[2], g->to[3]);
    cairo_set_source(cr, linear);
    cairo_paint(cr);
    cairo_pattern_destroy(linear);

    if (g->vignette > 0) {
        double outer = sqrt(cx * cx + cy * cy);
        cairo_pattern_t *radial = cairo_pattern_create_radial(cx, cy, outer * 0.45, cx, cy, outer);
        cairo_pattern_add_color_stop_rgba(radial, 0, 0, 0, 0, 0);
        cairo_pattern_add_color_stop_rgba(radial, 1, 0, 0, 0, g->vignette);
        cairo_set_source(cr, radial);
        cairo_paint(cr);
        cairo_pattern_destroy(radial);
    }
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
        return RF_ERROR_RENDER;
    }
    return RF_OK;
}

static void destroy(void *instance) { free(instance); }

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "gradient",
    .identifier = "org.renderfarm.gradient",
    .version = "1.0.0",
    .summary = "Linear gradient background with an optional vignette (a plugin written in C)",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .trace = NULL,
    .destroy = destroy,
    .flags = RF_PLUGIN_FRAME_INVARIANT, /* render ignores the frame: the host draws it once */
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
