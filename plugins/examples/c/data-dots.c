/*
 * example-data-dots: dots read from a CSV file in the job's folder, popping up one row after
 * another. An example of three optional callbacks of renderfarm_plugin.h:
 *
 *   input_files  names the CSV, so that the host hashes it and an edit of it draws frames again;
 *   verify       the strict check of every row, made once per run by the process that checks the job
 *                instead of by every worker that draws frames;
 *   frame_key    a key of the dots a frame draws, with RF_PLUGIN_KEYS_COVER_PARAMS and
 *                RF_PLUGIN_KEYS_COVER_INPUTS: an edit of a parameter or of a row redraws only the
 *                frames it changes.
 *
 * The file (data-dots.csv beside this one) has the header `x,y,radius,color`, then one dot per row:
 * centre in points, radius in points and colour as #RRGGBB or #RRGGBBAA, the last two optional.
 * Build it against the installed SDK and try it with the example job:
 *
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -o librenderfarm-example-data-dots.so \
 *       data-dots.c $(pkg-config --cflags --libs renderfarm-plugin) -lm
 *   renderfarm plugin check ./librenderfarm-example-data-dots.so --params '{"file": "data-dots.csv"}'
 *   renderfarm render data-dots.json --plugin-path .
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <renderfarm/renderfarm_plugin.h>

#define MAX_FILE_BYTES (1 << 20)
#define PATH_BYTES 4096
#define GROW_SECONDS 0.25 /* how long a dot takes to grow to its radius */
#define HEADER "x,y,radius,color"

typedef struct dot {
    double x, y, radius;
    rf_color color;
} dot;

typedef struct data_dots {
    char *path;    /* the file as opened: `file` resolved inside the job's folder (rf_path_inside) */
    char *text;    /* its content, NUL-terminated, kept for verify */
    double interval;
    size_t count;
    dot *dots;
} data_dots;

static const rf_param parameters[] = {
    { "file", RF_PARAM_STRING, NULL, 0, 0, NULL, "the CSV file of dots, relative to the job's folder (required)",
      RF_PARAM_OPTIONAL },
    { "interval", RF_PARAM_NUMBER, "0.1", 0, 10, NULL, "seconds between one row's dot appearing and the next's", 0 },
    { "radius", RF_PARAM_NUMBER, "8", 1, 100, NULL, "radius in points of rows that give none", 0 },
    { "color", RF_PARAM_COLOR, "\"#5AC8FA\"", 0, 0, NULL, "colour of rows that give none", 0 },
};

/* ---- Reading a row: one parser, used leniently by create and strictly by verify ---- */

/* Reads field [start, end) as a number: 2 when the whole field is a finite number, 1 when only a
 * prefix is ("12px"), 0 when none is. (Copied out first: strtod would skip a line break.) */
static int read_number(const char *start, const char *end, double *out) {
    char field[64];
    size_t length = (size_t)(end - start);
    if (length == 0 || length >= sizeof(field)) return 0;
    memcpy(field, start, length);
    field[length] = '\0';
    char *stop;
    double value = strtod(field, &stop);
    if (stop == field || !isfinite(value)) return 0;
    *out = value;
    return stop == field + length ? 2 : 1;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads "#RRGGBB" or "#RRGGBBAA"; 1 when the field is one of them. */
static int read_color(const char *start, const char *end, rf_color *out) {
    size_t length = (size_t)(end - start);
    double channels[4] = {0, 0, 0, 1};
    if ((length != 7 && length != 9) || start[0] != '#') return 0;
    for (size_t i = 0; i < (length - 1) / 2; i++) {
        int high = hex_digit(start[1 + 2 * i]), low = hex_digit(start[2 + 2 * i]);
        if (high < 0 || low < 0) return 0;
        channels[i] = (high * 16 + low) / 255.0;
    }
    out->r = channels[0], out->g = channels[1], out->b = channels[2], out->a = channels[3];
    return 1;
}

/* Parses the row [line, end) into *out, with `fallback`'s radius and colour where the row gives none
 * or gives one it cannot read. Returns NULL for a well-formed row, else its first problem; *usable
 * says whether x and y could be read at all (create draws such a row, verify refuses it). */
static const char *parse_row(const char *line, const char *end, const dot *fallback, dot *out, int *usable) {
    const char *fields[5], *ends[5];
    int count = 0;
    for (const char *start = line;; count++) {
        const char *comma = memchr(start, ',', (size_t)(end - start));
        fields[count] = start;
        ends[count] = comma ? comma : end;
        if (count == 4 || !comma) break;
        start = comma + 1;
    }
    count++;
    /* Read every field first, so that create gets all it can from a sloppy row. */
    double radius = 0;
    *out = *fallback;
    int x = read_number(fields[0], ends[0], &out->x);
    int y = count > 1 ? read_number(fields[1], ends[1], &out->y) : 0;
    int r = count > 2 && fields[2] != ends[2] ? read_number(fields[2], ends[2], &radius) : -1; /* -1: none given */
    int c = count > 3 && fields[3] != ends[3] ? read_color(fields[3], ends[3], &out->color) : -1;
    if (r > 0 && radius > 0) out->radius = radius;
    *usable = x > 0 && y > 0;
    if (count < 2) return "expected x,y[,radius[,color]]";
    if (count > 4) return "more than 4 fields";
    if (x < 2) return "x is not a number";
    if (y < 2) return "y is not a number";
    if (r == 0 || r == 1 || (r == 2 && radius <= 0)) return "radius is not a number above 0";
    if (c == 0) return "color is not #RRGGBB or #RRGGBBAA";
    return NULL;
}

/* Calls `row` for each line of `text` that holds data (after the header, not blank) with its number
 * (1-based) and [start, end) without the line break, until `row` returns 0. */
typedef int (*row_fn)(void *user, size_t number, const char *start, const char *end);
static void each_row(const char *text, row_fn row, void *user) {
    size_t number = 1;
    const char *line = strchr(text, '\n');
    while (line) {
        const char *start = line + 1, *end = strchr(start, '\n');
        line = end;
        if (!end) end = start + strlen(start);
        if (end > start && end[-1] == '\r') end--;
        number++;
        if (end > start && !row(user, number, start, end)) return;
    }
}

/* ---- create: read the file, parse what drawing needs, never fail on a sloppy row ---- */

typedef struct reading {
    data_dots *d;
    dot fallback; /* the radius and colour parameters */
} reading;

static int add_dot(void *user, size_t number, const char *start, const char *end) {
    reading *r = user;
    dot parsed;
    int usable;
    (void)number;
    parse_row(start, end, &r->fallback, &parsed, &usable); /* its problems are verify's business */
    if (usable) r->d->dots[r->d->count++] = parsed;
    return 1;
}

static void destroy(void *instance) {
    data_dots *d = instance;
    free(d->path);
    free(d->text);
    free(d->dots);
    free(d);
}

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    const char *file = args->access->string(args->params, "file");
    double interval;
    reading r = {NULL, {0, 0, 0, {0, 0, 0, 0}}};
    if (!file || !*file) {
        snprintf(err, errlen, "file: give the CSV file of dots, e.g. \"file\": \"data-dots.csv\"");
        return RF_ERROR_PARAMS;
    }
    if (!rf_param_number(args, "interval", &interval) || !rf_param_number(args, "radius", &r.fallback.radius) ||
        !rf_param_color(args, "color", &r.fallback.color)) {
        snprintf(err, errlen, "interval, radius, color: missing (the host fills the defaults)");
        return RF_ERROR_PARAMS;
    }
    data_dots *d = r.d = calloc(1, sizeof(*d));
    if (!d || !(d->path = malloc(PATH_BYTES)) || !(d->text = malloc(MAX_FILE_BYTES + 1))) {
        if (d) destroy(d);
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    d->interval = interval;
    /* The file must lie inside the job's folder, links followed: the companion library's rf_path_inside
     * resolves it as the host resolves the files a job names ("../x.csv resolves outside the folder …"). */
    char why[512];
    int status = rf_path_inside(ctx->job_dir, file, d->path, PATH_BYTES, why, sizeof why);
    if (status != RF_OK) {
        snprintf(err, errlen, "file: %s", why);
        destroy(d);
        return status;
    }

    /* Read the whole file here, in create: render must not open files (render --isolate refuses it). */
    FILE *stream = fopen(d->path, "rb");
    if (!stream) {
        snprintf(err, errlen, "file: cannot open %s: %s", d->path, strerror(errno));
        destroy(d);
        return RF_ERROR_RESOURCE;
    }
    size_t length = fread(d->text, 1, MAX_FILE_BYTES + 1, stream);
    int failed = ferror(stream);
    fclose(stream);
    if (failed || length > MAX_FILE_BYTES || memchr(d->text, '\0', length)) {
        snprintf(err, errlen, "file: %s is %s", d->path,
                 failed ? "unreadable" : length > MAX_FILE_BYTES ? "larger than 1 MiB" : "not text");
        destroy(d);
        return RF_ERROR_PARAMS;
    }
    d->text[length] = '\0';
    char *fitted = realloc(d->text, length + 1);
    if (fitted) d->text = fitted;
    size_t lines = 1; /* at most one dot per line */
    for (const char *p = d->text; (p = strchr(p, '\n')); p++) lines++;
    if (!(d->dots = malloc(lines * sizeof(dot)))) {
        destroy(d);
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    each_row(d->text, add_dot, &r);
    *out = d;
    return RF_OK;
}

/* ---- input_files: the file the drawing depends on ---- */

/* Called once right after create: one `write` per file, its path without a terminator. The host hashes
 * the file into every frame's fingerprint and lists it in the manifest; render --isolate lets render
 * read it. */
static int input_files(void *instance, rf_write_fn write, void *user) {
    const data_dots *d = instance;
    write(user, d->path, strlen(d->path));
    return RF_OK;
}

/* ---- verify: every row well-formed ---- */

typedef struct checking {
    char *err;
    size_t errlen, used;
    int problems;
} checking;

/* Adds the line "file: line N: problem" when it fits whole (the host shows each at its place). */
static void report(checking *c, const char *format, ...) {
    char line[256];
    va_list list;
    va_start(list, format);
    int length = vsnprintf(line, sizeof(line), format, list);
    va_end(list);
    c->problems++;
    if (length < 0 || c->used + (c->used > 0) + (size_t)length + 1 > c->errlen) return;
    c->used += (size_t)snprintf(c->err + c->used, c->errlen - c->used, "%s%s", c->used > 0 ? "\n" : "", line);
}

static int check_row(void *user, size_t number, const char *start, const char *end) {
    static const dot none = {0, 0, 1, {0, 0, 0, 1}};
    dot parsed;
    int usable;
    const char *problem = parse_row(start, end, &none, &parsed, &usable);
    if (problem) report(user, "file: line %zu: %s", number, problem);
    return 1;
}

/* Called once per run by the process that checks the job (validate, render, prepare, preview, trace,
 * the studio), right after create and input_files; the worker processes of render --isolate never call
 * it, so nothing drawn may depend on it. This file is small, but a check over millions of rows, or
 * decoding a whole video, costs real time: here it is made once instead of in every worker. */
static int verify(void *instance, char *err, size_t errlen) {
    const data_dots *d = instance;
    checking c = {err, errlen, 0, 0};
    size_t header = strlen(HEADER);
    if (strncmp(d->text, HEADER, header) != 0 ||
        (d->text[header] != '\n' && d->text[header] != '\r' && d->text[header] != '\0'))
        report(&c, "file: line 1: expected the header %s", HEADER);
    each_row(d->text, check_row, &c);
    if (d->count == 0 && c.problems == 0) report(&c, "file: %s has no rows", d->path);
    return c.problems > 0 ? RF_ERROR_PARAMS : RF_OK;
}

/* ---- Drawing, and the frame key of what is drawn ---- */

/* The radius of dot `i` at layer time `t`: 0 until its turn, then growing (eased) to its full size. */
static double radius_at(const data_dots *d, size_t i, double t) {
    double grown = (t - (double)i * d->interval) / GROW_SECONDS;
    if (grown <= 0) return 0;
    if (grown >= 1) return d->dots[i].radius;
    return d->dots[i].radius * grown * grown * (3 - 2 * grown);
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    const data_dots *d = instance;
    for (size_t i = 0; i < d->count; i++) {
        const dot *p = &d->dots[i];
        double radius = radius_at(d, i, frame->local);
        if (radius <= 0) continue;
        cairo_new_path(cr);
        cairo_arc(cr, p->x, p->y, radius, 0, 2 * 3.14159265358979323846);
        cairo_set_source_rgba(cr, p->color.r, p->color.g, p->color.b, p->color.a);
        cairo_fill(cr);
    }
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
        return RF_ERROR_RENDER;
    }
    return RF_OK;
}

/* Hashes exactly what render draws: each visible dot's centre, radius at this time and colour. The
 * dots come from the file, so an edited row changes the keys of the frames that show it, and only
 * those (RF_PLUGIN_KEYS_COVER_INPUTS); a parameter likewise (RF_PLUGIN_KEYS_COVER_PARAMS). Once every
 * dot has grown, all later frames share one key and are drawn once. */
static int frame_key(void *instance, const rf_frame *frame, uint8_t *key) {
    const data_dots *d = instance;
    rf_key_hasher h = rf_key_start();
    size_t drawn = 0;
    for (size_t i = 0; i < d->count; i++) {
        double radius = radius_at(d, i, frame->local);
        if (radius <= 0) continue;
        rf_key_double(&h, d->dots[i].x);
        rf_key_double(&h, d->dots[i].y);
        rf_key_double(&h, radius);
        rf_key_double(&h, d->dots[i].color.r);
        rf_key_double(&h, d->dots[i].color.g);
        rf_key_double(&h, d->dots[i].color.b);
        rf_key_double(&h, d->dots[i].color.a);
        drawn++;
    }
    if (drawn == 0) rf_key_nothing_drawn(key); /* the key every empty frame shares */
    else rf_key_finish(&h, key);
    return RF_OK;
}

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "example-data-dots",
    .identifier = "org.renderfarm.example.data-dots",
    .version = "1.0.0",
    .summary = "Dots read from a CSV file, with input_files, verify and frame keys (C example)",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .trace = NULL,
    .destroy = destroy,
    .flags = RF_PLUGIN_KEYS_COVER_PARAMS | RF_PLUGIN_KEYS_COVER_INPUTS,
    .frame_key = frame_key,
    .input_files = input_files,
    .verify = verify,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
