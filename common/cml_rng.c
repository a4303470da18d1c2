/* cml_rng.c — SplitMix64, the course's seeded generator (cml_rng.h).
 *
 * Source: Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014; constants from Vigna's public-domain splitmix64.c
 * (https://prng.di.unimi.it/splitmix64.c). Bounded integers: Lemire, "Fast random
 * integer generation in an interval", ACM TOMACS 29(1), 2019.
 */
#include "cml_rng.h"

#include <math.h>

void cml_rng_seed(cml_rng *rng, uint64_t seed) {
    rng->state = seed;
}

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15u /* SplitMix64's step */

uint64_t cml_rng_u64(cml_rng *rng) {
    uint64_t z = (rng->state += GOLDEN_GAMMA);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void cml_rng_skip(cml_rng *rng, uint64_t n) {
    rng->state += n * GOLDEN_GAMMA; /* modulo 2^64, as n steps */
}

float cml_rng_unit_f32(cml_rng *rng) {
    /* 24 bits fit a float32 significand exactly: the result is k * 2^-24, k < 2^24. */
    return (float)(cml_rng_u64(rng) >> 40) * 0x1p-24f;
}

float cml_rng_uniform_f32(cml_rng *rng, float lo, float hi) {
    /* Separate statements keep compilers from fusing into an FMA, which would change the
     * stream between platforms. lo + scaled can round up to hi (e.g. lo = 1, hi = 2,
     * unit = 1 - 2^-24 ties to 2): then return the largest float below hi. */
    float span = hi - lo;
    float scaled = span * cml_rng_unit_f32(rng);
    float x = lo + scaled;
    return x < hi ? x : nextafterf(hi, lo);
}

void cml_rng_fill_uniform_f32(cml_rng *rng, float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; ++i) {
        x[i] = cml_rng_uniform_f32(rng, lo, hi);
    }
}

float cml_rng_uniform_at(uint64_t state, uint64_t i, float lo, float hi) {
    cml_rng at = {state};
    cml_rng_skip(&at, i);
    return cml_rng_uniform_f32(&at, lo, hi);
}

/* The full 128-bit product a * b, from four 32x32 -> 64 bit products (portable C11). */
static void mul_64x64_128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
    uint64_t b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    uint64_t p0 = a_lo * b_lo;
    uint64_t p1 = a_lo * b_hi;
    uint64_t p2 = a_hi * b_lo;
    uint64_t p3 = a_hi * b_hi;
    uint64_t mid = (p0 >> 32) + (p1 & 0xFFFFFFFFu) + (p2 & 0xFFFFFFFFu); /* < 3 * 2^32 */
    *lo = (mid << 32) | (p0 & 0xFFFFFFFFu);
    *hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

uint64_t cml_rng_below(cml_rng *rng, uint64_t bound) {
    /* Lemire: the high word of x * bound is uniform on [0, bound) once the few x whose low
     * word falls below 2^64 mod bound are rejected; the division runs only when the low
     * word is small enough that a rejection is possible. */
    uint64_t hi, lo;
    mul_64x64_128(cml_rng_u64(rng), bound, &hi, &lo);
    if (lo < bound) {
        uint64_t threshold = (0 - bound) % bound; /* 2^64 mod bound */
        while (lo < threshold) {
            mul_64x64_128(cml_rng_u64(rng), bound, &hi, &lo);
        }
    }
    return hi;
}
