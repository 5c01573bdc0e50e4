/*
 * example-stripes: an asset shipped beside the library (plugin_dir) and a create that is told which
 * descriptor it serves (create_with_plugin, plugin_data).
 *
 * Vertical stripes in the colours of a palette file, `example-stripes.palette`, that is installed next
 * to the library (one #RRGGBB per line), scrolling sideways at `speed` points per second.
 *
 *   - plugin_dir: the host writes the folder that holds the library (links resolved) into the
 *     variable the descriptor points at, before any create. create() builds the palette's path from
 *     it, reads the file there, and names it through input_files: editing the palette draws the
 *     frames again, and a sandboxed worker may read it.
 *   - create_with_plugin: create() that also receives the descriptor it is called through. Its
 *     plugin_data holds what differs between descriptors served by one set of functions (here the
 *     palette's file name); create() stays for hosts older than the field.
 *
 * Build (with the SDK installed) and try, the palette beside the library:
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -o librenderfarm-example-stripes.so \
 *       stripes.c $(pkg-config --cflags --libs renderfarm-plugin)
 *   renderfarm render stripes.json --plugin-path .
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <renderfarm/renderfarm_plugin.h>

#define MAX_COLORS 16

typedef struct stripes {
    char path[4096]; /* the palette file, as read */
    double colors[MAX_COLORS][3];
    int count;
    double width, speed;
} stripes;

/* Where the host writes the library's folder (NULL on a host older than plugin_dir). */
static const char *plugin_dir = NULL;

static const rf_param parameters[] = {
    { "width", RF_PARAM_NUMBER, "24", 1, 1000, NULL, "width of one stripe in points", 0 },
    { "speed", RF_PARAM_NUMBER, "40", -1000, 1000, NULL, "points per second the stripes move to the right", 0 },
};

/* The palette's lines (#RRGGBB, blank lines and '#'-comments after a space ignored) into s->colors. */
static int read_palette(stripes *s, char *err, size_t errlen) {
    FILE *file = fopen(s->path, "r");
    if (!file) {
        snprintf(err, errlen, "cannot read the palette %s beside the plugin; reinstall the plugin", s->path);
        return RF_ERROR_RESOURCE;
    }
    char line[128];
    int number = 0;
    while (fgets(line, sizeof line, file)) {
        unsigned rgb;
        number++;
        if (line[0] == '\n' || line[0] == ' ') continue;
        if (s->count == MAX_COLORS || sscanf(line, "#%6x", &rgb) != 1) {
            snprintf(err, errlen, "%s: line %d: %s", s->path, number,
                     s->count == MAX_COLORS ? "more than 16 colours" : "not a #RRGGBB colour");
            fclose(file);
            return RF_ERROR_RESOURCE;
        }
        s->colors[s->count][0] = ((rgb >> 16) & 255) / 255.0;
        s->colors[s->count][1] = ((rgb >> 8) & 255) / 255.0;
        s->colors[s->count][2] = (rgb & 255) / 255.0;
        s->count++;
    }
    fclose(file);
    if (s->count == 0) {
        snprintf(err, errlen, "%s holds no colour", s->path);
        return RF_ERROR_RESOURCE;
    }
    return RF_OK;
}

static void destroy(void *instance) { free(instance); }

static int create_with_plugin(const rf_plugin *plugin, const rf_create_args *args, const rf_context *ctx,
                              void **out, char *err, size_t errlen) {
    (void)ctx;
    const char *palette = plugin->plugin_data; /* this descriptor's palette file name */
    if (!plugin_dir) {
        snprintf(err, errlen, "this renderfarm does not tell plugins their folder (rf_plugin.plugin_dir): "
                              "it cannot find %s; use a newer renderfarm", palette);
        return RF_ERROR_UNSUPPORTED;
    }
    stripes *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    rf_param_number(args, "width", &s->width);
    rf_param_number(args, "speed", &s->speed);
    if (snprintf(s->path, sizeof s->path, "%s/%s", plugin_dir, palette) >= (int)sizeof s->path) {
        snprintf(err, errlen, "the plugin's folder is too long");
        destroy(s);
        return RF_ERROR_RESOURCE;
    }
    int status = read_palette(s, err, errlen);
    if (status != RF_OK) {
        destroy(s);
        return status;
    }
    *out = s;
    return RF_OK;
}

/* Hosts older than create_with_plugin call this; without the descriptor it cannot know its palette. */
static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    (void)args, (void)ctx, (void)out;
    snprintf(err, errlen, "this renderfarm is older than create_with_plugin; use a newer one");
    return RF_ERROR_UNSUPPORTED;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)err, (void)errlen;
    const stripes *s = instance;
    double left, top, right, bottom; /* the area to cover, in points */
    cairo_clip_extents(cr, &left, &top, &right, &bottom);
    double shift = s->speed * frame->local;
    for (long index = (long)((left - shift) / s->width) - 1; (double)index * s->width + shift < right; index++) {
        long color = ((index % s->count) + s->count) % s->count;
        cairo_set_source_rgb(cr, s->colors[color][0], s->colors[color][1], s->colors[color][2]);
        cairo_rectangle(cr, (double)index * s->width + shift, top, s->width, bottom - top);
        cairo_fill(cr);
    }
    return RF_OK;
}

static int input_files(void *instance, rf_write_fn write, void *user) {
    const stripes *s = instance;
    write(user, s->path, strlen(s->path));
    return RF_OK;
}

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "example-stripes",
    .identifier = "org.renderfarm.example.stripes",
    .version = "1.0.0",
    .summary = "Stripes in the colours of a palette installed beside the library",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .destroy = destroy,
    .create_with_plugin = create_with_plugin,
    .plugin_data = "example-stripes.palette",
    .input_files = input_files,
    .plugin_dir = &plugin_dir,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
