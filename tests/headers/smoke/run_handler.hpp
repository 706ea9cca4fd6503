// Smoke-test helper for the command-family headers: runs one handler directly on a fresh
// keyspace state, without the keyspace's dispatch, and returns its reply.
#ifndef ZSET_TESTS_HEADERS_RUN_HANDLER_HPP
#define ZSET_TESTS_HEADERS_RUN_HANDLER_HPP

#include <string_view>
#include <vector>

#include <zset/redis/command.hpp>

namespace smoke_support {

struct harness {
    zset::redis::detail::keyspace_state state{zset::redis::keyspace_options{}};
    zset::redis::session session;

    zset::redis::reply run(zset::redis::command_handler handler,
                           std::vector<std::string_view> argv) {
        zset::redis::tree_sink out(session.proto, zset::redis::format_style::shortest);
        zset::redis::exec_result result;
        const zset::redis::command_spec spec{"smoke", -1, "", 0, 0, 0, "", handler};
        zset::redis::command c{argv.data(), argv.size(), &spec, session, out, state, result};
        handler(c);
        return out.take();
    }
};

}  // namespace smoke_support

#endif  // ZSET_TESTS_HEADERS_RUN_HANDLER_HPP
