// zset::detail::set_iterator (set_iterator.hpp) on its own, made at chosen (node, position)
// places as set_engine makes it (a specialization of set_engine for this file's parameters is a
// friend, as every set_engine is): in listpack mode (one block, id 1, end() id 0) and in skiplist
// mode (a skiplist's nodes, end() the head), with every way a walk requests blocks (none,
// on_entry, ahead). Checked against a std::vector of the elements: forward and backward walks
// from either end, a random walk of ++ and -- (pre and post) compared at every step with an
// iterator made at that place, equality by place only (a default iterator is end()), decrement
// from end() to the last element, crossing blocks of one element, and elements that stay valid
// after the iterator moves on (a dereference is a view into the block, by value). Use after a
// change to the set is caught in checked mode: tests/checked/misuse.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "zset_catch.hpp"
#include <zset/detail/container/set_iterator.hpp>

namespace {
struct set_iterator_test_params {};
}  // namespace

namespace zset {
namespace detail {
/// The maker of set_iterators for these tests: set_iterator's constructor is for set_engine.
template <>
class set_engine<set_iterator_test_params> {
public:
    template <class Iterator, class List, class Block>
    static Iterator make(const List* list, Block b, std::uint32_t id, std::size_t pos,
                         block_requests requests) {
        Iterator it(list, b, id, pos);
        it.requests_ = requests;
        return it;
    }
};
}  // namespace detail
}  // namespace zset

namespace {

using si_alloc = std::allocator<std::string>;
using si_list = zset::detail::skiplist<double, std::string, si_alloc>;
using si_block = si_list::block_type;
using si_iterator = zset::detail::set_iterator<double, std::string, si_alloc>;
using si_maker = zset::detail::set_engine<set_iterator_test_params>;
using si_requests = zset::detail::block_requests;
using si_element = std::pair<double, std::string>;

static_assert(std::is_same_v<std::iterator_traits<si_iterator>::iterator_category,
                             std::bidirectional_iterator_tag>);
static_assert(std::is_same_v<si_iterator::value_type, zset::element<std::string_view, double>>);
static_assert(std::is_same_v<si_iterator::reference, si_iterator::value_type>);  // a proxy
static_assert(std::is_same_v<si_iterator::difference_type, std::ptrdiff_t>);
static_assert(std::is_nothrow_copy_constructible_v<si_iterator>);

const si_requests si_all_requests[] = {si_requests::none, si_requests::on_entry,
                                       si_requests::ahead};

/// A place a walk can be at: its node id (listpack mode: 1, or 0 at end()) and position.
struct si_place {
    std::uint32_t id;
    std::size_t pos;
};

/// Elements and the places that hold them, in order, plus end() last; makes iterators at them.
struct si_sequence {
    const si_list* list = nullptr;  // null: listpack mode
    si_block lp{};                  // listpack mode's block
    std::vector<si_element> elements;
    std::vector<si_place> places;  // places[i] holds elements[i]; places.back() is end()

    si_iterator at(std::size_t i, si_requests r) const {
        const si_place p = places[i];
        const si_block b = list == nullptr ? lp : list->block_of(p.id);
        return si_maker::make<si_iterator>(list, b, p.id, p.pos, r);
    }
    si_iterator begin(si_requests r) const { return at(0, r); }
    si_iterator end(si_requests r) const { return at(places.size() - 1, r); }
};

std::string si_member(std::size_t i) {
    return "m" + std::to_string(1000 + i) + std::string(i % 7, 'x');
}

/// A listpack-mode block holding n elements (member order = score order).
si_block si_listpack_block(std::size_t n) {
    const si_alloc alloc;
    std::size_t units = 0;
    for (std::size_t i = 0; i < n; ++i) units += si_block::units_for(si_member(i));
    si_block b = si_block::create(alloc, std::max<std::size_t>(n, 1), units, false);
    for (std::size_t i = 0; i < n; ++i)
        b.link(b.size(), b.append_record(alloc, static_cast<double>(i / 2), si_member(i)), 0);
    return b;
}

si_sequence si_listpack_sequence(si_block b) {
    si_sequence s;
    s.lp = b;
    for (std::size_t i = 0; i < b.size(); ++i) {
        s.elements.emplace_back(b.score(i), std::string(b.member(i)));
        s.places.push_back({1, i});
    }
    s.places.push_back({0, 0});
    return s;
}

/// A skiplist of blocks of the given sizes (appended in order, as a bulk build does).
void si_build(si_list& list, const std::vector<std::size_t>& sizes) {
    const si_alloc alloc;
    std::size_t next = 0;
    for (const std::size_t size : sizes) {
        std::size_t units = 0;
        for (std::size_t i = 0; i < size; ++i) units += si_block::units_for(si_member(next + i));
        list.append_node(
            si_block::grown(size), si_block::grown_area(units), si_list::max_level, false,
            [&](si_block b) {
                for (std::size_t i = 0; i < size; ++i, ++next)
                    b.link(b.size(),
                           b.append_record(alloc, static_cast<double>(next), si_member(next)), 0);
            });
    }
}

si_sequence si_skiplist_sequence(const si_list& list) {
    si_sequence s;
    s.list = &list;
    for (std::uint32_t id = list.first(); id != si_list::head_id; id = list.at(id).next(0)) {
        const si_block b = list.block_of(id);
        for (std::size_t i = 0; i < b.size(); ++i) {
            s.elements.emplace_back(b.score(i), std::string(b.member(i)));
            s.places.push_back({id, i});
        }
    }
    s.places.push_back({si_list::head_id, 0});
    return s;
}

bool si_is(const si_iterator::value_type& e, const si_element& expected) {
    return e.score == expected.first && e.member == expected.second;
}

/// Walks over s in every request mode: forward from begin(), backward from end(), and a random
/// walk compared with iterators made at each place.
void si_check_walks(const si_sequence& s, std::uint64_t seed) {
    const std::size_t n = s.elements.size();
    for (const si_requests r : si_all_requests) {
        INFO("requests " << static_cast<int>(r) << ", " << n << " elements");
        // forward: pre-increment, each element once, then end()
        std::size_t i = 0;
        for (si_iterator it = s.begin(r); it != s.end(r); ++it, ++i) {
            REQUIRE(i < n);
            REQUIRE(si_is(*it, s.elements[i]));
            REQUIRE(it->score == s.elements[i].first);
            REQUIRE(it->member == s.elements[i].second);
            REQUIRE(it == s.at(i, r));
        }
        REQUIRE(i == n);
        // backward from end(): post-decrement
        si_iterator it = s.end(r);
        for (std::size_t k = n; k-- > 0;) {
            const si_iterator was = it--;
            REQUIRE(was == s.at(k + 1, r));
            REQUIRE(si_is(*it, s.elements[k]));
            REQUIRE(it == s.at(k, r));
        }
        REQUIRE(it == s.begin(r));
        // post-increment returns the place it left
        if (n > 0) {
            si_iterator p = s.begin(r);
            const si_iterator old = p++;
            REQUIRE(old == s.begin(r));
            REQUIRE(p == s.at(1, r));
        }
        // a random walk: ++ and -- of both kinds, compared with the place it should be at
        std::mt19937_64 rng(seed);
        si_iterator w = s.begin(r);
        std::size_t where = 0;
        for (int step = 0; step < 4000 && n > 0; ++step) {
            const bool forward = where == 0 || (where < n && rng() % 2 == 0);
            if (forward) {
                if (rng() % 2 == 0)
                    ++w;
                else
                    w++;
                ++where;
            } else {
                if (rng() % 2 == 0)
                    --w;
                else
                    w--;
                --where;
            }
            REQUIRE(w == s.at(where, r));
            REQUIRE((w == s.end(r)) == (where == n));
            if (where < n) REQUIRE(si_is(*w, s.elements[where]));
        }
    }
}

}  // namespace

TEST_CASE("set_iterator: listpack mode walks its one block both ways", "[set_iterator]") {
    const si_alloc alloc;
    for (std::size_t n = 0; n <= 20; ++n) {
        const si_block b = si_listpack_block(n);
        const si_sequence s = si_listpack_sequence(b);
        si_check_walks(s, 1000 + n);
        // an empty set's begin() is its end(), and a default iterator is end()
        if (n == 0) CHECK(s.begin(si_requests::none) == s.end(si_requests::none));
        CHECK(si_iterator() == s.end(si_requests::none));
        CHECK_FALSE(si_iterator() != s.end(si_requests::none));
        if (n > 0) {
            CHECK(si_iterator() != s.begin(si_requests::none));
            // decrement from end(): the last element
            si_iterator last = s.end(si_requests::none);
            --last;
            CHECK(si_is(*last, s.elements.back()));
        }
        si_block::destroy(alloc, b);
    }
    // a set with no block at all (listpack mode before its first element)
    const si_iterator none = si_maker::make<si_iterator>(static_cast<const si_list*>(nullptr),
                                                         si_block(), 0, 0, si_requests::none);
    CHECK(none == si_iterator());
}

TEST_CASE("set_iterator: skiplist mode crosses nodes both ways, in every request mode",
          "[set_iterator]") {
    const std::vector<std::vector<std::size_t>> layouts = {
        {1},
        {5},
        {1, 1, 1, 1},              // every step crosses a node
        {3, 1, 4, 1, 5, 9, 2, 6},  // blocks of one between larger ones
        {128, 128, 1, 128},
    };
    std::uint64_t seed = 1;
    for (const auto& layout : layouts) {
        si_list list;
        si_build(list, layout);
        const si_sequence s = si_skiplist_sequence(list);
        REQUIRE(list.validate());
        REQUIRE(s.elements.size() == list.size());
        si_check_walks(s, seed++);
        CHECK(si_iterator() == s.end(si_requests::none));
        si_iterator last = s.end(si_requests::ahead);
        --last;
        CHECK(si_is(*last, s.elements.back()));
        ++last;
        CHECK(last == s.end(si_requests::ahead));
    }
    // many blocks of random sizes: walks request blocks ahead across all of them
    std::mt19937_64 rng(99);
    std::vector<std::size_t> sizes;
    for (int i = 0; i < 300; ++i) sizes.push_back(1 + static_cast<std::size_t>(rng() % 40));
    si_list list;
    si_build(list, sizes);
    si_check_walks(si_skiplist_sequence(list), 77);
}

TEST_CASE("set_iterator: an empty skiplist's begin() is end()", "[set_iterator]") {
    si_list list;
    list.reserve_head();  // a set reserved in skiplist mode before its first element
    REQUIRE(list.first() == si_list::head_id);
    for (const si_requests r : si_all_requests) {
        const si_iterator begin =
            si_maker::make<si_iterator>(&list, list.block_of(list.first()), list.first(), 0, r);
        const si_iterator end = si_maker::make<si_iterator>(&list, si_block(), 0, 0, r);
        CHECK(begin == end);
        CHECK(end == si_iterator());
    }
}

TEST_CASE("set_iterator: a dereferenced element stays valid after the iterator moves on",
          "[set_iterator]") {
    si_list list;
    si_build(list, {2, 3, 1});
    const si_sequence s = si_skiplist_sequence(list);
    si_iterator it = s.begin(si_requests::on_entry);
    std::vector<si_iterator::value_type> seen;
    for (; it != s.end(si_requests::on_entry); ++it) seen.push_back(*it);
    REQUIRE(seen.size() == s.elements.size());
    for (std::size_t i = 0; i < seen.size(); ++i) CHECK(si_is(seen[i], s.elements[i]));
    // operator-> holds its element by value too
    const auto arrow = s.begin(si_requests::none).operator->();
    CHECK(arrow->member == s.elements.front().second);
}
