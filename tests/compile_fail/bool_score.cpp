// A bool is not a score: score_arg takes every arithmetic type except bool.
#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    s.add("a", true);
}
