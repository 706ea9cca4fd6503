// `s.empty();` reads like "empty the set" and does nothing: [[nodiscard]] makes it a warning
// (an error here, with -Werror=unused-result).
#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    s.empty();
}
