/*
 * What floor.c's threads need from a plan, whichever kind it is: the frame size, the PNG
 * settings and how to draw frame number f (0 … frame_count − 1) on a thread's own surface.
 *
 * Two kinds exist:
 *   hearts  floor_plan.c: hand-written C drawing of `gradient` and `floating-heart`, positions
 *           from `renderfarm trace` (binary plan, FloorPlan.swift)
 *   host    floor_host.c: the plugin ABI host; the same plugin libraries the engine loads,
 *           driven through renderfarm_plugin.h (text plan, HostPlan.swift)
 */
#ifndef RF_FLOOR_SCENE_H
#define RF_FLOOR_SCENE_H

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floor_scene floor_scene;

struct floor_scene {
    uint32_t width, height; /* pixels */
    uint32_t frame_count;   /* frames this run writes */
    int level, adaptive;    /* PNG compression: zlib level, adaptive row filters (else none) */
    int opaque;             /* the background is opaque, hence every pixel: libpng writes RGB */
    void *plan;             /* the kind's own plan */

    /* Makes one thread's state (e.g. the static layers drawn once) on that thread; 0 on success. */
    int (*begin)(const floor_scene *scene, cairo_surface_t *surface, void **state);
    /* Draws frame f on `surface` through `cr` (which draws on it), every pixel, and flushes it. */
    int (*draw)(const floor_scene *scene, void *state, uint32_t f, cairo_surface_t *surface, cairo_t *cr);
    /* Writes the file name of frame f (no folder) into out. */
    void (*name)(const floor_scene *scene, uint32_t f, char *out, size_t size);
    /* Frees a thread's state; then the plan, once every thread is done. */
    void (*end)(void *state);
    void (*release)(floor_scene *scene);
};

/* Reads a plan of each kind; 0 on success, else a message on stderr. */
int floor_hearts_scene(const char *path, floor_scene *scene);
int floor_host_scene(const char *path, floor_scene *scene);

#endif
