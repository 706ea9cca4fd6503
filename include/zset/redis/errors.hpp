// zset::redis::errors — every error text the Redis layer replies, once.
// SPDX-License-Identifier: MIT
//
// Each constant is the full error line without the leading '-' and trailing CRLF, exactly as
// redis-server 7.0.15 sends it (unchanged in 7.2 / 7.4 unless a comment says otherwise). The
// texts the container itself raises (zset::errors in <zset/common.hpp>) are not repeated: they
// are brought in here with using-declarations, so zset::redis::errors names all of them.
// Builders make the texts that embed an argument, with Redis's rules for user input (cut at a
// NUL byte as printf("%s") would, CR / LF turned into spaces).
//
// Thread safety: constants and pure functions. Exceptions: builders may throw std::bad_alloc.
#ifndef ZSET_REDIS_ERRORS_HPP
#define ZSET_REDIS_ERRORS_HPP

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

#include "../common.hpp"
#include "../detail/redis_text.hpp"

namespace zset {
namespace redis {
namespace errors {

// ---- raised by the container too (one definition, in zset::errors) ---------------------------
using zset::errors::gt_lt_nx;               ///< ZADD with two of GT, LT, NX
using zset::errors::limit_negative;         ///< ZINTERCARD LIMIT < 0
using zset::errors::nan_result;             ///< ZINCRBY inf + -inf
using zset::errors::not_a_float;            ///< a score string2d rejects
using zset::errors::out_of_range_positive;  ///< ZPOPMIN count < 0
using zset::errors::syntax;                 ///< generic syntax error
using zset::errors::xx_and_nx;              ///< ZADD with NX and XX

// ---- arguments ----------------------------------------------------------------------------
inline constexpr std::string_view weight_not_float = "ERR weight value is not a float";
inline constexpr std::string_view minmax_not_float = "ERR min or max is not a float";
inline constexpr std::string_view lex_range = "ERR min or max not valid string range item";
inline constexpr std::string_view not_integer = "ERR value is not an integer or out of range";
inline constexpr std::string_view incr_single_pair =
    "ERR INCR option supports a single increment-element pair";
inline constexpr std::string_view out_of_range = "ERR value is out of range";
inline constexpr std::string_view limit_needs_by =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
inline constexpr std::string_view withscores_bylex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";
inline constexpr std::string_view numkeys_positive = "ERR numkeys should be greater than 0";
inline constexpr std::string_view count_positive = "ERR count should be greater than 0";
inline constexpr std::string_view invalid_cursor = "ERR invalid cursor";
inline constexpr std::string_view timeout_not_float = "ERR timeout is not a float or out of range";
inline constexpr std::string_view timeout_negative = "ERR timeout is negative";
inline constexpr std::string_view timeout_out_of_range = "ERR timeout is out of range";
inline constexpr std::string_view randmember_llong_min =
    "ERR value is out of range, value must between -9223372036854775807 and "
    "9223372036854775807";
inline constexpr std::string_view int_range =
    "ERR value is out of range, value must between -2147483648 and 2147483647";

// ---- keys and values ------------------------------------------------------------------------
inline constexpr std::string_view wrongtype =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view no_such_key = "ERR no such key";
inline constexpr std::string_view busykey = "BUSYKEY Target key name already exists.";
inline constexpr std::string_view invalid_ttl = "ERR Invalid TTL value, must be >= 0";
inline constexpr std::string_view invalid_idletime = "ERR Invalid IDLETIME value, must be >= 0";
inline constexpr std::string_view invalid_freq = "ERR Invalid FREQ value, must be >= 0 and <= 255";
inline constexpr std::string_view expire_nx_xx_gt_lt =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view expire_gt_lt =
    "ERR GT and LT options at the same time are not compatible";

// ---- databases ------------------------------------------------------------------------------
inline constexpr std::string_view db_index_out_of_range = "ERR DB index is out of range";
inline constexpr std::string_view invalid_first_db_index = "ERR invalid first DB index";
inline constexpr std::string_view invalid_second_db_index = "ERR invalid second DB index";

// ---- transactions ---------------------------------------------------------------------------
inline constexpr std::string_view multi_nested = "ERR MULTI calls can not be nested";
inline constexpr std::string_view exec_without_multi = "ERR EXEC without MULTI";
inline constexpr std::string_view discard_without_multi = "ERR DISCARD without MULTI";
inline constexpr std::string_view watch_inside_multi = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view execabort =
    "EXECABORT Transaction discarded because of previous errors.";

// ---- connections, access and server ---------------------------------------------------------
inline constexpr std::string_view noauth = "NOAUTH Authentication required.";
inline constexpr std::string_view wrongpass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view auth_without_password =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view protocol_not_integer =
    "ERR Protocol version is not an integer or out of range";
inline constexpr std::string_view noproto = "NOPROTO unsupported protocol version";
inline constexpr std::string_view out_of_memory = "ERR out of memory";
inline constexpr std::string_view hello_noauth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH "
    "<user> <pass> option can be used to authenticate the client and select the RESP protocol "
    "version at the same time";
inline constexpr std::string_view no_such_client = "ERR No such client";
inline constexpr std::string_view client_id_positive = "ERR client-id should be greater than 0";
inline constexpr std::string_view invalid_client_id = "ERR Invalid client ID";
inline constexpr std::string_view debug_not_allowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view debug_reload_options =
    "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.";
inline constexpr std::string_view queued_not_allowed =
    "ERR Command not allowed inside a transaction";
inline constexpr std::string_view client_name_spaces =
    "ERR Client names cannot contain spaces, newlines or special characters.";
/// The reply to a client refused by protected mode, sent before closing (networking.c).
inline constexpr std::string_view denied =
    "DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from "
    "the loopback interface. If you want to connect from external computers to Redis you may "
    "adopt one of the following solutions: 1) Just disable protected mode sending the command "
    "'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from "
    "the same host the server is running, however MAKE SURE Redis is not publicly accessible "
    "from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) "
    "Alternatively you can just disable the protected mode by editing the Redis configuration "
    "file, and setting the protected mode option to 'no', and then restarting the server. 3) "
    "If you started the server manually just for testing, restart it with the '--protected-mode "
    "no' option. 4) Setup a an authentication password for the default user. NOTE: You only need "
    "to do one of the above things in order for the server to start accepting connections from "
    "the outside.";

// ---- scripting (FUNCTION, on a server without engines or libraries) ---------------------------
inline constexpr std::string_view function_flush_mode =
    "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
inline constexpr std::string_view library_name_missing = "ERR library name argument was not given";
inline constexpr std::string_view library_not_found = "ERR Library not found";
inline constexpr std::string_view function_code_missing = "ERR Function code is missing";
inline constexpr std::string_view library_metadata_missing = "ERR Missing library metadata";
inline constexpr std::string_view library_metadata_invalid = "ERR Invalid library metadata";
inline constexpr std::string_view library_name_repeated =
    "ERR Invalid metadata value, name argument was given multiple times";
inline constexpr std::string_view library_name_not_given = "ERR Library name was not given";
inline constexpr std::string_view library_name_invalid =
    "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least "
    "one character long";
inline constexpr std::string_view notbusy = "NOTBUSY No scripts in execution right now.";

// ---- protocol (request parser; Redis closes the connection after each) -----------------------
inline constexpr std::string_view proto_inline_too_big =
    "ERR Protocol error: too big inline request";
inline constexpr std::string_view proto_unbalanced_quotes =
    "ERR Protocol error: unbalanced quotes in request";
inline constexpr std::string_view proto_mbulk_count_too_big =
    "ERR Protocol error: too big mbulk count string";
inline constexpr std::string_view proto_invalid_mbulk_len =
    "ERR Protocol error: invalid multibulk length";
inline constexpr std::string_view proto_bulk_count_too_big =
    "ERR Protocol error: too big bulk count string";
inline constexpr std::string_view proto_invalid_bulk_len =
    "ERR Protocol error: invalid bulk length";
/// Redis >= 7.0 when authentication is required but missing: more than 10 arguments.
inline constexpr std::string_view proto_unauth_mbulk_len =
    "ERR Protocol error: unauthenticated multibulk length";
/// Redis >= 7.0 when authentication is required but missing: an argument over 16384 bytes.
inline constexpr std::string_view proto_unauth_bulk_len =
    "ERR Protocol error: unauthenticated bulk length";

}  // namespace errors

namespace detail {

using zset::detail::c_string_prefix;

/// Appends `text` with CR and LF replaced by spaces: an error or status line must not break the
/// framing (Redis maps them the same way in errors that embed user input).
inline void append_line_safe(std::string& out, std::string_view text) {
    for (const char c : text) out.push_back(c == '\r' || c == '\n' ? ' ' : c);
}

/// Appends `text` lower-cased (ASCII only: command names; the locale must not matter).
inline void append_ascii_lower(std::string& out, std::string_view text) {
    for (const char c : text) out.push_back(zset::detail::ascii_lower(c));
}

/// "<prefix><argument as %s><suffix>": the argument cut at its first NUL, CR/LF as spaces.
inline std::string with_argument(std::string_view prefix, std::string_view argument,
                                 std::string_view suffix) {
    std::string out(prefix);
    append_line_safe(out, c_string_prefix(argument));
    out += suffix;
    return out;
}

}  // namespace detail

namespace errors {

/// "ERR wrong number of arguments for '<name>' command" (commandCheckArity); `name` is
/// lower-cased like Redis's command table name ("zadd", "config|get").
inline std::string wrong_arity(std::string_view name) {
    std::string out = "ERR wrong number of arguments for '";
    detail::append_ascii_lower(out, name);
    out += "' command";
    return out;
}

/// "ERR at least 1 input key is needed for '<name>' command" (ZUNION ... ZINTERCARD, numkeys < 1).
inline std::string at_least_one_key(std::string_view name) {
    std::string out = "ERR at least 1 input key is needed for '";
    detail::append_ascii_lower(out, name);
    out += "' command";
    return out;
}

/// "ERR unknown subcommand '<sub>'. Try <PARENT> HELP." (the subcommand cut to 128 bytes).
inline std::string unknown_subcommand(std::string_view parent, std::string_view sub) {
    std::string out = "ERR unknown subcommand '";
    detail::append_line_safe(out, detail::c_string_prefix(sub).substr(0, 128));
    out += "'. Try ";
    for (const char c : parent) out += zset::detail::ascii_upper(c);
    out += " HELP.";
    return out;
}

/// "ERR invalid expire time in '<name>' command" (EXPIRE family, overflowing times).
inline std::string invalid_expire(std::string_view name) {
    std::string out = "ERR invalid expire time in '";
    detail::append_ascii_lower(out, name);
    out += "' command";
    return out;
}

/// "ERR Unsupported option <opt>" (EXPIRE family: an unknown NX/XX/GT/LT word).
inline std::string unsupported_option(std::string_view option) {
    return detail::with_argument("ERR Unsupported option ", option, "");
}

/// Redis's unknown-command error from the full argv (argv[0] is the name):
/// "ERR unknown command '<name>', with args beginning with: '<a1>' '<a2>' ".
/// As Redis's commandCheckExistence: the name is cut to 128 bytes; arguments are appended while
/// the argument text is shorter than 128 bytes, each cut so the text stays within 128; every
/// value stops at its first NUL byte and CR/LF become spaces.
template <class Argv>
std::string unknown_command(const Argv& argv) {
    constexpr std::size_t limit = 128;
    auto it = std::begin(argv);
    const auto end = std::end(argv);
    std::string name;
    if (it != end) {
        name.assign(detail::c_string_prefix(std::string_view(*it)).substr(0, limit));
        ++it;
    }
    std::string args;
    for (; it != end && args.size() < limit; ++it) {
        const std::string_view a = detail::c_string_prefix(std::string_view(*it));
        const std::size_t precision = limit - args.size();  // "'%.*s' " with 128 - sdslen(args)
        args += '\'';
        args.append(a.substr(0, precision));
        args += "' ";
    }
    std::string out = "ERR unknown command '";
    detail::append_line_safe(out, name);
    out += "', with args beginning with: ";
    detail::append_line_safe(out, args);
    return out;
}

/// "ERR unknown subcommand or wrong number of arguments for '<sub>'. Try <CMD> HELP." (commands
/// that parse their own subcommands, such as DEBUG).
inline std::string subcommand_syntax(std::string_view command, std::string_view sub) {
    std::string out = "ERR unknown subcommand or wrong number of arguments for '";
    detail::append_line_safe(out, detail::c_string_prefix(sub).substr(0, 128));
    out += "'. Try ";
    for (const char c : detail::c_string_prefix(command)) out += zset::detail::ascii_upper(c);
    out += " HELP.";
    return out;
}

/// "ERR Protocol error: expected '$', got '<c>'" (CR and LF shown as a space).
inline std::string proto_expected_dollar(char got) {
    std::string out = "ERR Protocol error: expected '$', got '";
    out += (got == '\r' || got == '\n') ? ' ' : got;
    out += '\'';
    return out;
}

/// "ERR Engine '<engine>' not found" (FUNCTION LOAD: the library's engine does not exist).
inline std::string engine_not_found(std::string_view engine) {
    return detail::with_argument("ERR Engine '", engine, "' not found");
}
/// "ERR Unknown argument <arg>" (FUNCTION LIST).
inline std::string function_list_argument(std::string_view arg) {
    return detail::with_argument("ERR Unknown argument ", arg, "");
}
/// "ERR Unknown option given: <arg>" (FUNCTION LOAD).
inline std::string function_load_option(std::string_view arg) {
    return detail::with_argument("ERR Unknown option given: ", arg, "");
}
/// "ERR Invalid metadata value given: <part>" (FUNCTION LOAD's "#!<engine> ..." line).
inline std::string library_metadata_value(std::string_view part) {
    return detail::with_argument("ERR Invalid metadata value given: ", part, "");
}

/// "EXECABORT Transaction discarded because of: <error>" (EXEC itself rejected).
inline std::string execabort_because(std::string_view error) {
    std::string out = "EXECABORT Transaction discarded because of: ";
    detail::append_line_safe(out, error);
    return out;
}

}  // namespace errors
}  // namespace redis
}  // namespace zset

#endif  // ZSET_REDIS_ERRORS_HPP
