/*
 * test-sound: a plugin that plays sound and draws nothing, built by `make test-plugin` (never installed).
 * It proves the host mixes a layer's sound by the ABI alone (rf_plugin.sounds), knowing nothing of the
 * plugin: its parameters are the fields of one rf_sound, and `defect` hands the host a bad one on purpose.
 */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "renderfarm_plugin.h"

typedef struct sounding {
    char file[4096];
    rf_sound sound;
    char defect[32];
} sounding;

static const rf_param parameters[] = {
    { "file", RF_PARAM_STRING, NULL, 0, 0, NULL, "the sound file, relative to the job's folder", RF_PARAM_OPTIONAL },
    { "stream", RF_PARAM_INTEGER, "-1", -1, 4096, NULL, "the audio stream's index; -1: the first", 0 },
    { "gain", RF_PARAM_NUMBER, "0", -1000, 1000, NULL, "dB (the host checks -96…24)", 0 },
    { "start", RF_PARAM_NUMBER, "0", -1e6, 1e6, NULL, "layer seconds at which sourceStart is heard", 0 },
    { "sourceStart", RF_PARAM_NUMBER, "0", -1e6, 1e6, NULL, "seconds of the file", 0 },
    { "sourceLength", RF_PARAM_NUMBER, "0", -1e6, 1e6, NULL, "seconds of the file played; 0: to its end", 0 },
    { "speed", RF_PARAM_NUMBER, "1", -1e6, 1e6, NULL, "file seconds per layer second", 0 },
    { "loop", RF_PARAM_BOOL, "false", 0, 0, NULL, "play the part again and again", 0 },
    { "defect", RF_PARAM_ENUM, "\"none\"", 0, 0,
      "none|nan-speed|infinite-loop|unnamed-file|no-file|short-struct|many|null-sound|fails", "a bad sound on purpose",
      0 },
};

static double number(const rf_create_args *args, const char *name) {
    double value = 0;
    args->access->number(args->params, name, &value);
    return value;
}

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    sounding *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    const char *file = args->access->string(args->params, "file");
    const char *defect = args->access->string(args->params, "defect");
    snprintf(s->defect, sizeof(s->defect), "%s", defect ? defect : "none");
    if (file && snprintf(s->file, sizeof(s->file), "%s/%s", ctx->job_dir, file) >= (int)sizeof(s->file)) {
        free(s);
        snprintf(err, errlen, "file: the path is too long");
        return RF_ERROR_PARAMS;
    }
    double length = number(args, "sourceLength");
    s->sound = (rf_sound){
        .struct_size = sizeof(rf_sound),
        .file = s->file,
        .stream = (int32_t)number(args, "stream"),
        .gain = number(args, "gain"),
        .start = number(args, "start"),
        .source_start = number(args, "sourceStart"),
        .source_length = length == 0 ? INFINITY : length,
        .speed = number(args, "speed"),
        .loop = number(args, "loop") != 0,
    };
    *out = s;
    return RF_OK;
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)instance, (void)cr, (void)frame, (void)err, (void)errlen;
    return RF_OK;
}

static int input_files(void *instance, rf_write_fn write, void *user) {
    const sounding *s = instance;
    if (s->file[0] && strcmp(s->defect, "unnamed-file") != 0) write(user, s->file, strlen(s->file));
    return RF_OK;
}

static int sounds(void *instance, rf_sound_fn add, void *user) {
    const sounding *s = instance;
    if (!s->file[0]) return RF_OK;
    rf_sound sound = s->sound;
    const char *defect = s->defect;
    if (!strcmp(defect, "fails")) return RF_ERROR_RESOURCE;
    if (!strcmp(defect, "nan-speed")) sound.speed = NAN;
    if (!strcmp(defect, "infinite-loop")) sound.loop = 1, sound.source_length = INFINITY;
    if (!strcmp(defect, "no-file")) sound.file = NULL;
    if (!strcmp(defect, "short-struct")) sound.struct_size = 8;
    if (!strcmp(defect, "null-sound")) {
        add(user, NULL);
        return RF_OK;
    }
    int count = !strcmp(defect, "many") ? 1000 : 1;
    for (int i = 0; i < count; i++) add(user, &sound);
    return RF_OK;
}

static void destroy(void *instance) { free(instance); }

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "test-sound",
    .identifier = "org.renderfarm.test.sound",
    .version = "1.0.0",
    .summary = "Plays the part of a sound file its parameters say, and draws nothing",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .destroy = destroy,
    .input_files = input_files,
    .sounds = sounds,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
