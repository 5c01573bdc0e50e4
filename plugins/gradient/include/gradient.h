/* The gradient plugin exports only the ABI entry point. */
#ifndef RENDERFARM_GRADIENT_H
#define RENDERFARM_GRADIENT_H

#include "renderfarm_plugin.h"

const rf_plugin *rf_plugin_main(uint32_t host_abi_version);

#endif
