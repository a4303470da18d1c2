/* random_inputs.h — the bench programs' random inputs (bench/roof/lab33_*.cu): uniform_pm1()
 * returns the next float of one fixed sequence, uniform in [-1, 1) with 24 random bits, so that
 * every run of a program computes on the same inputs.
 *
 * Source: S. Vigna, "An experimental exploration of Marsaglia's xorshift generators, scrambled"
 * (2016): xorshift64*, its shifts (12, 25, 27) and multiplier. */
#pragma once

#include <cstdint>

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static float uniform_pm1(void) { // xorshift64*, uniform in [-1, 1)
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    const uint64_t x = g_rng * 0x2545F4914F6CDD1Dull;
    return (float)((double)(x >> 40) * (1.0 / 16777216.0) * 2.0 - 1.0);
}
