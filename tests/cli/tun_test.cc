// SPDX-License-Identifier: Apache-2.0
// nicsim tun end to end: two simulated nodes as TUN devices in network namespaces, with 1%
// fabric loss. 100 UDP echoes (ping is not installed here: the same round trip from a
// Python socket, every reply compared with its request) and a 64 MiB TCP transfer whose bytes
// the receiver checks cross the simulated fabric; the namespaces are gone afterwards. Without
// root the command refuses with a clear message. Skipped where namespaces or TUN are missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/process.h"

namespace nicsim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kEcho = R"PY(
import socket, sys, time
mode, addr, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if mode == "server":
    s.bind((addr, 5002)); s.settimeout(60)
    while True:
        b, a = s.recvfrom(65535); s.sendto(b, a)
else:
    s.settimeout(1); got = bad = 0
    for i in range(n):
        msg = (b"%d:" % i) + bytes(range(256)) * (1 if i % 2 else 40)
        s.sendto(msg, (addr, 5002))
        try:
            b, _ = s.recvfrom(65535)
            got += 1; bad += b != msg
        except socket.timeout:
            pass
    print("echo replies %d bad %d" % (got, bad))
)PY";

constexpr const char* kTcp = R"PY(
import socket, sys, time
mode, addr, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
block = bytes((i * 7 + (i >> 10)) & 0xFF for i in range(1 << 20))
if mode == "server":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 5001)); s.listen(1); s.settimeout(120); c, _ = s.accept(); got = bytearray()
    while len(got) < n:
        b = c.recv(1 << 16)
        if not b: break
        got += b
    ok = len(got) == n and all(got[i:i + len(block)] == block for i in range(0, n, len(block)))
    c.sendall(b"OK" if ok else b"NO"); c.close()
else:
    # The server may still be starting (a loaded machine): retry a refused connection.
    for attempt in range(300):
        try:
            c = socket.create_connection((addr, 5001), timeout=120)
            break
        except ConnectionRefusedError:
            time.sleep(0.1)
    for _ in range(n // len(block)): c.sendall(block)
    print("tcp reply", c.recv(2).decode())
)PY";

bool Usable() {
  return geteuid() == 0 && fs::exists("/dev/net/tun") &&
         (fs::exists("/usr/sbin/ip") || fs::exists("/sbin/ip") || fs::exists("/usr/bin/ip")) &&
         fs::exists("/usr/bin/python3") && std::system("ip netns list >/dev/null 2>&1") == 0;
}

TEST(TunTest, PingsAndA64MiBTransferCrossTheLossyFabric) {
  if (!Usable()) GTEST_SKIP() << "needs root, /dev/net/tun, ip and network namespaces";
  testing::ScratchDir dir("nicsim_tun");
  ASSERT_FALSE(dir.path().empty());
  std::ofstream(dir.path() / "echo.py") << kEcho;
  std::ofstream(dir.path() / "tcp.py") << kTcp;
  const std::string prefix = "nstun" + std::to_string(getpid());
  const std::string d = dir.path().string();
  const std::string py = "/usr/bin/python3 ";
  const std::string script = std::string(NICSIM_BINARY) + " tun --prefix " + prefix +
                             " --duration 240 --set fabric.loss=0.01 >" + d +
                             "/tun.txt 2>&1 &\n"
                             "pid=$!\n"
                             "for i in $(seq 100); do grep -q ready " +
                             d +
                             "/tun.txt && break; sleep 0.1; done\n"
                             "ip netns exec " +
                             prefix + "-1 " + py + d +
                             "/echo.py server 10.0.1.1 0 &\n"
                             "echo_pid=$!\n"
                             "ip netns exec " +
                             prefix + "-1 " + py + d +
                             "/tcp.py server 10.0.1.1 67108864 &\n"
                             "sleep 1\n"
                             "ip netns exec " +
                             prefix + "-0 " + py + d +
                             "/echo.py client 10.0.1.1 100\n"
                             "ip netns exec " +
                             prefix + "-0 " + py + d +
                             "/tcp.py client 10.0.1.1 67108864\n"
                             "kill -TERM $echo_pid\n"
                             "kill -TERM $pid; wait $pid; echo tun exit $?\n"
                             "ip netns list | grep -c " +
                             prefix + " || true\n";
  const testing::CommandResult r = testing::RunCommand({"/bin/sh", "-c", script}, dir.path());
  const std::string tun = testing::ReadFile(dir.path() / "tun.txt");
  EXPECT_NE(tun.find("ipif0 10.0.0.1/8"), std::string::npos) << tun;
  // Each echo is one frame or a few; at 1% loss nearly all come back, and none wrong.
  int replies = -1, bad = -1;
  const size_t at = r.out.find("echo replies ");
  ASSERT_NE(at, std::string::npos) << r.out << r.err << tun;
  ASSERT_EQ(std::sscanf(r.out.c_str() + at, "echo replies %d bad %d", &replies, &bad), 2);
  EXPECT_GE(replies, 85) << r.out;
  EXPECT_EQ(bad, 0);
  EXPECT_NE(r.out.find("tcp reply OK"), std::string::npos) << r.out << r.err << tun;
  EXPECT_NE(r.out.find("tun exit 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n0\n"), std::string::npos) << "namespaces left behind: " << r.out;
  EXPECT_NE(tun.find("rdma_landed"), std::string::npos) << tun;
}

TEST(TunTest, RefusesWithoutRoot) {
  if (geteuid() != 0 || !fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "needs root to drop it";
  testing::ScratchDir dir("nicsim_tun");
  const testing::CommandResult r =
      testing::RunCommand({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           NICSIM_BINARY, "tun"},
                          dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "nicsim tun: needs root: it creates network namespaces and TUN devices (run it as "
            "root, e.g. with sudo)\n");
}

}  // namespace
}  // namespace nicsim
