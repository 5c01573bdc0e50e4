/*
 * example-falling-dot: a dot that falls from the top of the canvas and bounces on its floor,
 * simulated at a fixed time step. An example of three optional callbacks of renderfarm_plugin.h:
 *
 *   prepare_with_cache (and prepare)  simulate up to the frames a run asks for, resuming from
 *                                     checkpoints kept in the job's cache folder;
 *   frame_key                         a key of what a frame draws, with RF_PLUGIN_KEYS_COVER_PARAMS;
 *   trace                             the dot's state at a frame, as JSON.
 *
 * The simulation is tiny, so the checkpoints save no real time here; the pattern is the one a
 * costly simulation (hours of frames, many bodies) follows. Build it against the installed SDK:
 *
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -o librenderfarm-example-falling-dot.so \
 *       falling-dot.c $(pkg-config --cflags --libs renderfarm-plugin) -lm
 *   renderfarm plugin check ./librenderfarm-example-falling-dot.so
 *   renderfarm render falling-dot.json --plugin-path .
 */
#define _POSIX_C_SOURCE 200809L /* open, mkdir, getpid: the cache folder */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>
#include <renderfarm/renderfarm_plugin.h>

#define VERSION "1.0.0"        /* the plugin's version, also in every checkpoint's name */
#define STEPS_PER_SECOND 240.0 /* the fixed time step: the same steps whatever the job's fps */
#define CHECKPOINT_STEPS 480u  /* a checkpoint every 2 simulated seconds */
#define CHECKPOINT_BYTES 48    /* magic, 4 words of state, checksum */
static const char checkpoint_magic[8] = {'f', 'd', 'o', 't', '-', 'v', '1', '\n'};

/* The simulated state; `step` counts steps from the layer's start. */
typedef struct dot_state {
    uint64_t step;
    double y, vy; /* centre and speed, points and points per second (down is positive) */
    uint64_t bounces;
} dot_state;

typedef struct falling_dot {
    double x, radius, gravity, bounce, top, floor;
    rf_color color;
    double fps, layer_start;
    /* Written by prepare only, then read by render, frame_key and trace from any thread: the state at
     * each prepared frame, in step order. */
    dot_state *states;
    size_t state_count;
} falling_dot;

static const rf_param parameters[] = {
    { "radius", RF_PARAM_NUMBER, "12", 2, 100, NULL, "radius of the dot in points", 0 },
    { "gravity", RF_PARAM_NUMBER, "980", 10, 5000, NULL, "downward acceleration in points per second squared", 0 },
    { "bounce", RF_PARAM_NUMBER, "0.5", 0, 0.95, NULL, "share of its speed the dot keeps at each bounce", 0 },
    { "color", RF_PARAM_COLOR, "\"#FF9500\"", 0, 0, NULL, "colour of the dot", 0 },
};

/* ---- The simulation: one fixed step, and the state at any layer time ---- */

static void advance(const falling_dot *d, dot_state *s) {
    s->vy += d->gravity / STEPS_PER_SECOND;
    s->y += s->vy / STEPS_PER_SECOND;
    if (s->y >= d->floor) {
        s->y = d->floor;
        s->vy = -s->vy * d->bounce;
        /* Rebounds slower than two steps of gravity end in rest: the state then stays the same. */
        if (-s->vy < 2 * d->gravity / STEPS_PER_SECOND) s->vy = 0;
        else s->bounces++;
    }
    s->step++;
}

static uint64_t steps_at(double local) { return (uint64_t)floor(local * STEPS_PER_SECOND + 1e-6); }

/* The state at layer time `local`, stepped from the latest stored state at or before it (or from the
 * start); 0 before the layer starts, when nothing is drawn. Reads the instance only: render may run on
 * many threads at once. */
static int state_at(const falling_dot *d, double local, dot_state *out) {
    if (local < 0) return 0;
    uint64_t target = steps_at(local);
    dot_state s = {0, d->top, 0, 0};
    size_t lo = 0, hi = d->state_count; /* binary search: the last stored state with step <= target */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->states[mid].step <= target) lo = mid + 1;
        else hi = mid;
    }
    if (lo > 0) s = d->states[lo - 1];
    while (s.step < target) advance(d, &s);
    *out = s;
    return 1;
}

/* ---- Checkpoints in the cache folder, by the header's rules ---- */

/* A checkpoint's file name is a hash of everything its content depends on, so a file found is right
 * whatever was edited since: the plugin's version (a new release, whose step may differ, never trusts
 * an older one's files), the format, the time step and every value the simulation reads. Not x or the
 * colour, which only place and paint the dot. */
static void checkpoint_name(const falling_dot *d, uint64_t step, char name[96]) {
    uint8_t key[RF_FRAME_KEY_SIZE];
    rf_key_hasher h = rf_key_start();
    rf_key_string(&h, VERSION, strlen(VERSION));
    rf_key_string(&h, checkpoint_magic, sizeof(checkpoint_magic));
    rf_key_double(&h, STEPS_PER_SECOND);
    rf_key_double(&h, d->gravity);
    rf_key_double(&h, d->bounce);
    rf_key_double(&h, d->top);
    rf_key_double(&h, d->floor);
    rf_key_u64(&h, step);
    rf_key_finish(&h, key);
    int length = snprintf(name, 96, "falling-dot-");
    for (int i = 0; i < RF_FRAME_KEY_SIZE; i++) length += snprintf(name + length, 96 - (size_t)length, "%02x", key[i]);
}

/* Words little-endian, so that machines sharing the folder agree; the checksum catches damage. */
static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static uint64_t double_bits(double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof(bits));
    return bits;
}
static double bits_double(uint64_t bits) {
    double value;
    memcpy(&value, &bits, sizeof(value));
    return value;
}
static uint64_t checksum(const unsigned char *bytes, size_t length) {
    uint8_t key[RF_FRAME_KEY_SIZE];
    rf_key_hasher h = rf_key_start();
    rf_key_string(&h, (const char *)bytes, length);
    rf_key_finish(&h, key);
    return get_u64(key);
}

static void encode(const dot_state *s, unsigned char bytes[CHECKPOINT_BYTES]) {
    memcpy(bytes, checkpoint_magic, 8);
    put_u64(bytes + 8, s->step);
    put_u64(bytes + 16, double_bits(s->y));
    put_u64(bytes + 24, double_bits(s->vy));
    put_u64(bytes + 32, s->bounces);
    put_u64(bytes + 40, checksum(bytes, 40));
}

/* Reads the checkpoint of `step`: 1 when the file is there and whole, else 0 (a missing, short,
 * long or garbled file is ignored and the state computed again, never trusted). */
static int load_checkpoint(const falling_dot *d, const char *folder, uint64_t step, dot_state *out) {
    char name[96], path[4096];
    unsigned char bytes[CHECKPOINT_BYTES + 1];
    checkpoint_name(d, step, name);
    if (snprintf(path, sizeof(path), "%s/%s", folder, name) >= (int)sizeof(path)) return 0;
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    size_t length = fread(bytes, 1, sizeof(bytes), file);
    fclose(file);
    if (length != CHECKPOINT_BYTES || memcmp(bytes, checkpoint_magic, 8) != 0 ||
        get_u64(bytes + 40) != checksum(bytes, 40) || get_u64(bytes + 8) != step)
        return 0;
    out->step = step;
    out->y = bits_double(get_u64(bytes + 16));
    out->vy = bits_double(get_u64(bytes + 24));
    out->bounces = get_u64(bytes + 32);
    return 1;
}

/* The host never makes the folder: make it and its parents before the first write. */
static void make_folders(const char *folder) {
    char path[4096];
    if (snprintf(path, sizeof(path), "%s", folder) >= (int)sizeof(path)) return;
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0777); /* fails harmlessly where it exists */
        *slash = '/';
    }
    mkdir(path, 0777);
}

/* Writes a checkpoint whole or not at all: into `.rf-tmp-…` in the folder, renamed once complete (the
 * host removes such files an hour old). Any failure only costs time later, so it is ignored. */
static void save_checkpoint(const falling_dot *d, const char *folder, const dot_state *s) {
    char name[96], path[4096], temporary[4096];
    unsigned char bytes[CHECKPOINT_BYTES];
    checkpoint_name(d, s->step, name);
    encode(s, bytes);
    if (snprintf(path, sizeof(path), "%s/%s", folder, name) >= (int)sizeof(path) ||
        snprintf(temporary, sizeof(temporary), "%s/.rf-tmp-%ld-%p-%s", folder, (long)getpid(), (const void *)d,
                 name) >= (int)sizeof(temporary))
        return;
    int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno == ENOENT) {
        make_folders(folder);
        fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0666);
    }
    if (fd < 0) return;
    int written = write(fd, bytes, sizeof(bytes)) == (ssize_t)sizeof(bytes);
    if (close(fd) != 0 || !written || rename(temporary, path) != 0) unlink(temporary);
}

/* ---- The callbacks ---- */

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    falling_dot *d = calloc(1, sizeof(*d));
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    if (!rf_param_number(args, "radius", &d->radius) || !rf_param_number(args, "gravity", &d->gravity) ||
        !rf_param_number(args, "bounce", &d->bounce) || !rf_param_color(args, "color", &d->color)) {
        snprintf(err, errlen, "radius, gravity, bounce, color: missing (the host fills the defaults)");
        free(d);
        return RF_ERROR_PARAMS;
    }
    /* The only random draw, from the layer's seed: where across the canvas the dot falls. */
    rf_random random = rf_random_start(rf_derive_seed(ctx->seed, 0));
    d->x = rf_random_uniform(&random, d->radius, ctx->width - d->radius);
    d->top = d->radius;
    d->floor = ctx->height - d->radius > d->top ? ctx->height - d->radius : d->top;
    d->fps = ctx->fps;
    d->layer_start = ctx->layer_start;
    *out = d;
    return RF_OK;
}

/* Called once, after create and before any other call, with the frames this run draws (a shard's
 * part, preview's one frame) and the job's cache folder (NULL when there is none). Simulates from the
 * latest checkpoint at or before `first` (or from the start), saves the checkpoints it passes that
 * are missing, and stores the state of every frame from `first` to `last`. */
static int prepare_with_cache(void *instance, uint32_t first, uint32_t last, const char *cache_dir, char *err,
                              size_t errlen) {
    falling_dot *d = instance;
    if (last < first) {
        snprintf(err, errlen, "prepare: frames %u to %u", (unsigned)first, (unsigned)last);
        return RF_ERROR_PARAMS;
    }
    size_t count = (size_t)last - first + 1;
    dot_state *states = malloc(count * sizeof(*states));
    if (!states) {
        snprintf(err, errlen, "out of memory for %zu frames", count);
        return RF_ERROR_RESOURCE;
    }
    /* Frame i is at layer time i / fps - layer_start (a remapped layer's frames may lie elsewhere:
     * state_at steps from the nearest stored state whatever time it is given). */
    double first_time = first / d->fps - d->layer_start;
    dot_state s = {0, d->top, 0, 0};
    if (cache_dir) {
        for (uint64_t k = first_time > 0 ? steps_at(first_time) / CHECKPOINT_STEPS : 0; k > 0; k--) {
            if (load_checkpoint(d, cache_dir, k * CHECKPOINT_STEPS, &s)) break;
        }
    }
    size_t stored = 0;
    for (uint32_t i = first;; i++) {
        double local = i / d->fps - d->layer_start;
        uint64_t target = local > 0 ? steps_at(local) : 0;
        while (s.step < target) {
            advance(d, &s);
            dot_state found;
            if (cache_dir && s.step % CHECKPOINT_STEPS == 0 && !load_checkpoint(d, cache_dir, s.step, &found))
                save_checkpoint(d, cache_dir, &s);
        }
        if (stored == 0 || states[stored - 1].step < s.step) states[stored++] = s;
        if (i == last) break;
    }
    free(d->states);
    d->states = states;
    d->state_count = stored;
    return RF_OK;
}

/* prepare without a cache, for hosts that do not know prepare_with_cache. */
static int prepare(void *instance, uint32_t first, uint32_t last, char *err, size_t errlen) {
    return prepare_with_cache(instance, first, last, NULL, err, errlen);
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    const falling_dot *d = instance;
    dot_state s;
    if (!state_at(d, frame->local, &s)) return RF_OK;
    cairo_new_path(cr);
    cairo_arc(cr, d->x, s.y, d->radius, 0, 2 * 3.14159265358979323846);
    cairo_set_source_rgba(cr, d->color.r, d->color.g, d->color.b, d->color.a);
    cairo_fill(cr);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
        return RF_ERROR_RENDER;
    }
    return RF_OK;
}

/* The key of what render draws at `frame`: the dot's place, size and colour, and nothing else. Not the
 * frame number: once the dot rests, every later frame has one key and the host draws it once. It
 * hashes every value drawn, so an edit of any parameter changes the key of each frame it redraws:
 * hence RF_PLUGIN_KEYS_COVER_PARAMS (plugin check edits each parameter to prove it). */
static int frame_key(void *instance, const rf_frame *frame, uint8_t *key) {
    const falling_dot *d = instance;
    dot_state s;
    if (!state_at(d, frame->local, &s)) {
        rf_key_nothing_drawn(key); /* before the layer starts: shared by every empty frame */
        return RF_OK;
    }
    rf_key_hasher h = rf_key_start();
    rf_key_double(&h, d->x);
    rf_key_double(&h, s.y);
    rf_key_double(&h, d->radius);
    rf_key_double(&h, d->color.r);
    rf_key_double(&h, d->color.g);
    rf_key_double(&h, d->color.b);
    rf_key_double(&h, d->color.a);
    rf_key_finish(&h, key);
    return RF_OK;
}

/* The dot's state at `frame` as a JSON array of one item, where it is drawn (renderfarm trace,
 * preview --debug; plugin check looks for its pixels there). */
static int trace(void *instance, const rf_frame *frame, rf_write_fn write, void *user) {
    const falling_dot *d = instance;
    dot_state s;
    int visible = state_at(d, frame->local, &s);
    if (!visible) s.y = d->top, s.vy = 0, s.bounces = 0;
    char item[320];
    int length = snprintf(item, sizeof(item),
                          "[{\"id\":0,\"x\":%.17g,\"y\":%.17g,\"scale\":1,\"alpha\":%.17g,\"visible\":%s,"
                          "\"plan\":{\"radius\":%.17g,\"speed\":%.17g,\"bounces\":%llu,\"resting\":%s}}]",
                          d->x, s.y, d->color.a, visible ? "true" : "false", d->radius, s.vy,
                          (unsigned long long)s.bounces, visible && s.vy == 0 && s.y == d->floor ? "true" : "false");
    if (length < 0 || (size_t)length >= sizeof(item)) return RF_ERROR_RENDER;
    write(user, item, (size_t)length);
    return RF_OK;
}

static void destroy(void *instance) {
    falling_dot *d = instance;
    free(d->states);
    free(d);
}

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "example-falling-dot",
    .identifier = "org.renderfarm.example.falling-dot",
    .version = VERSION,
    .summary = "A dot falling and bouncing, with cached checkpoints, frame keys and trace (C example)",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .trace = trace,
    .destroy = destroy,
    .flags = RF_PLUGIN_KEYS_COVER_PARAMS,
    .prepare = prepare,
    .frame_key = frame_key,
    .prepare_with_cache = prepare_with_cache,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
