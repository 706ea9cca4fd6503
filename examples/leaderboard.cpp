// A game leaderboard: the classic sorted-set use case (ZINCRBY, ZREVRANGE, ZREVRANK).
//
// Scores only go up here, so every update is an increment. The board is read from the top
// (highest score first); players with equal scores are listed in reverse member order, exactly
// as Redis's ZREVRANGE lists them.
#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include <zset/zset.hpp>

namespace {

using board_type = zset::sorted_set<std::string, long long>;  // integer points: no rounding

void print_entry(std::size_t rank, std::string_view player, long long points) {
    std::printf("  #%-2zu %-8.*s %5lld\n", rank + 1, static_cast<int>(player.size()), player.data(),
                points);
}

// ZREVRANGE board 0 n-1 WITHSCORES
void print_top(const board_type& board, long long n) {
    std::printf("top %lld:\n", n);
    std::size_t rank = 0;
    for (const auto& e : board.rev_range_by_rank(0, n - 1)) print_entry(rank++, e.member, e.score);
}

// ZREVRANK player, then ZREVRANGE board rank-2 rank+2: the player in context.
void print_around(const board_type& board, std::string_view player) {
    const auto rank = board.rev_rank(player);
    if (!rank) {
        std::printf("%.*s is not on the board\n", static_cast<int>(player.size()), player.data());
        return;
    }
    std::printf("around %.*s (rank %zu of %zu):\n", static_cast<int>(player.size()), player.data(),
                *rank + 1, board.size());
    // Two places either side; `stop` may run past the last rank, the range clamps it as
    // ZREVRANGE does. `start` is clamped here only to number the lines.
    const long long start = std::max(0LL, static_cast<long long>(*rank) - 2);
    auto r = static_cast<std::size_t>(start);
    for (const auto& e : board.rev_range_by_rank(start, start + 4))
        print_entry(r++, e.member, e.score);
}

}  // namespace

int main() {
    board_type board;

    // Match results: (player, points won). ZINCRBY creates a player on their first win.
    const std::pair<const char*, long long> results[] = {
        {"ada", 120}, {"grace", 90},  {"linus", 150}, {"alan", 60},   {"barbara", 110},
        {"ken", 75},  {"dennis", 95}, {"ada", 40},    {"grace", 70},  {"margaret", 140},
        {"alan", 45}, {"ken", 20},    {"linus", 25},  {"dennis", 30}, {"edsger", 130},
    };
    for (const auto& [player, points] : results) board.increment(player, points);

    print_top(board, 3);  // ada and grace tie at 160: grace comes first (reverse member order)
    print_around(board, "alan");
    print_around(board, "linus");  // at the top: the window is clipped
    print_around(board, "bjarne");

    // A late bonus: one O(log n) update, no re-sorting of the board.
    const auto ken = board.increment("ken", 30);
    std::printf("ken +30 -> %lld points\n", *ken);
    print_around(board, "ken");

    // ZCOUNT board 150 +inf
    std::printf("players with 150 points or more: %zu\n",
                board.count({zset::score_bound<long long>::inclusive(150),
                             zset::score_bound<long long>::highest()}));
    return 0;
}
