// A short tour of zset::sorted_set: the Redis sorted set as a C++ container.
#include <cstdio>
#include <string>
#include <vector>

#include <zset/zset.hpp>

namespace {
void print(const char* title, const zset::sorted_set<>::rank_range& r) {
    std::printf("%s:", title);
    for (const auto& e : r)
        std::printf(" %.*s=%g", static_cast<int>(e.member.size()), e.member.data(), e.score);
    std::printf("\n");
}
}  // namespace

int main() {
    zset::sorted_set<> board;  // std::string members, double scores

    // ZADD
    board.add("alice", 1200);
    board.add("bob", 950);
    board.add({{"carol", 1310}, {"dave", 1200}, {"erin", 700}});
    std::printf("players: %zu, encoding: %s\n", board.size(),
                board.encoding() == zset::encoding::listpack ? "listpack" : "skiplist");

    // ZADD GT only raises a score; ZINCRBY adds to it
    board.add("bob", 900, zset::add_flags::gt);  // ignored: 900 < 950
    board.increment("bob", 100);                 // 1050
    std::printf("bob: score %g, rank %zu, reverse rank %zu\n", *board.score("bob"),
                *board.rank("bob"), *board.rev_rank("bob"));

    // ZRANGE / ZREVRANGE / ZRANGEBYSCORE ... LIMIT
    print("lowest two", board.range_by_rank(0, 1));
    std::printf("top three:");
    for (const auto& e : board.rev_range_by_rank(0, 2))
        std::printf(" %.*s", static_cast<int>(e.member.size()), e.member.data());
    std::printf("\n");
    print("score in [1000, 1300)",
          board.range_by_score({zset::score_bound<double>::inclusive(1000),
                                zset::score_bound<double>::exclusive_of(1300)}));
    std::printf("ZCOUNT (1200 +inf: %zu\n",
                board.count({zset::score_bound<double>::exclusive_of(1200),
                             zset::score_bound<double>::highest()}));

    // Equal scores order by member bytes: lex ranges (autocomplete)
    zset::sorted_set<> words;
    for (const char* w : {"apple", "apricot", "banana", "blueberry", "cherry", "apex"})
        words.add(w, 0);
    using lex = zset::lex_bound<std::string_view>;
    print("prefix 'ap'", words.range_by_lex({lex::inclusive("ap"), lex::exclusive("aq")}));

    // ZPOPMIN, set operations, iteration
    const auto lowest = board.pop_min();
    std::printf("popped %s=%g\n", lowest[0].first.c_str(), lowest[0].second);
    zset::sorted_set<> bonus{{"alice", 50}, {"zoe", 10}};
    const std::vector<const zset::sorted_set<>*> inputs{&board, &bonus};
    const auto total = zset::set_union<zset::sorted_set<>>(inputs);
    std::printf("union:");
    for (const auto& e : total)
        std::printf(" %.*s=%g", static_cast<int>(e.member.size()), e.member.data(), e.score);
    std::printf("\n");
    return 0;
}
