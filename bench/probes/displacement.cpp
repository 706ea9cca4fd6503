// Probe: how far from its home the farthest entry of a sorted linear-probing table sits at a
// given load, for random 32-bit tags (the layout is unique for a set of tags: in tag order,
// each entry at max(its home, one past the previous)). hash_index.hpp caps the distance at 253,
// the largest its 2-byte keys encode; this prints the worst and mean maximum over random fills
// and how many entries passed 253:
//
//   g++ -std=c++17 -O2 -Ibench bench/probes/displacement.cpp -o /tmp/displacement
//   /tmp/displacement
//
// Figures: detail/hash_index.hpp, "Runs never wrap around".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "bench_support.hpp"

int main() {
    zbench::rng draw(3);
    for (const std::size_t capacity : {512u, 4096u, 100000u, 1000000u, 11500000u}) {
        for (const double load : {0.78, 0.875}) {
            const int fills = capacity < 100000 ? 200 : 5;
            std::size_t worst = 0, past_cap = 0;
            double sum = 0;
            for (int fill = 0; fill < fills; ++fill) {
                std::vector<std::uint32_t> tags(
                    static_cast<std::size_t>(static_cast<double>(capacity) * load));
                for (auto& t : tags) t = static_cast<std::uint32_t>(draw.next());
                std::sort(tags.begin(), tags.end());
                std::size_t next = 0, farthest = 0;
                for (const std::uint32_t t : tags) {
                    const auto home = static_cast<std::size_t>((std::uint64_t{t} * capacity) >> 32);
                    const std::size_t at = std::max(home, next);
                    farthest = std::max(farthest, at - home);
                    past_cap += at - home > 253 ? 1 : 0;
                    next = at + 1;
                }
                worst = std::max(worst, farthest);
                sum += static_cast<double>(farthest);
            }
            std::printf("%9zu slots, load %.3f: farthest %zu (worst of %d fills), mean %.1f; "
                        "past 253: %zu\n",
                        capacity, load, worst, fills, sum / fills, past_cap);
        }
    }
}
