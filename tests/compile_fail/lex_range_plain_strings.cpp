// A lex range needs "[x" / "(x" spelled out: two plain strings do not silently pick one.
#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    return static_cast<int>(s.range_by_lex({"a", "b"}).size());
}
