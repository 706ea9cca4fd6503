// Must compile: if the include path or flags were wrong, every compile-failure test could pass
// for the wrong reason; this one would then fail. It uses what the failing snippets misuse.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <zset/zset.hpp>

struct byte_hash {
    std::uint64_t operator()(std::string_view s) const noexcept { return s.size(); }
};

int main() {
    zset::sorted_set<std::string, double, byte_hash> s;
    s.add("a", 1.0);
    s.add("b", 2);
    const zset::limit first_ten{0, 10};
    const zset::score_bound<double> open_one(1, zset::endpoint::exclusive);
    const bool none = s.empty();
    const std::vector<std::string> members{"a"};
    s.erase(members.begin(), members.end());
    return none || s.range_by_score({open_one, 3.0}, first_ten).size() != 1;
}
