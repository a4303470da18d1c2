/* photograph.h — the lab's photograph, compiled into the binary (photograph.c embeds
 * data/astronaut.pgm at build time; data/SOURCE.md gives its source and licence). Pristine. */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bytes of data/astronaut.pgm: a binary PGM (P5), 512 x 512, maxval 255. */
extern const unsigned char kPhotographPgm[];
extern const size_t kPhotographPgmSize;

#ifdef __cplusplus
}
#endif
