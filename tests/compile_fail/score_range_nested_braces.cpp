// The brace-elision trap of issue 10: `{{0, 1}, 2}` once meant min = 0 exclusive. A bound's
// second part is a zset::endpoint now, so a number there does not compile.
#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    return static_cast<int>(s.count({{0, 1}, 2}));
}
