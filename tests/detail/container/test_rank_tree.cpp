// The rank tree on its own (detail/container/rank_tree.hpp): random links, unlinks and count
// changes of blocks against a model list, checking every block's start rank, nth() and offset(),
// its first keys and block_for_key(), and the tree's invariants; enough blocks for three levels
// of 32-entry nodes, then all removed again.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/container/rank_tree.hpp>

namespace {

using tree_type = zset::detail::rank_tree<double, std::allocator<char>>;
using block_id = tree_type::block_id;

struct model_block {
    block_id id;
    std::size_t count;
    double key;  // the block's first score: nondecreasing along the order
};

/// The tree and the model list it should describe, with checks.
struct fixture {
    tree_type tree;
    std::allocator<char> alloc;
    std::vector<model_block> order;
    std::vector<std::size_t> count_by_id;
    std::vector<double> key_by_id;
    std::vector<block_id> free_ids;
    block_id next_id = 1;

    ~fixture() { tree.release(alloc); }

    block_id fresh_id() {
        if (!free_ids.empty()) {
            const block_id id = free_ids.back();
            free_ids.pop_back();
            return id;
        }
        count_by_id.resize(next_id + 1);
        key_by_id.resize(next_id + 1);
        return next_id++;
    }

    /// Links a new block after position `pos` of the order (pos == order.size(): first). Its
    /// key is its predecessor's (a first block takes its successor's, less one), which keeps
    /// the keys in order.
    void link(std::size_t pos, std::size_t count) {
        const block_id id = fresh_id();
        tree.reserve(alloc, next_id);
        if (pos == order.size()) {
            const double key = order.empty() ? 0.0 : order.front().key - 1.0;
            tree.insert_after(tree_type::none, id, key);
            key_by_id[id] = key;
            order.insert(order.begin(), model_block{id, 0, key});
        } else {
            const double key = order[pos].key;
            tree.insert_after(order[pos].id, id, key);
            key_by_id[id] = key;
            order.insert(order.begin() + static_cast<std::ptrdiff_t>(pos) + 1,
                         model_block{id, 0, key});
        }
        grow(id, count);
    }

    void set_key(block_id id, double key) {
        tree.set_key(id, key);
        find(id).key = key;
        key_by_id[id] = key;
    }

    void grow(block_id id, std::size_t k) {
        tree.grow(id, k);
        find(id).count += k;
        count_by_id[id] += k;
    }

    void shrink(block_id id, std::size_t k) {
        tree.shrink(id, k);
        find(id).count -= k;
        count_by_id[id] -= k;
    }

    void unlink(std::size_t pos) {
        const block_id id = order[pos].id;
        tree.erase(id);
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(pos));
        count_by_id[id] = 0;
        free_ids.push_back(id);
    }

    model_block& find(block_id id) {
        return *std::find_if(order.begin(), order.end(),
                             [id](const model_block& b) { return b.id == id; });
    }

    bool valid() const {
        return tree.validate(
            [this](block_id id) { return std::make_pair(count_by_id[id], key_by_id[id]); });
    }

    /// Gives the blocks new first keys, two blocks a key (ties), and checks block_for_key
    /// between and on them: the last block whose key is below, or none on a tie.
    void check_keys() {
        for (std::size_t j = 0; j < order.size(); ++j)
            set_key(order[j].id, static_cast<double>(j / 2));
        REQUIRE(valid());
        CHECK(tree.block_for_key(-0.5) == (order.empty() ? tree_type::none : order[0].id));
        for (std::size_t j = 0; j < order.size(); j += 1 + order.size() / 50) {
            const double key = static_cast<double>(j / 2);
            const std::size_t last_below = std::min(order.size() - 1, 2 * (j / 2) + 1);
            CHECK(tree.block_for_key(key + 0.5) == order[last_below].id);
            CHECK(tree.block_for_key(key) == tree_type::none);
        }
    }

    void check() {
        REQUIRE(tree.blocks() == order.size());
        REQUIRE(valid());
        check_keys();
        std::size_t rank = 0;
        std::vector<std::size_t> starts;
        for (const model_block& b : order) {
            REQUIRE(tree.rank_of(b.id) == rank);
            REQUIRE(tree.count_of(b.id) == b.count);
            // nth: every element of a non-empty block is found in it (empty blocks never are)
            for (std::size_t k = 0; k < b.count; k += 1 + b.count / 3) {
                const auto found = tree.nth(rank + k);
                REQUIRE(found.first == b.id);
                REQUIRE(found.second == k);
            }
            starts.push_back(rank);
            rank += b.count;
        }
        // offset between blocks near each other (shared leaf) and far apart, both directions
        for (std::size_t i = 0; i < order.size(); i += 1 + order.size() / 40) {
            for (std::size_t j : {i, i + 1, i + 31, i + 33, order.size() - 1 - i}) {
                if (j >= order.size()) continue;
                const auto expected =
                    static_cast<std::ptrdiff_t>(starts[j]) - static_cast<std::ptrdiff_t>(starts[i]);
                REQUIRE(tree.offset(order[i].id, order[j].id) == expected);
                REQUIRE(tree.offset(order[j].id, order[i].id) == -expected);
            }
        }
    }
};

}  // namespace

TEST_CASE("rank_tree: start ranks through splits, count changes and removals", "[rank_tree]") {
    std::mt19937_64 rng(20261124);
    fixture f;
    auto pick = [&](std::size_t n) {
        return static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(n));
    };
    SECTION("appended in order, then removed from the front") {
        for (std::size_t i = 0; i < 1200; ++i)
            f.link(f.order.empty() ? f.order.size() : f.order.size() - 1, 1 + i % 7);
        CHECK(f.tree.height() == 3);  // 1,200 leaf entries in half-full 32-entry nodes
        f.check();
        while (!f.order.empty()) {
            f.unlink(0);
            if (f.order.size() % 97 == 0) f.check();
        }
        CHECK(f.tree.height() == 0);
        f.check();
    }
    SECTION("random links, count changes and unlinks") {
        for (int step = 0; step < 40000; ++step) {
            const std::size_t n = f.order.size();
            const std::size_t what = pick(10);
            if (n == 0 || what < 4 + (step < 20000 ? 2 : 0)) {
                f.link(n == 0 ? 0 : pick(n + 1), pick(100));
            } else if (what < 8) {
                model_block& b = f.order[pick(n)];
                if (what < 6)
                    f.grow(b.id, pick(50));
                else
                    f.shrink(b.id, pick(b.count + 1));
            } else {
                f.unlink(pick(n));
            }
            if (step % 499 == 0) f.check();
        }
        CHECK(f.tree.height() >= 2);
        f.check();
        while (!f.order.empty()) f.unlink(pick(f.order.size()));
        f.check();
        // and it builds again after emptying
        for (std::size_t i = 0; i < 100; ++i) f.link(pick(f.order.size() + 1), 3);
        f.check();
    }
}
