/*
 * test-asset: a plugin that ships an asset beside its library, built by `make test-plugin` (never
 * installed). create() reads the colour in `<plugin_dir>/<asset>` (six hex digits, "ff8000") and
 * names the file through input_files; render() fills the canvas with it. Without a folder from the
 * host (rf_plugin.plugin_dir left NULL) or without the file, create() fails naming the asset.
 */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "renderfarm_plugin.h"

/* Where the host writes the library's folder before any create(). */
static const char *plugin_dir = NULL;

typedef struct asset {
    char path[4096];
    unsigned rgb;
} asset;

static const rf_param parameters[] = {
    { "asset", RF_PARAM_STRING, "\"test-asset.color\"", 0, 0, NULL, "file beside the library: a colour as RRGGBB", 0 },
};

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    (void)ctx;
    const char *name = args->access->string(args->params, "asset");
    if (!plugin_dir) {
        snprintf(err, errlen, "asset: %s lies beside the plugin, and this renderfarm does not say where that is",
                 name ? name : "?");
        return RF_ERROR_RESOURCE;
    }
    asset *a = calloc(1, sizeof(*a));
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    if (!name || strchr(name, '/') ||
        snprintf(a->path, sizeof(a->path), "%s/%s", plugin_dir, name) >= (int)sizeof(a->path)) {
        free(a);
        snprintf(err, errlen, "asset: give a file name beside the plugin, without '/'");
        return RF_ERROR_PARAMS;
    }
    FILE *file = fopen(a->path, "r");
    if (!file || fscanf(file, "%6x", &a->rgb) != 1) {
        snprintf(err, errlen, "asset: cannot read a colour (RRGGBB) from %s", a->path);
        if (file) fclose(file);
        free(a);
        return RF_ERROR_RESOURCE;
    }
    fclose(file);
    *out = a;
    return RF_OK;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)frame, (void)err, (void)errlen;
    const asset *a = instance;
    cairo_set_source_rgb(cr, ((a->rgb >> 16) & 0xff) / 255.0, ((a->rgb >> 8) & 0xff) / 255.0, (a->rgb & 0xff) / 255.0);
    cairo_paint(cr);
    return RF_OK;
}

static int input_files(void *instance, rf_write_fn write, void *user) {
    const asset *a = instance;
    write(user, a->path, strlen(a->path));
    return RF_OK;
}

static void destroy(void *instance) { free(instance); }

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "test-asset",
    .identifier = "org.renderfarm.test.asset",
    .version = "1.0.0",
    .summary = "Fills the canvas with the colour of a file beside the library",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .destroy = destroy,
    .input_files = input_files,
    .plugin_dir = &plugin_dir,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
