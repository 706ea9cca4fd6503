// The program every consumer test builds against an installed/embedded zset.
#include <cstdio>

#include <zset/zset.hpp>

int main() {
    zset::sorted_set<> s;
    s.add("alice", 10);
    s.add("bob", 20);
    auto r = s.rank("bob");
    if (!r || *r != 1 || s.size() != 2) return 1;
    std::puts("ok");
    return 0;
}
