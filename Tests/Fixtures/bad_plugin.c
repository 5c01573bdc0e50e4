/*
 * bad-habits: a plugin that breaks the rules `renderfarm plugin check` enforces, for its tests.
 * Its version is not semantic, one parameter's default is outside its range and another has no
 * doc, render() prints to stdout and draws a different colour every call (global state), and its
 * trace puts the one item far from where the square is drawn.
 */
#include <cairo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "renderfarm_plugin.h"

static atomic_int calls;

static const rf_param parameters[] = {
    { "size", RF_PARAM_NUMBER, "500", 1, 100, NULL, "side in points", 0 },
    { "mood", RF_PARAM_NUMBER, "1", 0, 2, NULL, "", 0 },
};

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    (void)args, (void)ctx, (void)err, (void)errlen;
    *out = malloc(1);
    return *out ? RF_OK : RF_ERROR_RESOURCE;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)instance, (void)err, (void)errlen;
    printf("drawing frame %u\n", frame->index);
    int call = atomic_fetch_add(&calls, 1);
    cairo_set_source_rgba(cr, (call % 7) / 7.0, 0.5, 0.5, 1);
    cairo_rectangle(cr, 10, 10, 20, 20);
    cairo_fill(cr);
    return RF_OK;
}

static int trace(void *instance, const rf_frame *frame, rf_write_fn write, void *user) {
    (void)instance, (void)frame;
    static const char items[] = "[{\"id\":0,\"x\":300,\"y\":500,\"scale\":1,\"alpha\":1,\"visible\":true,\"plan\":{}}]";
    write(user, items, sizeof(items) - 1);
    return RF_OK;
}

static void destroy(void *instance) { free(instance); }

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "bad-habits",
    .identifier = "bad habits",
    .version = "1.0",
    .summary = "Breaks the rules plugin check enforces (test fixture)",
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
