/* renderfarm-bench-floor's encoder-only mode (floor_encoders.c). */
#ifndef FLOOR_ENCODERS_H
#define FLOOR_ENCODERS_H

/* Times RenderFarm's, libpng's and libdeflate's level 1 on the PNG frames `paths`; prints
 * "NAME MEGAPIXELS_PER_SECOND BYTES_PER_FRAME" per encoder. 0, or an exit status. */
int floor_encoders(int count, char **paths);

#endif
