// rmapi — the part of the Redis module ABI that the zset module uses.
// SPDX-License-Identifier: MIT
//
// Written for this project from the documented Redis Modules API (and checked
// against the behaviour of Debian 12's redis-server 7.0.15). It is NOT Redis's
// redismodule.h: names live in namespace `rmapi`, opaque handles are our own
// incomplete types, constants are `constexpr`, and the API table is filled by
// rmapi::Init() below. Only the layout of the structs the server reads, the
// numeric values of the constants, and the exported function *names* (the
// strings "RedisModule_<X>" handed to the server's lookup function) are fixed
// by the server; everything else here is our own choice.
//
// Availability: section 5 declares exactly the functions the module calls; each
// is registered by Redis 7.0.15 and Init requires it. Section 6 lists newer ones,
// looked up but optional: their pointers stay null on a server without them, and
// the module takes the fallback named there.
//
// C++17, header only. Compiles warning-free with g++ 12 / clang 14 at
// -Wall -Wextra -Wpedantic -Wconversion -Wshadow.
#ifndef ZSET_MODULE_REDIS_MODULE_API_HPP
#define ZSET_MODULE_REDIS_MODULE_API_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__GNUC__) || defined(__clang__)
#define RMAPI_PRINTF_LIKE(fmt_idx, first_arg) __attribute__((format(printf, fmt_idx, first_arg)))
#else
#define RMAPI_PRINTF_LIKE(fmt_idx, first_arg)
#endif

namespace rmapi {

// ---------------------------------------------------------------------------
// 1. Opaque handles (the server never lets a module see inside these).
// ---------------------------------------------------------------------------
struct Ctx;               // command / callback context
struct Command;           // a registered command (for SetCommandInfo, subcommands)
struct Key;               // an opened key
struct String;            // a server string object
struct CallReply;         // reply of Call()
struct IO;                // rdb / aof serialisation context
struct Type;              // a registered native data type
struct Digest;            // DEBUG DIGEST accumulator
struct BlockedClient;     // handle of a blocked client
struct CommandFilterCtx;  // argv of a command under filtering
struct CommandFilter;     // a registered filter
struct KeyOptCtx;         // context of the *2 type callbacks
struct DefragCtx;         // context of the defrag callback
struct User;              // an ACL user, for permission checks (GetModuleUserFromUserName)
struct InfoCtx;           // the section being written by an INFO callback

using mstime_t = long long;

// ---------------------------------------------------------------------------
// 2. Constants. Values are fixed by the server ABI.
// ---------------------------------------------------------------------------
// Status codes returned by most API calls and expected from callbacks.
inline constexpr int OK = 0;
inline constexpr int ERR = 1;

inline constexpr int APIVER_1 = 1;                  // the only API version
inline constexpr uint64_t TYPE_METHOD_VERSION = 4;  // TypeMethods layout below (7.0)

// OpenKey() mode bits.
inline constexpr int OPEN_READ = 1 << 0;
inline constexpr int OPEN_WRITE = 1 << 1;
// OpenKey modes of Redis 7.2 and later: the lookup touches no LRU / LFU clock, sends no
// keyspace-miss event, counts no hit or miss, and deletes no expired key (which reads empty).
inline constexpr int OPEN_KEY_NOTOUCH = 1 << 16;
inline constexpr int OPEN_KEY_NONOTIFY = 1 << 17;
inline constexpr int OPEN_KEY_NOSTATS = 1 << 18;
inline constexpr int OPEN_KEY_NOEXPIRE = 1 << 19;
inline constexpr int OPEN_NOTOUCH = 1 << 16;  // do not update LRU/LFU

// KeyType() results.
inline constexpr int KEYTYPE_EMPTY = 0;
inline constexpr int KEYTYPE_STRING = 1;
inline constexpr int KEYTYPE_LIST = 2;
inline constexpr int KEYTYPE_HASH = 3;
inline constexpr int KEYTYPE_SET = 4;
inline constexpr int KEYTYPE_ZSET = 5;
inline constexpr int KEYTYPE_MODULE = 6;
inline constexpr int KEYTYPE_STREAM = 7;

// CallReplyType() results.
inline constexpr int REPLY_UNKNOWN = -1;
inline constexpr int REPLY_STRING = 0;
inline constexpr int REPLY_ERROR = 1;
inline constexpr int REPLY_INTEGER = 2;
inline constexpr int REPLY_ARRAY = 3;
inline constexpr int REPLY_NULL = 4;
inline constexpr int REPLY_MAP = 5;
inline constexpr int REPLY_SET = 6;
inline constexpr int REPLY_BOOL = 7;
inline constexpr int REPLY_DOUBLE = 8;
inline constexpr int REPLY_BIG_NUMBER = 9;
inline constexpr int REPLY_VERBATIM_STRING = 10;
inline constexpr int REPLY_ATTRIBUTE = 11;

// Length argument of ReplyWithArray/Map/Set meaning "set later with ReplySet*Length".
inline constexpr long POSTPONED_LEN = -1;

// GetExpire() answer for a key without TTL.
inline constexpr mstime_t NO_EXPIRE = -1;

// GetContextFlags() bits.
inline constexpr int CTX_FLAGS_LUA = 1 << 0;
inline constexpr int CTX_FLAGS_MULTI = 1 << 1;
inline constexpr int CTX_FLAGS_MASTER = 1 << 2;
inline constexpr int CTX_FLAGS_SLAVE = 1 << 3;
inline constexpr int CTX_FLAGS_READONLY = 1 << 4;
inline constexpr int CTX_FLAGS_CLUSTER = 1 << 5;
inline constexpr int CTX_FLAGS_AOF = 1 << 6;
inline constexpr int CTX_FLAGS_RDB = 1 << 7;
inline constexpr int CTX_FLAGS_MAXMEMORY = 1 << 8;
inline constexpr int CTX_FLAGS_EVICT = 1 << 9;
inline constexpr int CTX_FLAGS_OOM = 1 << 10;
inline constexpr int CTX_FLAGS_OOM_WARNING = 1 << 11;
inline constexpr int CTX_FLAGS_REPLICATED = 1 << 12;  // command came from our master
inline constexpr int CTX_FLAGS_LOADING = 1 << 13;     // rdb/aof loading in progress
inline constexpr int CTX_FLAGS_REPLICA_IS_STALE = 1 << 14;
inline constexpr int CTX_FLAGS_REPLICA_IS_CONNECTING = 1 << 15;
inline constexpr int CTX_FLAGS_REPLICA_IS_TRANSFERRING = 1 << 16;
inline constexpr int CTX_FLAGS_REPLICA_IS_ONLINE = 1 << 17;
inline constexpr int CTX_FLAGS_ACTIVE_CHILD = 1 << 18;
inline constexpr int CTX_FLAGS_MULTI_DIRTY = 1 << 19;
inline constexpr int CTX_FLAGS_IS_CHILD = 1 << 20;
inline constexpr int CTX_FLAGS_DENY_BLOCKING = 1 << 21;  // MULTI, Lua, or a module's Call()
inline constexpr int CTX_FLAGS_RESP3 = 1 << 22;          // calling client speaks RESP3
inline constexpr int CTX_FLAGS_ASYNC_LOADING = 1 << 23;

// Keyspace notification classes (NotifyKeyspaceEvent's `type`).
inline constexpr int NOTIFY_GENERIC = 1 << 2;
inline constexpr int NOTIFY_ZSET = 1 << 7;
inline constexpr int NOTIFY_MODULE = 1 << 13;

// ACLAddLogEntry() reasons.
inline constexpr int ACL_LOG_CMD = 1;  // the command was refused

// RegisterCommandFilter() flags.
inline constexpr int CMDFILTER_NOSELF = 1 << 0;  // skip while this module is inside Call()

// SetModuleOptions() bits.
inline constexpr int OPTIONS_HANDLE_IO_ERRORS = 1 << 0;
inline constexpr int OPTION_NO_IMPLICIT_SIGNAL_MODIFIED = 1 << 1;
inline constexpr int OPTIONS_HANDLE_REPL_ASYNC_LOAD = 1 << 2;

// Register*Config() flags.
inline constexpr unsigned CONFIG_DEFAULT = 0;
inline constexpr unsigned CONFIG_IMMUTABLE = 1u << 0;
inline constexpr unsigned CONFIG_SENSITIVE = 1u << 1;
inline constexpr unsigned CONFIG_HIDDEN = 1u << 4;
inline constexpr unsigned CONFIG_PROTECTED = 1u << 5;
inline constexpr unsigned CONFIG_DENY_LOADING = 1u << 6;
inline constexpr unsigned CONFIG_MEMORY = 1u << 7;

// Aux save triggers (TypeMethods::aux_save_triggers).
inline constexpr int AUX_BEFORE_RDB = 1 << 0;
inline constexpr int AUX_AFTER_RDB = 1 << 1;

// Log levels.
inline constexpr const char* LOG_DEBUG = "debug";
inline constexpr const char* LOG_VERBOSE = "verbose";
inline constexpr const char* LOG_NOTICE = "notice";
inline constexpr const char* LOG_WARNING = "warning";

inline constexpr const char* WRONGTYPE_MSG =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

// Key-spec flags (KeySpec::flags and KeyAtPosWithFlags). Exactly one of
// RO/RW/OW/RM must be set; at most one of INSERT/DELETE/UPDATE.
inline constexpr uint64_t KEY_RO = 1ull << 0;
inline constexpr uint64_t KEY_RW = 1ull << 1;
inline constexpr uint64_t KEY_OW = 1ull << 2;
inline constexpr uint64_t KEY_RM = 1ull << 3;
inline constexpr uint64_t KEY_ACCESS = 1ull << 4;
inline constexpr uint64_t KEY_UPDATE = 1ull << 5;
inline constexpr uint64_t KEY_INSERT = 1ull << 6;
inline constexpr uint64_t KEY_DELETE = 1ull << 7;
inline constexpr uint64_t KEY_NOT_KEY = 1ull << 8;
inline constexpr uint64_t KEY_INCOMPLETE = 1ull << 9;
inline constexpr uint64_t KEY_VARIABLE_FLAGS = 1ull << 10;

// KeySpec::begin_search_type.
inline constexpr int BS_INVALID = 0;  // terminates a KeySpec array
inline constexpr int BS_UNKNOWN = 1;
inline constexpr int BS_INDEX = 2;
inline constexpr int BS_KEYWORD = 3;

// KeySpec::find_keys_type.
inline constexpr int FK_OMITTED = 0;  // = a single key at the begin_search position
inline constexpr int FK_UNKNOWN = 1;
inline constexpr int FK_RANGE = 2;
inline constexpr int FK_KEYNUM = 3;

// CommandArg::type.
inline constexpr int ARG_STRING = 0;
inline constexpr int ARG_INTEGER = 1;
inline constexpr int ARG_DOUBLE = 2;
inline constexpr int ARG_KEY = 3;
inline constexpr int ARG_PATTERN = 4;
inline constexpr int ARG_UNIX_TIME = 5;
inline constexpr int ARG_PURE_TOKEN = 6;
inline constexpr int ARG_ONEOF = 7;
inline constexpr int ARG_BLOCK = 8;
// CommandArg::flags.
inline constexpr int ARGFLAG_NONE = 0;
inline constexpr int ARGFLAG_OPTIONAL = 1 << 0;
inline constexpr int ARGFLAG_MULTIPLE = 1 << 1;
inline constexpr int ARGFLAG_MULTIPLE_TOKEN = 1 << 2;

// Server event ids (Event::id) and their sub-events.
inline constexpr uint64_t EVENT_REPLICATION_ROLE_CHANGED = 0;
inline constexpr uint64_t EVENT_PERSISTENCE = 1;
inline constexpr uint64_t EVENT_FLUSHDB = 2;
inline constexpr uint64_t EVENT_LOADING = 3;
inline constexpr uint64_t EVENT_CLIENT_CHANGE = 4;
inline constexpr uint64_t EVENT_SHUTDOWN = 5;
inline constexpr uint64_t EVENT_REPLICA_CHANGE = 6;
inline constexpr uint64_t EVENT_MASTER_LINK_CHANGE = 7;
inline constexpr uint64_t EVENT_CRON_LOOP = 8;
inline constexpr uint64_t EVENT_MODULE_CHANGE = 9;
inline constexpr uint64_t EVENT_LOADING_PROGRESS = 10;
inline constexpr uint64_t EVENT_SWAPDB = 11;
inline constexpr uint64_t EVENT_FORK_CHILD = 13;
inline constexpr uint64_t EVENT_REPL_ASYNC_LOAD = 14;
inline constexpr uint64_t EVENT_EVENTLOOP = 15;
inline constexpr uint64_t EVENT_CONFIG = 16;  // 7.0+
inline constexpr uint64_t SUBEVENT_FLUSHDB_START = 0;
inline constexpr uint64_t SUBEVENT_FLUSHDB_END = 1;
inline constexpr uint64_t SUBEVENT_CONFIG_CHANGE = 0;
inline constexpr uint64_t SUBEVENT_LOADING_RDB_START = 0;
inline constexpr uint64_t SUBEVENT_LOADING_AOF_START = 1;
inline constexpr uint64_t SUBEVENT_LOADING_REPL_START = 2;
inline constexpr uint64_t SUBEVENT_LOADING_ENDED = 3;
inline constexpr uint64_t SUBEVENT_LOADING_FAILED = 4;

// ---------------------------------------------------------------------------
// 3. Structs whose layout the server reads or writes.
// ---------------------------------------------------------------------------
// Identifies a server event; passed by value to SubscribeToServerEvent.
struct Event {
    uint64_t id;
    uint64_t dataver;  // version of the struct handed to the callback as `data`
};
inline constexpr Event EventFlushDB{EVENT_FLUSHDB, 1};
inline constexpr Event EventConfig{EVENT_CONFIG, 1};
inline constexpr Event EventLoading{EVENT_LOADING, 1};
inline constexpr Event EventShutdown{EVENT_SHUTDOWN, 1};

// `data` of a FLUSHDB event.
struct FlushInfoV1 {
    uint64_t version;
    int32_t sync;   // 1 = synchronous flush
    int32_t dbnum;  // -1 = FLUSHALL
};
// `data` of a CONFIG event (sub-event CONFIG_CHANGE).
struct ConfigChangeV1 {
    uint64_t version;
    uint32_t num_changes;
    const char** config_names;
};

// Callback signatures.
using CmdFunc = int (*)(Ctx* ctx, String** argv, int argc);
using EventCallback = void (*)(Ctx* ctx, Event eid, uint64_t subevent, void* data);
using CommandFilterFunc = void (*)(CommandFilterCtx* filter);
using FreePrivDataFunc = void (*)(Ctx* ctx, void* privdata);
using InfoFunc = void (*)(InfoCtx* ctx, int for_crash_report);

using TypeLoadFunc = void* (*)(IO* rdb, int encver);
using TypeSaveFunc = void (*)(IO* rdb, void* value);
using TypeAuxLoadFunc = int (*)(IO* rdb, int encver, int when);
using TypeAuxSaveFunc = void (*)(IO* rdb, int when);
using TypeRewriteFunc = void (*)(IO* aof, String* key, void* value);
using TypeMemUsageFunc = size_t (*)(const void* value);
using TypeDigestFunc = void (*)(Digest* digest, void* value);
using TypeFreeFunc = void (*)(void* value);
using TypeFreeEffortFunc = size_t (*)(String* key, const void* value);
using TypeUnlinkFunc = void (*)(String* key, const void* value);
using TypeCopyFunc = void* (*)(String* fromkey, String* tokey, const void* value);
using TypeDefragFunc = int (*)(DefragCtx* ctx, String* key, void** value);
using TypeMemUsageFunc2 = size_t (*)(KeyOptCtx* ctx, const void* value, size_t sample_size);
using TypeFreeEffortFunc2 = size_t (*)(KeyOptCtx* ctx, const void* value);
using TypeUnlinkFunc2 = void (*)(KeyOptCtx* ctx, const void* value);
using TypeCopyFunc2 = void* (*)(KeyOptCtx* ctx, const void* value);

using ConfigGetBoolFunc = int (*)(const char* name, void* privdata);
using ConfigSetBoolFunc = int (*)(const char* name, int val, void* privdata, String** err);
using ConfigGetEnumFunc = int (*)(const char* name, void* privdata);
using ConfigSetEnumFunc = int (*)(const char* name, int val, void* privdata, String** err);
using ConfigGetNumericFunc = long long (*)(const char* name, void* privdata);
using ConfigSetNumericFunc = int (*)(const char* name, long long val, void* privdata, String** err);
using ConfigApplyFunc = int (*)(Ctx* ctx, void* privdata, String** err);

// Data-type callbacks, version 4 layout (Redis 7.0). Set `version` to
// TYPE_METHOD_VERSION; members left null are "not supported".
struct TypeMethods {
    uint64_t version;
    TypeLoadFunc rdb_load;
    TypeSaveFunc rdb_save;
    TypeRewriteFunc aof_rewrite;
    TypeMemUsageFunc mem_usage;
    TypeDigestFunc digest;
    TypeFreeFunc free;
    // version >= 2
    TypeAuxLoadFunc aux_load;
    TypeAuxSaveFunc aux_save;
    int aux_save_triggers;
    // version >= 3
    TypeFreeEffortFunc free_effort;
    TypeUnlinkFunc unlink;
    TypeCopyFunc copy;
    TypeDefragFunc defrag;
    // version >= 4 (the *2 variants win over the plain ones when both are set)
    TypeMemUsageFunc2 mem_usage2;
    TypeFreeEffortFunc2 free_effort2;
    TypeUnlinkFunc2 unlink2;
    TypeCopyFunc2 copy2;
};

// Command metadata for SetCommandInfo (CommandInfo version 1, Redis 7.0).
// Arrays (history, key_specs, args, subargs) end with a zeroed element.
struct CommandArg {
    const char* name;
    int type;            // ARG_*
    int key_spec_index;  // for ARG_KEY: index into CommandInfo::key_specs, else -1
    const char* token;
    const char* summary;
    const char* since;
    int flags;  // ARGFLAG_*
    const char* deprecated_since;
    CommandArg* subargs;
};

struct CommandHistoryEntry {
    const char* since;
    const char* changes;
};

struct KeySpec {
    const char* notes;
    uint64_t flags;         // KEY_*
    int begin_search_type;  // BS_*
    union BeginSearch {
        struct ByIndex {
            int pos;  // argv index of the first key
        } index;
        struct ByKeyword {
            const char* keyword;
            int startfrom;  // negative: search backwards from the end
        } keyword;
    } bs;
    int find_keys_type;  // FK_*
    union FindKeys {
        struct Range {
            int lastkey;  // relative to bs result; negative = from the end (-1 = last arg)
            int keystep;
            int limit;  // with lastkey -1: 0/1 all, N = 1/N of the remaining args
        } range;
        struct KeyNum {
            int keynumidx;  // relative to bs result: argument holding the count
            int firstkey;   // relative to bs result: first key
            int keystep;
        } keynum;
    } fk;
};

struct CommandInfoVersion {
    int version;
    size_t sizeof_historyentry;
    size_t sizeof_keyspec;
    size_t sizeof_arg;
};
inline constexpr CommandInfoVersion kCommandInfoV1{1, sizeof(CommandHistoryEntry), sizeof(KeySpec),
                                                   sizeof(CommandArg)};

struct CommandInfo {
    const CommandInfoVersion* version;  // &kCommandInfoV1
    const char* summary;
    const char* complexity;
    const char* since;
    CommandHistoryEntry* history;
    const char* tips;
    int arity;  // 0 = leave as is (module commands default to -1, i.e. unchecked)
    KeySpec* key_specs;
    CommandArg* args;
};

#if defined(__x86_64__) || defined(__aarch64__)
// LP64 layout checks (these match the C layout the server compiles).
static_assert(sizeof(TypeMethods) == 18 * 8, "TypeMethods layout");
static_assert(offsetof(TypeMethods, aux_save_triggers) == 72, "TypeMethods layout");
static_assert(offsetof(TypeMethods, free_effort) == 80, "TypeMethods layout");
static_assert(offsetof(TypeMethods, copy2) == 136, "TypeMethods layout");
static_assert(sizeof(KeySpec) == 56, "KeySpec layout");
static_assert(offsetof(KeySpec, bs) == 24 && offsetof(KeySpec, find_keys_type) == 40 &&
                  offsetof(KeySpec, fk) == 44,
              "KeySpec layout");
static_assert(sizeof(CommandArg) == 64, "CommandArg layout");
static_assert(sizeof(CommandInfo) == 72 && offsetof(CommandInfo, arity) == 48,
              "CommandInfo layout");
static_assert(sizeof(Event) == 16, "Event layout");
#endif

// ---------------------------------------------------------------------------
// 4. Call()/Replicate()/EmitAOF() format letters (7.0.15; parsed by one
//    routine, so all three accept the same letters):
//      c  const char* (NUL-terminated)     b  const char*, size_t
//      s  String*                          l  long long  (pass a long long!)
//      v  String** , size_t  (vector)
//    Modifiers without an argument (meaningful for Call only):
//      !  propagate to replicas+AOF   A  ...but not AOF   R  ...but not replicas
//      3  RESP3 reply   0  reply in the calling client's protocol
//      C  run as the context's user (ACL)   S  script mode   W  no writes
//      M  respect deny-oom   E  pre-execution errors as error replies
//    Anything else makes Call() return NULL with errno EBADF.
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// 5. API function pointers (filled by Init): the functions the module calls.
//    Each exists in Redis 7.0.15 and is required at load.
// ---------------------------------------------------------------------------
// loader plumbing
inline int (*GetApi)(const char* name, void* slot) = nullptr;
inline void (*SetModuleAttribs)(Ctx* ctx, const char* name, int ver, int apiver) = nullptr;
inline int (*IsModuleNameBusy)(const char* name) = nullptr;
inline int (*GetServerVersion)() = nullptr;  // 0x00MMmmpp

// memory (counted in INFO used_memory / maxmemory)
inline void* (*Alloc)(size_t bytes) = nullptr;
inline void (*Free)(void* ptr) = nullptr;

// commands
inline int (*CreateCommand)(Ctx* ctx, const char* name, CmdFunc fn, const char* flags, int firstkey,
                            int lastkey, int keystep) = nullptr;
inline Command* (*GetCommand)(Ctx* ctx, const char* name) = nullptr;
inline int (*SetCommandInfo)(Command* cmd, const CommandInfo* info) = nullptr;
inline int (*IsKeysPositionRequest)(Ctx* ctx) = nullptr;
inline void (*KeyAtPos)(Ctx* ctx, int pos) = nullptr;
inline int (*WrongArity)(Ctx* ctx) = nullptr;
inline int (*GetContextFlags)(Ctx* ctx) = nullptr;
inline unsigned long long (*GetClientId)(Ctx* ctx) = nullptr;
inline long long (*Milliseconds)() = nullptr;

// keys
inline Key* (*OpenKey)(Ctx* ctx, String* keyname, int mode) = nullptr;
inline void (*CloseKey)(Key* key) = nullptr;
inline int (*KeyType)(Key* key) = nullptr;
inline size_t (*ValueLength)(Key* key) = nullptr;
inline int (*DeleteKey)(Key* key) = nullptr;
inline mstime_t (*GetExpire)(Key* key) = nullptr;
inline int (*SetExpire)(Key* key, mstime_t expire) = nullptr;
inline int (*SignalModifiedKey)(Ctx* ctx, String* keyname) = nullptr;
inline int (*NotifyKeyspaceEvent)(Ctx* ctx, int type, const char* event, String* key) = nullptr;

// native sorted-set access (for keys of KEYTYPE_ZSET)
inline int (*ZsetFirstInScoreRange)(Key* key, double min, double max, int minex,
                                    int maxex) = nullptr;
inline String* (*ZsetRangeCurrentElement)(Key* key, double* score) = nullptr;
inline int (*ZsetRangeNext)(Key* key) = nullptr;
inline int (*ZsetRangeEndReached)(Key* key) = nullptr;
inline void (*ZsetRangeStop)(Key* key) = nullptr;
// Adds or updates one member of a native sorted set (creating the key); `flags` may be null.
inline int (*ZsetAdd)(Key* key, double score, String* member, int* flags) = nullptr;
// A member's score: OK, or ERR when the member (or the key) is absent.
inline int (*ZsetScore)(Key* key, String* member, double* score) = nullptr;

// strings
inline String* (*CreateString)(Ctx* ctx, const char* ptr, size_t len) = nullptr;
inline void (*FreeString)(Ctx* ctx, String* str) = nullptr;
inline void (*RetainString)(Ctx* ctx, String* str) = nullptr;
inline const char* (*StringPtrLen)(const String* str, size_t* len) = nullptr;
inline int (*StringToLongLong)(const String* str, long long* ll) = nullptr;

// replies
inline int (*ReplyWithError)(Ctx* ctx, const char* err) = nullptr;
inline int (*ReplyWithSimpleString)(Ctx* ctx, const char* msg) = nullptr;
inline int (*ReplyWithLongLong)(Ctx* ctx, long long ll) = nullptr;
inline int (*ReplyWithDouble)(Ctx* ctx, double d) = nullptr;
inline int (*ReplyWithStringBuffer)(Ctx* ctx, const char* buf, size_t len) = nullptr;
inline int (*ReplyWithVerbatimString)(Ctx* ctx, const char* buf, size_t len) = nullptr;
inline int (*ReplyWithNull)(Ctx* ctx) = nullptr;
inline int (*ReplyWithNullArray)(Ctx* ctx) = nullptr;
inline int (*ReplyWithArray)(Ctx* ctx, long len) = nullptr;
inline int (*ReplyWithMap)(Ctx* ctx, long len) = nullptr;  // RESP2: flat array of 2*len
inline int (*ReplyWithSet)(Ctx* ctx, long len) = nullptr;  // RESP2: array
inline int (*ReplyWithCallReply)(Ctx* ctx, CallReply* reply) = nullptr;

// calling other commands
inline CallReply* (*Call)(Ctx* ctx, const char* cmdname, const char* fmt, ...) = nullptr;
inline size_t (*CallReplyLength)(CallReply* reply) = nullptr;
inline CallReply* (*CallReplyArrayElement)(CallReply* reply, size_t idx) = nullptr;
inline const char* (*CallReplyStringPtr)(CallReply* reply, size_t* len) = nullptr;
inline void (*FreeCallReply)(CallReply* reply) = nullptr;

// propagation
inline int (*Replicate)(Ctx* ctx, const char* cmdname, const char* fmt, ...) = nullptr;
inline int (*ReplicateVerbatim)(Ctx* ctx) = nullptr;

// data types and persistence
inline Type* (*CreateDataType)(Ctx* ctx, const char* name, int encver,
                               TypeMethods* methods) = nullptr;
inline int (*ModuleTypeSetValue)(Key* key, Type* type, void* value) = nullptr;
inline Type* (*ModuleTypeGetType)(Key* key) = nullptr;
inline void* (*ModuleTypeGetValue)(Key* key) = nullptr;
inline void (*SetModuleOptions)(Ctx* ctx, int options) = nullptr;
inline void (*SaveUnsigned)(IO* io, uint64_t value) = nullptr;
inline uint64_t (*LoadUnsigned)(IO* io) = nullptr;
inline void (*SaveStringBuffer)(IO* io, const char* str, size_t len) = nullptr;
inline char* (*LoadStringBuffer)(IO* io, size_t* len) = nullptr;  // free with Free()
inline void (*SaveDouble)(IO* io, double value) = nullptr;
inline double (*LoadDouble)(IO* io) = nullptr;
inline int (*IsIOError)(IO* io) = nullptr;
inline void (*EmitAOF)(IO* io, const char* cmdname, const char* fmt, ...) = nullptr;
inline void (*DigestAddStringBuffer)(Digest* md, const char* ele, size_t len) = nullptr;
inline void (*DigestEndSequence)(Digest* md) = nullptr;

// blocking
inline BlockedClient* (*BlockClientOnKeys)(Ctx* ctx, CmdFunc reply_callback,
                                           CmdFunc timeout_callback, FreePrivDataFunc free_privdata,
                                           long long timeout_ms, String** keys, int numkeys,
                                           void* privdata) = nullptr;
inline void (*SignalKeyAsReady)(Ctx* ctx, String* key) = nullptr;
inline String* (*GetBlockedClientReadyKey)(Ctx* ctx) = nullptr;

// command filters
inline CommandFilter* (*RegisterCommandFilter)(Ctx* ctx, CommandFilterFunc cb, int flags) = nullptr;
inline int (*UnregisterCommandFilter)(Ctx* ctx, CommandFilter* filter) = nullptr;
inline int (*CommandFilterArgsCount)(CommandFilterCtx* fctx) = nullptr;
inline String* (*CommandFilterArgGet)(CommandFilterCtx* fctx, int pos) = nullptr;
// Insert/Replace take ownership of `arg` (create it with a null Ctx, never free it).
inline int (*CommandFilterArgReplace)(CommandFilterCtx* fctx, int pos, String* arg) = nullptr;

// module configs (7.0+) and server events
inline int (*RegisterBoolConfig)(Ctx* ctx, const char* name, int default_val, unsigned int flags,
                                 ConfigGetBoolFunc getfn, ConfigSetBoolFunc setfn,
                                 ConfigApplyFunc applyfn, void* privdata) = nullptr;
inline int (*RegisterEnumConfig)(Ctx* ctx, const char* name, int default_val, unsigned int flags,
                                 const char** enum_values, const int* int_values, int count,
                                 ConfigGetEnumFunc getfn, ConfigSetEnumFunc setfn,
                                 ConfigApplyFunc applyfn, void* privdata) = nullptr;
inline int (*LoadConfigs)(Ctx* ctx) = nullptr;
inline int (*SubscribeToServerEvent)(Ctx* ctx, Event event, EventCallback callback) = nullptr;

// ACL: the rights of the user behind a client (drop-in mode's permission parity)
// GetClientUserNameById: null (errno ENOENT) for a client that is not connected (a script's or
// a module's client), null (ENOTSUP) for one without a user (the master link, AOF loading).
inline String* (*GetClientUserNameById)(Ctx* ctx, uint64_t id) = nullptr;
// GetCurrentUserName: the user of the context's client; the client must have one.
inline String* (*GetCurrentUserName)(Ctx* ctx) = nullptr;
inline User* (*GetModuleUserFromUserName)(String* name) = nullptr;  // null: no such user
inline int (*FreeModuleUser)(User* user) = nullptr;
// OK when `user` may run argv[0] with these arguments (its keys included), else ERR.
inline int (*ACLCheckCommandPermissions)(User* user, String** argv, int argc) = nullptr;
// Adds an ACL LOG entry, as a refused command does; `reason` is an ACL_LOG_* value.
inline int (*ACLAddLogEntry)(Ctx* ctx, User* user, String* object, int reason) = nullptr;
// A context of the module's own, not tied to a command: what GetClientUserNameById needs
// inside a command filter, which has none.
inline Ctx* (*GetDetachedThreadSafeContext)(Ctx* ctx) = nullptr;
// The database a context's keys are opened in (the filter's lookups, in its client's).
inline int (*SelectDb)(Ctx* ctx, int newid) = nullptr;

// A client's flags and selected database, by id (ClientInfo::version must be 1).
struct ClientInfo {
    std::uint64_t version;
    std::uint64_t flags;
    std::uint64_t id;
    char addr[46];
    std::uint16_t port;
    std::uint16_t db;
};
inline constexpr std::uint64_t CLIENTINFO_FLAG_MULTI = 1 << 5;  // queuing a transaction
inline int (*GetClientInfoById)(void* ci, std::uint64_t id) = nullptr;

// INFO: the module's own section (INFO zset, INFO modules, INFO everything)
inline int (*RegisterInfoFunc)(Ctx* ctx, InfoFunc cb) = nullptr;
inline int (*InfoAddSection)(InfoCtx* ctx, const char* name) = nullptr;
inline int (*InfoAddFieldCString)(InfoCtx* ctx, const char* field, const char* value) = nullptr;
inline int (*InfoAddFieldULongLong)(InfoCtx* ctx, const char* field,
                                    unsigned long long value) = nullptr;

// logging
inline void (*Log)(Ctx* ctx, const char* level, const char* fmt, ...)
    RMAPI_PRINTF_LIKE(3, 4) = nullptr;
inline void (*LogIOError)(IO* io, const char* level, const char* fmt, ...)
    RMAPI_PRINTF_LIKE(3, 4) = nullptr;

// ---------------------------------------------------------------------------
// 6. Newer than 7.0: looked up at load, optional (null where the server lacks
//    them); each names the fallback the module takes without it.
// ---------------------------------------------------------------------------
// 7.0.1: the bytes an allocation may use, its allocator's size class. Without it a block
// uses only the bytes it asked for (module/value.hpp, redis_allocator::allocate_at_least).
inline size_t (*MallocUsableSize)(void* ptr) = nullptr;
// 7.2: puts a module command in ACL categories ("write sortedset fast"); called in
// OnLoad. Without it ZSET.* commands are in no category, and an operator grants them by
// name (docs/module.md, "ACL users").
inline int (*SetCommandACLCategories)(Command* cmd, const char* categories) = nullptr;
// 7.4: declares the module's own ACL category (@zset); called in OnLoad. Without it there is
// no @zset, only the native categories above.
inline int (*AddACLCategory)(Ctx* ctx, const char* name) = nullptr;
// 7.2: the client whose command a filter sees. Without it drop-in mode checks the native
// command's rights when the ZSET.* command runs (commands.hpp, acl_parity).
inline unsigned long long (*CommandFilterGetClientId)(CommandFilterCtx* fctx) = nullptr;

// ---------------------------------------------------------------------------
// 7. Init: what the server expects a module to do first in its OnLoad.
// ---------------------------------------------------------------------------
namespace detail {
using GetApiFn = int (*)(const char*, void*);

template <class Fn>
inline bool fetch(GetApiFn getapi, const char* name, Fn*& slot) {
    // The server stores the function's address into *slot.
    return getapi(name, static_cast<void*>(&slot)) == OK;
}
}  // namespace detail

// Fills every pointer above, then registers the module's name/version.
// Returns ERR if a required (7.0) function is missing or the name is taken;
// `*missing` (if given) then names the first missing function.
inline int Init(Ctx* ctx, const char* module_name, int module_version, int apiver,
                const char** missing = nullptr) {
    // The first pointer-sized field of the context is the lookup function.
    void* raw = nullptr;
    std::memcpy(&raw, static_cast<const void*>(ctx), sizeof raw);
    detail::GetApiFn getapi = nullptr;
    static_assert(sizeof getapi == sizeof raw, "function and data pointers differ in size");
    std::memcpy(&getapi, &raw, sizeof getapi);
    if (getapi == nullptr) return ERR;
    GetApi = getapi;

    const char* first_missing = nullptr;
    auto need = [&](bool ok, const char* name) {
        if (!ok && first_missing == nullptr) first_missing = name;
    };
#define RMAPI_NEED(fn) need(detail::fetch(getapi, "RedisModule_" #fn, fn), #fn)
    RMAPI_NEED(SetModuleAttribs);
    RMAPI_NEED(IsModuleNameBusy);
    RMAPI_NEED(GetServerVersion);
    RMAPI_NEED(Alloc);
    RMAPI_NEED(Free);
    RMAPI_NEED(CreateCommand);
    RMAPI_NEED(GetCommand);
    RMAPI_NEED(SetCommandInfo);
    RMAPI_NEED(IsKeysPositionRequest);
    RMAPI_NEED(KeyAtPos);
    RMAPI_NEED(WrongArity);
    RMAPI_NEED(GetContextFlags);
    RMAPI_NEED(GetClientId);
    RMAPI_NEED(Milliseconds);
    RMAPI_NEED(OpenKey);
    RMAPI_NEED(CloseKey);
    RMAPI_NEED(KeyType);
    RMAPI_NEED(ValueLength);
    RMAPI_NEED(DeleteKey);
    RMAPI_NEED(GetExpire);
    RMAPI_NEED(SetExpire);
    RMAPI_NEED(SignalModifiedKey);
    RMAPI_NEED(NotifyKeyspaceEvent);
    RMAPI_NEED(ZsetFirstInScoreRange);
    RMAPI_NEED(ZsetRangeCurrentElement);
    RMAPI_NEED(ZsetRangeNext);
    RMAPI_NEED(ZsetRangeEndReached);
    RMAPI_NEED(ZsetRangeStop);
    RMAPI_NEED(ZsetAdd);
    RMAPI_NEED(ZsetScore);
    RMAPI_NEED(CreateString);
    RMAPI_NEED(FreeString);
    RMAPI_NEED(RetainString);
    RMAPI_NEED(StringPtrLen);
    RMAPI_NEED(StringToLongLong);
    RMAPI_NEED(ReplyWithError);
    RMAPI_NEED(ReplyWithSimpleString);
    RMAPI_NEED(ReplyWithLongLong);
    RMAPI_NEED(ReplyWithDouble);
    RMAPI_NEED(ReplyWithStringBuffer);
    RMAPI_NEED(ReplyWithVerbatimString);
    RMAPI_NEED(ReplyWithNull);
    RMAPI_NEED(ReplyWithNullArray);
    RMAPI_NEED(ReplyWithArray);
    RMAPI_NEED(ReplyWithMap);
    RMAPI_NEED(ReplyWithSet);
    RMAPI_NEED(ReplyWithCallReply);
    RMAPI_NEED(Call);
    RMAPI_NEED(CallReplyLength);
    RMAPI_NEED(CallReplyArrayElement);
    RMAPI_NEED(CallReplyStringPtr);
    RMAPI_NEED(FreeCallReply);
    RMAPI_NEED(Replicate);
    RMAPI_NEED(ReplicateVerbatim);
    RMAPI_NEED(CreateDataType);
    RMAPI_NEED(ModuleTypeSetValue);
    RMAPI_NEED(ModuleTypeGetType);
    RMAPI_NEED(ModuleTypeGetValue);
    RMAPI_NEED(SetModuleOptions);
    RMAPI_NEED(SaveUnsigned);
    RMAPI_NEED(LoadUnsigned);
    RMAPI_NEED(SaveStringBuffer);
    RMAPI_NEED(LoadStringBuffer);
    RMAPI_NEED(SaveDouble);
    RMAPI_NEED(LoadDouble);
    RMAPI_NEED(IsIOError);
    RMAPI_NEED(EmitAOF);
    RMAPI_NEED(DigestAddStringBuffer);
    RMAPI_NEED(DigestEndSequence);
    RMAPI_NEED(BlockClientOnKeys);
    RMAPI_NEED(SignalKeyAsReady);
    RMAPI_NEED(GetBlockedClientReadyKey);
    RMAPI_NEED(RegisterCommandFilter);
    RMAPI_NEED(UnregisterCommandFilter);
    RMAPI_NEED(CommandFilterArgsCount);
    RMAPI_NEED(CommandFilterArgGet);
    RMAPI_NEED(CommandFilterArgReplace);
    RMAPI_NEED(RegisterBoolConfig);
    RMAPI_NEED(RegisterEnumConfig);
    RMAPI_NEED(LoadConfigs);
    RMAPI_NEED(SubscribeToServerEvent);
    RMAPI_NEED(GetClientUserNameById);
    RMAPI_NEED(GetCurrentUserName);
    RMAPI_NEED(GetModuleUserFromUserName);
    RMAPI_NEED(FreeModuleUser);
    RMAPI_NEED(ACLCheckCommandPermissions);
    RMAPI_NEED(ACLAddLogEntry);
    RMAPI_NEED(GetDetachedThreadSafeContext);
    RMAPI_NEED(SelectDb);
    RMAPI_NEED(GetClientInfoById);
    RMAPI_NEED(RegisterInfoFunc);
    RMAPI_NEED(InfoAddSection);
    RMAPI_NEED(InfoAddFieldCString);
    RMAPI_NEED(InfoAddFieldULongLong);
    RMAPI_NEED(Log);
    RMAPI_NEED(LogIOError);
#undef RMAPI_NEED
    // Optional: a miss leaves the pointer null.
    detail::fetch(getapi, "RedisModule_MallocUsableSize", MallocUsableSize);
    detail::fetch(getapi, "RedisModule_SetCommandACLCategories", SetCommandACLCategories);
    detail::fetch(getapi, "RedisModule_AddACLCategory", AddACLCategory);
    detail::fetch(getapi, "RedisModule_CommandFilterGetClientId", CommandFilterGetClientId);

    if (missing) *missing = first_missing;
    if (first_missing != nullptr) return ERR;
    if (IsModuleNameBusy(module_name)) return ERR;
    SetModuleAttribs(ctx, module_name, module_version, apiver);
    return OK;
}

}  // namespace rmapi

#undef RMAPI_PRINTF_LIKE

#endif  // ZSET_MODULE_REDIS_MODULE_API_HPP
