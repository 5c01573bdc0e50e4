// Pango through pangocairo, with fontconfig set up by the text plugin (plugins/text). GObject's cast
// macros and the walk over a layout's runs are C; they are wrapped here as small inline functions.
#include <stdint.h>
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
