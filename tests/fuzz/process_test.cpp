// The process monitor (harness/process/): exit statuses and signals recorded, output kept per
// instance, restarts, the whole process group stopped, readiness waited for; and the crash
// excerpts that name a bug (and leave out what varies between two crashes of it).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "harness/process/monitor.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace ac::process {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Monitor> start(const std::string& command, const std::filesystem::path& dir) {
  Monitor::Options o;
  o.shell_command = command;
  o.work_dir = dir;
  auto m = Monitor::start(std::move(o));
  EXPECT_TRUE(m) << (m ? "" : m.error());
  return m ? std::move(*m) : nullptr;
}

bool ends_within(Monitor& m, std::chrono::milliseconds limit) {
  return m.wait_ready([] { return false; }, limit, 10ms) == Monitor::Ready::exited;
}

TEST(ProcessMonitor, RecordsExitStatusSignalAndOutput) {
  const auto dir = fuzz::test::scratch("monitor-exit");
  auto m = start("echo starting; echo 'TypeError: boom' >&2; exit 3", dir);
  ASSERT_TRUE(m);
  ASSERT_TRUE(ends_within(*m, 5000ms));
  ASSERT_TRUE(m->exit_status());
  EXPECT_FALSE(m->exit_status()->signaled);
  EXPECT_EQ(m->exit_status()->code, 3);
  EXPECT_EQ(m->exit_description(), "exited with status 3");
  EXPECT_NE(m->output().find("starting"), std::string::npos);
  EXPECT_NE(m->output_tail(10).find("boom"), std::string::npos);

  auto s = start("kill -SEGV $$", dir / "segv");
  ASSERT_TRUE(s);
  ASSERT_TRUE(ends_within(*s, 5000ms));
  ASSERT_TRUE(s->exit_status());
  EXPECT_TRUE(s->exit_status()->signaled);
  EXPECT_EQ(s->exit_status()->signal, SIGSEGV);
  EXPECT_NE(s->exit_description().find("signal 11"), std::string::npos) << s->exit_description();
  std::filesystem::remove_all(dir);
}

TEST(ProcessMonitor, RestartsAndStopsTheWholeGroup) {
  const auto dir = fuzz::test::scratch("monitor-group");
  // A shell that starts a child of its own and waits: stopping the command must stop both.
  auto m = start("sleep 300 & echo child $!; wait", dir);
  ASSERT_TRUE(m);
  std::string out;
  for (int i = 0; i < 100 && out.find("child ") == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
    out = m->output();
  }
  const pid_t child = std::stoi(out.substr(out.find("child ") + 6));
  EXPECT_TRUE(m->alive());
  EXPECT_TRUE(m->rss_bytes().has_value());
  EXPECT_EQ(m->starts(), 1u);
  const pid_t first = m->pid();
  ASSERT_TRUE(m->restart());
  EXPECT_EQ(m->starts(), 2u);
  EXPECT_NE(m->pid(), first);
  // The first instance's child went with it.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = ::kill(child, 0) != 0;
    if (!gone) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(gone) << "the child " << child << " of the first instance still runs";
  m->stop();
  EXPECT_FALSE(m->alive());
  ASSERT_TRUE(m->exit_status());
  EXPECT_TRUE(m->exit_status()->killed_by_monitor || m->exit_status()->signaled);
  std::filesystem::remove_all(dir);
}

TEST(ProcessMonitor, WaitsUntilReadyOrTellsItEnded) {
  const auto dir = fuzz::test::scratch("monitor-ready");
  auto m = start("sleep 0.3; touch ready; sleep 300", dir);
  ASSERT_TRUE(m);
  const auto flag = std::filesystem::current_path() / "ready";
  // (the command runs in the test's working directory)
  auto ready = [&] { return std::filesystem::exists(flag); };
  EXPECT_EQ(m->wait_ready(ready, 10000ms), Monitor::Ready::ready);
  std::filesystem::remove(flag);
  m->stop();
  auto dies = start("exit 7", dir / "dies");
  ASSERT_TRUE(dies);
  EXPECT_EQ(dies->wait_ready([] { return false; }, 10000ms), Monitor::Ready::exited);
  EXPECT_EQ(dies->exit_description(), "exited with status 7");
  auto slow = start("sleep 300", dir / "slow");
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->wait_ready([] { return false; }, 200ms), Monitor::Ready::timeout);
  std::filesystem::remove_all(dir);
}

TEST(CrashExcerpt, NodeUncaughtExceptionWithoutPathsOrValues) {
  const std::string a =
      "relay listening\n/home/u/peer/relay.js:76\n  if (x) return JSON.stringify(frame);\n      ^\n\n"
      "RangeError: Maximum call stack size exceeded\n    at JSON.stringify (<anonymous>)\n"
      "    at serialize (/home/u/peer/relay.js:76:38)\n    at handle (/home/u/peer/relay.js:153:17)\n\nNode.js v20.20.2\n";
  EXPECT_EQ(crash_excerpt(a), "RangeError: Maximum call stack size exceeded at JSON.stringify (<anonymous>) at serialize (relay.js:76:38)");
  const std::string nul =
      "TypeError [ERR_INVALID_ARG_VALUE]: The argument 'path' must be a string, Uint8Array, or URL without null bytes. "
      "Received '/tmp/agora-relay-Xy12/fz1-a.s1\\x00'\n    at Object.appendFileSync (node:fs:2211:3)\n"
      "    at journal (/srv/relay.js:88:28)\n    at handle (/srv/relay.js:120:7) {\n  code: 'ERR_INVALID_ARG_VALUE'\n}\n";
  EXPECT_EQ(crash_excerpt(nul),
            "TypeError [ERR_INVALID_ARG_VALUE]: The argument 'path' must be a string, Uint8Array, or URL without null bytes. "
            "at journal (relay.js:88:28) at handle (relay.js:120:7)");
}

TEST(CrashExcerpt, SanitizersPanicsPythonAndNothing) {
  EXPECT_EQ(crash_excerpt("==12==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x55d...)\n"
                          "    #0 0x55d4 in ac::ref::alp::Hub::deep(int) /src/reference/alp/hub.cpp:40\n"),
            "AddressSanitizer: SEGV in ac::ref::alp::Hub::deep(int) hub.cpp:40");
  EXPECT_EQ(crash_excerpt("thread 'main' panicked at src/main.rs:5:5:\nindex out of bounds\n"),
            "panicked at src/main.rs:5:5: index out of bounds");
  EXPECT_EQ(crash_excerpt("Traceback (most recent call last):\n  File \"/srv/x.py\", line 3, in <module>\n    f()\nValueError: bad\n"),
            "ValueError: bad (File \"x.py\", line 3, in <module>)");
  EXPECT_EQ(crash_excerpt("listening on 8080\nbye\n"), "");
}

}  // namespace
}  // namespace ac::process
