// `{}` as a lex bound must not compile: as the upper end of `{lex::inclusive("b"), {}}` it
// would have meant "-" (an empty range) where "from b on" was meant. A bound is named:
// lex::minus_infinity(), lex::plus_infinity(), lex::inclusive(v) or lex::exclusive(v).
#include <string_view>

#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> words{{"apple", 0}, {"banana", 0}};
    using lex = zset::lex_bound<std::string_view>;
    return static_cast<int>(words.lex_count({lex::inclusive("b"), {}}));
}
