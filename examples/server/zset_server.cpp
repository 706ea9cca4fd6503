// zset-server: a small Redis-compatible server for sorted sets, built on zset::redis::keyspace.
//
// Single-threaded, non-blocking, epoll (Linux). Speaks RESP2/RESP3 (HELLO), supports
// pipelining, the blocking pops (BZPOPMIN / BZPOPMAX / BZMPOP with timeouts), and works with
// redis-cli and redis-benchmark.
//
//   zset-server [--port N] [--bind ADDR] [--double-format shortest|17g]
//               [--zset-max-listpack-entries N] [--zset-max-listpack-value N]
//               [--maxclients N] [--max-output-mb N]
//
// --port 0 picks a free port. Once listening the server prints one line to stdout:
//   zset-server listening on 127.0.0.1:<port>
//
// Limits (nothing grows without bound):
//  - requests are parsed with Redis's limits (512 MiB bulk, 64 KiB inline); a protocol error is
//    answered with the error and the connection is closed after it is sent;
//  - a client's unparsed query data is capped at 1 GiB (Redis's client-query-buffer-limit);
//  - a client stops being read while it has more than 1 MiB of unsent replies (pipelined
//    requests wait in the socket), and is disconnected if a single batch of replies leaves more
//    than --max-output-mb (default 512) unsent;
//  - at most --maxclients connections (default 10000).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <zset/redis.hpp>

namespace {

namespace zr = zset::redis;
using clock_type = std::chrono::steady_clock;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) {
    g_stop = 1;
}

struct config {
    std::string bind = "127.0.0.1";
    int port = 7379;
    zr::keyspace_options ks;
    std::size_t maxclients = 10000;
    std::size_t max_output = std::size_t{512} << 20;
    std::size_t pause_output = std::size_t{1} << 20;
    std::size_t max_query = std::size_t{1} << 30;
};

struct client {
    int fd = -1;
    std::uint64_t id = 0;
    zr::request_parser parser;
    zr::session sess;
    std::string out;
    std::size_t out_pos = 0;
    bool closing = false;        // close once the output is sent
    bool epollout = false;       // EPOLLOUT registered
    bool epollin = true;         // EPOLLIN registered
    bool resume_queued = false;  // in server::resume_ (parsed commands wait to run)
    // Blocking state.
    bool blocked = false;
    std::vector<std::string> blocked_argv;
    std::vector<std::string> blocked_keys;
    bool has_deadline = false;
    clock_type::time_point deadline{};

    std::size_t pending_output() const { return out.size() - out_pos; }
};

class server {
public:
    explicit server(config cfg) : cfg_(std::move(cfg)), ks_(cfg_.ks) {}

    int run() {
        if (!listen_socket()) return 1;
        ep_ = epoll_create1(EPOLL_CLOEXEC);
        if (ep_ < 0) return fail("epoll_create1");
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = 0;
        if (epoll_ctl(ep_, EPOLL_CTL_ADD, listen_fd_, &ev) != 0) return fail("epoll_ctl");
        std::printf("zset-server listening on %s:%d\n", cfg_.bind.c_str(), port_);
        std::fflush(stdout);

        std::vector<epoll_event> events(256);
        while (!g_stop) {
            const int timeout = next_timeout_ms();
            const int n = epoll_wait(ep_, events.data(), static_cast<int>(events.size()), timeout);
            if (n < 0) {
                if (errno == EINTR) continue;
                return fail("epoll_wait");
            }
            for (int i = 0; i < n; ++i) {
                const std::uint64_t id = events[static_cast<std::size_t>(i)].data.u64;
                const std::uint32_t what = events[static_cast<std::size_t>(i)].events;
                if (id == 0) {
                    accept_clients();
                    continue;
                }
                client* c = find(id);
                if (c == nullptr) continue;
                if (what & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
                    if (c->epollin) {
                        on_readable(*c);
                    } else if (what & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
                        drop(*c);  // gone while blocked or paused: Redis frees it at once too
                        continue;
                    }
                }
                c = find(id);
                if (c != nullptr && (what & EPOLLOUT)) flush(*c);
            }
            expire_timeouts();
            resume_unblocked();
            reap();
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

    bool listen_socket() {
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (listen_fd_ < 0) return fail("socket") == 0;
        const int one = 1;
        setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(cfg_.port));
        if (inet_pton(AF_INET, cfg_.bind.c_str(), &addr.sin_addr) != 1) {
            std::fprintf(stderr, "zset-server: bad bind address '%s'\n", cfg_.bind.c_str());
            return false;
        }
        if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
            return fail("bind") == 0;
        if (::listen(listen_fd_, 511) != 0) return fail("listen") == 0;
        socklen_t len = sizeof addr;
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        return true;
    }

    client* find(std::uint64_t id) {
        const auto it = clients_.find(id);
        return it == clients_.end() ? nullptr : it->second.get();
    }

    void accept_clients() {
        for (;;) {
            const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR) continue;
                return;  // EAGAIN or a transient error (EMFILE...): try again on the next event
            }
            if (clients_.size() >= cfg_.maxclients) {
                static const char msg[] = "-ERR max number of clients reached\r\n";
                const ssize_t w = ::write(fd, msg, sizeof msg - 1);
                (void)w;
                ::close(fd);
                continue;
            }
            const int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            auto c = std::make_unique<client>();
            c->fd = fd;
            c->id = ++last_id_;
            c->sess = ks_.make_session();
            epoll_event ev{};
            ev.events = EPOLLIN | EPOLLRDHUP;
            ev.data.u64 = c->id;
            if (epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0) {
                ::close(fd);
                continue;
            }
            clients_.emplace(c->id, std::move(c));
        }
    }

    void update_events(client& c) {
        const bool want_in = !c.closing && !c.blocked && c.pending_output() <= cfg_.pause_output;
        const bool want_out = c.pending_output() > 0;
        if (want_in == c.epollin && want_out == c.epollout) return;
        epoll_event ev{};
        ev.events = EPOLLRDHUP | (want_in ? EPOLLIN : 0u) | (want_out ? EPOLLOUT : 0u);
        ev.data.u64 = c.id;
        epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
        c.epollin = want_in;
        c.epollout = want_out;
    }

    void on_readable(client& c) {
        char buf[65536];
        for (int round = 0; round < 16; ++round) {
            if (c.closing || c.blocked || c.pending_output() > cfg_.pause_output) break;
            const ssize_t n = ::read(c.fd, buf, sizeof buf);
            if (n == 0) {
                drop(c);
                return;
            }
            if (n < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) break;
                drop(c);
                return;
            }
            c.parser.feed(buf, static_cast<std::size_t>(n));
            if (c.parser.pending_bytes() > cfg_.max_query) {
                std::fprintf(stderr, "zset-server: client %llu over the query buffer limit\n",
                             static_cast<unsigned long long>(c.id));
                drop(c);
                return;
            }
            process(c);
            if (find_alive(c) == nullptr) return;
            if (static_cast<std::size_t>(n) < sizeof buf) break;
        }
        flush(c);
    }

    client* find_alive(const client& c) { return find(c.id); }

    /// Runs the client's queued commands until it blocks, must close, or has too much output.
    void process(client& c) {
        std::vector<std::string> argv;
        while (!c.blocked && !c.closing && c.pending_output() <= cfg_.pause_output &&
               c.parser.next(argv)) {
            execute(c, argv);
            if (c.pending_output() > cfg_.max_output) {
                std::fprintf(stderr, "zset-server: client %llu over the output limit\n",
                             static_cast<unsigned long long>(c.id));
                c.out.clear();
                c.out_pos = 0;
                c.closing = true;
                drop_later(c);
                return;
            }
        }
        if (!c.blocked && !c.closing && !c.parser.has_command() && c.parser.failed()) {
            zr::append_error(c.out, c.parser.error());
            c.closing = true;
        }
    }

    void execute(client& c, std::vector<std::string>& argv) {
        const zr::exec_result r = ks_.execute(argv, c.sess, c.out);
        if (r.status == zr::exec_status::blocked) {
            block(c, std::move(argv), r.block);
        } else if (r.status == zr::exec_status::quit) {
            c.closing = true;
        }
        if (ks_.has_ready_keys()) serve_ready_keys();
    }

    void block(client& c, std::vector<std::string> argv, const zr::block_request& req) {
        c.blocked = true;
        c.blocked_argv = std::move(argv);
        c.blocked_keys = req.keys;
        std::sort(c.blocked_keys.begin(), c.blocked_keys.end());
        c.blocked_keys.erase(std::unique(c.blocked_keys.begin(), c.blocked_keys.end()),
                             c.blocked_keys.end());
        c.has_deadline = req.timeout_ms > 0;
        if (c.has_deadline)
            c.deadline = clock_type::now() + std::chrono::milliseconds(req.timeout_ms);
        for (const std::string& k : c.blocked_keys) {
            ks_.watch(k);
            waiting_[k].push_back(c.id);
        }
        ++blocked_count_;
        update_events(c);
    }

    void unblock(client& c) {
        if (!c.blocked) return;
        for (const std::string& k : c.blocked_keys) {
            ks_.unwatch(k);
            const auto it = waiting_.find(k);
            if (it == waiting_.end()) continue;
            auto& q = it->second;
            q.erase(std::remove(q.begin(), q.end(), c.id), q.end());
            if (q.empty()) waiting_.erase(it);
        }
        c.blocked = false;
        c.blocked_argv.clear();
        c.blocked_keys.clear();
        c.has_deadline = false;
        --blocked_count_;
        if (!c.resume_queued) {
            c.resume_queued = true;
            resume_.push_back(c.id);
        }
    }

    /// Re-executes the commands blocked on keys that were written, oldest first per key.
    void serve_ready_keys() {
        if (serving_) return;  // the outer loop picks up keys readied meanwhile
        serving_ = true;
        while (ks_.has_ready_keys()) {
            for (const std::string& key : ks_.take_ready_keys()) {
                const auto it = waiting_.find(key);
                if (it == waiting_.end()) continue;
                const std::vector<std::uint64_t> ids(it->second.begin(), it->second.end());
                for (std::uint64_t id : ids) {
                    client* c = find(id);
                    if (c == nullptr || !c->blocked) continue;
                    const zr::exec_result r = ks_.execute(c->blocked_argv, c->sess, c->out);
                    if (r.status == zr::exec_status::blocked) continue;  // still nothing to pop
                    unblock(*c);
                    flush(*c);
                }
            }
        }
        serving_ = false;
    }

    int next_timeout_ms() const {
        if (!resume_.empty()) return 0;
        if (blocked_count_ == 0) return -1;
        const auto now = clock_type::now();
        long long best = -1;
        for (const auto& kv : clients_) {
            const client& c = *kv.second;
            if (!c.blocked || !c.has_deadline) continue;
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count();
            const long long ms = std::max<long long>(0, left + 1);
            if (best < 0 || ms < best) best = ms;
        }
        return best < 0 ? -1 : static_cast<int>(std::min<long long>(best, 1000));
    }

    void expire_timeouts() {
        if (blocked_count_ == 0) return;
        const auto now = clock_type::now();
        std::vector<std::uint64_t> expired;
        for (const auto& kv : clients_) {
            const client& c = *kv.second;
            if (c.blocked && c.has_deadline && c.deadline <= now) expired.push_back(c.id);
        }
        for (std::uint64_t id : expired) {
            client* c = find(id);
            if (c == nullptr) continue;
            zr::keyspace::append_timeout_reply(c->out, c->sess.proto);
            unblock(*c);
            flush(*c);
        }
    }

    /// Clients just unblocked go on with their pipelined commands.
    void resume_unblocked() {
        while (!resume_.empty()) {
            const std::uint64_t id = resume_.front();
            resume_.pop_front();
            client* c = find(id);
            if (c == nullptr) continue;
            c->resume_queued = false;
            if (c->blocked) continue;
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
                drop_later(c);
                return;
            }
            c.out_pos += static_cast<std::size_t>(n);
        }
        if (c.pending_output() == 0) {
            c.out.clear();
            c.out_pos = 0;
            if (c.out.capacity() > (std::size_t{1} << 20)) c.out.shrink_to_fit();
            if (c.closing) {
                drop_later(c);
                return;
            }
        } else if (c.out_pos > (std::size_t{1} << 20) && c.out_pos * 2 > c.out.size()) {
            c.out.erase(0, c.out_pos);
            c.out_pos = 0;
        }
        // Commands already parsed but held back by the output limit run again once the output
        // is below it (no new input may ever arrive to trigger them).
        schedule_resume(c);
        update_events(c);
    }

    void drop_later(client& c) { doomed_.push_back(c.id); }

    void schedule_resume(client& c) {
        if (c.resume_queued || c.blocked || c.closing || !c.parser.has_command() ||
            c.pending_output() > cfg_.pause_output)
            return;
        c.resume_queued = true;
        resume_.push_back(c.id);
    }

    void drop(client& c) {
        unblock(c);
        epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        clients_.erase(c.id);
    }

    void reap() {
        for (std::uint64_t id : doomed_)
            if (client* c = find(id)) drop(*c);
        doomed_.clear();
    }

    config cfg_;
    zr::keyspace ks_;
    int listen_fd_ = -1;
    int ep_ = -1;
    int port_ = 0;
    std::uint64_t last_id_ = 0;
    std::unordered_map<std::uint64_t, std::unique_ptr<client>> clients_;
    std::unordered_map<std::string, std::deque<std::uint64_t>> waiting_;
    std::deque<std::uint64_t> resume_;
    std::vector<std::uint64_t> doomed_;
    std::size_t blocked_count_ = 0;
    bool serving_ = false;
};

bool parse_size(const char* s, std::size_t& out) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-') return false;
    out = static_cast<std::size_t>(v);
    return true;
}

int usage() {
    std::fprintf(
        stderr, "usage: zset-server [--port N] [--bind ADDR] [--double-format shortest|17g]\n"
                "                   [--zset-max-listpack-entries N] [--zset-max-listpack-value N]\n"
                "                   [--maxclients N] [--max-output-mb N]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    config cfg;
    for (int i = 1; i < argc; i += 2) {  // every option takes one value
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        std::size_t n = 0;
        if (a == "--port" && has_value && parse_size(argv[i + 1], n) && n <= 65535) {
            cfg.port = static_cast<int>(n);
        } else if (a == "--bind" && has_value) {
            cfg.bind = argv[i + 1];
        } else if (a == "--double-format" && has_value) {
            const std::string f = argv[i + 1];
            if (f == "shortest")
                cfg.ks.double_format = zr::format_style::shortest;
            else if (f == "17g")
                cfg.ks.double_format = zr::format_style::percent17g;
            else
                return usage();
        } else if (a == "--zset-max-listpack-entries" && has_value && parse_size(argv[i + 1], n)) {
            cfg.ks.zset_max_listpack_entries = n;
        } else if (a == "--zset-max-listpack-value" && has_value && parse_size(argv[i + 1], n)) {
            cfg.ks.zset_max_listpack_value = n;
        } else if (a == "--maxclients" && has_value && parse_size(argv[i + 1], n) && n > 0) {
            cfg.maxclients = n;
        } else if (a == "--max-output-mb" && has_value && parse_size(argv[i + 1], n) && n > 0) {
            cfg.max_output = n << 20;
        } else {
            return usage();
        }
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
