/*
 * test-faults: a test double for the render farm, built by `make test-plugin` (not a product:
 * it never shows up in `renderfarm plugins` unless a test puts it on --plugin-path).
 *
 * Draws a square whose colour depends on the frame, and fails on chosen frames: every attempt,
 * or only the first `failAttempts` attempts of each chosen frame (to exercise retries).
 * `failWhileFileExists` makes the chosen frames fail only while that file exists, so a test can
 * let a render fail in one process (a Slurm task) and succeed in a later one with the same job.
 * `delayMs` slows each frame down so kill tests can interrupt a render in the middle (at most 3 s:
 * plugin check renders at the ends of every range, and each check of this plugin sleeps that long).
 * `crashFrames`, `abortFrames` and `hangFrames` make the chosen frames segfault, abort or never
 * return, for the crash-containment tests (`render --isolate`). `waitFrames` wait while the file
 * `waitWhileFileExists` exists, so a test holds a render in the middle for as long as it needs.
 * `holdFrames` N > 0 keeps the square's colour for N frames and reports frame keys (ABI
 * `frame_key`), `markFrames` draws chosen frames red, and `prepareLog` names a file that
 * `prepare` appends "FIRST LAST" to ("FIRST LAST CACHE" through `prepare_with_cache`, "-" for no
 * cache folder): the frame-key, reuse, incremental re-render and cache tests.
 */
#include <cairo.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "renderfarm_plugin.h"

#include <stdint.h>

#define MAX_FRAMES 100000
enum { FAULT_SEGV = 2, FAULT_ABORT = 3, FAULT_HANG = 4, FAULT_WAIT = 5 };

typedef struct faults {
    double width, height;
    unsigned char *fail;     /* 1 for frames that fail; FAULT_* for frames that crash or hang */
    atomic_int *attempts;    /* attempts seen per frame */
    double fail_attempts;    /* <= 0: fail every attempt */
    double delay_ms;
    char *marker;            /* non-NULL: chosen frames fail only while this file exists */
    char *gate;              /* non-NULL: waitFrames wait while this file exists */
    double hold;             /* > 0: the colour changes every `hold` frames, and frames have keys */
    unsigned char *marked;   /* 1 for frames drawn red */
    char *prepare_log;       /* non-NULL: prepare appends "first last" here */
    double key_ignores_marks; /* nonzero: frame_key leaves the red frames out (a wrong key) */
} faults;

static const rf_param parameters[] = {
    { "failFrames", RF_PARAM_NUMBER_LIST, "[]", 0, MAX_FRAMES - 1, NULL, "frames whose render fails", 0 },
    { "failAttempts", RF_PARAM_INTEGER, "0", 0, 100, NULL,
      "fail only the first N attempts of each chosen frame (0 = every attempt)", 0 },
    { "delayMs", RF_PARAM_NUMBER, "0", 0, 3000, NULL, "sleep this long in every render", 0 },
    { "failWhileFileExists", RF_PARAM_STRING, "\"\"", 0, 0, NULL,
      "if set: the chosen frames fail only while this file exists", 0 },
    { "crashFrames", RF_PARAM_NUMBER_LIST, "[]", 0, MAX_FRAMES - 1, NULL, "frames whose render segfaults", 0 },
    { "abortFrames", RF_PARAM_NUMBER_LIST, "[]", 0, MAX_FRAMES - 1, NULL, "frames whose render aborts", 0 },
    { "hangFrames", RF_PARAM_NUMBER_LIST, "[]", 0, MAX_FRAMES - 1, NULL, "frames whose render never returns", 0 },
    { "waitFrames", RF_PARAM_NUMBER_LIST, "[]", 0, MAX_FRAMES - 1, NULL,
      "frames whose render waits while waitWhileFileExists exists", 0 },
    { "waitWhileFileExists", RF_PARAM_STRING, "\"\"", 0, 0, NULL, "the file waitFrames wait for to go", 0 },
    { "holdFrames", RF_PARAM_INTEGER, "0", 0, MAX_FRAMES, NULL,
      "keep each colour for N frames and report frame keys (0: no keys)", 0 },
    { "markFrames", RF_PARAM_NUMBER_LIST, "[]", 0, MAX_FRAMES - 1, NULL, "frames drawn red", 0 },
    { "keyIgnoresMarks", RF_PARAM_BOOL, "false", 0, 1, NULL,
      "a wrong frame key that leaves markFrames out (for plugin check)", 0 },
    { "prepareLog", RF_PARAM_STRING, "\"\"", 0, 0, NULL, "prepare appends \"FIRST LAST\" to this file", 0 },
};

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    faults *f = calloc(1, sizeof(*f));
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    f->width = ctx->width;
    f->height = ctx->height;
    f->fail = calloc(MAX_FRAMES, 1);
    f->attempts = calloc(MAX_FRAMES, sizeof(atomic_int));
    if (!f->fail || !f->attempts) {
        free(f->fail);
        free(f->attempts);
        free(f);
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    double frames[1024];
    size_t count = args->access->numbers(args->params, "failFrames", frames, 1024);
    for (size_t i = 0; i < count && i < 1024; i++) f->fail[(int)frames[i]] = 1;
    static const struct { const char *name; unsigned char fault; } faults_by_name[] = {
        { "crashFrames", FAULT_SEGV }, { "abortFrames", FAULT_ABORT }, { "hangFrames", FAULT_HANG },
        { "waitFrames", FAULT_WAIT },
    };
    for (size_t kind = 0; kind < 4; kind++) {
        count = args->access->numbers(args->params, faults_by_name[kind].name, frames, 1024);
        for (size_t i = 0; i < count && i < 1024; i++) f->fail[(int)frames[i]] = faults_by_name[kind].fault;
    }
    args->access->number(args->params, "failAttempts", &f->fail_attempts);
    args->access->number(args->params, "holdFrames", &f->hold);
    args->access->number(args->params, "keyIgnoresMarks", &f->key_ignores_marks);
    f->marked = calloc(MAX_FRAMES, 1);
    count = f->marked ? args->access->numbers(args->params, "markFrames", frames, 1024) : 0;
    for (size_t i = 0; i < count && i < 1024; i++) f->marked[(int)frames[i]] = 1;
    const char *log = args->access->string(args->params, "prepareLog");
    if (log && log[0]) f->prepare_log = strdup(log);
    args->access->number(args->params, "delayMs", &f->delay_ms);
    const char *gate = args->access->string(args->params, "waitWhileFileExists");
    if (gate && gate[0]) f->gate = strdup(gate);
    const char *marker = args->access->string(args->params, "failWhileFileExists");
    if (marker && marker[0]) {
        f->marker = strdup(marker);
        if (!f->marker) {
            free(f->fail);
            free(f->attempts);
            free(f);
            snprintf(err, errlen, "out of memory");
            return RF_ERROR_RESOURCE;
        }
    }
    *out = f;
    return RF_OK;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    faults *f = instance;
    if (f->delay_ms > 0) {
        struct timespec pause = { (time_t)(f->delay_ms / 1000), (long)(fmod(f->delay_ms, 1000) * 1e6) };
        nanosleep(&pause, NULL);
    }
    if (frame->index < MAX_FRAMES && f->fail[frame->index] == FAULT_SEGV) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (frame->index < MAX_FRAMES && f->fail[frame->index] == FAULT_ABORT) abort();
    while (frame->index < MAX_FRAMES && f->fail[frame->index] == FAULT_HANG) pause();
    if (frame->index < MAX_FRAMES && f->fail[frame->index] == FAULT_WAIT && f->gate) {
        struct timespec tick = { 0, 5000000 };
        while (access(f->gate, F_OK) == 0) nanosleep(&tick, NULL);
    }
    if (frame->index < MAX_FRAMES && f->fail[frame->index] == 1 && (!f->marker || access(f->marker, F_OK) == 0)) {
        int attempt = atomic_fetch_add(&f->attempts[frame->index], 1) + 1;
        if (f->fail_attempts <= 0 || attempt <= f->fail_attempts) {
            snprintf(err, errlen, "injected failure on frame %u (attempt %d)", frame->index, attempt);
            return RF_ERROR_RENDER;
        }
    }
    uint32_t step = f->hold > 0 ? frame->index / (uint32_t)f->hold : frame->index;
    double shade = (step % 50) / 50.0;
    if (f->marked && frame->index < MAX_FRAMES && f->marked[frame->index])
        cairo_set_source_rgba(cr, 1, 0, 0, 1);
    else
        cairo_set_source_rgba(cr, shade, 0.4, 1 - shade, 1);
    cairo_rectangle(cr, f->width / 4, f->height / 4, f->width / 2, f->height / 2);
    cairo_fill(cr);
    return RF_OK;
}

/* prepare and frame_key came with RF_FRAME_KEY_SIZE: built against an older header (the SDK test
 * does), the plugin has neither and its struct_size ends before them. */
#ifdef RF_FRAME_KEY_SIZE
/* Appends "FIRST LAST" to the prepareLog file, with " CACHE" when `with_cache` ("-" for no folder). */
static void log_prepare(const faults *f, uint32_t first, uint32_t last, int with_cache, const char *cache_dir) {
    if (!f->prepare_log) return;
    FILE *log = fopen(f->prepare_log, "a");
    if (!log) return;
    fprintf(log, "%u %u", first, last);
    if (with_cache) fprintf(log, " %s", cache_dir ? cache_dir : "-");
    fputc('\n', log);
    fclose(log);
}

static int prepare(void *instance, uint32_t first, uint32_t last, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    log_prepare(instance, first, last, 0, NULL);
    return RF_OK;
}

#ifdef RF_CACHE_FOLDER
/* prepare with the job's cache folder: logs "FIRST LAST CACHE". */
static int prepare_with_cache(void *instance, uint32_t first, uint32_t last, const char *cache_dir, char *err,
                              size_t errlen) {
    (void)err;
    (void)errlen;
    log_prepare(instance, first, last, 1, cache_dir);
    return RF_OK;
}
#endif

/* What render draws: the colour step, or red. */
static int frame_key(void *instance, const rf_frame *frame, uint8_t *key) {
    faults *f = instance;
    if (f->hold <= 0) return RF_ERROR_UNSUPPORTED;
    int red = !f->key_ignores_marks && f->marked && frame->index < MAX_FRAMES && f->marked[frame->index];
    uint64_t step = red ? UINT64_MAX : (frame->index / (uint32_t)f->hold) % 50;
    memset(key, 0, RF_FRAME_KEY_SIZE);
    memcpy(key, &step, sizeof(step));
    return RF_OK;
}
#endif

static void destroy(void *instance) {
    faults *f = instance;
    free(f->marked);
    free(f->prepare_log);
    free(f->fail);
    free(f->attempts);
    free(f->marker);
    free(f->gate);
    free(f);
}

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "test-faults",
    .identifier = "org.renderfarm.tests.faults",
    .version = "1.0.0",
    .summary = "Test double: a square per frame, failing on chosen frames",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .trace = NULL,
    .destroy = destroy,
#ifdef RF_PLUGIN_KEYS_COVER_PARAMS
    /* The key holds the colour step and the red marks: every parameter that changes a pixel (but with
     * keyIgnoresMarks, the wrong key some tests need). */
    .flags = RF_PLUGIN_KEYS_COVER_PARAMS,
#endif
#ifdef RF_FRAME_KEY_SIZE
    .prepare = prepare,
    .frame_key = frame_key,
#endif
#ifdef RF_CACHE_FOLDER
    .prepare_with_cache = prepare_with_cache,
#endif
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
