// SPDX-License-Identifier: Apache-2.0
// The C API of shm_api.h: one Sender and one Receiver per process over shared memory, of the
// postbox protocol or of push-pull (NICSIM_SHM_PROTOCOL), blocking loops with back-off, and the
// liveness rule read from the launcher's control segment.
#include "ulp/shm/shm_api.h"

#include <sched.h>
#include <time.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "ulp/shm/control_segment.h"
#include "ulp/postbox/receiver.h"
#include "ulp/postbox/sender.h"
#include "ulp/pushpull/receiver.h"
#include "ulp/pushpull/sender.h"
#include "ulp/pushpull/shm_platform.h"
#include "ulp/segments/shm_segments.h"

namespace nicsim::ulp::shm {
using postbox::Mapping;
using postbox::Message;
using postbox::Params;
using postbox::ProcessId;
using postbox::Receiver;
using postbox::Sender;
using postbox::SendHandle;
using postbox::SendState;
using postbox::Topology;
using segments::ShmSegments;

namespace {

/** Polls between looks for senders not attached yet (each look is a failed shm_open each). */
constexpr uint32_t kAttachInterval = 64;
/** Idle turns spent spinning, then yielding, before each further idle turn sleeps. */
constexpr uint32_t kSpinTurns = 16;
constexpr uint32_t kYieldTurns = 2000;
/** The sleep of a long-idle turn: short against a message's wait, long against a poll. */
constexpr long kIdleSleepNs = 50'000;

/** A push-pull message from one sender being received into a buffer of its size. */
struct Arriving {
  pushpull::ReceiveHandle handle = 0;
  std::vector<uint8_t> bytes;
};

/** One process's part in the run. Not thread-safe: one thread calls the API. */
struct Run {
  uint32_t rank = 0;
  uint32_t size = 0;
  /** The control segment's platform, and the postbox engines' (postbox protocol). */
  std::unique_ptr<ShmSegments> platform;
  Mapping control;
  std::unique_ptr<Sender> sender;
  std::unique_ptr<Receiver> receiver;
  /** The push-pull engines (NICSIM_SHM_PROTOCOL=pushpull) and, per sender, the messages
   *  whose first push has come, oldest first. */
  std::unique_ptr<pushpull::ShmPlatform> pp_platform;
  std::unique_ptr<pushpull::Sender> pp_sender;
  std::unique_ptr<pushpull::Receiver> pp_receiver;
  std::vector<std::deque<Arriving>> arriving;
  /** Delivered messages not yet received, in arrival order (per sender: the order sent). */
  std::deque<Message> queue;
  bool pushpull() const { return pp_sender != nullptr; }
};

Run* g_run = nullptr;
bool g_finalized = false;
std::string g_last_error;

int Fail(int code, std::string detail) {
  g_last_error = std::move(detail);
  return code;
}

ProcessEntry* Entry(uint32_t rank) { return EntryAt(g_run->control.base, rank); }

ProcessState StateOf(uint32_t rank) {
  return static_cast<ProcessState>(Entry(rank)->state.load(std::memory_order_acquire));
}

bool Ended(ProcessState s) { return s == ProcessState::kDead || s == ProcessState::kFinalized; }

/** "rank 2 (pid 812) is dead: killed by signal 9 (Killed)" and the like. */
std::string DescribePeer(uint32_t rank) {
  ProcessEntry* e = Entry(rank);
  const ProcessState s = StateOf(rank);
  std::string text = "rank " + std::to_string(rank) + " (pid " +
                     std::to_string(e->pid.load(std::memory_order_relaxed)) + ") ";
  if (s == ProcessState::kFinalized) return text + "has finalized";
  text += "is " + std::string(ToString(s));
  if (s == ProcessState::kDead && e->ended.load(std::memory_order_acquire) != 0) {
    const int sig = e->term_signal.load(std::memory_order_relaxed);
    if (sig != 0) {
      text += ": killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    } else {
      text += ": exited with status " +
              std::to_string(e->exit_code.load(std::memory_order_relaxed)) + " without finalizing";
    }
  }
  return text;
}

/** The error for a peer that has ended: EPEERDEAD or EPEERDONE, with its description. */
int PeerEnded(uint32_t rank, const char* what) {
  const int code =
      StateOf(rank) == ProcessState::kDead ? NICSIM_SHM_EPEERDEAD : NICSIM_SHM_EPEERDONE;
  return Fail(code, std::string(what) + ": " + DescribePeer(rank));
}

/** One turn of push-pull progress both ways: 1 if anything moved, 0 if not, or < 0. */
int PumpPushPull() {
  Result<size_t> sent = g_run->pp_sender->Progress();
  if (!sent.ok()) return Fail(NICSIM_SHM_EPROTO, sent.status().message());
  Result<size_t> polled = g_run->pp_receiver->Poll();
  if (!polled.ok()) return Fail(NICSIM_SHM_EPROTO, polled.status().message());
  size_t done = 0;
  // Each sender's messages are handed over in the order sent, even if a short one finished
  // while an earlier long one was still being pulled.
  for (uint32_t from = 0; from < g_run->arriving.size(); ++from) {
    std::deque<Arriving>& q = g_run->arriving[from];
    while (!q.empty()) {
      std::optional<pushpull::Completion> c = g_run->pp_receiver->Take(q.front().handle);
      if (!c) break;
      Message m;
      m.from = ProcessId{0, from};
      m.bytes = std::move(q.front().bytes);
      g_run->queue.push_back(std::move(m));
      q.pop_front();
      ++done;
    }
  }
  return *sent + *polled + done > 0 ? 1 : 0;
}

/** One turn of progress both ways. Returns pieces posted plus messages delivered, or < 0. */
int Pump() {
  if (g_run->pushpull()) return PumpPushPull();
  Result<size_t> posted = g_run->sender->Progress();
  if (!posted.ok()) return Fail(NICSIM_SHM_EPROTO, posted.status().message());
  Result<size_t> polled = g_run->receiver->Poll();
  while (auto m = g_run->receiver->Take()) g_run->queue.push_back(std::move(*m));
  if (!polled.ok()) return Fail(NICSIM_SHM_EPROTO, polled.status().message());
  return static_cast<int>(*posted + *polled > 0 ? 1 : 0);
}

/**
 * A pump that also looks for every sender not attached yet. Called after a peer was seen to
 * have ended (acquire), so everything it posted before is visible and is found here.
 */
int FinalLook() {
  if (g_run->pushpull()) return Pump();
  g_run->receiver->SetAttachInterval(1);
  const int rc = Pump();
  g_run->receiver->SetAttachInterval(kAttachInterval);
  return rc;
}

/** Waits a little after an idle turn: spin first, then yield, then sleep. */
void Backoff(uint32_t* turns) {
  ++*turns;
  if (*turns < kSpinTurns) return;
  if (*turns < kYieldTurns) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, kIdleSleepNs};
  nanosleep(&ts, nullptr);
}

/** The oldest queued message `src` may take (any sender for NICSIM_SHM_ANY_SOURCE). */
std::deque<Message>::iterator FindQueued(int src) {
  if (src == NICSIM_SHM_ANY_SOURCE) return g_run->queue.begin();
  for (auto it = g_run->queue.begin(); it != g_run->queue.end(); ++it) {
    if (it->from.rank == static_cast<uint32_t>(src)) return it;
  }
  return g_run->queue.end();
}

/**
 * Nothing queued for the receive: the liveness rule. Returns 1 to keep waiting, 0 to look
 * again at once (a last look found something), or an error code.
 */
int CanStillArrive(int src) {
  if (src != NICSIM_SHM_ANY_SOURCE) {
    const auto from = static_cast<uint32_t>(src);
    // This process cannot send to itself while it waits here.
    const bool self = from == g_run->rank;
    if (!self && !Ended(StateOf(from))) return 1;
    if (int rc = FinalLook(); rc < 0) return rc;
    if (FindQueued(src) != g_run->queue.end()) return 0;
    if (self) {
      return Fail(NICSIM_SHM_EDEADLOCK, "receive from rank " + std::to_string(from) +
                                            " (this process) with nothing sent to itself");
    }
    return PeerEnded(from, "receive");
  }
  for (uint32_t r = 0; r < g_run->size; ++r) {
    if (r != g_run->rank && !Ended(StateOf(r))) return 1;
  }
  if (int rc = FinalLook(); rc < 0) return rc;
  if (!g_run->queue.empty()) return 0;
  for (uint32_t r = 0; r < g_run->size; ++r) {
    if (r != g_run->rank && StateOf(r) == ProcessState::kDead) {
      return PeerEnded(r, "receive from any rank: every other rank has ended");
    }
  }
  return Fail(NICSIM_SHM_EPEERDONE,
              "receive from any rank: every other rank has finalized and nothing is left");
}

/** Reads a whole decimal environment variable into `*out`; false if unset or malformed. */
bool EnvNumber(const char* name, long* out) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 0) return false;
  *out = v;
  return true;
}

/** The push-pull engines of `run` over the run's segments; every message a sender pushes
 *  gets a buffer of its size here at once (so a receive from any rank works). */
Status StartPushPull(Run& run, const char* prefix) {
  run.pp_platform = std::make_unique<pushpull::ShmPlatform>(prefix);
  run.pp_platform->KeepSegments();
  const pushpull::Params params;
  auto sender = pushpull::Sender::Create(run.pp_platform.get(), run.size, run.rank, params);
  if (!sender.ok()) return sender.status();
  // The receiver makes its channels (one per other rank) now; senders attach on first use.
  auto receiver = pushpull::Receiver::Create(run.pp_platform.get(), run.size, run.rank, params);
  if (!receiver.ok()) return receiver.status();
  run.pp_sender = std::move(*sender);
  run.pp_receiver = std::move(*receiver);
  run.arriving.resize(run.size);
  Run* r = &run;
  run.pp_receiver->OnArrival([r](uint32_t source, uint32_t tag, uint64_t bytes) {
    Arriving a;
    a.bytes.resize(bytes);
    Result<pushpull::ReceiveHandle> h =
        r->pp_receiver->PostReceive(source, tag, a.bytes.data(), a.bytes.size());
    if (!h.ok()) return;  // the message then waits set aside; Poll reports what broke
    a.handle = *h;
    r->arriving[source].push_back(std::move(a));
  });
  return Status();
}

int Init() {
  if (g_run != nullptr || g_finalized) {
    return Fail(NICSIM_SHM_ENOTINIT, "nicsim_shm_init: called twice (or after finalize)");
  }
  long rank = 0, size = 0;
  const char* prefix = std::getenv(kPrefixEnv);
  if (!EnvNumber(kRankEnv, &rank) || !EnvNumber(kSizeEnv, &size) || prefix == nullptr ||
      prefix[0] != '/' || std::strchr(prefix + 1, '/') != nullptr) {
    return Fail(NICSIM_SHM_EENV, std::string("nicsim_shm_init: ") + kRankEnv + ", " + kSizeEnv +
                                     " and " + kPrefixEnv +
                                     " must be set: start the program with nicsim shm-run");
  }
  if (size < 1 || size > static_cast<long>(kMaxRunProcesses) || rank >= size) {
    return Fail(NICSIM_SHM_EENV, "nicsim_shm_init: rank " + std::to_string(rank) + " of " +
                                     std::to_string(size) + " processes is out of range");
  }
  auto run = std::make_unique<Run>();
  run->rank = static_cast<uint32_t>(rank);
  run->size = static_cast<uint32_t>(size);
  run->platform = std::make_unique<ShmSegments>(prefix);
  // The launcher unlinks every segment of the run once all its processes have ended.
  run->platform->KeepSegments();
  Result<Mapping> control = run->platform->Attach(ControlSegmentName());
  if (!control.ok()) {
    return Fail(NICSIM_SHM_ESYS,
                "nicsim_shm_init: no control segment: " + control.status().message());
  }
  run->control = *control;
  const auto* header = static_cast<const ControlHeader*>(control->base);
  if (control->bytes < ControlSegmentBytes(run->size) ||
      header->magic.load(std::memory_order_acquire) != kControlMagic ||
      header->version != kControlVersion || header->process_count != run->size) {
    return Fail(NICSIM_SHM_ESYS,
                "nicsim_shm_init: the control segment does not describe a run "
                "of " +
                    std::to_string(size) + " processes");
  }
  uint32_t expected = static_cast<uint32_t>(ProcessState::kStarting);
  if (!EntryAt(control->base, run->rank)
           ->state.compare_exchange_strong(expected, static_cast<uint32_t>(ProcessState::kRunning),
                                           std::memory_order_acq_rel)) {
    return Fail(NICSIM_SHM_ESYS, "nicsim_shm_init: rank " + std::to_string(rank) + " is " +
                                     ToString(static_cast<ProcessState>(expected)) +
                                     ", not starting");
  }
  const char* protocol = std::getenv(kProtocolEnv);
  const std::string proto = protocol != nullptr ? protocol : "postbox";
  if (proto == "pushpull") {
    if (Status s = StartPushPull(*run, prefix); !s.ok()) {
      return Fail(NICSIM_SHM_ESYS, "nicsim_shm_init: " + s.message());
    }
    g_run = run.release();
    return NICSIM_SHM_OK;
  }
  if (proto != "postbox") {
    return Fail(NICSIM_SHM_EENV, std::string("nicsim_shm_init: ") + kProtocolEnv + "='" + proto +
                                     "': expected postbox or pushpull");
  }
  Topology topology;
  topology.processes_per_node = {run->size};
  const ProcessId self{0, run->rank};
  auto sender = Sender::Create(run->platform.get(), topology, self, Params());
  auto receiver = Receiver::Create(run->platform.get(), topology, self, Params());
  if (!sender.ok() || !receiver.ok()) {
    return Fail(NICSIM_SHM_ESYS, "nicsim_shm_init: " + (sender.ok() ? receiver.status().message()
                                                                    : sender.status().message()));
  }
  run->sender = std::move(*sender);
  run->receiver = std::move(*receiver);
  run->receiver->SetAttachInterval(kAttachInterval);
  g_run = run.release();
  return NICSIM_SHM_OK;
}

/** Push-pull send: pushes now, the rest when the receiver pulls it, straight from `buf`, so
 *  the call returns only then. A message to itself goes to its own queue. */
int SendPushPull(uint32_t to, const void* buf, size_t len) {
  if (to == g_run->rank) {
    Message m;
    m.from = ProcessId{0, to};
    const auto* at = static_cast<const uint8_t*>(buf);
    m.bytes.assign(at, at + len);
    g_run->queue.push_back(std::move(m));
    return NICSIM_SHM_OK;
  }
  Result<pushpull::SendHandle> handle = g_run->pp_sender->Send(to, 0, buf, len);
  if (!handle.ok()) return Fail(NICSIM_SHM_ESYS, handle.status().message());
  uint32_t turns = 0;
  while (!g_run->pp_sender->Done(*handle)) {
    const int rc = Pump();
    if (rc < 0) return rc;
    if (rc > 0) {
      turns = 0;
      continue;
    }
    // Waiting for the receiver to take pushes or ask for the rest: only it can.
    if (Ended(StateOf(to))) return PeerEnded(to, "send (waiting for the receiver)");
    Backoff(&turns);
  }
  return NICSIM_SHM_OK;
}

int Send(int dest, const void* buf, size_t len) {
  if (g_run == nullptr) return Fail(NICSIM_SHM_ENOTINIT, "nicsim_shm_send: not initialised");
  if (dest < 0 || static_cast<uint32_t>(dest) >= g_run->size || (buf == nullptr && len > 0)) {
    return Fail(NICSIM_SHM_EINVAL, "nicsim_shm_send: to rank " + std::to_string(dest) + " of " +
                                       std::to_string(g_run->size) + ", " + std::to_string(len) +
                                       " bytes");
  }
  const auto to = static_cast<uint32_t>(dest);
  const bool self = to == g_run->rank;
  if (!self && Ended(StateOf(to))) return PeerEnded(to, "send");
  if (g_run->pushpull()) return SendPushPull(to, buf, len);
  Result<SendHandle> handle = g_run->sender->Send(ProcessId{0, to}, buf, len);
  if (!handle.ok()) return Fail(NICSIM_SHM_ESYS, handle.status().message());
  uint32_t turns = 0;
  while (g_run->sender->State(*handle) == SendState::kPending) {
    const int rc = Pump();
    if (rc < 0) return rc;
    if (rc > 0) {
      turns = 0;
      continue;
    }
    // Waiting on the receiver's quota or slots: only its acknowledgements can free them.
    if (!self && Ended(StateOf(to))) return PeerEnded(to, "send (waiting for the receiver)");
    Backoff(&turns);
  }
  return NICSIM_SHM_OK;
}

int Recv(int src, void* buf, size_t cap, size_t* len, int* src_out) {
  if (g_run == nullptr) return Fail(NICSIM_SHM_ENOTINIT, "nicsim_shm_recv: not initialised");
  if ((src != NICSIM_SHM_ANY_SOURCE && (src < 0 || static_cast<uint32_t>(src) >= g_run->size)) ||
      (buf == nullptr && cap > 0)) {
    return Fail(NICSIM_SHM_EINVAL, "nicsim_shm_recv: from rank " + std::to_string(src) + " of " +
                                       std::to_string(g_run->size));
  }
  uint32_t turns = 0;
  while (true) {
    auto it = FindQueued(src);
    if (it != g_run->queue.end()) {
      const size_t bytes = it->bytes.size();
      if (len != nullptr) *len = bytes;
      if (src_out != nullptr) *src_out = static_cast<int>(it->from.rank);
      if (bytes > cap) {
        return Fail(NICSIM_SHM_ETRUNC, "nicsim_shm_recv: a message of " + std::to_string(bytes) +
                                           " bytes from rank " + std::to_string(it->from.rank) +
                                           " for a buffer of " + std::to_string(cap));
      }
      if (bytes > 0) std::memcpy(buf, it->bytes.data(), bytes);
      g_run->queue.erase(it);
      return NICSIM_SHM_OK;
    }
    const int rc = Pump();
    if (rc < 0) return rc;
    if (rc > 0) {
      turns = 0;
      continue;
    }
    const int wait = CanStillArrive(src);
    if (wait < 0) {
      if (src_out != nullptr) {
        // Name the peer the error is about (the lowest dead rank for a receive from any).
        *src_out = src;
        if (src == NICSIM_SHM_ANY_SOURCE) {
          for (uint32_t r = 0; r < g_run->size; ++r) {
            if (r != g_run->rank && StateOf(r) == ProcessState::kDead) {
              *src_out = static_cast<int>(r);
              break;
            }
          }
        }
      }
      return wait;
    }
    if (wait == 0) continue;
    Backoff(&turns);
  }
}

int Finalize() {
  if (g_run == nullptr) return Fail(NICSIM_SHM_ENOTINIT, "nicsim_shm_finalize: not initialised");
  // Every send has been posted when it returned, so what this process sent stays readable
  // in its segments; after this store, peers waiting for more from it give up.
  Entry(g_run->rank)
      ->state.store(static_cast<uint32_t>(ProcessState::kFinalized), std::memory_order_release);
  std::unique_ptr<Run> run(g_run);
  g_run = nullptr;
  g_finalized = true;
  run->receiver.reset();
  run->sender.reset();
  run->pp_receiver.reset();
  run->pp_sender.reset();
  run->pp_platform.reset();  // unmaps; unlinks nothing (KeepSegments)
  run->platform->Detach(run->control);
  run->platform.reset();  // unmaps; unlinks nothing (KeepSegments)
  return NICSIM_SHM_OK;
}

}  // namespace
}  // namespace nicsim::ulp::shm

namespace api = nicsim::ulp::shm;

extern "C" {

int nicsim_shm_init(void) { return api::Init(); }

int nicsim_shm_rank(void) {
  return api::g_run == nullptr ? NICSIM_SHM_ENOTINIT : static_cast<int>(api::g_run->rank);
}

int nicsim_shm_size(void) {
  return api::g_run == nullptr ? NICSIM_SHM_ENOTINIT : static_cast<int>(api::g_run->size);
}

int nicsim_shm_send(int dest, const void* buf, size_t len) { return api::Send(dest, buf, len); }

int nicsim_shm_recv(int src, void* buf, size_t cap, size_t* len, int* src_out) {
  return api::Recv(src, buf, cap, len, src_out);
}

int nicsim_shm_finalize(void) { return api::Finalize(); }

const char* nicsim_shm_last_error(void) { return api::g_last_error.c_str(); }

}  // extern "C"
