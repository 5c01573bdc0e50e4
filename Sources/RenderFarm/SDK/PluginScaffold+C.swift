extension PluginScaffold {
    static let cPlugin = #"""
        /*
         * __ID__: bubbles that rise through the canvas, written in C against renderfarm_plugin.h.
         * Made by `renderfarm plugin new __ID__ --lang c`; change it freely.
         *
         * Every random draw happens in create() from the layer's seed, so frame k has the same
         * bytes on any thread, in any order; render() and trace() only read the instance.
         */
        #include <cairo.h>
        #include <math.h>
        #include <stdio.h>
        #include <stdlib.h>

        #include <renderfarm/renderfarm_plugin.h>

        #define MAX_BUBBLES 256
        #define MAX_COLORS 16

        typedef struct bubble {
            double x;     /* centre, points */
            double speed; /* points per second upwards */
            double phase; /* 0…1: how far up the bubble starts */
            rf_color color;
        } bubble;

        typedef struct __CNAME__ {
            double height, radius;
            size_t count;
            bubble bubbles[MAX_BUBBLES];
        } __CNAME__;

        static const rf_param parameters[] = {
            { "count", RF_PARAM_INTEGER, "12", 1, MAX_BUBBLES, NULL, "how many bubbles", 0 },
            { "radius", RF_PARAM_NUMBER, "10", 1, 100, NULL, "bubble radius in points", 0 },
            { "speed", RF_PARAM_NUMBER, "90", 1, 2000, NULL, "average rise in points per second", 0 },
            { "colors", RF_PARAM_COLOR_LIST, "[\"#5AC8FA\", \"#FF2D55\", \"#FFCC00\"]", 1, MAX_COLORS, NULL,
              "bubble colours, used in turn", 0 },
        };

        /* Where a bubble's centre is at layer time `t`: it rises and wraps around below the canvas. */
        static double bubble_y(const __CNAME__ *self, const bubble *b, double t) {
            double travel = self->height + 2 * self->radius;
            double risen = fmod(b->phase * travel + b->speed * (t > 0 ? t : 0), travel);
            return self->height + self->radius - risen;
        }

        static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
            double count, speed;
            rf_color colors[MAX_COLORS];
            __CNAME__ *self = calloc(1, sizeof(*self));
            if (!self) {
                snprintf(err, errlen, "out of memory");
                return RF_ERROR_RESOURCE;
            }
            size_t color_count = rf_param_colors(args, "colors", colors, MAX_COLORS);
            if (!rf_param_number(args, "count", &count) || !rf_param_number(args, "radius", &self->radius) ||
                !rf_param_number(args, "speed", &speed) || color_count == 0) {
                snprintf(err, errlen, "count, radius, speed, colors: missing (the host fills the defaults)");
                free(self);
                return RF_ERROR_PARAMS;
            }
            if (color_count > MAX_COLORS) color_count = MAX_COLORS;
            self->height = ctx->height;
            self->count = (size_t)count;
            for (size_t i = 0; i < self->count; i++) {
                /* One random stream per bubble, from the layer seed and the bubble's index. */
                rf_random random = rf_random_start(rf_derive_seed(ctx->seed, i));
                bubble *b = &self->bubbles[i];
                b->x = rf_random_uniform(&random, self->radius, ctx->width - self->radius);
                b->speed = speed * rf_random_uniform(&random, 0.6, 1.4);
                b->phase = rf_random_uniform(&random, 0, 1);
                b->color = colors[i % color_count];
            }
            *out = self;
            return RF_OK;
        }

        static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
            const __CNAME__ *self = instance;
            for (size_t i = 0; i < self->count; i++) {
                const bubble *b = &self->bubbles[i];
                cairo_new_path(cr);
                cairo_arc(cr, b->x, bubble_y(self, b, frame->local), self->radius, 0, 2 * M_PI);
                cairo_set_source_rgba(cr, b->color.r, b->color.g, b->color.b, b->color.a);
                cairo_fill(cr);
            }
            if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
                snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_status(cr)));
                return RF_ERROR_RENDER;
            }
            return RF_OK;
        }

        /* The state of every bubble at `frame` as one JSON array (renderfarm trace, plugin check). */
        static int trace(void *instance, const rf_frame *frame, rf_write_fn write, void *user) {
            const __CNAME__ *self = instance;
            char item[256];
            write(user, "[", 1);
            for (size_t i = 0; i < self->count; i++) {
                const bubble *b = &self->bubbles[i];
                int length = snprintf(item, sizeof(item),
                                      "%s{\"id\":%zu,\"x\":%.17g,\"y\":%.17g,\"scale\":1,\"alpha\":%.17g,"
                                      "\"visible\":true,\"plan\":{\"speed\":%.17g,\"phase\":%.17g}}",
                                      i ? "," : "", i, b->x, bubble_y(self, b, frame->local), b->color.a,
                                      b->speed, b->phase);
                if (length < 0 || (size_t)length >= sizeof(item)) return RF_ERROR_RENDER;
                write(user, item, (size_t)length);
            }
            write(user, "]", 1);
            return RF_OK;
        }

        /* The frame's key: everything render() draws at `frame` (each bubble's place, the radius, the
         * colours) and nothing else, hashed as EffectKit hashes keys. Frames with one key are drawn once;
         * with RF_PLUGIN_KEYS_COVER_PARAMS an edit of a parameter redraws only the frames whose key it
         * changes (`make check` proves the key covers every parameter). */
        static int frame_key(void *instance, const rf_frame *frame, uint8_t *key) {
            const __CNAME__ *self = instance;
            rf_key_hasher hasher = rf_key_start();
            rf_key_double(&hasher, self->radius);
            rf_key_int(&hasher, (int64_t)self->count);
            for (size_t i = 0; i < self->count; i++) {
                const bubble *b = &self->bubbles[i];
                rf_key_double(&hasher, b->x);
                rf_key_double(&hasher, bubble_y(self, b, frame->local));
                rf_key_double(&hasher, b->color.r);
                rf_key_double(&hasher, b->color.g);
                rf_key_double(&hasher, b->color.b);
                rf_key_double(&hasher, b->color.a);
            }
            rf_key_finish(&hasher, key);
            return RF_OK;
        }

        static void destroy(void *instance) { free(instance); }

        static const rf_plugin descriptor = {
            .abi_version = RF_ABI_VERSION,
            .struct_size = sizeof(rf_plugin),
            .id = "__ID__",
            .identifier = "com.example.__ID__",
            .version = "0.1.0",
            .summary = "Bubbles rising through the canvas (made with renderfarm plugin new)",
            .thread_safety = RF_THREADS_FULL,
            .params = parameters,
            .param_count = sizeof(parameters) / sizeof(parameters[0]),
            .create = create,
            .render = render,
            .trace = trace,
            .destroy = destroy,
            .frame_key = frame_key,
            .flags = RF_PLUGIN_KEYS_COVER_PARAMS,
        };

        const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
            return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
        }

        """#

    static let cTest = #"""
        /* Checks two rendered frames: each has drawn pixels, and they differ (the bubbles move). */
        #include <cairo.h>
        #include <stdio.h>
        #include <string.h>

        static long drawn_pixels(cairo_surface_t *surface) {
            cairo_surface_flush(surface);
            const unsigned char *data = cairo_image_surface_get_data(surface);
            int width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface);
            int stride = cairo_image_surface_get_stride(surface);
            long count = 0;
            for (int y = 0; y < height; y++)
                for (int x = 0; x < width; x++) count += data[y * stride + 4 * x + 3] != 0; /* alpha byte */
            return count;
        }

        int main(int argc, char **argv) {
            if (argc != 3) {
                fprintf(stderr, "usage: test-pixels FRAME.png FRAME.png\n");
                return 2;
            }
            cairo_surface_t *frames[2];
            for (int i = 0; i < 2; i++) {
                frames[i] = cairo_image_surface_create_from_png(argv[i + 1]);
                if (cairo_surface_status(frames[i]) != CAIRO_STATUS_SUCCESS) {
                    fprintf(stderr, "FAIL: cannot read %s\n", argv[i + 1]);
                    return 1;
                }
                long drawn = drawn_pixels(frames[i]);
                if (drawn < 50) {
                    fprintf(stderr, "FAIL: %s has %ld drawn pixels, expected bubbles\n", argv[i + 1], drawn);
                    return 1;
                }
                printf("%s: %ld drawn pixels\n", argv[i + 1], drawn);
            }
            int height = cairo_image_surface_get_height(frames[0]);
            size_t bytes = (size_t)cairo_image_surface_get_stride(frames[0]) * (size_t)height;
            if (height != cairo_image_surface_get_height(frames[1]) ||
                memcmp(cairo_image_surface_get_data(frames[0]), cairo_image_surface_get_data(frames[1]), bytes) == 0) {
                fprintf(stderr, "FAIL: the two frames are identical; the bubbles should move\n");
                return 1;
            }
            printf("ok: two frames drawn and different\n");
            return 0;
        }

        """#

    static let cMakefile = #"""
        # __ID__: a RenderFarm effect plugin in C, built against the installed SDK
        # (pkg-config renderfarm-plugin; set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a custom prefix).
        PKG_CONFIG ?= pkg-config
        RENDERFARM ?= renderfarm
        CFLAGS     ?= -O2 -Wall -Wextra -Werror
        PLUGIN     := __LIBRARY__
        PLUGIN_DIR  = $(shell $(PKG_CONFIG) --variable=plugindir renderfarm-plugin)
        # The user's plugin folder, which renderfarm searches by default (XDG_DATA_HOME when absolute).
        USER_PLUGIN_DIR ?= $(or $(filter /%,$(XDG_DATA_HOME)),$(HOME)/.local/share)/renderfarm/plugins
        # The SDK's pkg-config folder beside the renderfarm on PATH (<prefix>/bin → <prefix>/lib/pkgconfig).
        RENDERFARM_BIN = $(realpath $(shell command -v $(RENDERFARM)))
        SDK_PC_DIR     = $(or $(patsubst %/bin/,%/lib/pkgconfig,$(dir $(RENDERFARM_BIN))),<prefix>/lib/pkgconfig)

        .PHONY: all check test install install-user uninstall clean

        all: $(PLUGIN)

        # Without the SDK on pkg-config's path the compiler would only say that cairo.h is missing.
        $(PLUGIN): __CNAME__.c
        	@$(PKG_CONFIG) --exists renderfarm-plugin || { echo "pkg-config finds no renderfarm-plugin SDK; run:"; \
        	    echo "  export PKG_CONFIG_PATH=$(SDK_PC_DIR)"; exit 1; } >&2
        	$(CC) $(CFLAGS) -shared -fPIC -o $@ $< $$($(PKG_CONFIG) --cflags --libs renderfarm-plugin) -lm

        test-pixels: test_pixels.c
        	$(CC) $(CFLAGS) -o $@ $< $$($(PKG_CONFIG) --cflags --libs cairo)

        # The conformance check of renderfarm_plugin.h's rules.
        check: $(PLUGIN)
        	$(RENDERFARM) plugin check ./$(PLUGIN)

        # Renders two frames of the example job with this folder on the plugin path and checks pixels.
        test: $(PLUGIN) test-pixels
        	rm -rf __TEST_OUTPUT__
        	$(RENDERFARM) __TEST_RENDER__
        	./test-pixels __TEST_OUTPUT__/frame_00000.png __TEST_OUTPUT__/frame_00030.png

        install: $(PLUGIN)
        	install -D -m 644 $(PLUGIN) $(DESTDIR)$(PLUGIN_DIR)/$(PLUGIN)

        # Into the user's own plugin folder: no root, no variable.
        install-user: $(PLUGIN)
        	install -D -m 644 $(PLUGIN) $(USER_PLUGIN_DIR)/$(PLUGIN)

        uninstall:
        	rm -f $(DESTDIR)$(PLUGIN_DIR)/$(PLUGIN) $(USER_PLUGIN_DIR)/$(PLUGIN)

        clean:
        	rm -rf $(PLUGIN) test-pixels out

        """#

    static let cReadme = #"""
        # __ID__

        A RenderFarm effect plugin in C: bubbles rising through the canvas, in the colours of the
        `colors` list. Made with `renderfarm plugin new __ID__ --lang c`.

        - `make` builds `__LIBRARY__` against the installed SDK (`pkg-config renderfarm-plugin`).
        - `make test` renders frames 0 and 30 of `example.json` and checks their pixels.
        - `make check` runs `renderfarm plugin check` (descriptor, parameters, threads, determinism).
        - `make install-user` copies the library into your own plugin folder
          (`$XDG_DATA_HOME/renderfarm/plugins`, by default `~/.local/share/renderfarm/plugins`), which
          renderfarm searches by default; `make install` into the installed plugin folder (every
          user; may need root). Or run `renderfarm render example.json --plugin-path .` without
          installing, or `export RENDERFARM_PLUGIN_PATH=$PWD`.
        - pkg-config must find the SDK: for a prefix it does not search, `make` stops and prints the
          `export PKG_CONFIG_PATH=<prefix>/lib/pkgconfig` line to run.

        The ABI is documented in `<prefix>/include/renderfarm/renderfarm_plugin.h`.

        """#
}
