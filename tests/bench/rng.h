#ifndef BENCH_RNG_H
#define BENCH_RNG_H
/*
 * The benchmarks' random numbers: splitmix64, seeded by each benchmark so
 * that its data, and so its timings, are the same from run to run.
 */
#include <math.h>
#include <stdint.h>

static uint64_t rng_state;

static inline void rng_seed(uint64_t seed)
{
	rng_state = seed;
}

static inline uint64_t rng_u64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static inline double rng_unit(void)
{
	return ((double)(rng_u64() >> 11) + 0.5) / 9007199254740992.0;
}

/* standard normal, Box-Muller */
static inline double rng_normal(void)
{
	return sqrt(-2 * log(rng_unit())) * cos(2 * 3.14159265358979323846 * rng_unit());
}

#endif
