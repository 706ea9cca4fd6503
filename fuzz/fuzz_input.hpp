// A small reader over a fuzz input: each call takes bytes from the front and returns 0 (or an
// empty view) once the input is used up, so every input is a valid program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace zset_fuzz {

class input {
public:
    input(const std::uint8_t* data, std::size_t size) noexcept : p_(data), end_(data + size) {}

    bool empty() const noexcept { return p_ == end_; }
    std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }

    std::uint8_t byte() noexcept { return p_ == end_ ? 0 : *p_++; }

    template <class T>
    T raw() noexcept {
        unsigned char buf[sizeof(T)] = {};
        const std::size_t n = remaining() < sizeof(T) ? remaining() : sizeof(T);
        std::memcpy(buf, p_, n);
        p_ += n;
        T v;
        std::memcpy(&v, buf, sizeof(T));
        return v;
    }

    /// Up to n bytes (fewer at the end of the input).
    std::string_view bytes(std::size_t n) noexcept {
        if (n > remaining()) n = remaining();
        std::string_view v(reinterpret_cast<const char*>(p_), n);
        p_ += n;
        return v;
    }

    /// The rest of the input.
    std::string_view rest() noexcept { return bytes(remaining()); }

private:
    const std::uint8_t* p_;
    const std::uint8_t* end_;
};

}  // namespace zset_fuzz

/// Aborts with a message when a fuzz property fails (libFuzzer then saves the input).
#define ZSET_FUZZ_CHECK(cond)                                                                      \
    do {                                                                                           \
        if (!(cond)) ::zset_fuzz::check_failed(#cond, __FILE__, __LINE__);                         \
    } while (false)

#include <cstdio>
#include <cstdlib>

namespace zset_fuzz {
[[noreturn]] inline void check_failed(const char* what, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what);
    std::abort();
}
}  // namespace zset_fuzz
