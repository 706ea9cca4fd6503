// Runs the smoke test of every header (registered by the generated translation units).
//
//   header_check_{exc,noexc}           every smoke test; exit 1 if a check failed
//   header_check_noexc --death         each bad call below, in a child process: it must abort
//                                      (SIGABRT) after printing zset's error text on stderr
// In the build with exceptions the same bad calls must throw an exception with the same text.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "header_check.hpp"
#include <zset/dump.hpp>
#include <zset/rdb.hpp>
#include <zset/set_ops.hpp>
#include <zset/sorted_set.hpp>

namespace {

struct bad_call {
    const char* name;
    const char* text;  ///< what the error must say
    std::function<void()> run;
};

std::vector<bad_call> bad_calls() {
    using set = zset::sorted_set<>;
    return {
        {"sorted_set::add(NaN)", "ERR value is not a valid float",
         [] { set().add("a", std::nan("")); }},
        {"sorted_set::add(NX|XX)", "ERR XX and NX options at the same time are not compatible",
         [] { set().add("a", 1.0, zset::add_flags::nx | zset::add_flags::xx); }},
        {"rdb::restore_payload(short)", "too short for the version and checksum footer",
         [] { (void)zset::rdb::restore_payload("junk"); }},
        {"restore<sorted_set>(bad crc)", "CRC64 mismatch",
         [] {
             (void)zset::restore<set>(std::string("\x11\x00\x0a\x00", 4) + std::string(8, 'x'));
         }},
        {"rdb::dump_payload(unordered)", "not in strictly ascending",
         [] {
             (void)zset::rdb::dump_payload({{"b", 1.0}, {"a", 1.0}});
         }},
        {"set_union(wrong weight count)", "ERR syntax error",
         [] {
             const set a{{"x", 1.0}};
             (void)zset::set_union<set>(std::vector<const set*>{&a}, {1.0, 2.0});
         }},
    };
}

#if ZSET_HAS_EXCEPTIONS
/// With exceptions: each bad call throws, and what() holds the text.
int check_bad_calls_throw() {
    int failed = 0;
    for (const bad_call& c : bad_calls()) {
        std::string what;
        try {
            c.run();
        } catch (const std::exception& e) {
            what = e.what();
        }
        if (what.find(c.text) == std::string::npos) {
            std::fprintf(stderr, "%s: expected an exception saying '%s', got '%s'\n", c.name,
                         c.text, what.c_str());
            ++failed;
        }
    }
    return failed;
}
#else
/// Runs c in a child process; true when it aborted after printing c.text on stderr.
bool dies_with_text(const bad_call& c) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        c.run();
        _exit(0);  // reached only when the bad call did not abort
    }
    close(fds[1]);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, std::size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    const bool aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    const bool said = err.find(c.text) != std::string::npos && err.rfind("zset: ", 0) == 0;
    if (!aborted || !said)
        std::fprintf(stderr, "%s: expected an abort saying '%s'; %s, stderr '%s'\n", c.name, c.text,
                     aborted ? "aborted" : "did not abort", err.c_str());
    return aborted && said;
}

int check_bad_calls_abort() {
    int failed = 0;
    for (const bad_call& c : bad_calls()) failed += dies_with_text(c) ? 0 : 1;
    std::printf("header check: %zu bad calls abort with their error text, %d failed\n",
                bad_calls().size(), failed);
    return failed;
}
#endif

}  // namespace

int main(int argc, char** argv) {
    const bool death = argc > 1 && std::strcmp(argv[1], "--death") == 0;
#if ZSET_HAS_EXCEPTIONS
    if (death) {
        std::fprintf(stderr, "--death needs the build without exceptions\n");
        return 2;
    }
    const int bad = check_bad_calls_throw();
#else
    if (death) return check_bad_calls_abort() == 0 ? 0 : 1;
    const int bad = 0;
#endif
    for (const auto& e : zset_header_check::registry()) e.run();
    std::printf("header check (%s): smoke tests of %zu headers: %d failed checks\n",
                ZSET_HAS_EXCEPTIONS ? "exceptions" : "-fno-exceptions",
                zset_header_check::registry().size(), zset_header_check::failures() + bad);
    return zset_header_check::failures() + bad == 0 ? 0 : 1;
}
