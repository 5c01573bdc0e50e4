/*
 * test-probe: a test double for layer composition, built by `make test-plugin` (never installed).
 *
 * Fills `rect` ([x, y, width, height] in points) with `color` ([r, g, b, a], 0…1, straight
 * alpha). With `showTime`, the colour tells which frame the host asked for instead: red is the
 * local time in hundredths of a second (0…255), green the frame index modulo 256, blue 255.
 * `keyed` reports frame keys (what the frame draws); `trace` reports one item at the rect's centre.
 * `verifyLog` names a file in the job's folder that `verify` appends a line to: the processes that
 * verified the layer; `createLog` one that `create` appends a line to: the processes that made an instance.
 */
#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "renderfarm_plugin.h"

typedef struct probe {
    double rect[4];
    double color[4];
    double show_time;
    double keyed;
    char verify_log[4096]; /* absolute path, or empty */
} probe;

static const rf_param parameters[] = {
    { "rect", RF_PARAM_NUMBER_LIST, "[0, 0, 100, 100]", -100000, 100000, NULL, "[x, y, width, height] in points", 0 },
    { "color", RF_PARAM_NUMBER_LIST, "[1, 0, 0, 1]", 0, 1, NULL, "[r, g, b, a], 0-1, straight alpha", 0 },
    { "showTime", RF_PARAM_BOOL, "false", 0, 1, NULL, "colour = local time (red, 1/100 s) and frame (green)", 0 },
    { "keyed", RF_PARAM_BOOL, "false", 0, 1, NULL, "report frame keys", 0 },
    { "verifyLog", RF_PARAM_STRING, NULL, 0, 0, NULL, "file in the job's folder that verify appends to",
      RF_PARAM_OPTIONAL },
    { "createLog", RF_PARAM_STRING, NULL, 0, 0, NULL, "file in the job's folder that create appends to",
      RF_PARAM_OPTIONAL },
};

/* Appends `line` and a newline to the file at `path`; 0, or -1 when it cannot be opened. */
static int append_line(const char *path, const char *line) {
    FILE *file = fopen(path, "a");
    if (!file) return -1;
    fprintf(file, "%s\n", line);
    fclose(file);
    return 0;
}

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    probe *p = calloc(1, sizeof(*p));
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    if (args->access->numbers(args->params, "rect", p->rect, 4) != 4 ||
        args->access->numbers(args->params, "color", p->color, 4) != 4) {
        free(p);
        snprintf(err, errlen, "rect and color take 4 numbers each");
        return RF_ERROR_PARAMS;
    }
    args->access->number(args->params, "showTime", &p->show_time);
    args->access->number(args->params, "keyed", &p->keyed);
    const char *log = args->access->string(args->params, "verifyLog");
    if (log && snprintf(p->verify_log, sizeof(p->verify_log), "%s/%s", ctx->job_dir, log) >= (int)sizeof(p->verify_log)) {
        free(p);
        snprintf(err, errlen, "verifyLog: too long");
        return RF_ERROR_PARAMS;
    }
    const char *created = args->access->string(args->params, "createLog");
    char path[4096];
    if (created && (snprintf(path, sizeof(path), "%s/%s", ctx->job_dir, created) >= (int)sizeof(path) ||
                    append_line(path, "created") != 0)) {
        free(p);
        snprintf(err, errlen, "createLog: cannot append to it");
        return RF_ERROR_PARAMS;
    }
    *out = p;
    return RF_OK;
}

/* The colour frame `frame` is filled with. */
static void color_of(const probe *p, const rf_frame *frame, double rgba[4]) {
    if (p->show_time) {
        double hundredths = fmin(fmax(round(frame->local * 100), 0), 255);
        rgba[0] = hundredths / 255;
        rgba[1] = (frame->index % 256) / 255.0;
        rgba[2] = 1;
        rgba[3] = 1;
    } else {
        memcpy(rgba, p->color, sizeof(p->color));
    }
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    probe *p = instance;
    double rgba[4];
    color_of(p, frame, rgba);
    cairo_set_source_rgba(cr, rgba[0], rgba[1], rgba[2], rgba[3]);
    cairo_rectangle(cr, p->rect[0], p->rect[1], p->rect[2], p->rect[3]);
    cairo_fill(cr);
    return RF_OK;
}

static int trace(void *instance, const rf_frame *frame, rf_write_fn write, void *user) {
    (void)frame;
    probe *p = instance;
    char text[256];
    int length = snprintf(text, sizeof(text),
                          "[{\"id\": 0, \"x\": %.17g, \"y\": %.17g, \"scale\": 1, \"alpha\": %.17g, "
                          "\"visible\": true}]",
                          p->rect[0] + p->rect[2] / 2, p->rect[1] + p->rect[3] / 2, p->color[3]);
    write(user, text, (size_t)length);
    return RF_OK;
}

static int frame_key(void *instance, const rf_frame *frame, uint8_t *key) {
    probe *p = instance;
    if (!p->keyed) return RF_ERROR_UNSUPPORTED;
    double rgba[4];
    color_of(p, frame, rgba);
    memset(key, 0, RF_FRAME_KEY_SIZE);
    memcpy(key, rgba, sizeof(rgba));
    return RF_OK;
}

static int verify(void *instance, char *err, size_t errlen) {
    probe *p = instance;
    if (!p->verify_log[0] || append_line(p->verify_log, "verified") == 0) return RF_OK;
    snprintf(err, errlen, "verifyLog: cannot append to %s", p->verify_log);
    return RF_ERROR_PARAMS;
}

static void destroy(void *instance) { free(instance); }

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "test-probe",
    .identifier = "org.renderfarm.tests.probe",
    .version = "1.0.0",
    .summary = "Test double: a rectangle of one colour, or of the time it was asked for",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .trace = trace,
    .destroy = destroy,
    .frame_key = frame_key,
    .verify = verify,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
