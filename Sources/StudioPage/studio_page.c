// The studio's page: HTML, CSS and JavaScript kept as ordinary files in `page/` (edited, syntax-checked
// and unit-tested as such) and compiled into the binary with C23's #embed, so the studio needs no files
// beside the executable, no build step and no network.
#include "studio_page.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char index_html[] = {
#embed "page/index.html"
};
static const unsigned char studio_css[] = {
#embed "page/studio.css"
};
static const unsigned char studio_state_js[] = {
#embed "page/studio-state.js"
};
static const unsigned char studio_tools_js[] = {
#embed "page/studio-tools.js"
};
static const unsigned char studio_js[] = {
#embed "page/studio.js"
};

#define PAGE_FILE(path, type, bytes) {path, type, bytes, sizeof bytes}

static const studio_page_file files[] = {
    PAGE_FILE("/index.html", "text/html; charset=utf-8", index_html),
    PAGE_FILE("/studio.css", "text/css; charset=utf-8", studio_css),
    PAGE_FILE("/studio-state.js", "text/javascript; charset=utf-8", studio_state_js),
    PAGE_FILE("/studio-tools.js", "text/javascript; charset=utf-8", studio_tools_js),
    PAGE_FILE("/studio.js", "text/javascript; charset=utf-8", studio_js),
};
size_t studio_page_file_count(void) { return sizeof files / sizeof files[0]; }

const studio_page_file *studio_page_file_at(size_t index) { return &files[index]; }
