/* photograph.c — the lab's photograph, data/astronaut.pgm (data/SOURCE.md: NASA, public
 * domain), embedded at build time: the assembler's .incbin copies the file's bytes into the
 * object, from the lab's folder the Makefile names in CML_SRC_DIR. The harness parses them
 * with cml_pgm_parse; the Check test "Photograph" compares them with the file byte for byte.
 * Pristine. */
#include "photograph.h"

#ifndef CML_SRC_DIR
#error "CML_SRC_DIR (the lab's folder) is set by the course's Makefile"
#endif

__asm__(".section .rodata\n"
        ".global kPhotographPgm\n"
        ".type kPhotographPgm, @object\n"
        ".balign 16\n"
        "kPhotographPgm:\n"
        ".incbin \"" CML_SRC_DIR "/data/astronaut.pgm\"\n"
        "kPhotographPgmEnd:\n"
        ".size kPhotographPgm, kPhotographPgmEnd - kPhotographPgm\n"
        ".global kPhotographPgmSize\n"
        ".type kPhotographPgmSize, @object\n"
        ".balign 8\n"
        "kPhotographPgmSize:\n"
        ".quad kPhotographPgmEnd - kPhotographPgm\n"
        ".size kPhotographPgmSize, 8\n"
        ".previous\n");
