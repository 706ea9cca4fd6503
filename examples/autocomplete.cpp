// Prefix autocompletion with lex ranges (ZRANGEBYLEX ... LIMIT, ZLEXCOUNT).
//
// Every word gets the same score, so the set is ordered by member bytes alone and the words
// starting with a prefix form one contiguous run: from "[prefix" (inclusive) up to
// "(prefix\xff" (exclusive). 0xff never occurs in UTF-8 text, so no word sorts after
// prefix + "\xff" while still starting with prefix.
#include <cstdio>
#include <string>
#include <string_view>

#include <zset/zset.hpp>

namespace {

using lex = zset::lex_bound<std::string_view>;

class completer {
public:
    void add(std::string_view word) { words_.add(word, 0); }

    // ZLEXCOUNT words [prefix (prefix\xff
    std::size_t count(std::string_view prefix) const {
        const std::string upper = upper_bound_of(prefix);
        return words_.lex_count(range(prefix, upper));
    }

    // ZRANGEBYLEX words [prefix (prefix\xff LIMIT offset count: one page of suggestions.
    void print_page(std::string_view prefix, long long offset, long long count) const {
        const std::string upper = upper_bound_of(prefix);  // the bounds view into it
        std::printf("  \"%.*s\" LIMIT %lld %lld:", static_cast<int>(prefix.size()), prefix.data(),
                    offset, count);
        for (const auto& e : words_.range_by_lex(range(prefix, upper), {offset, count}))
            std::printf(" %.*s", static_cast<int>(e.member.size()), e.member.data());
        std::printf("\n");
    }

private:
    static std::string upper_bound_of(std::string_view prefix) {
        std::string upper(prefix);
        upper += '\xff';
        return upper;
    }
    // An empty prefix matches everything: "-" to "+", the whole set.
    static zset::lex_range<std::string_view> range(std::string_view prefix,
                                                   std::string_view upper) {
        if (prefix.empty()) return {lex::minus_infinity(), lex::plus_infinity()};
        return {lex::inclusive(prefix), lex::exclusive(upper)};
    }

    zset::sorted_set<> words_;
};

}  // namespace

int main() {
    completer c;
    for (const char* w :
         {"redis", "red", "reduce", "regex", "release", "remove", "rename", "replica", "reset",
          "rest", "return", "range", "rank", "rate", "zadd", "zrange", "zrem", "zscore"})
        c.add(w);
    c.add("redis");  // adding a word twice changes nothing: members are unique

    std::printf("%zu words\n", c.count(""));
    for (const char* prefix : {"re", "red", "ra", "z", "x"})
        std::printf("%-3s -> %zu matches\n", prefix, c.count(prefix));

    std::printf("pages of 4:\n");
    c.print_page("re", 0, 4);
    c.print_page("re", 4, 4);
    c.print_page("re", 8, 4);  // the last, short page
    c.print_page("z", 0, 4);
    c.print_page("zr", 0, 10);
    c.print_page("", 0, 5);  // no prefix yet: the first words overall
    return 0;
}
