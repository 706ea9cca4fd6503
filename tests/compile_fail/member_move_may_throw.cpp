// A non-string Member must be nothrow move constructible (blocks move members while
// reorganising and must not fail halfway).
#include <cstdint>

#include <zset/zset.hpp>

struct throwing_move {
    int id = 0;
    throwing_move() = default;
    throwing_move(const throwing_move&) = default;
    throwing_move(throwing_move&& other) noexcept(false) : id(other.id) {}
    throwing_move& operator=(const throwing_move&) = default;
    bool operator==(const throwing_move& o) const { return id == o.id; }
    bool operator<(const throwing_move& o) const { return id < o.id; }
};
struct id_hash {
    std::uint64_t operator()(const throwing_move& m) const noexcept {
        return static_cast<std::uint64_t>(m.id);
    }
};

int main() {
    zset::sorted_set<throwing_move, double, id_hash> s;
    s.add(throwing_move{}, 1.0);
}
