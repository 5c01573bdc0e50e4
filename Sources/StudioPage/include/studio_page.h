#ifndef STUDIO_PAGE_H
#define STUDIO_PAGE_H

#include <stddef.h>

/// One file of the studio's page, compiled into the binary from `Sources/StudioPage/page`.
typedef struct {
    /// The path the studio serves it at: "/index.html", "/studio.js", ….
    const char *path;
    /// The `Content-Type` it is served with.
    const char *content_type;
    /// The file's bytes (not NUL-terminated) and their count.
    const unsigned char *bytes;
    size_t size;
} studio_page_file;

/// How many files the page has.
size_t studio_page_file_count(void);

/// The page's file number `index` (below `studio_page_file_count()`).
const studio_page_file *studio_page_file_at(size_t index);

#endif
