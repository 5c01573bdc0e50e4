// The ABI target is header-only; this file pins the layout of the structs plugins share.
#include "renderfarm_plugin.h"

#include <stddef.h>

_Static_assert(sizeof(rf_frame) == 24, "rf_frame layout is part of ABI v1");
_Static_assert(sizeof(uint64_t) == 8, "seeds are 64-bit");
_Static_assert(offsetof(rf_plugin, flags) >= offsetof(rf_plugin, destroy) + sizeof(void (*)(void *)),
               "flags comes after every ABI v1 field");
_Static_assert(sizeof(rf_color) == 4 * sizeof(double), "rf_param_colors fills rf_color as four doubles");
_Static_assert(offsetof(rf_plugin, create_with_plugin) >= offsetof(rf_plugin, flags) + sizeof(uint32_t),
               "create_with_plugin and plugin_data come after flags");
_Static_assert(offsetof(rf_plugin, prepare) >= offsetof(rf_plugin, plugin_data) + sizeof(const void *),
               "prepare and frame_key come after plugin_data");
_Static_assert(offsetof(rf_plugin, prepare_with_cache) >= offsetof(rf_plugin, frame_key) + sizeof(void (*)(void)),
               "prepare_with_cache comes after frame_key");
_Static_assert(offsetof(rf_plugin, plugin_dir) >= offsetof(rf_plugin, verify) + sizeof(void (*)(void)),
               "plugin_dir comes after verify");
_Static_assert(offsetof(rf_plugin, sounds) >= offsetof(rf_plugin, plugin_dir) + sizeof(const char **),
               "sounds comes after plugin_dir");
_Static_assert(offsetof(rf_sound, struct_size) == 0, "a sound starts with its size");
