// `limit{10}` was an aggregate meaning offset 10 (skip ten), easily read as "the first ten": now
// both numbers are required.
#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    return static_cast<int>(s.range_by_score({}, zset::limit{10}).size());
}
