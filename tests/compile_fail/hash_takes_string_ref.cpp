// A hash taking `const std::string&`: members are hashed as std::string_view, so zset says
// which signature it needs instead of failing deep inside the header.
#include <string>

#include <zset/zset.hpp>

struct string_ref_hash {
    std::uint64_t operator()(const std::string& s) const noexcept { return s.size(); }
};

int main() {
    zset::sorted_set<std::string, double, string_ref_hash> s;
    return static_cast<int>(s.size());
}
