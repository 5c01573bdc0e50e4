// GitHub's CommonMark parser and renderers (cmark-gfm) with its table extension: the manual's articles
// (renderfarm docs) parsed once and written as terminal text, roff and HTML.
#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>
