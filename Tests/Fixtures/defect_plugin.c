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
 *   DEFECT_KEY_IGNORES_PARAM  reports frame keys and declares RF_PLUGIN_KEYS_COVER_PARAMS, but its key leaves
 *                             out "color", which changes the pixels
 *   DEFECT_COVERED_KEYS       no mistake: the passing twin of key-ignores-param, whose key covers "color" too
 *   DEFECT_NAN_BOUND          the minimum of "size" is NaN (once crashed every command that searched it)
 *   DEFECT_INFINITE_BOUNDS    "size" is bounded by -inf and +inf: legal, unbounded
 *   DEFECT_BAD_NAMES          a second "size", an empty name and a NULL name
 *   DEFECT_BAD_EVENTS         an events row whose schema "color:colour|size" is not name:type
 *   DEFECT_RANDOM             moves the square by rand() in render: frames differ each time they are drawn
 *   DEFECT_TRACE_FAR          traces the square at (300, 600), far from where it is drawn
 *   DEFECT_CRASH_AT_3         writes through a NULL pointer when drawing frame 3 (SIGSEGV)
 *   DEFECT_ABORT_AT_3         calls abort() when drawing frame 3 (SIGABRT)
 *   DEFECT_HANG_AT_3          never returns from drawing frame 3
 *   DEFECT_ERROR_AT_3         fails frame 3 with RF_ERROR_RENDER
 *   DEFECT_LEAK               keeps 1 MiB it allocated (and wrote) in every render
 *   DEFECT_PARAM_FILES        no mistake: reads its size from style-a.txt or style-b.txt in the job's folder, as its
 *                             "style" says, and names that file through input_files
 * (plugin check renders frames 0, 29, 59, 89 and 119 unless told --frames: the four at-3 variants pass it.)
 * The two keyed variants draw more, each part from a parameter of its own: the square (a circle with "shape")
 * at "at", an "outline", one bar per character of "label" under it, a bar over it that grows to "size" in the
 * job's duration, and "events" that turn the square their colour (white without one) from their time on.
 */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#elif defined(DEFECT_KEY_IGNORES_PARAM)
#define DEFECT_ID "key-ignores-param"
#define KEYED 1
#elif defined(DEFECT_NAN_BOUND)
#define DEFECT_ID "nan-bound"
#elif defined(DEFECT_INFINITE_BOUNDS)
#define DEFECT_ID "infinite-bounds"
#elif defined(DEFECT_BAD_NAMES)
#define DEFECT_ID "bad-names"
#elif defined(DEFECT_BAD_EVENTS)
#define DEFECT_ID "bad-events"
#elif defined(DEFECT_RANDOM)
#define DEFECT_ID "random"
#elif defined(DEFECT_TRACE_FAR)
#define DEFECT_ID "trace-far"
#elif defined(DEFECT_CRASH_AT_3)
#define DEFECT_ID "crash-at-3"
#elif defined(DEFECT_ABORT_AT_3)
#define DEFECT_ID "abort-at-3"
#elif defined(DEFECT_HANG_AT_3)
#define DEFECT_ID "hang-at-3"
#include <unistd.h>
#elif defined(DEFECT_ERROR_AT_3)
#define DEFECT_ID "error-at-3"
#elif defined(DEFECT_LEAK)
#define DEFECT_ID "leak"
#elif defined(DEFECT_PARAM_FILES)
#define DEFECT_ID "param-files"
#elif defined(DEFECT_COVERED_KEYS)
#define DEFECT_ID "covered-keys"
#define KEYED 1
#else
#error "define one DEFECT_* macro"
#endif

#ifdef DEFECT_BAD_DEFAULT
#define SIZE_DEFAULT "400"
#else
#define SIZE_DEFAULT "40"
#endif

#ifdef KEYED
#define MAX_EVENTS 64

static const rf_param parameters[] = {
    { "size", RF_PARAM_NUMBER, SIZE_DEFAULT, 1, 100, NULL, "side of the square in points", 0 },
    { "color", RF_PARAM_COLOR, "\"#00FF00\"", 0, 0, NULL, "fill of the square", 0 },
    { "shape", RF_PARAM_ENUM, "\"square\"", 0, 0, "square|circle", "square or circle", 0 },
    { "outline", RF_PARAM_BOOL, "false", 0, 1, NULL, "a dark outline around the shape", 0 },
    { "at", RF_PARAM_POINT, "[20, 20]", 0, 300, NULL, "top left corner of the square", 0 },
    { "label", RF_PARAM_STRING, "\"ab\"", 0, 0, NULL, "one bar under the square per character", 0 },
    { "events", RF_PARAM_EVENTS, NULL, 0, 3600, "color:color", "the square takes the event's colour from its time",
      RF_PARAM_OPTIONAL },
};

typedef struct flash { double time, rgba[4]; } flash;

typedef struct square {
    double size, rgba[4], circle, outline, x, y, duration;
    size_t bars, flash_count;
    flash flashes[MAX_EVENTS];
} square;

/* "#RRGGBB" at `text` into straight r, g, b (alpha 1); 0 when it is not one. */
static int parse_hex(const char *text, double rgba[4]) {
    unsigned r, g, b;
    if (sscanf(text, "#%2x%2x%2x", &r, &g, &b) != 3) return 0;
    rgba[0] = r / 255.0, rgba[1] = g / 255.0, rgba[2] = b / 255.0, rgba[3] = 1;
    return 1;
}

/* The events as the host hands them over, [{"time": 1, "color": "#FF0000"}, ...] sorted by time: each
 * object's time and colour (white without one). */
static size_t read_events(const char *json, flash *out) {
    size_t count = 0;
    for (const char *object = json ? strchr(json, '{') : NULL; object && count < MAX_EVENTS;
         object = strchr(object + 1, '{')) {
        const char *end = strchr(object, '}');
        const char *time = strstr(object, "\"time\":");
        if (!end || !time || time > end) continue;
        flash *f = &out[count++];
        f->time = strtod(time + 7, NULL);
        f->rgba[0] = f->rgba[1] = f->rgba[2] = f->rgba[3] = 1;
        const char *color = strstr(object, "\"color\":\"");
        if (color && color < end) parse_hex(color + 9, f->rgba);
    }
    return count;
}

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    square *s = calloc(1, sizeof(*s));
    if (!s) return RF_ERROR_RESOURCE;
    const char *shape = args->access->string(args->params, "shape");
    const char *label = args->access->string(args->params, "label");
    if (!rf_param_number(args, "size", &s->size) || !rf_param_color(args, "color", (rf_color *)s->rgba) ||
        !rf_param_number(args, "outline", &s->outline) || !rf_param_point(args, "at", &s->x, &s->y) || !shape ||
        !label) {
        free(s);
        snprintf(err, errlen, "parameters missing");
        return RF_ERROR_PARAMS;
    }
    s->circle = strcmp(shape, "circle") == 0;
    s->bars = strlen(label);
    s->duration = ctx->duration;
    s->flash_count = read_events(args->access->json(args->params, "events"), s->flashes);
    *out = s;
    return RF_OK;
}

/* What frame `frame` draws: the fill (the latest event's colour, else "color") and the growing bar's width. */
static const double *fill_of(const square *s, const rf_frame *frame, double *bar) {
    const double *rgba = s->rgba;
    for (size_t index = 0; index < s->flash_count && s->flashes[index].time <= frame->local; index++) {
        rgba = s->flashes[index].rgba;
    }
    double progress = frame->local / s->duration;
    *bar = s->size * (progress < 0 ? 0 : progress > 1 ? 1 : progress);
    return rgba;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)err, (void)errlen;
    const square *s = instance;
    double bar;
    const double *rgba = fill_of(s, frame, &bar);
    if (s->circle) {
        cairo_arc(cr, s->x + s->size / 2, s->y + s->size / 2, s->size / 2, 0, 6.283185307179586);
    } else {
        cairo_rectangle(cr, s->x, s->y, s->size, s->size);
    }
    cairo_set_source_rgba(cr, rgba[0], rgba[1], rgba[2], rgba[3]);
    if (s->outline) {
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, 0, 0, 0.3, 1);
        cairo_stroke(cr);
    } else {
        cairo_fill(cr);
    }
    cairo_set_source_rgba(cr, 0.2, 0.2, 0.8, 1);
    for (size_t index = 0; index < s->bars; index++) cairo_rectangle(cr, s->x + 6.0 * index, s->y + s->size + 4, 4, 4);
    if (bar > 0) cairo_rectangle(cr, s->x, s->y - 6, bar, 4);
    cairo_fill(cr);
    return RF_OK;
}

/* FNV-1a over the bytes of what the frame draws. */
static void mix(uint64_t *hash, const void *bytes, size_t length) {
    for (size_t index = 0; index < length; index++) *hash = (*hash ^ ((const uint8_t *)bytes)[index]) * 0x100000001b3ull;
}

static int frame_key(void *instance, const rf_frame *frame, uint8_t *key) {
    const square *s = instance;
    double bar;
    const double *rgba = fill_of(s, frame, &bar);
    double drawn[] = { s->size, s->circle, s->outline, s->x, s->y, (double)s->bars, bar };
    uint64_t hash = 0xcbf29ce484222325ull;
    mix(&hash, drawn, sizeof(drawn));
#ifdef DEFECT_KEY_IGNORES_PARAM
    if (rgba != s->rgba) mix(&hash, rgba, 4 * sizeof(double)); /* the mistake: "color" itself is left out */
#else
    mix(&hash, rgba, 4 * sizeof(double));
#endif
    memset(key, 0, RF_FRAME_KEY_SIZE);
    memcpy(key, &hash, sizeof(hash));
    return RF_OK;
}
#else
static const rf_param parameters[] = {
#if defined(DEFECT_NAN_BOUND)
    { "size", RF_PARAM_NUMBER, SIZE_DEFAULT, NAN, 100, NULL, "side of the square in points", 0 },
#elif defined(DEFECT_INFINITE_BOUNDS)
    { "size", RF_PARAM_NUMBER, SIZE_DEFAULT, -INFINITY, INFINITY, NULL, "side of the square in points", 0 },
#else
    { "size", RF_PARAM_NUMBER, SIZE_DEFAULT, 1, 100, NULL, "side of the square in points", 0 },
#endif
#if defined(DEFECT_BAD_NAMES)
    { "size", RF_PARAM_NUMBER, "2", 1, 100, NULL, "the same name again", 0 },
    { "", RF_PARAM_BOOL, "false", 0, 1, NULL, "an empty name", 0 },
    { NULL, RF_PARAM_BOOL, "false", 0, 1, NULL, "no name at all", 0 },
#elif defined(DEFECT_BAD_EVENTS)
    { "events", RF_PARAM_EVENTS, NULL, 0, 3600, "color:colour|size", "a schema with a typo", RF_PARAM_OPTIONAL },
#elif defined(DEFECT_PARAM_FILES)
    { "style", RF_PARAM_ENUM, "\"a\"", 0, 0, "a|b", "which file of the job's folder, style-a.txt or style-b.txt, "
      "gives the side of the square", 0 },
#endif
};

typedef struct square {
    double size;
#ifdef DEFECT_PARAM_FILES
    char file[4096];
#endif
} square;

#ifdef DEFECT_LEAK
/* volatile: the compiler must keep every allocation (one it could prove unused it may leave out). */
static void *volatile leaked;
#endif
#ifdef DEFECT_CRASH_AT_3
/* NULL, but volatile: the compiler cannot know, so the store through it happens (and faults). */
static int *volatile nowhere;
#endif

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    (void)ctx, (void)err, (void)errlen;
#ifdef DEFECT_NOISY
    printf("noisy: created\n");
#endif
    square *s = malloc(sizeof(*s));
    if (!s) return RF_ERROR_RESOURCE;
    if (!args->access->number(args->params, "size", &s->size)) s->size = 40;
#ifdef DEFECT_PARAM_FILES
    const char *style = args->access->string(args->params, "style");
    snprintf(s->file, sizeof s->file, "%s/style-%s.txt", ctx->job_dir, style ? style : "a");
    FILE *file = fopen(s->file, "r");
    if (!file) {
        snprintf(err, errlen, "style: cannot open %s", s->file);
        free(s);
        return RF_ERROR_PARAMS;
    }
    double size = 0;
    if (fscanf(file, "%lf", &size) == 1 && size >= 1 && size <= 100) s->size = size;
    fclose(file);
#endif
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
    double x = 20;
#ifdef DEFECT_RANDOM
    x += rand() % 100; /* the mistake: a draw in render, not from ctx->seed in create */
#endif
#if defined(DEFECT_CRASH_AT_3)
    if (frame->index == 3) *(volatile int *)nowhere = 1;
#elif defined(DEFECT_ABORT_AT_3)
    if (frame->index == 3) abort();
#elif defined(DEFECT_HANG_AT_3)
    while (frame->index == 3) pause();
#elif defined(DEFECT_ERROR_AT_3)
    if (frame->index == 3) {
        snprintf(err, errlen, "the plan ran out at frame 3 (test fixture)");
        return RF_ERROR_RENDER;
    }
#elif defined(DEFECT_LEAK)
    char *kept = malloc(1 << 20);
    if (kept) memset(kept, 1, 1 << 20); /* written, so it is resident */
    leaked = kept;                      /* never freed: the previous block is lost */
#endif
    cairo_set_source_rgba(cr, 0, 1, 0, 1);
    cairo_rectangle(cr, x, 20, s->size, s->size);
    cairo_fill(cr);
    return RF_OK;
}
#endif

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
#if defined(KEYED)
    double x = s->x, y = s->y;
#elif defined(DEFECT_TRACE_FAR)
    double x = 300, y = 600; /* the mistake: not where render draws the square */
#else
    double x = 20, y = 20;
#endif
    char items[160];
    int length = snprintf(items, sizeof(items),
                          "[{\"id\":0,\"x\":%g,\"y\":%g,\"scale\":1,\"alpha\":1,\"visible\":true,\"plan\":{}}]",
                          x + s->size / 2, y + s->size / 2);
    write(user, items, (size_t)length);
    return RF_OK;
#endif
}

static void destroy(void *instance) { free(instance); }

#ifdef DEFECT_PARAM_FILES
static int input_files(void *instance, rf_write_fn write, void *user) {
    const square *s = instance;
    write(user, s->file, strlen(s->file));
    return RF_OK;
}
#endif

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
#ifdef DEFECT_PARAM_FILES
    .input_files = input_files,
#endif
#ifdef KEYED
    .frame_key = frame_key,
    .flags = RF_PLUGIN_KEYS_COVER_PARAMS,
#endif
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
