// Compiled to assembly by the codegen.prefetch_kept test, which passes only when a prefetch
// instruction is in the output. Each function below does nothing but request cache lines, the
// case g++ 12 -O2 used to delete: its pure-const analysis counted __builtin_prefetch as having no
// effect, declared block::prefetch_block "looping pure" and removed every call to it (see
// detail::prefetch in include/zset/detail/container/scan.hpp).
#include <memory>
#include <string>

#include <zset/zset.hpp>

using block = zset::detail::block<double, std::string, std::allocator<std::string>>;

void request_whole_block(const block& b) {
    b.prefetch_block();
}
