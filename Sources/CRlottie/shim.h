// rlottie's C API (Debian's librlottie-dev, rlottie 0.1). Swift cannot call C variadic functions, so
// lottie_animation_property_override is wrapped once per value shape; the wrappers pass doubles, as
// the library reads them with va_arg(…, double).
#include <rlottie_capi.h>

/// A colour property (fill or stroke colour): r, g, b in 0…1 (the library ignores values outside).
static inline void rf_lottie_override_color(Lottie_Animation *animation, Lottie_Animation_Property property,
                                            const char *keypath, double r, double g, double b) {
    lottie_animation_property_override(animation, property, keypath, r, g, b);
}

/// A one-number property: an opacity in 0…100, a stroke width, a rotation in degrees.
static inline void rf_lottie_override_number(Lottie_Animation *animation, Lottie_Animation_Property property,
                                             const char *keypath, double value) {
    lottie_animation_property_override(animation, property, keypath, value);
}

/// A two-number property: a position offset (x, y) or a scale in percent (width, height).
static inline void rf_lottie_override_pair(Lottie_Animation *animation, Lottie_Animation_Property property,
                                           const char *keypath, double x, double y) {
    lottie_animation_property_override(animation, property, keypath, x, y);
}
