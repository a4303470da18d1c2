/* cml_rng.h — the course's seeded random generator: the same stream on every platform.
 *
 * Algorithm: SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the constants are those of Vigna's public-domain reference
 * splitmix64.c). State: one uint64_t. Each step adds 0x9E3779B97F4A7C15 to the state and
 * returns the mixed state. Only fixed-width integer arithmetic is used, so the stream for
 * a given seed is identical on every compiler and platform; floats are made from the top
 * 24 bits, so they are exact in float32 too.
 *
 * Reference values (tested in tests/test_rng.c): seed 0 gives first outputs
 * 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_rng {
    uint64_t state;
} cml_rng;

/* Starts a stream. Any 64-bit seed is valid, 0 included. */
void cml_rng_seed(cml_rng *rng, uint64_t seed);

/* Next 64 random bits. */
uint64_t cml_rng_u64(cml_rng *rng);

/* Uniform float in [0, 1): the top 24 bits of the next output times 2^-24. */
float cml_rng_unit_f32(cml_rng *rng);

/* Uniform float in [lo, hi): lo + (hi - lo) * unit, rounded to float32 step by step (no
 * FMA); a result that rounds up to hi is replaced by the largest float below hi.
 * Precondition: lo < hi. */
float cml_rng_uniform_f32(cml_rng *rng, float lo, float hi);

/* Fills x[0..n) with cml_rng_uniform_f32(rng, lo, hi), in index order. */
void cml_rng_fill_uniform_f32(cml_rng *rng, float *x, size_t n, float lo, float hi);

/* Advances the stream past n outputs at once, as n calls of cml_rng_u64 would (each adds the
 * same constant to the state), n of cml_rng_uniform_f32 or one cml_rng_fill_uniform_f32 of n:
 * a process that needs the values after them without the values themselves. */
void cml_rng_skip(cml_rng *rng, uint64_t n);
/* Output i (0-based) of cml_rng_uniform_f32 on a generator whose state is `state`: what the
 * (i + 1)-th call returns, computed alone (the state after i steps is state + i times the
 * step), bit for bit. A reference that reads a sample of an input's positions reads them so,
 * without drawing the whole input (cml_input_uniform_view). */
float cml_rng_uniform_at(uint64_t state, uint64_t i, float lo, float hi);
/* Uniform integer in [0, bound) without modulo bias (Lemire's method). bound >= 1. */
uint64_t cml_rng_below(cml_rng *rng, uint64_t bound);

#ifdef __cplusplus
}
#endif
