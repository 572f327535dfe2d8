// SPDX-License-Identifier: Apache-2.0
// Fuzz target: RDMA packets from the link into the microcode's receive path (rx_engine and
// rx_rdma: rCxt, tid, duplicate, PVO, TCE and length checks) on the functional adapter model.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "abi/packet.h"
#include "abi/rdma.h"
#include "base/check.h"
#include "driver/adapter_driver.h"
#include "driver/rcxt_pool.h"
#include "driver/tce_tables.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_targets.h"
#include "hw/common/frame_codec.h"
#include "host/address_space.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"

namespace nicsim::fuzz {
namespace {

// The input is a sequence of records, each one frame arriving on the link:
//
//   fix:u8  sel:u8  len:u16 (little endian)  frame bytes[len & 0x1FFF] (fewer if the input ends)
//
// A frame of at least a WireHeader has these fields rewritten first, for each bit of `fix`
// that is set, so that the fuzzer reaches the checks behind the ones it cannot guess:
constexpr uint8_t kFixAim = 0x01;     // dest_adapter: ours; dest_window: 1 (0 if sel & 0x10)
constexpr uint8_t kFixKey = 0x02;     // protection_key: the job's
constexpr uint8_t kFixRcxt = 0x04;    // rcxt_id: one of the references below, by sel
constexpr uint8_t kFixPvo = 0x08;     // pvo: inside the registered buffer (the field's low bits)
constexpr uint8_t kFixLength = 0x10;  // len_bytes: the payload bytes the frame really has
constexpr uint8_t kFixType = 0x20;    // type: one of the three RDMA packet types
constexpr uint8_t kFixCrc = 0x40;     // the CRC computed (otherwise the bytes go as they are)
constexpr uint8_t kDrain = 0x80;      // run the adapter until idle before this frame arrives
// The top three bits of len (frames are shorter than 8 KiB) name what the host does first:
constexpr uint16_t kLenMask = 0x1FFF;
constexpr uint32_t kActionShift = 13;
enum class HostAction : uint8_t {
  kNone = 0,
  /** Returns sel & 15 receive frames of the window kFixAim picks (refused if too many). */
  kReturnFrames = 1,
  /** Closes that window; it is opened again, with fresh FIFOs, once the close completes. */
  kCloseWindow = 2,
  /** Recovers the adapter (a reset under traffic); windows, TCE descriptors and rCxts return. */
  kRecoverAdapter = 3,
};

constexpr uint16_t kAdapterId = 3;
constexpr uint32_t kLineBytes = 128;
constexpr uint32_t kJobKey = 0x5EED01;
constexpr uint32_t kRcxts = 8;
constexpr uint32_t kRecvFrames = 8;
constexpr uint32_t kDtbs = 4;
constexpr uint32_t kHeaderBuffers = 4;
constexpr uint64_t kHostBytes = 512 * 1024;
constexpr uint64_t kPage = 4096;
/** Registered bytes: the middle page of three; the pages on either side are canaries. */
constexpr uint64_t kRegisteredBytes = kPage;
constexpr uint8_t kCanary = 0xC5;
/** Largest frame a record carries: a WireHeader and more than any valid payload. */
constexpr uint32_t kMaxFrameBytes = sizeof(abi::WireHeader) + 2 * abi::kRdmaPacketBytes;
/** Events one input may run: far more than any sequence of frames needs. */
constexpr uint64_t kMaxEvents = 2'000'000;

/** Frames the adapter sends go nowhere. */
class NullPort final : public hw::FabricLink {
 public:
  void Send(hw::Frame /*frame*/, uint64_t /*depart_ps*/) override { ++frames; }
  uint64_t frames = 0;
};

/** Prints every firmware and hardware trace event (verbose runs only). */
class PrintingTrace final : public hw::func::TraceSink {
 public:
  void Record(uint64_t time_ps, uint16_t /*adapter*/, const fw::TraceEvent& e) override {
    std::fprintf(
        stderr, "rdma_rx: %12llu kind=%u task=%d state=%u window=%u cb=%d dtb=%d value=%llu\n",
        static_cast<unsigned long long>(time_ps), static_cast<unsigned>(e.kind),
        e.task == fw::kNoTask ? -1 : e.task, e.state, e.window, e.cb == fw::kNoCb ? -1 : e.cb,
        e.dtb == fw::kNoDtb ? -1 : e.dtb, static_cast<unsigned long long>(e.value));
  }
};

/** One adapter with two open windows of one job, rCxts, and a registered buffer. */
class Harness {
 public:
  Harness()
      : host_(kHostBytes),
        adapter_(events_, host_, kAdapterId, kLineBytes, hw::func::AdapterTiming{}, Microcode(),
                 hw::func::AdapterResources{kDtbs, kHeaderBuffers, 2}),
        access_(adapter_),
        driver_(access_),
        rcxts_(access_, kRcxts, [this] { return driver_.recovery_count(); }),
        space_(host_, 1) {
    adapter_.ConnectFabric(&port_);
    if (Verbose()) adapter_.SetTraceSink(&trace_);
    NICSIM_CHECK(driver_.Init().ok(), "driver init");
    for (uint32_t w = 0; w < 2; ++w) Open(w);
    driver::TceConfig tce;
    tce.tables_16m = 1;
    tce.entries_16m = 1;
    tce.tables_4k = 1;
    tce.entries_4k = 16;
    tce.tables_64k = 0;
    tce.job_slots = 1;
    Result<std::unique_ptr<driver::TceTables>> tables = driver::TceTables::Create(access_, tce);
    NICSIM_CHECK(tables.ok(), "tce tables: %s", tables.status().message().c_str());
    tables_ = std::move(*tables);
    tables_->AttachAdapter(access_);
    NICSIM_CHECK(tables_->ReserveJob(kJobKey).ok(), "reserve job");

    Result<uint64_t> base = space_.Map(3 * kPage, abi::kPageShift4K);
    NICSIM_CHECK(base.ok(), "map");
    base_ = *base;
    const std::vector<uint8_t> canaries(3 * kPage, kCanary);
    NICSIM_CHECK(space_.Write(base_, canaries.data(), canaries.size()), "fill");
    Result<driver::Registration> reg =
        tables_->Register(kJobKey, space_, base_ + kPage, kRegisteredBytes);
    NICSIM_CHECK(reg.ok(), "register: %s", reg.status().message().c_str());
    reg_ = *reg;

    AcquireRcxts();
    Drain();
  }

  /** What the host does before the next frame arrives; `sel` as for the frame. */
  void Act(HostAction action, uint8_t sel) {
    if (Verbose() && action != HostAction::kNone) {
      std::fprintf(stderr, "rdma_rx: host action %u sel %u\n", static_cast<unsigned>(action), sel);
    }
    // A window whose close completed is opened again before anything else happens.
    for (uint32_t w = 0; w < 2; ++w) {
      if (!driver_.IsOpen(w) && !driver_.IsClosing(w)) Open(w);
    }
    const uint32_t window = (sel & 0x10) ? 0 : 1;
    switch (action) {
      case HostAction::kReturnFrames:
        access_.MmioWrite(abi::WindowCommandOffset(window, abi::MmioCommand::kReturnRecvFrames),
                          sel & 0x0F);
        break;
      case HostAction::kCloseWindow:
        if (driver_.IsOpen(window)) {
          NICSIM_CHECK(driver_.CloseWindow(window).ok(), "close window %u", window);
        }
        break;
      case HostAction::kRecoverAdapter:
        // As Cluster::RecoverAdapter: SRAM is cleared, so descriptors and rCxts come back.
        driver_.RecoverAdapter();
        rcxts_.OnRecovery();
        tables_->AttachAdapter(access_);
        for (uint32_t w = 0; w < 2; ++w) {
          if (driver_.IsOpen(w)) {
            NICSIM_CHECK(driver_.ReopenWindow(w).ok(), "reopen window %u", w);
          } else {
            Open(w);
          }
        }
        AcquireRcxts();
        break;
      default:
        break;
    }
  }

  /** One frame from the link, rewritten as `fix` asks. */
  void Deliver(uint8_t fix, uint8_t sel, std::vector<uint8_t> bytes) {
    if (fix & kDrain) Drain();
    if (bytes.size() >= sizeof(abi::WireHeader)) {
      abi::WireHeader h;
      std::memcpy(&h, bytes.data(), sizeof(h));
      if (fix & kFixAim) {
        h.dest_adapter = kAdapterId;
        h.dest_window = (sel & 0x10) ? 0 : 1;
      }
      if (fix & kFixKey) h.protection_key = kJobKey;
      if (fix & kFixRcxt) h.rcxt_id = refs_[sel % 8];
      if (fix & kFixPvo) h.pvo = reg_.pvo + h.pvo % kRegisteredBytes;
      if (fix & kFixLength) {
        h.len_bytes = static_cast<uint16_t>(bytes.size() - sizeof(abi::WireHeader));
      }
      if (fix & kFixType) {
        h.type = static_cast<uint8_t>(abi::PacketType::kRdmaWrite) + h.type % 3;
      }
      std::memcpy(bytes.data(), &h, sizeof(h));
      if (fix & kFixCrc) hw::StampCrc(bytes);
      if (Verbose()) {
        std::fprintf(stderr,
                     "rdma_rx: frame fix=%02x dest=%u/%u type=%u flags=%02x key=%x rcxt=%x tid=%u "
                     "offset=%u pvo=%llx len=%u (payload %zu) aux=%x ulp=%x\n",
                     fix, h.dest_adapter, h.dest_window, h.type, h.flags, h.protection_key,
                     h.rcxt_id, h.tid, h.msg_offset, static_cast<unsigned long long>(h.pvo),
                     h.len_bytes, bytes.size() - sizeof(h), h.aux, h.ulp_word);
      }
    }
    hw::Frame frame;
    frame.bytes = std::move(bytes);
    frame.src_adapter = 7;
    frame.dest_adapter = kAdapterId;
    adapter_.Receive(std::move(frame));
  }

  /** Runs the adapter until nothing is left to do. */
  void Drain() {
    uint64_t events = 0;
    events_.RunWhile([&] { return ++events <= kMaxEvents; });
    NICSIM_CHECK(events_.empty(), "the adapter is still busy after %llu events",
                 static_cast<unsigned long long>(kMaxEvents));
  }

  /**
   * What must hold once the adapter is idle, whatever came in: every task, DTB and header
   * buffer is back, no DMA wrote to freed memory, and nothing landed outside the registered
   * page (the canary pages around it are untouched).
   */
  void CheckIdle() {
    Drain();
    const std::vector<fw::Microcode::TaskInfo> busy = adapter_.microcode().BusyTasks();
    NICSIM_CHECK(busy.empty(), "%zu tasks still busy (task %u in state %u, waiting %u)",
                 busy.size(), busy.empty() ? 0 : busy[0].id, busy.empty() ? 0 : busy[0].state,
                 busy.empty() ? 0 : static_cast<unsigned>(busy[0].waiting));
    NICSIM_CHECK(adapter_.free_dtbs() == kDtbs, "%u of %u DTBs free", adapter_.free_dtbs(), kDtbs);
    NICSIM_CHECK(adapter_.free_header_buffers() == kHeaderBuffers, "%u of %u header buffers free",
                 adapter_.free_header_buffers(), kHeaderBuffers);
    NICSIM_CHECK(adapter_.counters().dma_to_freed_memory == 0, "DMA into freed memory");
    std::vector<uint8_t> page(kPage);
    for (uint64_t at : {base_, base_ + 2 * kPage}) {
      NICSIM_CHECK(space_.Read(at, page.data(), page.size()), "read canary");
      NICSIM_CHECK(std::all_of(page.begin(), page.end(), [](uint8_t b) { return b == kCanary; }),
                   "a byte outside the registered buffer was written");
    }
  }

  /** What the microcode did with the input (NICSIM_FUZZ_VERBOSE=1, for writing seeds). */
  void Report() const {
    const fw::Counters& c = adapter_.firmware_counters();
    std::fprintf(stderr,
                 "rdma_rx: frames_in=%llu rx_packets=%llu rdma_packets_in=%llu landed=%llu "
                 "reads_served=%llu completions_sent=%llu completions_written=%llu "
                 "conditional=%llu frames_out=%llu\n",
                 U(adapter_.counters().frames_in), U(c.rx_packets), U(c.rdma_packets_in),
                 U(c.rdma_transfers_landed), U(c.rdma_read_requests_served),
                 U(c.rdma_completions_sent), U(c.rdma_completions_written),
                 U(c.rdma_conditional_fired), U(port_.frames));
    for (size_t r = 0; r < c.drops.size(); ++r) {
      if (c.drops[r] == 0) continue;
      const std::string_view name = fw::ToString(static_cast<fw::DropReason>(r));
      std::fprintf(stderr, "rdma_rx:   drop %.*s=%llu\n", static_cast<int>(name.size()),
                   name.data(), U(c.drops[r]));
    }
  }

 private:
  static fw::MicrocodeConfig Microcode() {
    fw::MicrocodeConfig config;
    config.tasks = 8;
    config.rx_tasks = 2;
    config.tx_tasks = 2;
    config.channel_buffers = 2;
    config.rcxts = kRcxts;
    return config;
  }

  static unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

  void Open(uint32_t window) {
    driver::WindowRequest request;
    request.job_key = kJobKey;
    request.recv_frames = kRecvFrames;
    request.send_slots = 4;
    Result<driver::WindowInfo> info = driver_.OpenWindow(window, request);
    NICSIM_CHECK(info.ok(), "open window %u: %s", window, info.status().message().c_str());
  }

  /**
   * The rCxt references a frame can name, by sel % 8: window 1 holds the first four (idle,
   * idle, awaiting tid 1, awaiting tid 1 with a conditional completion), window 0 the next
   * two; 6 names an index outside the pool and 7 a held rCxt with a stale key. After a
   * recovery the old references are stale and new ones are taken.
   */
  void AcquireRcxts() {
    refs_.clear();
    for (uint32_t i = 0; i < 6; ++i) {
      Result<uint32_t> ref = rcxts_.Acquire(i < 4 ? 1 : 0);
      NICSIM_CHECK(ref.ok(), "rcxt: %s", ref.status().message().c_str());
      refs_.push_back(*ref);
    }
    SetAwaiting(refs_[2], 0);
    SetAwaiting(refs_[3], abi::kRcxtConditional);
    refs_.push_back(abi::MakeRcxtRef(kRcxts + 1, 0));
    refs_.push_back(refs_[0] ^ (1u << abi::kRcxtIndexBits));
  }

  /** Marks an rCxt as an initiator waiting for the completion of tid 1. */
  void SetAwaiting(uint32_t ref, uint8_t flags) {
    abi::RcxtRecord rec;
    adapter_.SramRead(abi::RcxtAddr(abi::RcxtIndex(ref)), &rec, sizeof(rec));
    rec.state = static_cast<uint8_t>(abi::RcxtState::kAwaiting);
    rec.tid = 1;
    rec.flags = flags;
    rec.cond_queue = 3;
    adapter_.SramWrite(abi::RcxtAddr(abi::RcxtIndex(ref)), &rec, sizeof(rec));
  }

  kernel::EventQueue events_;
  host::HostMemory host_;
  NullPort port_;
  PrintingTrace trace_;
  hw::func::FuncAdapter adapter_;
  hw::func::FuncDeviceAccess access_;
  driver::AdapterDriver driver_;
  driver::RcxtPool rcxts_;
  host::AddressSpace space_;
  std::unique_ptr<driver::TceTables> tables_;
  uint64_t base_ = 0;
  driver::Registration reg_{};
  std::vector<uint32_t> refs_;
};

}  // namespace

int FuzzRdmaRx(const uint8_t* data, size_t size) {
  Harness harness;
  ByteReader in(data, size);
  while (in.left() >= 4) {
    const uint8_t fix = in.U8();
    const uint8_t sel = in.U8();
    const uint16_t len = in.U16();
    harness.Act(static_cast<HostAction>(len >> kActionShift), sel);
    harness.Deliver(fix, sel, in.Bytes(std::min<uint32_t>(len & kLenMask, kMaxFrameBytes)));
  }
  harness.CheckIdle();
  if (Verbose()) harness.Report();
  return 0;
}

}  // namespace nicsim::fuzz
