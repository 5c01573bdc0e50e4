// Pango through pangocairo, with fontconfig set up by the text plugin (plugins/text). GObject's cast
// macros and the walk over a layout's runs are C; they are wrapped here as small inline functions.
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <hb.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <pango/pangofc-font.h>
#include <fontconfig/fontconfig.h>

/// A cairo font map (FreeType fonts) that finds fonts only through `config`.
static inline PangoFontMap *rf_text_font_map_new(FcConfig *config) {
    PangoFontMap *map = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
    if (map != NULL) pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(map), config);
    return map;
}

/// Calls `visit` with the file of every font a run of `layout` is drawn with (repeats included).
static inline void rf_text_layout_font_files(
    PangoLayout *layout, void *user, void (*visit)(void *user, const char *file)) {
    PangoLayoutIter *iter = pango_layout_get_iter(layout);
    if (iter == NULL) return;
    do {
        PangoLayoutRun *run = pango_layout_iter_get_run_readonly(iter);
        if (run == NULL || run->item == NULL || run->item->analysis.font == NULL) continue;
        PangoFont *font = run->item->analysis.font;
        if (!PANGO_IS_FC_FONT(font)) continue;
        FcPattern *pattern = pango_fc_font_get_pattern(PANGO_FC_FONT(font));
        FcChar8 *file = NULL;
        if (pattern != NULL && FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch && file != NULL)
            visit(user, (const char *)file);
    } while (pango_layout_iter_next_run(iter));
    pango_layout_iter_free(iter);
}

/// Calls `each` with the code point of every glyph of `layout` no face has, in order (PANGO_GLYPH_UNKNOWN_FLAG:
/// drawn as a box showing the code point, which the glyph holds under the flag); returns how many there are.
static inline int rf_text_layout_unknown_glyphs(
    PangoLayout *layout, void *user, void (*each)(void *user, uint32_t code_point)) {
    int count = 0;
    PangoLayoutIter *iter = pango_layout_get_iter(layout);
    if (iter == NULL) return 0;
    do {
        PangoLayoutRun *run = pango_layout_iter_get_run_readonly(iter);
        if (run == NULL || run->glyphs == NULL) continue;
        for (int i = 0; i < run->glyphs->num_glyphs; i++) {
            PangoGlyph glyph = run->glyphs->glyphs[i].glyph;
            if (!(glyph & PANGO_GLYPH_UNKNOWN_FLAG)) continue;
            count++;
            each(user, (uint32_t)(glyph & ~PANGO_GLYPH_UNKNOWN_FLAG));
        }
    } while (pango_layout_iter_next_run(iter));
    pango_layout_iter_free(iter);
    return count;
}

static inline void rf_text_unref(void *object) { g_object_unref(object); }

/// The recursive mutex that every copy of the text plugin's code in this process shares (PangoWorld in
/// plugins/text/PangoText/FontLibrary.swift), made by the first copy that asks; NULL only without memory for one.
///
/// It is kept where every copy finds the same one: as user data of HarfBuzz's default Unicode functions, an object
/// the process has once, under a key every copy gets alike (the address HarfBuzz interns the made-up language
/// "x-renderfarm-text" at). HarfBuzz sets user data under a lock of its own and, told not to replace, keeps the
/// first: when two copies ask at once, one mutex is kept and the other copy frees its own.
static inline pthread_mutex_t *rf_text_libraries_mutex(void) {
    hb_unicode_funcs_t *funcs = hb_unicode_funcs_get_default();
    hb_user_data_key_t *key = (hb_user_data_key_t *)hb_language_from_string("x-renderfarm-text", -1);
    pthread_mutex_t *found = hb_unicode_funcs_get_user_data(funcs, key);
    if (found != NULL) return found;
    pthread_mutex_t *made = malloc(sizeof *made);
    pthread_mutexattr_t attributes;
    if (made == NULL || pthread_mutexattr_init(&attributes) != 0) {
        free(made);
        return NULL;
    }
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    int status = pthread_mutex_init(made, &attributes);
    pthread_mutexattr_destroy(&attributes);
    if (status != 0) {
        free(made);
        return NULL;
    }
    if (hb_unicode_funcs_set_user_data(funcs, key, made, NULL, 0)) return made;
    found = hb_unicode_funcs_get_user_data(funcs, key);
    // HarfBuzz keeps no user data on this object (it could not allocate): the mutex stays this copy's own.
    if (found == NULL) return made;
    pthread_mutex_destroy(made);
    free(made);
    return found;
}

/// One grapheme cluster of a layout as Pango set it (text animators, plugins/text/PangoText/TextClusters.swift):
/// its bytes in the layout's text, its line, where its glyphs start on the baseline and how far they advance
/// (Pango units, from the layout's origin), and the run's glyphs it covers, which stay valid while the layout
/// lives. `foreground` is the run's markup colour (16 bits a channel) when `has_foreground`.
typedef struct rf_text_cluster {
    int start, end, line;
    int x, baseline, width;
    PangoFont *font;
    PangoGlyphString *glyphs;
    int first_glyph, glyph_count;
    int has_foreground;
    uint16_t foreground[3];
} rf_text_cluster;

/// Calls `visit` with every cluster of `layout`, line by line, left to right as drawn.
static inline void rf_text_layout_clusters(
    PangoLayout *layout, void *user, void (*visit)(void *user, const rf_text_cluster *cluster)) {
    PangoLayoutIter *iter = pango_layout_get_iter(layout);
    if (iter == NULL) return;
    int line = -1;
    PangoLayoutLine *current = NULL;
    do {
        PangoLayoutLine *this_line = pango_layout_iter_get_line_readonly(iter);
        if (this_line != current) {
            current = this_line;
            line++;
        }
        PangoLayoutRun *run = pango_layout_iter_get_run_readonly(iter);
        // NULL: the end of a line.
        if (run == NULL || run->glyphs == NULL || run->item == NULL) continue;
        PangoRectangle logical;
        pango_layout_iter_get_run_extents(iter, NULL, &logical);
        rf_text_cluster cluster = {0};
        cluster.line = line;
        cluster.baseline = pango_layout_iter_get_baseline(iter);
        cluster.font = run->item->analysis.font;
        cluster.glyphs = run->glyphs;
        for (GSList *extra = run->item->analysis.extra_attrs; extra != NULL; extra = extra->next) {
            PangoAttribute *attribute = extra->data;
            if (attribute->klass->type != PANGO_ATTR_FOREGROUND) continue;
            PangoColor color = ((PangoAttrColor *)attribute)->color;
            cluster.has_foreground = 1;
            cluster.foreground[0] = color.red;
            cluster.foreground[1] = color.green;
            cluster.foreground[2] = color.blue;
        }
        int x = logical.x;
        PangoGlyphString *glyphs = run->glyphs;
        for (int i = 0; i < glyphs->num_glyphs;) {
            int j = i, width = 0;
            while (j < glyphs->num_glyphs && glyphs->log_clusters[j] == glyphs->log_clusters[i]) {
                width += glyphs->glyphs[j].geometry.width;
                j++;
            }
            // In a right-to-left run the glyphs are in visual order and a cluster's bytes end where the next
            // cluster to the left begins; the cluster's own start is its log_clusters value either way.
            int start = run->item->offset + glyphs->log_clusters[i];
            int end = run->item->offset + run->item->length;
            for (int k = 0; k < glyphs->num_glyphs; k++) {
                int other = run->item->offset + glyphs->log_clusters[k];
                if (other > start && other < end) end = other;
            }
            cluster.start = start;
            cluster.end = end;
            cluster.x = x;
            cluster.width = width;
            cluster.first_glyph = i;
            cluster.glyph_count = j - i;
            visit(user, &cluster);
            x += width;
            i = j;
        }
    } while (pango_layout_iter_next_run(iter));
    pango_layout_iter_free(iter);
}

/// Draws the glyphs of `cluster` with the current source, its pen at (x, y) in user space, or adds their
/// outlines to the current path when `path_only`.
static inline void rf_text_show_cluster(cairo_t *cr, const rf_text_cluster *cluster, double x, double y, int path_only) {
    PangoGlyphString slice = *cluster->glyphs;
    slice.num_glyphs = cluster->glyph_count;
    slice.glyphs = cluster->glyphs->glyphs + cluster->first_glyph;
    slice.log_clusters = cluster->glyphs->log_clusters + cluster->first_glyph;
    cairo_move_to(cr, x, y);
    if (path_only)
        pango_cairo_glyph_string_path(cr, cluster->font, &slice);
    else
        pango_cairo_show_glyph_string(cr, cluster->font, &slice);
}
