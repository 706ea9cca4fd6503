// zset::redis::commands — scripting: FUNCTION (LOAD, DELETE, LIST, STATS, KILL, FLUSH, HELP), as
// a server without scripting engines replies: it has no libraries, LOAD finds no engine for any
// library, and nothing is ever running.
// SPDX-License-Identifier: MIT
//
// Argument checks and error texts are Redis 7.0 / 7.2's functions.c (the same in both), so a
// client or test harness that sends FUNCTION FLUSH or FUNCTION LIST (Redis's Tcl test suite does
// before each test file) gets the answer of a Redis server that has no libraries loaded, and a
// library sent with FUNCTION LOAD gets the error of a server without its engine ("ERR Engine 'LUA'
// not found"). FUNCTION DUMP / RESTORE, FCALL, EVAL and SCRIPT are not implemented.
//
// Thread safety: handlers need exclusive access to the keyspace.
#ifndef ZSET_REDIS_COMMANDS_SCRIPTING_HPP
#define ZSET_REDIS_COMMANDS_SCRIPTING_HPP

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "request_parser.hpp"

namespace zset::redis::commands {

/// FUNCTION FLUSH [ASYNC|SYNC]: there is nothing to delete.
inline void function_flush(command& c) {
    if (c.argc > 3) return c.out.error(errors::subcommand_syntax(c[0], c[1]));
    if (c.argc == 3 && !c.is(2, "sync") && !c.is(2, "async"))
        return c.out.error(errors::function_flush_mode);
    c.out.ok();
}

/// FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]: no library matches.
inline void function_list(command& c) {
    bool with_code = false, named = false;
    for (std::size_t i = 2; i < c.argc; ++i) {
        if (!with_code && c.is(i, "withcode")) {
            with_code = true;
        } else if (!named && c.is(i, "libraryname")) {
            if (i + 1 >= c.argc) return c.out.error(errors::library_name_missing);
            named = true;
            ++i;
        } else {
            return c.out.error(errors::function_list_argument(c[i]));
        }
    }
    c.out.array(0);
}

/// FUNCTION DELETE library-name: no library exists.
inline void function_delete(command& c) {
    c.out.error(errors::library_not_found);
}

/// FUNCTION LOAD [REPLACE] code: the library's metadata line ("#!<engine> name=<name>") is
/// checked as Redis checks it, then its engine is not found.
inline void function_load(command& c) {
    std::size_t at = 2;
    for (; at + 1 < c.argc; ++at)
        if (!c.is(at, "replace")) return c.out.error(errors::function_load_option(c[at]));
    if (at >= c.argc) return c.out.error(errors::function_code_missing);
    const std::string_view code = zset::detail::c_string_prefix(c[at]);
    if (code.substr(0, 2) != "#!") return c.out.error(errors::library_metadata_missing);
    const std::size_t eol = code.find('\n');
    if (eol == std::string_view::npos) return c.out.error(errors::library_metadata_invalid);
    std::vector<std::string> parts;
    if (!split_inline_args(code.substr(0, eol), parts) || parts.empty())
        return c.out.error(errors::library_metadata_invalid);
    const std::string* name = nullptr;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        if (!zset::detail::ascii_iequals(std::string_view(parts[i]).substr(0, 5), "name="))
            return c.out.error(errors::library_metadata_value(parts[i]));
        if (name != nullptr) return c.out.error(errors::library_name_repeated);
        name = &parts[i];
    }
    if (name == nullptr) return c.out.error(errors::library_name_not_given);
    const std::string_view n = std::string_view(*name).substr(5);
    const auto word = [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '_';
    };
    if (n.empty() || !std::all_of(n.begin(), n.end(), word))
        return c.out.error(errors::library_name_invalid);
    c.out.error(errors::engine_not_found(std::string_view(parts[0]).substr(2)));
}

/// FUNCTION STATS: no script is running, and there are no engines.
inline void function_stats(command& c) {
    c.out.map(2);
    c.out.bulk("running_script");
    c.out.null();
    c.out.bulk("engines");
    c.out.map(0);
}

/// FUNCTION KILL: nothing is running.
inline void function_kill(command& c) {
    c.out.error(errors::notbusy);
}

inline void function_help(command& c) {
    c.out.help({"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "LOAD [REPLACE] <FUNCTION CODE>",
                "    Create a new library with the given library name and code (no engine here).",
                "DELETE <LIBRARY NAME>", "    Delete the given library.",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return general information on all the libraries (there are none).", "STATS",
                "    Return information about the current function running, and the engines.",
                "KILL", "    Kill the current running function.", "FLUSH [ASYNC|SYNC]",
                "    Delete all the libraries.", "HELP", "    Print this help."});
}

}  // namespace zset::redis::commands

#endif  // ZSET_REDIS_COMMANDS_SCRIPTING_HPP
