// The program tests/gdb/check_gdb.sh debugs: it builds sorted sets in both encodings, then calls
// zset_gdb_break(), where gdb stops and prints them with tools/gdb/zset_printers.py.
// Built with -O0 -g so every local lives in memory with its name.
#include <string>

#include <zset/zset.hpp>

namespace {
// A volatile sink keeps the call (and the objects it names) from being optimized away.
const void* volatile g_sink = nullptr;
}  // namespace

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
void zset_gdb_break(const void* observed) {
    g_sink = observed;
}

int main() {
    // Listpack mode: three members, printed in score order.
    zset::sorted_set<> listpack_set{{"alice", 1200}, {"bob", 950}, {"carol", 1310.5}};

    // Skiplist mode, several blocks: 300 ascending members convert at the 129th; erasing ranks
    // 5..127 leaves a 5-element first block, so the first ten elements span two blocks. A
    // 300-byte member exercises the 4-byte length prefix of members of 255 bytes or more.
    zset::sorted_set<> skiplist_set;
    for (int i = 0; i < 300; ++i) {
        std::string name = std::to_string(i);
        name.insert(0, 3 - name.size(), '0');
        skiplist_set.add("player:" + name, i);
    }
    skiplist_set.erase_range_by_rank(5, 127);
    skiplist_set.add(std::string(300, 'x'), 2.5);

    zset::sorted_set<> empty_set;

    // A non-string member type: the block stores an array of objects.
    zset::sorted_set<long long, long long> integer_set{{7, 70}, {3, 30}};

    const auto alice = listpack_set.find("alice");
    const auto past_end = listpack_set.end();
    // Skiplist-mode iterators: one on an element, one past the last.
    const auto player = skiplist_set.find("player:200");
    const auto skiplist_end = skiplist_set.end();

    zset_gdb_break(&listpack_set);
    zset_gdb_break(&skiplist_set);
    zset_gdb_break(&empty_set);
    zset_gdb_break(&integer_set);
    zset_gdb_break(&alice);
    zset_gdb_break(&past_end);
    zset_gdb_break(&player);
    zset_gdb_break(&skiplist_end);
    return skiplist_set.size() == 178 && listpack_set.size() == 3 ? 0 : 1;
}
