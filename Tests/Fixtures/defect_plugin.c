/*
 * One plugin mistake each, for the tests of the host and of `renderfarm plugin check`: `make test-plugin`
 * builds this file once per DEFECT into .build/test-plugins/defects/librenderfarm-defect-<id>.so.
 * Every variant otherwise draws a sound 40-point green square at (20, 20) and traces it.
 *   DEFECT_UNSUPPORTED_TRACE  trace is set but answers RF_ERROR_UNSUPPORTED (Swift plugins built with an
 *                             older EffectKit did this for effects without a trace)
 *   DEFECT_NOISY              prints to stdout from create, render and trace
 *   DEFECT_IGNORES_SCALE      draws in pixels: resets cairo's matrix, so at scale 2 the square is half size
 *   DEFECT_WIPES_BACKDROP     clears the whole surface (CAIRO_OPERATOR_SOURCE) before drawing
 *   DEFECT_BAD_DEFAULT        the default of "size" is outside its own range
 */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>

#include "renderfarm_plugin.h"

#if defined(DEFECT_UNSUPPORTED_TRACE)
#define DEFECT_ID "unsupported-trace"
#elif defined(DEFECT_NOISY)
#define DEFECT_ID "noisy"
#elif defined(DEFECT_IGNORES_SCALE)
#define DEFECT_ID "ignores-scale"
#elif defined(DEFECT_WIPES_BACKDROP)
#define DEFECT_ID "wipes-backdrop"
#elif defined(DEFECT_BAD_DEFAULT)
#define DEFECT_ID "bad-default"
#else
#error "define one DEFECT_* macro"
#endif

#ifdef DEFECT_BAD_DEFAULT
#define SIZE_DEFAULT "400"
#else
#define SIZE_DEFAULT "40"
#endif

static const rf_param parameters[] = {
    { "size", RF_PARAM_NUMBER, SIZE_DEFAULT, 1, 100, NULL, "side of the square in points", 0 },
};

typedef struct square { double size; } square;

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    (void)ctx, (void)err, (void)errlen;
#ifdef DEFECT_NOISY
    printf("noisy: created\n");
#endif
    square *s = malloc(sizeof(*s));
    if (!s) return RF_ERROR_RESOURCE;
    if (!args->access->number(args->params, "size", &s->size)) s->size = 40;
    *out = s;
    return RF_OK;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)frame, (void)err, (void)errlen;
    const square *s = instance;
#ifdef DEFECT_NOISY
    printf("noisy: drawing frame %u\n", frame->index);
#endif
#ifdef DEFECT_IGNORES_SCALE
    cairo_identity_matrix(cr);
#endif
#ifdef DEFECT_WIPES_BACKDROP
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_rgba(cr, 0, 0, 0, 0);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
#endif
    cairo_set_source_rgba(cr, 0, 1, 0, 1);
    cairo_rectangle(cr, 20, 20, s->size, s->size);
    cairo_fill(cr);
    return RF_OK;
}

static int trace(void *instance, const rf_frame *frame, rf_write_fn write, void *user) {
    (void)frame;
#ifdef DEFECT_UNSUPPORTED_TRACE
    (void)instance, (void)write, (void)user;
    return RF_ERROR_UNSUPPORTED;
#else
    const square *s = instance;
#ifdef DEFECT_NOISY
    printf("noisy: tracing frame %u\n", frame->index);
#endif
    char items[160];
    int length = snprintf(items, sizeof(items),
                          "[{\"id\":0,\"x\":%g,\"y\":%g,\"scale\":1,\"alpha\":1,\"visible\":true,\"plan\":{}}]",
                          20 + s->size / 2, 20 + s->size / 2);
    write(user, items, (size_t)length);
    return RF_OK;
#endif
}

static void destroy(void *instance) { free(instance); }

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "defect-" DEFECT_ID,
    .identifier = "org.renderfarm.tests.defect-" DEFECT_ID,
    .version = "1.0.0",
    .summary = "A green square with one plugin mistake: " DEFECT_ID " (test fixture)",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .trace = trace,
    .destroy = destroy,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
