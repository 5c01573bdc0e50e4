/* RenderFarmPluginKit: the companion library of renderfarm_plugin.h, which declares its functions
 * (rf_path_inside). This header only gives the SwiftPM target its public folder. */
