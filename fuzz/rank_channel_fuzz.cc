// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the decoder of what a rank's program sends on its channel (sim/mpirun/
// call_decoder). Input: the bytes a program writes, as they come: messages of a 24-byte header
// (wire.h's Header) and its arguments, one after another, up to a header that is refused or a
// message cut short. A decoded call's byte ranges must lie inside its arguments, its counts
// must add up to their total under the limit, its ranks and tags must be in range, and the
// call encoded again field by field must give back its arguments byte for byte (the decoder
// read every byte once, in order, and nothing else).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <variant>

#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_targets.h"
#include "sim/mpirun/call_decoder.h"
#include "ulp/mpi/datatype.h"
#include "ulp/mpi/limits.h"

namespace nicsim::fuzz {
namespace {

namespace calls = sim::calls;
using mpi::wire::Call;
using mpi::wire::Writer;

/** The arguments a decoded call must point into. */
struct Within {
  const std::vector<uint8_t>& bytes;

  void Inside(const calls::Bytes& b) const {
    const uint8_t* begin = bytes.data();
    const uint8_t* end = begin + bytes.size();
    NICSIM_CHECK(
        b.size == 0 || (b.data >= begin && b.data <= end && b.size <= size_t(end - b.data)),
        "%zu bytes outside the %zu bytes of arguments", b.size, bytes.size());
  }
};

void PutBytes(Writer& w, const calls::Bytes& b) { w.Blob(b.data, b.size); }

void PutCounts(Writer& w, const calls::Counts& c) {
  uint64_t sum = 0;
  for (size_t n : c.each) sum += n;
  NICSIM_CHECK(sum == c.total, "counts add up to %llu, not their total %llu",
               static_cast<unsigned long long>(sum), static_cast<unsigned long long>(c.total));
  NICSIM_CHECK(c.total <= calls::kMostMessageBytes, "counts over the limit");
  w.Counts(c.each);
}

void PutReduction(Writer& w, const calls::Reduction& r) {
  NICSIM_CHECK(r.op == mpi::wire::kUserOp || (r.op < mpi::kOpCount && r.base < mpi::kBaseCount),
               "op %u on base %u", r.op, r.base);
  w.Put<uint8_t>(r.op).Put<uint32_t>(r.user_op).Put<uint8_t>(r.base);
  w.Put<uint64_t>(r.element_bytes).Put<int32_t>(r.datatype).Put<uint8_t>(r.commutes);
}

void CheckTag(int32_t tag, bool wildcard) {
  NICSIM_CHECK(tag >= (wildcard ? mpi::kAnyTag : 0) && tag <= mpi::kTagUb, "tag %d", tag);
}

/** The arguments of `call` encoded again from what the decoder made of them. */
std::vector<uint8_t> Encode(Call call, const calls::Args& decoded, const Within& args) {
  Writer w;
  // Typed appenders: a chain of Put<T> calls on a field of a generic lambda's argument would
  // need `.template` at every link.
  auto i32 = [&](int32_t v) { w.Put<int32_t>(v); };
  auto u32 = [&](uint32_t v) { w.Put<uint32_t>(v); };
  auto u64 = [&](uint64_t v) { w.Put<uint64_t>(v); };
  auto u8 = [&](uint8_t v) { w.Put<uint8_t>(v); };
  auto str = [&](const std::string& v) { w.Str(v); };
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, calls::Sleep>) {
          NICSIM_CHECK(a.ns <= calls::kMostSleepNs, "a sleep of %llu ns",
                       static_cast<unsigned long long>(a.ns));
          u64(a.ns);
        } else if constexpr (std::is_same_v<T, calls::Abort>) {
          i32(a.code);
          str(a.why);
        } else if constexpr (std::is_same_v<T, calls::OnComm>) {
          i32(a.comm);
        } else if constexpr (std::is_same_v<T, calls::Split>) {
          i32(a.comm);
          i32(a.color);
          i32(a.key);
        } else if constexpr (std::is_same_v<T, calls::CreateGroup>) {
          NICSIM_CHECK(!a.members.empty(), "a group of no members");
          i32(a.comm);
          u32(static_cast<uint32_t>(a.members.size()));
          for (int m : a.members) i32(m);
        } else if constexpr (std::is_same_v<T, calls::Compare>) {
          i32(a.a);
          i32(a.b);
        } else if constexpr (std::is_same_v<T, calls::Send>) {
          NICSIM_CHECK(a.dest >= 0, "destination %d", a.dest);
          CheckTag(a.tag, /*wildcard=*/false);
          args.Inside(a.data);
          i32(a.comm);
          i32(a.dest);
          i32(a.tag);
          u8(a.sync);
          PutBytes(w, a.data);
        } else if constexpr (std::is_same_v<T, calls::Recv>) {
          NICSIM_CHECK(a.source >= mpi::kAnySource, "source %d", a.source);
          CheckTag(a.tag, /*wildcard=*/true);
          i32(a.comm);
          i32(a.source);
          i32(a.tag);
          u64(a.room);
        } else if constexpr (std::is_same_v<T, calls::Complete>) {
          u8(static_cast<uint8_t>(a.mode));
          u32(static_cast<uint32_t>(a.ids.size()));
          for (uint64_t id : a.ids) u64(id);
        } else if constexpr (std::is_same_v<T, calls::OnRequest>) {
          u64(a.id);
        } else if constexpr (std::is_same_v<T, calls::Probe>) {
          NICSIM_CHECK(a.source >= mpi::kAnySource, "source %d", a.source);
          CheckTag(a.tag, /*wildcard=*/true);
          i32(a.comm);
          i32(a.source);
          i32(a.tag);
          u8(a.block);
        } else if constexpr (std::is_same_v<T, calls::Bcast>) {
          NICSIM_CHECK(a.root >= 0 && a.bytes <= calls::kMostMessageBytes, "broadcast");
          args.Inside(a.data);
          i32(a.comm);
          i32(a.root);
          u64(a.bytes);
          PutBytes(w, a.data);
        } else if constexpr (std::is_same_v<T, calls::Reduce>) {
          NICSIM_CHECK(a.root >= 0, "root %d", a.root);
          args.Inside(a.data);
          i32(a.comm);
          if (call == Call::kReduce) i32(a.root);
          if (call == Call::kScan) u8(a.exclusive);
          PutReduction(w, a.reduction);
          PutBytes(w, a.data);
        } else if constexpr (std::is_same_v<T, calls::Gatherv>) {
          NICSIM_CHECK(a.root >= 0, "root %d", a.root);
          args.Inside(a.data);
          i32(a.comm);
          i32(a.root);
          PutBytes(w, a.data);
          PutCounts(w, a.counts);
        } else if constexpr (std::is_same_v<T, calls::Scatterv>) {
          NICSIM_CHECK(a.root >= 0 && a.room <= calls::kMostMessageBytes, "scatter");
          args.Inside(a.data);
          i32(a.comm);
          i32(a.root);
          PutCounts(w, a.counts);
          PutBytes(w, a.data);
          u64(a.room);
        } else if constexpr (std::is_same_v<T, calls::Allgatherv>) {
          args.Inside(a.data);
          i32(a.comm);
          PutBytes(w, a.data);
          PutCounts(w, a.counts);
        } else if constexpr (std::is_same_v<T, calls::Alltoallv>) {
          args.Inside(a.data);
          i32(a.comm);
          PutCounts(w, a.send);
          PutBytes(w, a.data);
          PutCounts(w, a.receive);
        } else if constexpr (std::is_same_v<T, calls::ReduceScatter>) {
          args.Inside(a.data);
          i32(a.comm);
          PutReduction(w, a.reduction);
          PutCounts(w, a.counts);
          PutBytes(w, a.data);
        } else if constexpr (std::is_same_v<T, calls::WinCreate>) {
          args.Inside(a.contents);
          i32(a.comm);
          u8(static_cast<uint8_t>(a.flavor));
          i32(a.disp_unit);
          u64(a.size);
          i32(a.within);
          u64(a.offset);
          PutBytes(w, a.contents);
        } else if constexpr (std::is_same_v<T, calls::OnWin>) {
          i32(a.win);
        } else if constexpr (std::is_same_v<T, calls::WinAttach>) {
          i32(a.win);
          u64(a.address);
          if (call == Call::kWinAttach) {
            args.Inside(a.contents);
            PutBytes(w, a.contents);
          }
        } else if constexpr (std::is_same_v<T, calls::Rma>) {
          args.Inside(a.origin);
          args.Inside(a.compare);
          i32(a.win);
          u8(static_cast<uint8_t>(a.kind));
          i32(a.target);
          u8(a.op);
          u8(a.base);
          PutBytes(w, a.origin);
          PutBytes(w, a.compare);
          u32(static_cast<uint32_t>(a.blocks.size()));
          for (const calls::WinBlock& b : a.blocks) {
            u64(b.disp);
            u64(b.length);
          }
        } else if constexpr (std::is_same_v<T, calls::WinSync>) {
          i32(a.win);
          u8(static_cast<uint8_t>(a.what));
          i32(a.target);
          u8(a.exclusive);
          u32(static_cast<uint32_t>(a.ranks.size()));
          for (int r : a.ranks) i32(r);
        } else if constexpr (std::is_same_v<T, calls::OpResult>) {
          args.Inside(a.result);
          PutBytes(w, a.result);
        }
      },
      decoded);
  return w.bytes();
}

}  // namespace

int FuzzRankChannel(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  mpi::wire::Header h;
  while (in.left() >= sizeof(h)) {
    const std::vector<uint8_t> head = in.Bytes(sizeof(h));
    std::memcpy(&h, head.data(), sizeof(h));
    const Status accepted = sim::calls::CheckHeader(h);
    if (!accepted.ok()) {
      NICSIM_CHECK(h.bytes > calls::kMostMessageBytes, "a header of %llu bytes refused: %s",
                   static_cast<unsigned long long>(h.bytes), accepted.message().c_str());
      return 0;  // the rank's run ends here
    }
    if (h.bytes > in.left()) return 0;  // a message cut short ends the run too
    const std::vector<uint8_t> args = in.Bytes(static_cast<size_t>(h.bytes));
    const auto call = static_cast<Call>(h.call);
    const Result<calls::Args> decoded = calls::Decode(call, args);
    if (Verbose()) {
      std::fprintf(stderr, "call %u, %zu bytes: %s\n", h.call, args.size(),
                   decoded.ok() ? "decoded" : decoded.status().message().c_str());
    }
    if (!decoded.ok()) {
      NICSIM_CHECK(!decoded.status().message().empty(), "an error without a reason");
      continue;  // the server ends the run; the decoder goes on to the next message
    }
    const std::vector<uint8_t> again = Encode(call, decoded.value(), Within{args});
    NICSIM_CHECK(again == args, "call %u: %zu bytes of arguments encode back as %zu other bytes",
                 h.call, args.size(), again.size());
  }
  return 0;
}

}  // namespace nicsim::fuzz
