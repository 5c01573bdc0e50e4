/*
 * renderfarm_plugin.h — the RenderFarm effect plugin ABI, version 1.
 *
 * A plugin is a shared library that exports one C function, rf_plugin_main(), returning a
 * descriptor: identity, declared thread safety, a parameter table, and four function pointers
 * (create, render, optional trace, destroy). Only C types cross the boundary: plain structs,
 * integer status codes, NUL-terminated UTF-8 strings and a cairo_t. A plugin may be written in C
 * or in Swift (@_cdecl) and built by any compiler; it never links against the host.
 *
 * Lifecycle, for every layer of every job that names the plugin's id:
 *
 *     rf_plugin_main(RF_ABI_VERSION)  once per process (the descriptor is cached by the host)
 *     create(args, ctx, &instance)    once per layer per job, before that job's first frame
 *     render(instance, cr, frame)     once per frame (concurrently, see rf_thread_safety)
 *     trace(instance, frame, ...)     optional, for `renderfarm trace` and fidelity tests
 *     destroy(instance)               once, after the job's last frame
 *
 * Discovery: `--plugin-path`, then RENDERFARM_PLUGIN_PATH (colon-separated), then the user's
 * folder $XDG_DATA_HOME/renderfarm/plugins (~/.local/share/renderfarm/plugins when XDG_DATA_HOME
 * is unset), then the folder of the running executable (symlinks resolved), then
 * <prefix>/lib/renderfarm/plugins, where <prefix> is the folder above that executable's folder
 * (`make install` puts the binary in <prefix>/bin and the plugins there;
 * `pkg-config --variable=plugindir renderfarm-plugin`). The host
 * loads the `*.so` there with dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) and never unloads
 * a plugin: every one for `renderfarm plugins`, `plugin check ID` and the studio; for a command that
 * checks or draws jobs, of the libraries named librenderfarm-ID.so only those of the ids the jobs
 * use (and every library named otherwise). Name the library after its id. Jobs name an effect by
 * its id only, never by a path.
 *
 * Determinism contract: the pixels a plugin draws for frame `index` may depend only on its
 * parameters, the context (canvas, fps, seed, ...) and the frame; never on wall-clock time,
 * on the order frames are rendered in, or on global state mutated by render(). Draw random
 * numbers in create() from the layer's seed (rf_derive_seed, rf_random below), never from
 * rand() or the clock. The host renders frames in any order, on several threads and in several
 * processes, and expects frame k to have the same bytes every time.
 *
 * Sandbox: `render --isolate` locks each worker process in after every plugin is loaded and every
 * create() (and prepare) has run (the RenderFarm article UntrustedPlugins). From then on render(),
 * frame_key() and trace() may draw, allocate (up to an address-space limit), use threads, read
 * descriptors opened in create(), their own library, the files named through input_files, fonts and
 * system libraries, and read and write the job's cache folder (RF_CACHE_FOLDER; the host writes the
 * frames). Anything else is refused and fails the frame with a message naming the plugin and the
 * call: opening other files, writing elsewhere, sockets, execve, fork, ptrace, mounts, namespaces
 * and system calls outside the sandbox's allow-list. `renderfarm plugin check` runs every call,
 * create() included, in such a sandbox (before it, only an instance at the checked parameters and
 * one at each value the range check tries, to learn the files each names). Without --isolate (or with
 * --sandbox off) a plugin is trusted code with the user's rights.
 *
 * Output: a plugin writes nothing to stdout (the host's results go there) and reports problems
 * only through its status codes and `err` buffers. `renderfarm plugin check LIB` tests these
 * rules, the descriptor and the parameter table before a plugin ships.
 *
 * Compatibility: this header only grows. Fields are added at the end of structs a plugin fills
 * (read by the host only when `struct_size` covers them), parameter types and flags get new
 * values, and inline helpers are added; a plugin built against an older v1 header keeps loading.
 * A host that does not know a parameter type refuses the plugin with a diagnostic naming it.
 */
#ifndef RENDERFARM_PLUGIN_H
#define RENDERFARM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cairo's context is `struct _cairo` (cairo.h: `typedef struct _cairo cairo_t;`), and this header
 * names it so: it compiles before or after cairo.h, or without it, in every C standard (C99 does not
 * allow a typedef to be repeated). C11 and C++, which allow it, also get the typedef here. */
struct _cairo;
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
typedef struct _cairo cairo_t;
#endif

/* The ABI version this header describes. A host passes it to rf_plugin_main(). */
#define RF_ABI_VERSION 1u

/* Status codes returned by create, render and trace. */
typedef enum rf_status {
    RF_OK = 0,
    RF_ERROR_PARAMS = 1,      /* a parameter value is unusable; err says which and why */
    RF_ERROR_RENDER = 2,      /* drawing this frame failed; the host may retry it */
    RF_ERROR_RESOURCE = 3,    /* out of memory, missing file, ... */
    RF_ERROR_UNSUPPORTED = 4, /* e.g. trace() asked of a plugin that cannot trace */
} rf_status;

/* How the host may call render() (create, trace and destroy are never called concurrently
 * on one instance). */
typedef enum rf_thread_safety {
    RF_THREADS_FULL = 0,     /* render may run on many threads at once, even on one instance */
    RF_THREADS_INSTANCE = 1, /* one thread at a time per instance; instances are independent */
    RF_THREADS_UNSAFE = 2,   /* one render at a time across every instance of the plugin */
} rf_thread_safety;

/* Parameter value types. The host checks the JSON type, the range and the choices before
 * create(), so every plugin reports bad input in the same words. */
typedef enum rf_param_type {
    RF_PARAM_NUMBER = 0,      /* JSON number; min/max apply */
    RF_PARAM_INTEGER = 1,     /* JSON number without fraction; min/max apply */
    RF_PARAM_BOOL = 2,        /* true / false */
    RF_PARAM_COLOR = 3,       /* "#RRGGBB" or "#RRGGBBAA" */
    RF_PARAM_POINT = 4,       /* [x, y] in points; min/max apply to each coordinate */
    RF_PARAM_RECT = 5,        /* {"x":…, "y":…, "width":…, "height":…}; width, height >= 0 */
    RF_PARAM_STRING = 6,      /* any string */
    RF_PARAM_ENUM = 7,        /* one of `choices` */
    RF_PARAM_SIZE = 8,        /* a number (square / diameter) or [width, height]; min/max apply */
    RF_PARAM_NUMBER_LIST = 9, /* [number, ...]; min/max apply to each element */
    RF_PARAM_JSON = 10,       /* any JSON value, checked by the plugin's create() */
    RF_PARAM_COLOR_LIST = 11, /* ["#RRGGBB" or "#RRGGBBAA", ...]; min/max bound the count */
    /* Timed events (added in ABI v1; older hosts refuse a plugin that declares it). A job gives
     * a list of objects, or a .csv, .json or .jsonl file in its folder. The host reads it, checks
     * every event's "time" (layer seconds, min…max) and the fields `choices` declares as
     * "name:type|name:type|…" (type: number, integer, bool, color, point, size, string, or
     * enum=a/b/c), sorts the events by time, and hands create() the list as JSON:
     * [{"time": 1.5, "color": "#FF0000"}, …] (read it with access->json). A field named `*`
     * ("*:string") takes every other column too, each checked as that type (a text template
     * naming the log's columns). The plugin never reads the file; its content is part of every
     * frame's fingerprint. */
    RF_PARAM_EVENTS = 16,
} rf_param_type;

/* Flags of a parameter. */
#define RF_PARAM_OPTIONAL 1u /* no default: absent unless the job sets it */

/* One row of a plugin's parameter table. All strings are static UTF-8. */
typedef struct rf_param {
    const char *name;         /* camelCase, unique within the plugin */
    rf_param_type type;
    const char *default_json; /* the default as JSON text, e.g. "36" or "\"replace\""; NULL
                                 when RF_PARAM_OPTIONAL */
    double min;               /* inclusive bounds for numeric types; -INFINITY / INFINITY if none */
    double max;
    const char *choices;      /* RF_PARAM_ENUM: the allowed values separated by '|'; else NULL */
    const char *doc;          /* one line, shown by `renderfarm plugins ID` */
    uint32_t flags;           /* RF_PARAM_OPTIONAL, ... */
} rf_param;

/* What a layer instance knows about its job. Valid during create() only; copy what you keep. */
typedef struct rf_context {
    double width;         /* canvas size in points */
    double height;
    double scale;         /* pixels per point; render() receives a cairo_t already scaled */
    double fps;
    double duration;      /* seconds */
    uint32_t frame_count; /* frames in the job's timeline (duration × fps, rounded) */
    double layer_start;   /* seconds: the job time at which the layer's local time is first 0 (through
                             its groups; RenderFarm article ComposingLayers) */
    uint64_t seed;        /* the layer's seed, derived from (job seed, layer index) */
    const char *job_dir;  /* absolute folder of the job file, for relative asset paths (assets
                             shipped beside the library: rf_plugin.plugin_dir) */
} rf_context;

/* Typed access to the layer's parameters, validated and with defaults filled by the host.
 * Valid during create() only. Each getter returns 1 when the parameter is present and has
 * that shape, else 0 (and leaves *out untouched). */
typedef struct rf_params rf_params; /* opaque, owned by the host */
typedef struct rf_param_access {
    int (*number)(const rf_params *p, const char *name, double *out); /* NUMBER, INTEGER, BOOL */
    /* COLOR → straight r, g, b, a in 0…1; POINT → x, y; RECT → x, y, width, height;
     * SIZE → width, height; NUMBER_LIST → the elements; COLOR_LIST → r, g, b, a of each colour
     * in turn (4 values per colour). Writes at most `cap` values and returns how many the value
     * has. The typed helpers below (rf_param_color, rf_param_colors, ...) wrap these getters. */
    size_t (*numbers)(const rf_params *p, const char *name, double *out, size_t cap);
    const char *(*string)(const rf_params *p, const char *name); /* STRING, ENUM; else NULL */
    const char *(*json)(const rf_params *p, const char *name);   /* any value as JSON; else NULL */
} rf_param_access;

/* The second argument of create(). */
typedef struct rf_create_args {
    const char *params_json;            /* the whole params object, defaults filled */
    const rf_params *params;            /* handle for `access` */
    const rf_param_access *access;
} rf_create_args;

/* One frame to draw or trace. For a layer whose time the job only shifts (`start`, groups),
 * index and time are the job's and local = time − layer_start. For a layer whose time runs at
 * another `speed` or loops, local is its own time and time = layer_start + local, the job time at
 * which a plain layer would be there; index is the frame at or before that time (RenderFarm
 * article ComposingLayers). */
typedef struct rf_frame {
    uint32_t index; /* frame number in the job's timeline, 0-based */
    double time;    /* job time in seconds: index / fps (see above for remapped layers) */
    double local;   /* layer time in seconds: time − layer_start (may be negative before the
                       layer's start, for layers without `end`, `speed` or `loop`) */
} rf_frame;

/* Receives trace output: UTF-8 JSON text, possibly in several pieces. */
typedef void (*rf_write_fn)(void *user, const char *utf8, size_t length);

/* One sound source of a layer (rf_plugin.sounds): which audio it is, and which part of it is heard
 * at each time of the layer. At layer time t ≥ start, the layer plays the file at
 *     source = source_start + (t − start) × speed
 * seconds of the file's own timeline (its container's timestamps, as ffmpeg reads them). Without
 * `loop` it is heard while (t − start) × speed < source_length; with `loop` the source starts again
 * from source_start each time it reaches source_length, for as long as the layer lasts. Before
 * `start` it is silent. */
typedef struct rf_sound {
    uint32_t struct_size; /* sizeof(rf_sound): fields are only added at the end */
    const char *file;     /* absolute, or relative to ctx->job_dir; one input_files names */
    int32_t stream;       /* index of the audio stream in the file, or -1 for its first audio stream */
    double gain;          /* decibels, -96…24 (the layer's own `gain` adds to it) */
    double start;         /* layer seconds at which source_start is heard, finite */
    double source_start;  /* seconds of the file's timeline, within a day of its 0 s (may be < 0) */
    double source_length; /* seconds of the file played, > 0; INFINITY: to its end (not with loop) */
    double speed;         /* file seconds per layer second, 0.01…100 */
    uint32_t loop;        /* 1: play [source_start, source_start + source_length) again and again */
} rf_sound;

/* Receives one sound source (rf_plugin.sounds). */
typedef void (*rf_sound_fn)(void *user, const rf_sound *sound);

/* One moment something happens to an item of a layer (rf_plugin.moments): an item launched, landed, hit
 * something, faded out. The host plays a job's sounds at them and `renderfarm trace` lists them. */
typedef struct rf_moment {
    uint32_t struct_size; /* sizeof(rf_moment): fields are only added at the end */
    uint32_t item;        /* the item's id, as trace() names it */
    const char *name;     /* what happens: 1-32 of a-z, 0-9 and '-', starting with a letter ("land") */
    double time;          /* layer seconds, finite, within a day either way of the layer's 0 s */
} rf_moment;

/* Receives one moment (rf_plugin.moments). */
typedef void (*rf_moment_fn)(void *user, const rf_moment *moment);

/* The most moments one layer may report, and how many seconds either way of the layer's 0 s a moment may
 * lie (rf_plugin.moments): more, or later, refuse the layer. */
#define RF_MOMENTS_MAX 1000000
#define RF_MOMENT_TIME_MAX 86400.0

typedef struct rf_plugin {
    uint32_t abi_version;  /* RF_ABI_VERSION the plugin was built against */
    uint32_t struct_size;  /* sizeof(rf_plugin), for forward compatibility */

    const char *id;         /* short id used in jobs: lowercase, digits and '-', e.g. "floating-heart" */
    const char *identifier; /* reverse-DNS, e.g. "org.renderfarm.floating-heart" */
    const char *version;    /* semantic version; part of every frame's fingerprint */
    const char *summary;    /* one line */
    rf_thread_safety thread_safety;
    const rf_param *params; /* static table of param_count rows */
    uint32_t param_count;

    /* Builds an instance for one layer: all random draws, paths and simulations happen here.
     * On success stores the instance in *out and returns RF_OK. On failure returns a status,
     * writes a message to err (at most errlen bytes including the NUL, naming the parameter as
     * "name: problem" when one is at fault), and stores nothing.
     *
     * Several problems (added in ABI v1 without changing the signature): a plugin should report
     * every problem it finds, one per line ('\n'-separated, "name: problem" each, nested names
     * like "items[2].shape"); a message that does not fit loses whole lines. The host passes at
     * least 16 KiB for create and shows each line at its place in the job file. A one-line
     * message, as older plugins write, is one problem.
     *
     * Warnings: on RF_OK, err may hold warnings in the same form (legal input that is probably
     * not meant, e.g. items that leave the canvas), which `validate` and `render` print. The
     * host sets err[0] to NUL before the call, so a plugin that writes nothing on success has
     * no warnings; hosts that ignore err on success lose nothing else. */
    int (*create)(const rf_create_args *args, const rf_context *ctx, void **out,
                  char *err, size_t errlen);

    /* Draws one frame onto `cr`, in points, over what earlier layers drew. The host has saved
     * the cairo state and restores it afterwards. Must not modify the instance. */
    int (*render)(void *instance, struct _cairo *cr, const rf_frame *frame, char *err, size_t errlen);

    /* Optional (may be NULL). Writes the state of every item at `frame` as one JSON array:
     * [{"id":…, "x":…, "y":…, "scale":…, "alpha":…, "visible":…, "plan":{…}}, …]. */
    int (*trace)(void *instance, const rf_frame *frame, rf_write_fn write, void *user);

    /* Frees the instance. */
    void (*destroy)(void *instance);

    /* Added in ABI v1 without changing any earlier field: RF_PLUGIN_* bits, 0 when none apply.
     * A host reads it only when struct_size covers it, so plugins built against an older
     * header (whose struct_size ends before it) are treated as having no flags. */
    uint32_t flags;

    /* Added in ABI v1 after `flags`, read only when struct_size covers them (NULL when unused).
     * create_with_plugin: create() that also receives the descriptor it is called through. A
     * host that knows the field calls it instead of create(), which stays required for older
     * hosts (it may then fail with RF_ERROR_UNSUPPORTED). One set of functions can so serve
     * several descriptors without global state: EffectKit's Swift export finds the effect to
     * build through `plugin_data` of the descriptor it is given.
     * plugin_data: belongs to the plugin; the host never reads it. */
    int (*create_with_plugin)(const struct rf_plugin *plugin, const rf_create_args *args,
                              const rf_context *ctx, void **out, char *err, size_t errlen);
    const void *plugin_data;

    /* Added in ABI v1 after `plugin_data` for stream-length jobs, read only when struct_size
     * covers them (NULL when unused).
     *
     * prepare: the frames this run will ask the instance for, `first` to `last` inclusive (a
     * shard's part of the job, or the one frame `preview` draws). The host calls it once, after
     * create() and before any render(), trace() or frame_key(), from one thread. A plugin whose
     * plan is costly per frame (a physics simulation) keeps state only for these frames; it may
     * refuse later calls for other frames with an error. Returns RF_OK, or a status and a
     * message in err as create() does. Without it (or on an older host), a plugin must serve
     * every frame of the job.
     *
     * frame_key: a key for what render() draws at `frame`: equal keys of one instance mean equal
     * drawings, and the key changes whenever the drawing would (for example a hash of the plans
     * and states of the items visible at that frame and of the parameters that shape them; an
     * empty frame has the key of nothing drawn, whatever its time). The host builds each frame's
     * fingerprint from its layers' keys, so a re-render after an edit draws again only the frames
     * whose keys changed, and frames of one run with equal fingerprints are drawn once. Writes
     * RF_FRAME_KEY_SIZE bytes to `key` and returns RF_OK; any other status means "no key for
     * this frame" and the host falls back to the layer's whole configuration and the frame
     * number. Called under the same thread-safety rules as render(). */
    int (*prepare)(void *instance, uint32_t first, uint32_t last, char *err, size_t errlen);
    int (*frame_key)(void *instance, const rf_frame *frame, uint8_t *key);

    /* Added in ABI v1 after `frame_key`, read only when struct_size covers it (NULL when unused).
     * prepare_with_cache: prepare() with a folder the plugin may keep files in between runs of the
     * job, `<output folder>/renderfarm.cache/<plugin id>` (RF_CACHE_FOLDER), which every shard of
     * the job shares (on a cluster, through the shared output folder). A plugin whose preparation costs more the later
     * its frames lie (a simulation that must run from the layer's start) stores checkpoints there
     * and starts from the latest one it finds; `renderfarm prepare` fills the folder before a
     * sharded render. The rules that keep it safe:
     *   - a file's name is a hash of everything its content depends on, so a file found is right
     *     whatever was edited since (and an edit late in a job keeps the earlier files valid);
     *   - a file is written whole or not at all (write it as `.rf-tmp-<anything>` in the folder and
     *     rename it; the host removes such files an hour old), and two processes writing one name
     *     write the same bytes;
     *   - a file that fails to read or does not parse is ignored and computed again, never trusted;
     *   - the user may delete the folder between runs; frames never depend on what it holds.
     * The folder may not exist yet: make it (and its parents) before the first write. The host never
     * makes or removes it, so a job whose plugins keep nothing has none. Runs that write the output
     * folder (`render`, `prepare`) always pass it; other runs (`preview`, the studio) pass it only
     * when it exists, else NULL. A host that knows the field calls it instead of prepare(), which
     * stays for older hosts. */
    int (*prepare_with_cache)(void *instance, uint32_t first, uint32_t last, const char *cache_dir,
                              char *err, size_t errlen);

    /* Added in ABI v1 after `prepare_with_cache`, read only when struct_size covers it (NULL when
     * unused; a plugin built against a header that defines RF_INPUT_FILES may set it).
     * input_files: names every file the instance's drawing depends on that the job did not hand the
     * host to read (an image, a Lottie file, a font, a data file the plugin opens itself), one call
     * of `write` per file, its path (absolute, or relative to ctx->job_dir) as `length` bytes
     * without a terminator. The host calls it once, right after create(), from one thread; it
     * hashes each file's content into the fingerprint of every frame of the layer and lists the
     * file with its sha256 in the manifest, so editing the file draws the layer's frames again.
     * Returns RF_OK; any other status fails the layer as create() would. Without it, a plugin
     * that reads files keeps frames drawn from their old content after an edit. Files the host
     * reads itself (RF_PARAM_EVENTS) need not be named. */
    int (*input_files)(void *instance, rf_write_fn write, void *user);

    /* Added in ABI v1 after `input_files`, read only when struct_size covers it (NULL when unused;
     * a plugin built against a header that defines RF_VERIFY may set it).
     * verify: checks of the instance's input too costly to repeat in every process of one run
     * (decoding a whole video to find damage its container does not show). The host calls it once
     * per run, in the process that checks the job (`validate`, `render`, `prepare`, `preview`,
     * `trace`, each shard, the studio), right after create() and input_files(), from one thread.
     * The worker processes of `render --isolate` and of the studio draw frames of a job their
     * parent has verified, and do not call it. Returns RF_OK, or a status and a message in err as
     * create() does (one "name: problem" per line, shown at its place in the job file); a failure
     * refuses the layer as create() would. Without it, such checks belong in create(), which
     * every process runs. */
    int (*verify)(void *instance, char *err, size_t errlen);

    /* Added in ABI v1 after `verify`, read only when struct_size covers it (NULL when unused; a
     * plugin built against a header that defines RF_PLUGIN_DIR may set it).
     * plugin_dir: the address of a variable of the plugin's, initialised to NULL, into which the
     * host writes the absolute folder that holds the library (symbolic links resolved, no trailing
     * '/'), once, right after rf_plugin_main() and before any create(); the string stays valid for
     * the life of the process. It is for assets shipped beside the library (a font, a palette, a
     * sprite sheet): build their paths from it in create(), open them there (create runs before a
     * sandboxed worker locks itself in) and name each one through input_files(), so that its content
     * is part of every frame's fingerprint and the sandbox lets render() read it. An older host
     * leaves the variable NULL: fail create() with a message that names the asset then.
     * A host, not the plugin, knows the folder (a library may be reached through a link), and the
     * host writes it here rather than into rf_context, whose size a plugin cannot tell: a field
     * added there would be read past the end of an older host's context. */
    const char **plugin_dir;

    /* Added in ABI v1 after `plugin_dir`, read only when struct_size covers it (NULL when unused; a
     * plugin built against a header that defines RF_SOUNDS may set it).
     * sounds: the sound the layer plays (a clip's own audio, a voice, a sound effect), one call of
     * `add` per source (rf_sound, above; the host copies it during the call). The host calls it once,
     * right after create() and input_files(), from one thread. It mixes each source into the job's
     * sound (`renderfarm mix`, `render --video`, `encode`), where the layer is heard: through the
     * layer's and its groups' time, and at the layer's host-level `gain` and `muted`. No pixel depends
     * on it. A source's file must be one that input_files names, so its content is in the manifest;
     * the host refuses the layer, as create() would, when it is not or when a number is out of range.
     * Returns RF_OK; any other status fails the layer as create() would. */
    int (*sounds)(void *instance, rf_sound_fn add, void *user);

    /* Added in ABI v1 after `sounds`, read only when struct_size covers it (NULL when unused; a plugin
     * built against a header that defines RF_MOMENTS may set it).
     * moments: the moments things happen to the layer's items, one call of `add` per moment (rf_moment,
     * above; the host copies it during the call), in any order, at most RF_MOMENTS_MAX. The host calls it once,
     * right after create(), input_files() and sounds(), from one thread. A job's sound can play at a
     * layer's moments (`"at": {"layer": "drop", "moment": "land"}`), through the layer's and its groups'
     * time, so that it follows each item whatever its flight; `renderfarm trace` lists them. No pixel
     * depends on it. Returns RF_OK; any other status fails the layer as create() would, and so does a
     * moment whose name or time breaks the rules above. */
    int (*moments)(void *instance, rf_moment_fn add, void *user);
} rf_plugin;

/* Defined by headers whose rf_plugin has `sounds`. */
#define RF_SOUNDS 1

/* Defined by headers whose rf_plugin has `moments`. */
#define RF_MOMENTS 1

/* Defined by headers whose rf_plugin has `input_files`. */
#define RF_INPUT_FILES 1

/* Defined by headers whose rf_plugin has `verify`. */
#define RF_VERIFY 1

/* Defined by headers whose rf_plugin has `plugin_dir`. */
#define RF_PLUGIN_DIR 1

/* Bytes of a frame key (rf_plugin.frame_key). */
#define RF_FRAME_KEY_SIZE 32

/* The output folder's subfolder that holds the plugins' caches (rf_plugin.prepare_with_cache);
 * a plugin built against a header that defines it may set prepare_with_cache. */
#define RF_CACHE_FOLDER "renderfarm.cache"

/* Flags of a plugin (rf_plugin.flags). */
#define RF_PLUGIN_FRAME_INVARIANT 1u /* render() draws the same pixels for every frame of an
                                        instance (a static background). When the bottom layers
                                        of a job all have this flag, the host draws them once
                                        per process and copies their pixels into every frame,
                                        which gives the same bytes as drawing them each time. */
#define RF_PLUGIN_KEYS_COVER_INPUTS 2u /* frame_key's key of a frame changes whenever a file that
                                        input_files names changes in a way the frame would draw
                                        differently (say the key combines the file's path, inode,
                                        size and modification time for every item drawn from
                                        it). The host then fingerprints the layer's keyed frames
                                        from the keys alone, so an edited file redraws only the
                                        frames drawn from it; without the flag, every frame of
                                        the layer. The files' content hashes still decide the
                                        layer's frames without keys and are listed in the
                                        manifest. */
#define RF_PLUGIN_KEYS_COVER_PARAMS 4u /* frame_key's key of a frame changes whenever a parameter,
                                        or the job's duration and frame count, changes what the
                                        frame draws: two instances of one layer created with other
                                        parameters but the same canvas, fps, seed and start give
                                        equal keys only for equal drawings. The host then
                                        fingerprints the layer's keyed frames from the keys
                                        instead of its parameters, so an edit redraws only the
                                        frames whose drawing it changes (an edited event, a longer
                                        job). Without the flag, any edit of the layer's parameters
                                        redraws every frame of the job. `renderfarm plugin check`
                                        proves the claim: it changes each parameter in turn and
                                        fails the plugin when pixels change but the key does not. */

/* How seeds are derived, so C and Swift plugins agree with the host: layer seed =
 * rf_derive_seed(job seed, layer index), where the job seed is the job file's "seed" and the
 * layer index counts from 0; item seed = rf_derive_seed(layer seed, item index). SplitMix64's
 * finaliser over the pair: no draw depends on thread, shard or order. */
static inline uint64_t rf_derive_seed(uint64_t seed, uint64_t index) {
    uint64_t z = seed ^ (0x9E3779B97F4A7C15ull * (index + 1u));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- Helpers for plugins written in C (header-only; nothing here changes the ABI). ---- */

/* A deterministic random stream (SplitMix64), the same as EffectKit's SeededRandom: start it
 * from an item's seed in create() and draw in a fixed order. */
typedef struct rf_random {
    uint64_t state;
} rf_random;

static inline rf_random rf_random_start(uint64_t seed) {
    rf_random random = {seed};
    return random;
}

/* The next 64 random bits. */
static inline uint64_t rf_random_next(rf_random *random) {
    uint64_t z = (random->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A double in [lo, hi) from 53 random bits (EffectKit's `uniform(in: lo...hi)`). */
static inline double rf_random_uniform(rf_random *random, double lo, double hi) {
    double unit = (double)(rf_random_next(random) >> 11) * (1.0 / 9007199254740992.0);
    double value = lo + (hi - lo) * unit;
    return value < hi ? value : hi;
}

/* A straight (not premultiplied) colour, each channel in 0…1. */
typedef struct rf_color {
    double r, g, b, a;
} rf_color;

/* Typed getters over rf_create_args, valid during create() only. Each returns 1 and fills *out
 * when `name` is present with that shape, else 0 (an optional parameter the job left out). */
static inline int rf_param_number(const rf_create_args *args, const char *name, double *out) {
    return args->access->number(args->params, name, out);
}

static inline int rf_param_color(const rf_create_args *args, const char *name, rf_color *out) {
    double v[4];
    if (args->access->numbers(args->params, name, v, 4) != 4) return 0;
    out->r = v[0], out->g = v[1], out->b = v[2], out->a = v[3];
    return 1;
}

static inline int rf_param_point(const rf_create_args *args, const char *name, double *x, double *y) {
    double v[2];
    if (args->access->numbers(args->params, name, v, 2) != 2) return 0;
    *x = v[0], *y = v[1];
    return 1;
}

/* RF_PARAM_COLOR_LIST: writes at most `cap` colours to `out` (which may be NULL when cap is 0)
 * and returns how many the list has, so `rf_param_colors(args, name, NULL, 0)` counts them. */
static inline size_t rf_param_colors(const rf_create_args *args, const char *name, rf_color *out, size_t cap) {
    /* rf_color is four doubles without padding (checked in abi.c): the getter fills it in place. */
    size_t values = args->access->numbers(args->params, name, (double *)out, out ? 4 * cap : 0);
    return values % 4 == 0 ? values / 4 : 0;
}

/* Frame keys (rf_plugin.frame_key) built as EffectKit's FrameKey.Hasher builds them: equal inputs
 * give equal keys in C and in Swift. Start a hasher, add everything the frame's drawing depends on
 * (the plans and states of the items visible at the frame, the parameters that shape them; with
 * RF_PLUGIN_KEYS_COVER_PARAMS, every parameter that does) and nothing it does not (the frame's
 * number, when the drawing does not move), then finish it into the key:
 *
 *     rf_key_hasher h = rf_key_start();
 *     rf_key_double(&h, s->size);
 *     rf_key_string(&h, s->label, strlen(s->label));
 *     rf_key_finish(&h, key);
 *
 * Four 64-bit lanes, each a multiply–xorshift chain with its own constants, finished with
 * SplitMix64's mixer; deterministic across runs and processes, not cryptographic. */
typedef struct rf_key_hasher {
    uint64_t lanes[4];
    uint64_t count;
} rf_key_hasher;

static inline rf_key_hasher rf_key_start(void) {
    rf_key_hasher hasher = {
        {0x6A09E667F3BCC908ull, 0xBB67AE8584CAA73Bull, 0x3C6EF372FE94F82Bull, 0xA54FF53A5F1D36F1ull}, 0};
    return hasher;
}

static inline uint64_t rf_key_step_(uint64_t lane, uint64_t word, uint64_t multiplier) {
    uint64_t mixed = (lane ^ word) * multiplier;
    return mixed ^ (mixed >> 29);
}

/* Adds 64 bits (FrameKey.Hasher's combine(UInt64)). */
static inline void rf_key_u64(rf_key_hasher *hasher, uint64_t word) {
    uint64_t count = ++hasher->count;
    hasher->lanes[0] = rf_key_step_(hasher->lanes[0], word, 0x9E3779B97F4A7C15ull);
    hasher->lanes[1] = rf_key_step_(hasher->lanes[1], word ^ count, 0xC2B2AE3D27D4EB4Full);
    hasher->lanes[2] = rf_key_step_(hasher->lanes[2], word + count, 0x165667B19E3779F9ull);
    hasher->lanes[3] = rf_key_step_(hasher->lanes[3], ~word, 0xD6E8FEB86659FD93ull);
}

/* Adds an integer (combine(Int)). */
static inline void rf_key_int(rf_key_hasher *hasher, int64_t value) { rf_key_u64(hasher, (uint64_t)value); }

/* Adds the exact bits of a double, so -0.0 and 0.0 differ as they may when drawn (combine(Double)). */
static inline void rf_key_double(rf_key_hasher *hasher, double value) {
    union {
        double number;
        uint64_t bits;
    } pun;
    pun.number = value;
    rf_key_u64(hasher, pun.bits);
}

/* Adds a truth value (combine(Bool)). */
static inline void rf_key_bool(rf_key_hasher *hasher, int value) { rf_key_u64(hasher, value ? 1u : 2u); }

/* Adds `length` bytes of UTF-8 text: its length, then its bytes eight at a time, little-endian
 * (combine(String)). */
static inline void rf_key_string(rf_key_hasher *hasher, const char *text, size_t length) {
    rf_key_int(hasher, (int64_t)length);
    uint64_t word = 0;
    unsigned filled = 0;
    for (size_t index = 0; index < length; index++) {
        word |= (uint64_t)(unsigned char)text[index] << (8 * filled);
        if (++filled == 8) {
            rf_key_u64(hasher, word);
            word = 0;
            filled = 0;
        }
    }
    if (filled > 0) rf_key_u64(hasher, word);
}

static inline uint64_t rf_key_mix_(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Writes the key: RF_FRAME_KEY_SIZE bytes, four little-endian words (FrameKey.bytes). */
static inline void rf_key_finish(const rf_key_hasher *hasher, uint8_t key[RF_FRAME_KEY_SIZE]) {
    uint64_t count = hasher->count;
    uint64_t words[4] = {
        rf_key_mix_(hasher->lanes[0] ^ count), rf_key_mix_(hasher->lanes[1] + count),
        rf_key_mix_(hasher->lanes[2] ^ (count << 1)), rf_key_mix_(hasher->lanes[3] + (count << 2))};
    for (unsigned index = 0; index < RF_FRAME_KEY_SIZE; index++) {
        key[index] = (uint8_t)(words[index / 8] >> (8 * (index % 8)));
    }
}

/* The key of a frame where the layer draws nothing (EffectKit's FrameKey.nothingDrawn): every such
 * frame of a layer shares it, so the host draws one and reuses it. */
static inline void rf_key_nothing_drawn(uint8_t key[RF_FRAME_KEY_SIZE]) {
    rf_key_hasher hasher = rf_key_start();
    rf_key_finish(&hasher, key);
}

/* The companion library, librenderfarm-plugin.a: helpers that cannot be inline under strict C99.
 * It is a static archive (`pkg-config --libs renderfarm-plugin` links it), so a plugin that uses
 * one still needs nothing of RenderFarm at run time; one that uses none links nothing of it.
 *
 * rf_path_inside: resolves `path` (absolute, or relative to `folder`) as the host and EffectKit's
 * AssetPath resolve the files a job names, and refuses it when it leaves `folder`: "." and ".."
 * are removed and checked first (so "../x" is refused whether or not it exists), then every symbolic
 * link is followed and the result checked again. Writes the absolute result to `out` (`cap` bytes)
 * and returns RF_OK; else returns RF_ERROR_PARAMS (an empty path, or one that leaves the folder) or
 * RF_ERROR_RESOURCE (a path or folder that does not exist, a result longer than cap - 1), with the
 * reason in `err`. In create(), for a file a parameter names:
 *
 *     char path[4096], why[512];
 *     if (rf_path_inside(ctx->job_dir, name, path, sizeof path, why, sizeof why) != RF_OK) {
 *         snprintf(err, errlen, "data: %s", why);
 *         return RF_ERROR_PARAMS;
 *     }
 *
 * Open the result at once, then name it through input_files. */
int rf_path_inside(const char *folder, const char *path, char *out, size_t cap, char *err, size_t errlen);

/* The entry point every plugin exports. Returns NULL when the plugin cannot serve a host
 * speaking `host_abi_version`. The descriptor must stay valid for the life of the process. */
typedef const rf_plugin *(*rf_plugin_main_fn)(uint32_t host_abi_version);
#define RF_PLUGIN_ENTRY_POINT "rf_plugin_main"

#ifdef __cplusplus
}
#endif

#endif /* RENDERFARM_PLUGIN_H */
