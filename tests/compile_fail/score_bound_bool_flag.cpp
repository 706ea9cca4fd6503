// `score_bound<double>{1, true}` was the aggregate {value, exclusive}: the flag is now the
// named zset::endpoint, so a bool (or a second number, the brace-elision trap) is refused.
#include <zset/zset.hpp>

int main() {
    const zset::score_bound<double> b{1, true};
    return b.exclusive ? 0 : 1;
}
