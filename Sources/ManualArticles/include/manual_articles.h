#ifndef MANUAL_ARTICLES_H
#define MANUAL_ARTICLES_H

#include <stddef.h>

/// One DocC article, compiled into the binary from `Sources/<module>/<module>.docc`.
typedef struct {
    /// The catalog's module: "RenderFarm", "EffectKit" or "Motion".
    const char *module;
    /// The article's file name in the catalog, e.g. "ComposingLayers.md".
    const char *file;
    /// The article's Markdown (UTF-8, not NUL-terminated) and its size in bytes.
    const unsigned char *bytes;
    size_t size;
} manual_article;

/// How many articles the manual has.
size_t manual_article_count(void);

/// Article number `index` (below `manual_article_count()`), in catalog order.
const manual_article *manual_article_at(size_t index);

#endif
