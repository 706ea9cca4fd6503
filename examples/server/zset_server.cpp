// zset-server: a small Redis-compatible server for sorted sets, built on zset::redis::keyspace.
//
// Single-threaded, non-blocking, epoll (Linux). Speaks RESP2/RESP3 (HELLO), supports
// pipelining, MULTI/EXEC/WATCH, expiry, 16 databases, the blocking pops (BZPOPMIN / BZPOPMAX /
// BZMPOP with timeouts), AUTH and protected mode, and works with redis-cli and redis-benchmark.
// The keyspace does the Redis work (commands, blocked clients, expiry); this file does I/O.
//
//   zset-server [--port N] [--bind ADDR] [--double-format shortest|17g]
//               [--zset-max-listpack-entries N] [--zset-max-listpack-value N]
//               [--set-encodings 7.2|7.0] [--databases N] [--requirepass PASSWORD]
//               [--protected-mode yes|no] [--enable-debug-command yes|no|local] [--hz N]
//               [--maxclients N] [--max-output-mb N]
//
// --set-encodings 7.0 gives plain sets Redis 7.0's encodings (intset / hashtable, no listpack),
// as the differential test against a Redis 7.0 server needs; the default is Redis 7.2's.
//
// --port 0 picks a free port. Once listening the server prints one line to stdout:
//   zset-server listening on <bind>:<port>
//
// Limits (nothing grows without bound):
//  - requests are parsed with Redis's limits (512 MiB bulk, 64 KiB inline; 10 arguments of at
//    most 16 KiB before AUTH when a password is set); a protocol error is answered with the
//    error and the connection is closed after it is sent;
//  - memory follows the bytes a client actually sends (a declared bulk length reserves at most
//    64 KiB), and a client's unparsed query data is capped at 1 GiB (client-query-buffer-limit);
//  - a client stops being read while it has more than 1 MiB of unsent replies (pipelined
//    requests wait in the socket), and is disconnected if a single batch of replies leaves more
//    than --max-output-mb (default 512) unsent;
//  - at most maxclients connections (default 10000; CONFIG SET maxclients).
// None of these stops other clients: every socket is non-blocking and each is served in turn.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <zset/redis.hpp>

namespace {

namespace zr = zset::redis;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) {
    g_stop = 1;
}

struct config {
    zr::keyspace_options ks;
    std::size_t max_output = std::size_t{512} << 20;
    std::size_t pause_output = std::size_t{1} << 20;
    std::size_t max_query = std::size_t{1} << 30;
};

struct client {
    int fd = -1;
    zr::request_parser parser;
    zr::session sess;
    std::string out;
    std::size_t out_pos = 0;
    bool closing = false;        // close once the output is sent
    bool epollout = false;       // EPOLLOUT registered
    bool epollin = true;         // EPOLLIN registered
    bool resume_queued = false;  // in server::resume_ (parsed commands wait to run)

    std::size_t pending_output() const { return out.size() - out_pos; }
    std::uint64_t id() const { return static_cast<std::uint64_t>(sess.id); }
};

std::string endpoint(const sockaddr_in& a) {
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
    return std::string(ip) + ":" + std::to_string(ntohs(a.sin_port));
}

/// Peer and local addresses of a connection, as CLIENT LIST and protected mode see them.
zr::client_info info_of(int fd) {
    zr::client_info info;
    info.fd = fd;
    sockaddr_in peer{}, local{};
    socklen_t len = sizeof peer;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0) info.addr = endpoint(peer);
    len = sizeof local;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0)
        info.laddr = endpoint(local);
    info.local = (ntohl(peer.sin_addr.s_addr) >> 24) == 127;  // 127.0.0.0/8
    return info;
}

long long micros(const timeval& t) {
    return static_cast<long long>(t.tv_sec) * 1000000 + t.tv_usec;
}

/// What INFO reports about this process (uname, getpid, /proc, getrusage).
zr::host_info host() {
    zr::host_info h;
    utsname u{};
    if (uname(&u) == 0) h.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    h.process_id = static_cast<long long>(getpid());
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) h.executable.assign(path, static_cast<std::size_t>(n));
    h.multiplexing_api = "epoll";
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        h.total_system_memory =
            static_cast<unsigned long long>(pages) * static_cast<unsigned long long>(page);
    h.usage = [] {
        zr::process_usage p;
        rusage self{}, children{}, thread{};  // zeros where getrusage fails
        getrusage(RUSAGE_SELF, &self);
        getrusage(RUSAGE_CHILDREN, &children);
        getrusage(RUSAGE_THREAD, &thread);  // the server runs every command on this thread
        p.cpu_sys_us = micros(self.ru_stime);
        p.cpu_user_us = micros(self.ru_utime);
        p.cpu_sys_children_us = micros(children.ru_stime);
        p.cpu_user_children_us = micros(children.ru_utime);
        p.cpu_sys_main_thread_us = micros(thread.ru_stime);
        p.cpu_user_main_thread_us = micros(thread.ru_utime);
        if (FILE* f = std::fopen("/proc/self/statm", "r")) {
            unsigned long long size = 0, resident = 0;
            if (std::fscanf(f, "%llu %llu", &size, &resident) == 2)
                p.rss_bytes = resident * static_cast<unsigned long long>(sysconf(_SC_PAGESIZE));
            std::fclose(f);
        }
        return p;
    };
    return h;
}

class server {
public:
    // The socket first: with --port 0 the keyspace (INFO, CONFIG GET port) gets the real port.
    explicit server(config cfg)
        : cfg_(std::move(cfg)), listen_fd_(listen_socket(cfg_.ks)), ks_(cfg_.ks) {}

    int run() {
        if (listen_fd_ < 0) return 1;
        ep_ = epoll_create1(EPOLL_CLOEXEC);
        if (ep_ < 0) return fail("epoll_create1");
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = 0;
        if (epoll_ctl(ep_, EPOLL_CTL_ADD, listen_fd_, &ev) != 0) return fail("epoll_ctl");
        std::printf("zset-server listening on %s:%zu\n", ks_.options().bind.c_str(),
                    ks_.options().port);
        std::fflush(stdout);
        std::vector<epoll_event> events(256);
        while (!g_stop) {
            const int n =
                epoll_wait(ep_, events.data(), static_cast<int>(events.size()), next_timeout_ms());
            if (n < 0) {
                if (errno == EINTR) continue;
                return fail("epoll_wait");
            }
            const auto cycle = std::chrono::steady_clock::now();
            for (int i = 0; i < n; ++i) on_event(events[static_cast<std::size_t>(i)]);
            ks_.cron([this](zr::session& s, std::string_view bytes) { deliver(s, bytes); });
            resume_unblocked();
            reap();
            ks_.record_event_loop(std::chrono::duration_cast<std::chrono::microseconds>(
                                      std::chrono::steady_clock::now() - cycle)
                                      .count());
        }
        for (auto& kv : clients_) ::close(kv.second->fd);
        ::close(listen_fd_);
        ::close(ep_);
        return 0;
    }

private:
    static int fail(const char* what) {
        std::fprintf(stderr, "zset-server: %s: %s\n", what, std::strerror(errno));
        return 1;
    }

    /// A listening socket on o.bind:o.port (o.port becomes the port bound), or -1.
    static int listen_socket(zr::keyspace_options& o) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) return fail("socket"), -1;
        const int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(o.port));
        socklen_t len = sizeof addr;
        const char* failed = nullptr;
        if (inet_pton(AF_INET, o.bind.c_str(), &addr.sin_addr) != 1) {
            std::fprintf(stderr, "zset-server: bad bind address '%s'\n", o.bind.c_str());
        } else if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
            failed = "bind";
        } else if (::listen(fd, 511) != 0) {
            failed = "listen";
        } else {
            getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
            o.port = ntohs(addr.sin_port);
            return fd;
        }
        if (failed != nullptr) fail(failed);
        ::close(fd);
        return -1;
    }

    void on_event(const epoll_event& e) {
        const std::uint64_t id = e.data.u64;
        if (id == 0) return accept_clients();
        client* c = find(id);
        if (c == nullptr) return;
        if (e.events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
            if (c->epollin) {
                on_readable(*c);
            } else if (e.events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
                return drop(*c);  // gone while blocked or paused: Redis frees it at once too
            }
        }
        c = find(id);
        if (c != nullptr && (e.events & EPOLLOUT)) flush(*c);
    }

    client* find(std::uint64_t id) {
        const auto it = clients_.find(id);
        return it == clients_.end() ? nullptr : it->second.get();
    }

    /// Writes a last error line to a connection that is refused, then closes it.
    static void refuse(int fd, std::string_view text) {
        const std::string line = "-" + std::string(text) + "\r\n";
        const ssize_t w = ::write(fd, line.data(), line.size());
        (void)w;
        ::close(fd);
    }

    void accept_clients() {
        for (;;) {
            const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR) continue;
                return;  // EAGAIN or a transient error (EMFILE...): try again on the next event
            }
            if (clients_.size() >= ks_.options().maxclients) {
                refuse(fd, "ERR max number of clients reached");
                continue;
            }
            zr::client_info info = info_of(fd);
            const std::string_view denied = ks_.refusal(info);
            if (!denied.empty()) {
                refuse(fd, denied);
                continue;
            }
            const int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            auto c = std::make_unique<client>();
            c->fd = fd;
            ks_.connect(c->sess, std::move(info));
            c->parser.set_authenticated(!ks_.auth_required(c->sess));
            epoll_event ev{};
            ev.events = EPOLLIN | EPOLLRDHUP;
            ev.data.u64 = c->id();
            if (epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0) {
                ks_.disconnect(c->sess);
                ::close(fd);
                continue;
            }
            clients_.emplace(c->id(), std::move(c));
        }
    }

    void update_events(client& c) {
        const bool want_in =
            !c.closing && !c.sess.blocked && c.pending_output() <= cfg_.pause_output;
        const bool want_out = c.pending_output() > 0;
        if (want_in == c.epollin && want_out == c.epollout) return;
        epoll_event ev{};
        ev.events = EPOLLRDHUP | (want_in ? EPOLLIN : 0u) | (want_out ? EPOLLOUT : 0u);
        ev.data.u64 = c.id();
        epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
        c.epollin = want_in;
        c.epollout = want_out;
    }

    void on_readable(client& c) {
        char buf[65536];
        for (int round = 0; round < 16; ++round) {
            if (c.closing || c.sess.blocked || c.pending_output() > cfg_.pause_output) break;
            const ssize_t n = ::read(c.fd, buf, sizeof buf);
            if (n == 0) return drop(c);
            if (n < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) break;
                return drop(c);
            }
            ks_.record_read(static_cast<std::size_t>(n));
            c.parser.feed(buf, static_cast<std::size_t>(n));
            if (c.parser.pending_bytes() > cfg_.max_query) {
                std::fprintf(stderr, "zset-server: client %llu over the query buffer limit\n",
                             static_cast<unsigned long long>(c.id()));
                return drop(c);
            }
            const std::uint64_t id = c.id();
            process(c);
            if (find(id) == nullptr) return;
            if (static_cast<std::size_t>(n) < sizeof buf) break;
        }
        flush(c);
    }

    /// Runs the client's queued commands until it blocks, must close, or has too much output.
    void process(client& c) {
        std::vector<std::string> argv;
        while (!c.sess.blocked && !c.closing && c.pending_output() <= cfg_.pause_output &&
               c.parser.next(argv)) {
            execute(c, argv);
            if (c.pending_output() > cfg_.max_output) {
                std::fprintf(stderr, "zset-server: client %llu over the output limit\n",
                             static_cast<unsigned long long>(c.id()));
                c.out.clear();
                c.out_pos = 0;
                c.closing = true;
                drop_later(c);
                return;
            }
        }
        if (!c.sess.blocked && !c.closing && !c.parser.has_command() && c.parser.failed()) {
            zr::append_error(c.out, c.parser.error());
            c.closing = true;
        }
    }

    void execute(client& c, std::vector<std::string>& argv) {
        const zr::exec_result r = ks_.execute(argv, c.sess, c.out);
        if (r.status == zr::exec_status::quit) c.closing = true;
        if (r.status == zr::exec_status::blocked) update_events(c);
        c.parser.set_authenticated(!ks_.auth_required(c.sess));
        ks_.serve_blocked([this](zr::session& s, std::string_view bytes) { deliver(s, bytes); });
        for (const long long id : ks_.take_killed())
            if (client* k = find(static_cast<std::uint64_t>(id))) drop_later(*k);
    }

    /// A reply for a client that was blocked (served, or timed out): it goes on afterwards.
    void deliver(zr::session& s, std::string_view bytes) {
        client* c = find(static_cast<std::uint64_t>(s.id));
        if (c == nullptr) return;
        c->out.append(bytes.data(), bytes.size());
        if (!c->resume_queued) {
            c->resume_queued = true;
            resume_.push_back(c->id());
        }
        flush(*c);
    }

    int next_timeout_ms() const {
        if (!resume_.empty()) return 0;
        const long long ms = ks_.next_timeout_ms();
        return ms < 0 ? -1 : static_cast<int>(std::min<long long>(ms + 1, 1000));
    }

    /// Clients unblocked go on with their pipelined commands.
    void resume_unblocked() {
        while (!resume_.empty()) {
            const std::uint64_t id = resume_.front();
            resume_.pop_front();
            client* c = find(id);
            if (c == nullptr) continue;
            c->resume_queued = false;
            if (c->sess.blocked) continue;
            process(*c);
            if (find(id) != nullptr) flush(*c);
        }
    }

    void flush(client& c) {
        while (c.pending_output() > 0) {
            const ssize_t n = ::write(c.fd, c.out.data() + c.out_pos, c.pending_output());
            if (n < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) break;
                return drop_later(c);
            }
            ks_.record_write(static_cast<std::size_t>(n));
            c.out_pos += static_cast<std::size_t>(n);
        }
        if (c.pending_output() == 0) {
            c.out.clear();
            c.out_pos = 0;
            if (c.out.capacity() > (std::size_t{1} << 20)) c.out.shrink_to_fit();
            if (c.closing) return drop_later(c);
        } else if (c.out_pos > (std::size_t{1} << 20) && c.out_pos * 2 > c.out.size()) {
            c.out.erase(0, c.out_pos);
            c.out_pos = 0;
        }
        // Commands already parsed but held back by the output limit run again once the output
        // is below it (no new input may ever arrive to trigger them).
        schedule_resume(c);
        update_events(c);
    }

    void drop_later(client& c) { doomed_.push_back(c.id()); }

    void schedule_resume(client& c) {
        if (c.resume_queued || c.sess.blocked || c.closing || !c.parser.has_command() ||
            c.pending_output() > cfg_.pause_output)
            return;
        c.resume_queued = true;
        resume_.push_back(c.id());
    }

    void drop(client& c) {
        ks_.disconnect(c.sess);
        epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        clients_.erase(c.id());
    }

    void reap() {
        for (std::uint64_t id : doomed_)
            if (client* c = find(id)) drop(*c);
        doomed_.clear();
    }

    config cfg_;
    int listen_fd_ = -1;
    zr::keyspace ks_;
    int ep_ = -1;
    std::unordered_map<std::uint64_t, std::unique_ptr<client>> clients_;
    std::deque<std::uint64_t> resume_;
    std::vector<std::uint64_t> doomed_;
};

bool parse_size(const char* s, std::size_t& out) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-') return false;
    out = static_cast<std::size_t>(v);
    return true;
}

/// "--rules-of redis-7.4" / "valkey-8.0": the answers of that server where servers differ
/// (zr::server_rules::of).
bool parse_rules_of(const std::string& v, zr::server_rules& rules) {
    const std::size_t dash = v.find('-');
    const std::string family = v.substr(0, dash);
    if (dash == std::string::npos || (family != "redis" && family != "valkey")) return false;
    unsigned parts[3] = {0, 0, 0};
    std::size_t at = dash + 1;
    for (unsigned& part : parts) {
        std::size_t used = 0;
        if (!parse_size(v.substr(at, v.find('.', at) - at).c_str(), used) || used > 255)
            return false;
        part = static_cast<unsigned>(used);
        at = v.find('.', at);
        if (at == std::string::npos) break;
        ++at;
    }
    if (at != std::string::npos) return false;  // more than three parts
    rules = zr::server_rules::of(family == "valkey" ? zr::server_family::valkey
                                                    : zr::server_family::redis,
                                 parts[0] << 16 | parts[1] << 8 | parts[2]);
    return true;
}

int usage() {
    std::fprintf(
        stderr,
        "usage: zset-server [--port N] [--bind ADDR] [--double-format shortest|17g]\n"
        "                   [--zset-max-listpack-entries N] [--zset-max-listpack-value N]\n"
        "                   [--set-encodings 7.2|7.0] [--databases N] [--requirepass PASSWORD]\n"
        "                   [--protected-mode yes|no] [--enable-debug-command yes|no|local]\n"
        "                   [--hz N] [--maxclients N] [--max-output-mb N]\n"
        "                   [--rules-of redis-M.m|valkey-M.m]\n");
    return 2;
}

/// One "--name value" option; false when it is unknown or its value is bad.
bool apply_option(config& cfg, const std::string& a, const std::string& v) {
    std::size_t n = 0;
    const bool number = parse_size(v.c_str(), n);
    zr::keyspace_options& o = cfg.ks;
    if (a == "--port" && number && n <= 65535) return o.port = n, true;
    if (a == "--bind") return o.bind = v, true;
    if (a == "--double-format" && (v == "shortest" || v == "17g"))
        return o.double_format =
                   v == "17g" ? zr::format_style::percent17g : zr::format_style::shortest,
               true;
    if (a == "--zset-max-listpack-entries" && number) return o.zset_max_listpack_entries = n, true;
    if (a == "--zset-max-listpack-value" && number) return o.zset_max_listpack_value = n, true;
    if (a == "--set-encodings" && (v == "7.2" || v == "7.0"))
        return o.set_encodings = v == "7.0" ? zr::set_encoding_rules::redis_7_0
                                            : zr::set_encoding_rules::redis_7_2,
               true;
    if (a == "--rules-of") return parse_rules_of(v, o.rules);
    if (a == "--databases" && number && n > 0) return o.databases = n, true;
    if (a == "--requirepass") return o.requirepass = v, true;
    if (a == "--protected-mode" && (v == "yes" || v == "no"))
        return o.protected_mode = v == "yes", true;
    if (a == "--enable-debug-command" && (v == "yes" || v == "no" || v == "local"))
        return o.enable_debug_command = v == "yes"  ? zr::debug_access::yes
                                        : v == "no" ? zr::debug_access::no
                                                    : zr::debug_access::local,
               true;
    if (a == "--hz" && number && n > 0) return o.hz = n, true;
    if (a == "--maxclients" && number && n > 0) return o.maxclients = n, true;
    if (a == "--max-output-mb" && number && n > 0) return cfg.max_output = n << 20, true;
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    config cfg;
    cfg.ks.port = 7379;
    cfg.ks.host = host();
    for (int i = 1; i < argc; i += 2) {  // every option takes one value
        if (i + 1 >= argc || !apply_option(cfg, argv[i], argv[i + 1])) return usage();
    }
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    server s(cfg);
    return s.run();
}
