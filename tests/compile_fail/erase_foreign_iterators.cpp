// erase(first, last) takes members or this set's own iterators: iterators over ints are
// neither, and zset says so.
#include <vector>

#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    const std::vector<int> ids{1, 2};
    return static_cast<int>(s.erase(ids.begin(), ids.end()));
}
