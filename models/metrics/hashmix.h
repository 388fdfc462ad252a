#pragma once

// splitmix64's finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom
// number generators", OOPSLA 2014): spreads a hash's bits, so that per-label
// hashes summed into an order-insensitive label-set hash do not cancel out.

#include <cstdint>

namespace opsdeck::metrics::detail {

inline std::uint64_t mixHash(std::uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace opsdeck::metrics::detail
