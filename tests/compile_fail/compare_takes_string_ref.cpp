// A member order taking `const std::string&`: members are compared as std::string_view.
#include <functional>
#include <string>

#include <zset/zset.hpp>

struct string_ref_less {
    bool operator()(const std::string& a, const std::string& b) const { return a < b; }
};

int main() {
    zset::sorted_set<std::string, double, zset::hash<std::string>, std::equal_to<>, string_ref_less>
        s;
    return static_cast<int>(s.size());
}
