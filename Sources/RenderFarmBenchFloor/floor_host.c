/*
 * The plugin ABI host: the smallest C program that renders a job through the same plugin
 * libraries as RenderFarm, using only the public ABI (renderfarm_plugin.h). The bench uses it
 * for jobs whose effects have no hand-written C version, so the comparison measures the
 * engine's overhead (job handling, scheduling, journal, manifest) on identical content.
 *
 * It does what the engine's PluginCatalog, RenderPlan and FrameWorker do, and nothing more:
 *   - dlopen each layer's librenderfarm-<id>.so, dlsym rf_plugin_main, check the descriptor;
 *   - create one instance per layer with the engine's filled parameters, context and seed;
 *   - per thread, draw the bottom RF_PLUGIN_FRAME_INVARIANT layers once over the background and
 *     copy them into every frame (the engine does the same; the files stay byte-identical);
 *   - per frame: the background (or that copy), scale to pixels, each other layer's render
 *     between cairo_save and cairo_restore, serialised as its declared thread safety asks.
 */
#include "floor_host.h"
#include "floor_scene.h"

#include <cairo.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESSAGE_CAPACITY 1024 /* the engine's error buffer for plugin calls */

/* ---- rf_param_access over the flattened values of the plan (used during create only). */

static const host_param *find(const rf_params *p, const char *name) {
    for (size_t i = 0; p && name && i < p->count; i++) {
        if (strcmp(p->items[i].name, name) == 0) return &p->items[i];
    }
    return NULL;
}

static int get_number(const rf_params *p, const char *name, double *out) {
    const host_param *param = find(p, name);
    if (!param || !param->has_number || !out) return 0;
    *out = param->number;
    return 1;
}

static size_t get_numbers(const rf_params *p, const char *name, double *out, size_t cap) {
    const host_param *param = find(p, name);
    if (!param) return 0;
    for (size_t i = 0; out && i < cap && i < param->numbers_count; i++) out[i] = param->numbers[i];
    return param->numbers_count;
}

static const char *get_string(const rf_params *p, const char *name) {
    const host_param *param = find(p, name);
    return param && param->has_string ? param->string : NULL;
}

static const char *get_json(const rf_params *p, const char *name) {
    const host_param *param = find(p, name);
    return param ? param->json : NULL;
}

static const rf_param_access access_table = { get_number, get_numbers, get_string, get_json };

/* ---- Loading and creating. */

/* The descriptor's flags, which exist only when struct_size reaches them (renderfarm_plugin.h). */
static uint32_t plugin_flags(const rf_plugin *plugin) {
    return plugin->struct_size >= offsetof(rf_plugin, flags) + sizeof(uint32_t) ? plugin->flags : 0;
}

static int load_layer(host_plan *plan, uint32_t index) {
    host_layer *layer = &plan->layers[index];
    /* As the engine loads plugins; a library is never unloaded. */
    void *library = dlopen(layer->path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    rf_plugin_main_fn entry = library ? (rf_plugin_main_fn)dlsym(library, RF_PLUGIN_ENTRY_POINT) : NULL;
    const rf_plugin *plugin = entry ? entry(RF_ABI_VERSION) : NULL;
    if (!plugin || plugin->abi_version != RF_ABI_VERSION || !plugin->id || strcmp(plugin->id, layer->effect) != 0 ||
        !plugin->create || !plugin->render || !plugin->destroy) {
        fprintf(stderr, "renderfarm-bench-floor: %s: not a usable %s plugin (%s)\n", layer->path, layer->effect,
                library ? "descriptor" : dlerror());
        return -1;
    }
    layer->plugin = plugin;
    pthread_mutex_init(&layer->own_lock, NULL);
    if (plugin->thread_safety == RF_THREADS_INSTANCE) layer->lock = &layer->own_lock;
    if (plugin->thread_safety != RF_THREADS_FULL && plugin->thread_safety != RF_THREADS_INSTANCE) {
        /* RF_THREADS_UNSAFE (or unknown): one render at a time across the plugin's layers. */
        layer->lock = &layer->own_lock;
        for (uint32_t i = 0; i < index; i++) {
            if (plan->layers[i].plugin == plugin) layer->lock = plan->layers[i].lock;
        }
    }
    rf_context context = {
        .width = plan->canvas_width, .height = plan->canvas_height, .scale = plan->scale, .fps = plan->fps,
        .duration = plan->duration, .frame_count = plan->job_frames, .layer_start = layer->start,
        .seed = layer->seed, .job_dir = plan->job_dir,
    };
    rf_create_args args = { layer->params_json, &layer->params, &access_table };
    char message[MESSAGE_CAPACITY] = { 0 };
    void *instance = NULL;
    /* create_with_plugin exists only when struct_size reaches it (renderfarm_plugin.h). */
    int with_plugin = plugin->struct_size >= offsetof(rf_plugin, plugin_data) + sizeof(void *) &&
                      plugin->create_with_plugin;
    int status = with_plugin ? plugin->create_with_plugin(plugin, &args, &context, &instance, message, sizeof(message))
                             : plugin->create(&args, &context, &instance, message, sizeof(message));
    message[sizeof(message) - 1] = 0;
    if (status != RF_OK || !instance) {
        fprintf(stderr, "renderfarm-bench-floor: layer %u (%s): %s\n", index, layer->effect, message);
        return -1;
    }
    layer->instance = instance;
    return 0;
}

/* How many bottom layers are frame-invariant: drawn once per thread (PlannedJob's rule). */
static uint32_t static_layer_count(const host_plan *plan) {
    uint32_t count = 0;
    while (count < plan->layer_count && plugin_flags(plan->layers[count].plugin) & RF_PLUGIN_FRAME_INVARIANT)
        count++;
    return count;
}

/* ---- Drawing: FrameWorker.drawLayers, call for call. */

static int draw_layers(const host_plan *plan, const host_frame *frame, uint32_t first, uint32_t end, cairo_t *cr,
                       int background) {
    cairo_save(cr);
    if (background) {
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
        cairo_set_source_rgba(cr, plan->background[0], plan->background[1], plan->background[2],
                              plan->background[3]);
        cairo_paint(cr);
    }
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    cairo_scale(cr, plan->scale, plan->scale);
    for (uint32_t i = first; i < end; i++) {
        const host_layer *layer = &plan->layers[i];
        rf_frame abi_frame = { frame->index, frame->time, frame->time - layer->start };
        char message[MESSAGE_CAPACITY];
        message[0] = 0;
        cairo_save(cr);
        if (layer->lock) pthread_mutex_lock(layer->lock);
        int status = layer->plugin->render(layer->instance, cr, &abi_frame, message, sizeof(message));
        if (layer->lock) pthread_mutex_unlock(layer->lock);
        cairo_restore(cr);
        if (status != RF_OK) {
            message[sizeof(message) - 1] = 0;
            fprintf(stderr, "renderfarm-bench-floor: frame %u, layer %u (%s): %s\n", frame->index, i, layer->effect,
                    message);
            cairo_restore(cr);
            return -1;
        }
    }
    cairo_restore(cr);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

typedef struct host_scene {
    host_plan plan;
    uint32_t static_count;
} host_scene;

/* A thread's state: its copy of the static layers (NULL when the job has none). */
static int host_begin(const floor_scene *scene, cairo_surface_t *surface, void **state) {
    const host_scene *host = scene->plan;
    *state = NULL;
    if (host->static_count == 0 || host->plan.frame_count == 0) return 0;
    (void)surface;
    cairo_surface_t *copy = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)scene->width, (int)scene->height);
    cairo_t *cr = cairo_create(copy);
    int status = draw_layers(&host->plan, &host->plan.frames[0], 0, host->static_count, cr, 1);
    cairo_destroy(cr);
    cairo_surface_flush(copy);
    if (status != 0 || cairo_surface_status(copy) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(copy);
        return -1;
    }
    *state = copy;
    return 0;
}

static int host_draw(const floor_scene *scene, void *state, uint32_t f, cairo_surface_t *surface, cairo_t *cr) {
    const host_scene *host = scene->plan;
    cairo_surface_t *copy = state;
    if (copy) {
        /* ImageSurface.copyPixels: same size and format, so the rows line up. */
        cairo_surface_flush(surface);
        memcpy(cairo_image_surface_get_data(surface), cairo_image_surface_get_data(copy),
               (size_t)cairo_image_surface_get_stride(surface) * scene->height);
        cairo_surface_mark_dirty(surface);
    }
    int status = draw_layers(&host->plan, &host->plan.frames[f], copy ? host->static_count : 0,
                             host->plan.layer_count, cr, copy == NULL);
    cairo_surface_flush(surface);
    return status;
}

static void host_name(const floor_scene *scene, uint32_t f, char *out, size_t size) {
    const host_scene *host = scene->plan;
    snprintf(out, size, "%s", host->plan.frames[f].name);
}

static void host_end(void *state) {
    if (state) cairo_surface_destroy(state);
}

/* Destroys the instances (as the engine does after the last frame) and frees the plan. */
static void host_release(floor_scene *scene) {
    host_scene *host = scene->plan;
    for (uint32_t i = 0; i < host->plan.layer_count; i++) {
        host_layer *layer = &host->plan.layers[i];
        if (layer->instance) layer->plugin->destroy(layer->instance);
        if (layer->plugin) pthread_mutex_destroy(&layer->own_lock);
    }
    host_plan_free(&host->plan);
    free(host);
    scene->plan = NULL;
}

int floor_host_scene(const char *path, floor_scene *scene) {
    host_scene *host = calloc(1, sizeof(*host));
    if (!host || host_plan_read(path, &host->plan) != 0) {
        fprintf(stderr, "renderfarm-bench-floor: %s is not a plugin host plan\n", path);
        free(host);
        return -1;
    }
    *scene = (floor_scene){
        .width = host->plan.width, .height = host->plan.height, .frame_count = host->plan.frame_count,
        .level = host->plan.level, .adaptive = host->plan.adaptive, .opaque = host->plan.background[3] >= 1.0,
        .plan = host, .begin = host_begin, .draw = host_draw, .name = host_name, .end = host_end,
        .release = host_release,
    };
    for (uint32_t i = 0; i < host->plan.layer_count; i++) {
        if (load_layer(&host->plan, i) != 0) {
            host_release(scene);
            return -1;
        }
    }
    host->static_count = static_layer_count(&host->plan);
    return 0;
}
