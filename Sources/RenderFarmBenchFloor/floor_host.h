/*
 * The plugin ABI host's plan (written by Sources/RenderFarmBench/HostPlan.swift, which documents
 * the text format): the job as the engine prepared it, layer by layer, with what each plugin's
 * create() receives from the engine, and the frames to write.
 */
#ifndef RF_FLOOR_HOST_H
#define RF_FLOOR_HOST_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "renderfarm_plugin.h"

/* One parameter, flattened: what each rf_param_access getter answers for its name. */
typedef struct host_param {
    char *name;
    int has_number; /* number(): 1 with `number`, else 0 */
    double number;
    size_t numbers_count; /* numbers(): how many values, written from `numbers` */
    double *numbers;
    int has_string; /* string(): `string`, else NULL */
    char *string;
    char *json;     /* json(): the value as JSON text */
} host_param;

/* The ABI's opaque parameter handle, as this host defines it. */
struct rf_params {
    host_param *items;
    size_t count;
};

typedef struct host_layer {
    char *path, *effect, *params_json;
    double start;  /* seconds */
    uint64_t seed; /* rf_derive_seed(job seed, layer index), as the engine passed it */
    rf_params params;
    /* Filled by the host when it loads the plugin and creates the instance. */
    const rf_plugin *plugin;
    void *instance;
    pthread_mutex_t own_lock;
    pthread_mutex_t *lock; /* NULL for RF_THREADS_FULL; own_lock or the plugin's first layer's */
} host_layer;

typedef struct host_frame {
    uint32_t index;
    double time; /* job time in seconds, as the engine computes it */
    char *name;  /* file name */
} host_frame;

typedef struct host_plan {
    uint32_t width, height; /* pixels */
    double canvas_width, canvas_height, scale;
    double fps, duration;
    uint32_t job_frames; /* rf_context.frame_count: frames in the job's timeline */
    double background[4];
    int level, adaptive;
    char *job_dir;
    uint32_t layer_count;
    host_layer *layers;
    uint32_t frame_count;
    host_frame *frames;
} host_plan;

/* Reads a plan; 0 on success. host_plan_free frees what was read (plugins are never unloaded). */
int host_plan_read(const char *path, host_plan *plan);
void host_plan_free(host_plan *plan);

#endif
