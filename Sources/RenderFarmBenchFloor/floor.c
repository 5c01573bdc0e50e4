/*
 * renderfarm-bench-floor: the hand-written C programs `make bench` compares RenderFarm with.
 * They draw exactly what RenderFarm draws and write one PNG per frame, on THREADS threads that
 * each own a surface (the same -j as RenderFarm's workers). What is drawn comes from the plan
 * renderfarm-bench wrote (floor_scene.h):
 *
 *   hearts  the heart and the gradient re-implemented in C (floor_plan.c): the same cairo calls
 *           as the plugins, positions from `renderfarm trace`
 *   host    for jobs with effects that have no C version: the smallest C host of the same
 *           plugin libraries, through the public plugin ABI (floor_host.c)
 *
 * and how each frame is written, from MODE:
 *
 *   libpng  the floor: libpng directly, same level and row filter, RGB when the job is opaque
 *   engine  the same drawing, encoded by RenderFarm's own C encoder (CPNGWriter): the files
 *           must be byte-identical to RenderFarm's, which proves the content is identical
 *   naive   the same drawing, then cairo_surface_write_to_png per frame
 *
 * Like a careful C programmer (and like RenderFarm), every variant draws the static bottom layers
 * (frame-invariant ones such as the gradient, over the background) once per thread and copies them
 * into each frame; without such layers it paints the background on each frame, as RenderFarm does.
 *
 * usage: renderfarm-bench-floor libpng|engine|naive PLAN OUTDIR THREADS
 *        renderfarm-bench-floor encoders FRAME.png…   (the encoders alone: floor_encoders.c)
 */
#include "floor_encoders.h"
#include "floor_plan.h" /* floor_convert_row */
#include "floor_scene.h"

#include <cairo.h>
#include <png.h>
#include <png_writer.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { MODE_LIBPNG, MODE_ENGINE, MODE_NAIVE } mode_t_;

typedef struct shared {
    const floor_scene *scene;
    mode_t_ mode;
    const char *outdir;
    atomic_uint next;
    atomic_int failed;
} shared;

/* One thread's reusable state: frame surface and context, row buffer, encoder. */
typedef struct worker {
    cairo_surface_t *surface;
    cairo_t *cr;
    uint8_t *row;
    rf_png_encoder encoder;
} worker;

static int write_libpng(const floor_scene *scene, worker *w, const char *path) {
    FILE *file = fopen(path, "wb");
    if (!file) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    floor_libpng_write(png, info, cairo_image_surface_get_data(w->surface), scene->width, scene->height,
                       (size_t)cairo_image_surface_get_stride(w->surface), scene->opaque, scene->level,
                       scene->adaptive, w->row);
    png_destroy_write_struct(&png, &info);
    return fclose(file) == 0 ? 0 : -1;
}

static int write_engine(worker *w, const floor_scene *scene, const char *path) {
    char err[256];
    const uint8_t *pixels = cairo_image_surface_get_data(w->surface);
    if (rf_png_encode_argb32(&w->encoder, pixels, scene->width, scene->height,
                             (size_t)cairo_image_surface_get_stride(w->surface), scene->level,
                             scene->adaptive ? RF_PNG_FILTER_ADAPTIVE : RF_PNG_FILTER_NONE, NULL, err,
                             sizeof(err)) != 0) {
        fprintf(stderr, "renderfarm-bench-floor: %s\n", err);
        return -1;
    }
    FILE *file = fopen(path, "wb");
    if (!file) return -1;
    size_t written = fwrite(w->encoder.data, 1, w->encoder.length, file);
    return fclose(file) == 0 && written == w->encoder.length ? 0 : -1;
}

static void *run(void *argument) {
    shared *s = argument;
    const floor_scene *scene = s->scene;
    worker w = { 0 };
    void *state = NULL;
    w.surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)scene->width, (int)scene->height);
    w.cr = cairo_create(w.surface);
    w.row = malloc((size_t)scene->width * 4);
    if (!w.row || cairo_status(w.cr) != CAIRO_STATUS_SUCCESS || scene->begin(scene, w.surface, &state) != 0) {
        fprintf(stderr, "renderfarm-bench-floor: cannot set up a thread\n");
        atomic_store(&s->failed, 1);
    }
    char name[1024], path[4096];
    for (;;) {
        unsigned index = atomic_fetch_add(&s->next, 1);
        if (index >= scene->frame_count || atomic_load(&s->failed)) break;
        scene->name(scene, index, name, sizeof(name));
        snprintf(path, sizeof(path), "%s/%s", s->outdir, name);
        if (scene->draw(scene, state, index, w.surface, w.cr) != 0) {
            fprintf(stderr, "renderfarm-bench-floor: cannot draw %s\n", name);
            atomic_store(&s->failed, 1);
            break;
        }
        int status;
        if (s->mode == MODE_NAIVE)
            status = cairo_surface_write_to_png(w.surface, path) == CAIRO_STATUS_SUCCESS ? 0 : -1;
        else if (s->mode == MODE_ENGINE) status = write_engine(&w, scene, path);
        else status = write_libpng(scene, &w, path);
        if (status != 0) {
            fprintf(stderr, "renderfarm-bench-floor: cannot write %s\n", path);
            atomic_store(&s->failed, 1);
        }
    }
    scene->end(state);
    rf_png_encoder_free(&w.encoder);
    free(w.row);
    cairo_destroy(w.cr);
    cairo_surface_destroy(w.surface);
    return NULL;
}

/* The kind of plan: the ABI host's text plans start with "RFHOST", the hearts plans are binary. */
static int read_scene(const char *path, floor_scene *scene) {
    char magic[6] = { 0 };
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    size_t got = fread(magic, 1, sizeof(magic), file);
    fclose(file);
    if (got == sizeof(magic) && memcmp(magic, "RFHOST", sizeof(magic)) == 0) return floor_host_scene(path, scene);
    return floor_hearts_scene(path, scene);
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "encoders") == 0) return floor_encoders(argc - 2, argv + 2);
    if (argc != 5) {
        fprintf(stderr, "usage: renderfarm-bench-floor libpng|engine|naive PLAN OUTDIR THREADS\n"
                        "       renderfarm-bench-floor encoders FRAME.png...\n");
        return 64;
    }
    shared s = { .outdir = argv[3] };
    if (strcmp(argv[1], "libpng") == 0) s.mode = MODE_LIBPNG;
    else if (strcmp(argv[1], "engine") == 0) s.mode = MODE_ENGINE;
    else if (strcmp(argv[1], "naive") == 0) s.mode = MODE_NAIVE;
    else {
        fprintf(stderr, "renderfarm-bench-floor: unknown mode %s\n", argv[1]);
        return 64;
    }
    int threads = atoi(argv[4]);
    if (threads < 1 || threads > 256) threads = 1;
    floor_scene scene;
    if (read_scene(argv[2], &scene) != 0) {
        fprintf(stderr, "renderfarm-bench-floor: cannot use the plan %s\n", argv[2]);
        return 66;
    }
    s.scene = &scene;
    pthread_t ids[256];
    int started = 0;
    for (int t = 0; t < threads; t++) started += pthread_create(&ids[started], NULL, run, &s) == 0;
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
    scene.release(&scene);
    return atomic_load(&s.failed) || started == 0 ? 74 : 0;
}
