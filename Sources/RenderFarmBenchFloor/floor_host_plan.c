/*
 * Reads the plugin ABI host's text plan (format in Sources/RenderFarmBench/HostPlan.swift):
 * keywords, numbers in shortest round-trip form (strtod reads them back exactly), and strings
 * as <byte count>:<bytes>. Any surprise fails the whole read; nothing is trusted blindly.
 */
#include "floor_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *at, *end; /* the text, NUL-terminated at end */
    int failed;
} cursor;

static void skip_space(cursor *c) {
    while (c->at < c->end && (*c->at == ' ' || *c->at == '\n')) c->at++;
}

/* Consumes `word` followed by a space, a newline or the end of the text. */
static void expect(cursor *c, const char *word) {
    skip_space(c);
    size_t length = strlen(word);
    if ((size_t)(c->end - c->at) < length || memcmp(c->at, word, length) != 0 ||
        (c->at + length < c->end && c->at[length] != ' ' && c->at[length] != '\n')) {
        c->failed = 1;
        return;
    }
    c->at += length;
}

static double number(cursor *c) {
    skip_space(c);
    char *stop = NULL;
    double value = strtod(c->at, &stop);
    if (c->failed || stop == c->at || stop > c->end) {
        c->failed = 1;
        return 0;
    }
    c->at = stop;
    return value;
}

static uint64_t unsigned_number(cursor *c) {
    skip_space(c);
    char *stop = NULL;
    unsigned long long value = (c->at < c->end && *c->at != '-') ? strtoull(c->at, &stop, 10) : 0;
    if (c->failed || !stop || stop == c->at || stop > c->end) {
        c->failed = 1;
        return 0;
    }
    c->at = stop;
    return value;
}

/* A count in [0, limit]. */
static uint32_t count(cursor *c, uint32_t limit) {
    uint64_t value = unsigned_number(c);
    if (value > limit) c->failed = 1;
    return c->failed ? 0 : (uint32_t)value;
}

/* <byte count>:<bytes> as a new NUL-terminated string (NULL after a failure). */
static char *string(cursor *c) {
    uint64_t length = unsigned_number(c);
    if (c->failed || c->at >= c->end || *c->at != ':' || length > (uint64_t)(c->end - c->at - 1)) {
        c->failed = 1;
        return NULL;
    }
    c->at++;
    char *text = malloc((size_t)length + 1);
    if (!text) {
        c->failed = 1;
        return NULL;
    }
    memcpy(text, c->at, (size_t)length);
    text[length] = 0;
    c->at += length;
    return text;
}

static void read_param(cursor *c, host_param *p) {
    expect(c, "param");
    p->name = string(c);
    p->has_number = count(c, 1);
    p->number = number(c);
    p->numbers_count = count(c, 1000000);
    p->numbers = calloc(p->numbers_count ? p->numbers_count : 1, sizeof(double));
    if (!p->numbers) c->failed = 1;
    for (size_t i = 0; i < p->numbers_count && !c->failed; i++) p->numbers[i] = number(c);
    p->has_string = count(c, 1);
    p->string = string(c);
    p->json = string(c);
}

static void read_layer(cursor *c, host_layer *layer) {
    expect(c, "layer");
    layer->path = string(c);
    layer->effect = string(c);
    layer->start = number(c);
    layer->seed = unsigned_number(c);
    layer->params_json = string(c);
    uint32_t params = count(c, 10000);
    layer->params.items = calloc(params ? params : 1, sizeof(host_param));
    if (!layer->params.items) {
        c->failed = 1;
        return;
    }
    layer->params.count = params;
    for (uint32_t i = 0; i < params && !c->failed; i++) read_param(c, &layer->params.items[i]);
}

/* The whole file, NUL-terminated; *length excludes the NUL. */
static char *slurp(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    size_t capacity = 1 << 16, used = 0;
    char *text = malloc(capacity);
    while (text) {
        used += fread(text + used, 1, capacity - used - 1, file);
        if (used < capacity - 1) break;
        char *grown = capacity < (1u << 30) ? realloc(text, capacity * 2) : NULL;
        if (!grown) free(text);
        text = grown;
        capacity *= 2;
    }
    int failed = ferror(file);
    fclose(file);
    if (!text || failed) {
        free(text);
        return NULL;
    }
    text[used] = 0;
    *length = used;
    return text;
}

int host_plan_read(const char *path, host_plan *plan) {
    memset(plan, 0, sizeof(*plan));
    size_t length = 0;
    char *text = slurp(path, &length);
    if (!text) return -1;
    cursor c = { text, text + length, 0 };
    expect(&c, "RFHOST");
    if (count(&c, 1) != 1) c.failed = 1;
    expect(&c, "canvas");
    plan->width = count(&c, 1 << 16);
    plan->height = count(&c, 1 << 16);
    plan->canvas_width = number(&c);
    plan->canvas_height = number(&c);
    plan->scale = number(&c);
    expect(&c, "time");
    plan->fps = number(&c);
    plan->duration = number(&c);
    plan->job_frames = count(&c, 100000000);
    expect(&c, "background");
    for (int i = 0; i < 4; i++) plan->background[i] = number(&c);
    expect(&c, "png");
    plan->level = (int)count(&c, 9);
    plan->adaptive = (int)count(&c, 1);
    expect(&c, "jobdir");
    plan->job_dir = string(&c);
    expect(&c, "layers");
    plan->layer_count = count(&c, 1000);
    plan->layers = calloc(plan->layer_count ? plan->layer_count : 1, sizeof(host_layer));
    if (!plan->layers) c.failed = 1;
    for (uint32_t i = 0; i < plan->layer_count && !c.failed; i++) read_layer(&c, &plan->layers[i]);
    expect(&c, "frames");
    plan->frame_count = count(&c, 10000000);
    plan->frames = calloc(plan->frame_count ? plan->frame_count : 1, sizeof(host_frame));
    if (!plan->frames) c.failed = 1;
    for (uint32_t i = 0; i < plan->frame_count && !c.failed; i++) {
        expect(&c, "frame");
        plan->frames[i].index = count(&c, 100000000);
        plan->frames[i].time = number(&c);
        plan->frames[i].name = string(&c);
    }
    skip_space(&c);
    if (c.at != c.end || plan->width == 0 || plan->height == 0) c.failed = 1;
    free(text);
    if (c.failed) {
        host_plan_free(plan);
        return -1;
    }
    return 0;
}

void host_plan_free(host_plan *plan) {
    for (uint32_t i = 0; plan->layers && i < plan->layer_count; i++) {
        host_layer *layer = &plan->layers[i];
        for (size_t p = 0; layer->params.items && p < layer->params.count; p++) {
            host_param *param = &layer->params.items[p];
            free(param->name);
            free(param->numbers);
            free(param->string);
            free(param->json);
        }
        free(layer->params.items);
        free(layer->path);
        free(layer->effect);
        free(layer->params_json);
    }
    for (uint32_t i = 0; plan->frames && i < plan->frame_count; i++) free(plan->frames[i].name);
    free(plan->layers);
    free(plan->frames);
    free(plan->job_dir);
    memset(plan, 0, sizeof(*plan));
}
