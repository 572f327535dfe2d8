// SPDX-License-Identifier: Apache-2.0
#include "ulp/transport/registration_cache.h"

#include <algorithm>

namespace nicsim::ulp {

RegistrationCache::~RegistrationCache() {
  for (auto& [key, seg] : segments_) {
    for (Fragment& f : seg.fragments) {
      for (auto& run : f) static_cast<void>(host_.Deregister(run->reg));
    }
  }
}

size_t RegistrationCache::registered_fragments() const {
  size_t n = 0;
  for (const auto& [key, seg] : segments_) n += seg.registered.count();
  return n;
}

bool RegistrationCache::IsRegistered(uint64_t vaddr) const {
  auto it = segments_.find(vaddr >> kSegmentShift);
  if (it == segments_.end()) return false;
  return it->second.registered.test((vaddr >> kFragmentShift) & (kFragmentsPerSegment - 1));
}

Result<std::unique_ptr<RegistrationCache::Run>> RegistrationCache::RegisterRun(uint64_t vaddr,
                                                                               uint64_t len) {
  const host::PageTable& pages = host_.pages();
  const std::optional<host::PageMapping> first = pages.Lookup(vaddr);
  if (!first) return Status::Error("registration: address not mapped");
  const uint32_t shift = first->page_shift;
  const uint64_t page = uint64_t{1} << shift;
  const uint64_t frag_begin = vaddr >> kFragmentShift << kFragmentShift;
  const uint64_t frag_end = frag_begin + (uint64_t{1} << kFragmentShift);
  // Grow the run page by page while the pages are mapped, of the same size, in the fragment.
  uint64_t begin = std::max(frag_begin, vaddr & ~(page - 1));
  while (begin > frag_begin) {
    const std::optional<host::PageMapping> m = pages.Lookup(begin - 1);
    if (!m || m->page_shift != shift) break;
    begin -= page;
  }
  uint64_t end = std::min(frag_end, (vaddr & ~(page - 1)) + page);
  while (end < frag_end) {
    const std::optional<host::PageMapping> m = pages.Lookup(end);
    if (!m || m->page_shift != shift) break;
    end += page;
  }
  if (vaddr + len > end) return Status::Error("registration: buffer not mapped throughout");
  auto f = std::make_unique<Run>();
  f->begin = begin;
  f->end = end;
  f->page_shift = shift;
  for (uint64_t v = begin; v < end; v += page) f->real_pages.push_back(pages.Lookup(v)->real_addr);
  Result<driver::Registration> reg = host_.Register(begin, end - begin);
  if (!reg.ok()) return reg.status();
  f->reg = *reg;
  return f;
}

bool RegistrationCache::StillMapped(const Run& f) {
  const uint64_t page = uint64_t{1} << f.page_shift;
  size_t i = 0;
  for (uint64_t v = f.begin; v < f.end; v += page, ++i) {
    const std::optional<host::PageMapping> m = host_.pages().Lookup(v);
    if (!m || m->page_shift != f.page_shift || m->real_addr != f.real_pages[i]) return false;
  }
  return true;
}

void RegistrationCache::Drop(Segment& seg, uint32_t index, size_t i) {
  Fragment& f = seg.fragments[index];
  static_cast<void>(host_.Deregister(f[i]->reg));
  f.erase(f.begin() + static_cast<std::ptrdiff_t>(i));
  if (f.empty()) seg.registered.reset(index);
}

void RegistrationCache::ArmTick() {
  if (tick_pending_) return;
  tick_pending_ = true;
  const uint64_t now = host_.NowPs();
  host_.Background((now / kTickPs + 1) * kTickPs - now, [this, alive = life_.watch()] {
    if (alive.alive()) Tick();
  });
}

void RegistrationCache::Tick() {
  tick_pending_ = false;
  ++stats_.ticks;
  bool idle_left = false;
  for (auto& [key, seg] : segments_) {
    for (uint32_t i = 0; i < kFragmentsPerSegment; ++i) {
      Fragment& f = seg.fragments[i];
      for (size_t r = f.size(); r-- > 0;) {
        Run& run = *f[r];
        if (run.uses > 0) continue;
        if (++run.idle_s >= idle_limit_s_) {
          Drop(seg, i, r);
          ++stats_.evictions;
        } else {
          idle_left = true;
        }
      }
    }
  }
  if (idle_left) ArmTick();
}

template <typename Fn>
void RegistrationCache::ForEachPiece(uint64_t vaddr, uint64_t len, Fn fn) {
  const uint64_t end = vaddr + std::max<uint64_t>(len, 1);
  for (uint64_t at = vaddr; at < end;) {
    const uint64_t piece_end = std::min(end, ((at >> kFragmentShift) + 1) << kFragmentShift);
    auto it = segments_.find(at >> kSegmentShift);
    if (it != segments_.end()) {
      fn(it->second, static_cast<uint32_t>((at >> kFragmentShift) & (kFragmentsPerSegment - 1)), at,
         piece_end);
    }
    at = piece_end;
  }
}

void RegistrationCache::Forget(uint64_t vaddr, uint64_t len) {
  ForEachPiece(vaddr, len, [this](Segment& seg, uint32_t index, uint64_t at, uint64_t end) {
    Fragment& frag = seg.fragments[index];
    for (size_t r = frag.size(); r-- > 0;) {
      if (frag[r]->uses == 0 && frag[r]->begin < end && frag[r]->end > at) {
        Drop(seg, index, r);
        ++stats_.forgotten;
      }
    }
  });
}

Result<std::vector<RegistrationCache::Span>> RegistrationCache::Acquire(uint64_t vaddr,
                                                                        uint64_t len) {
  std::vector<Span> spans;
  const uint64_t end = vaddr + std::max<uint64_t>(len, 1);
  for (uint64_t at = vaddr; at < end;) {
    const uint64_t frag_end = ((at >> kFragmentShift) + 1) << kFragmentShift;
    const uint64_t piece_end = std::min(end, frag_end);
    Segment& seg = segments_[at >> kSegmentShift];
    const auto index = static_cast<uint32_t>((at >> kFragmentShift) & (kFragmentsPerSegment - 1));
    Fragment& frag = seg.fragments[index];
    Run* f = nullptr;
    for (auto& run : frag) {
      if (at >= run->begin && piece_end <= run->end) f = run.get();
    }
    if (f != nullptr && StillMapped(*f)) {
      ++stats_.hits;
    } else {
      const bool covered = f != nullptr;
      // Runs overlapping this piece are stale (the memory changed) or too small: replace them.
      for (size_t r = frag.size(); r-- > 0;) {
        if (frag[r]->end <= at || frag[r]->begin >= piece_end) continue;
        if (frag[r]->uses > 0) {
          if (at > vaddr) Release(vaddr, at - vaddr);
          return Status::Error("registration: the memory changed under a transfer in progress");
        }
        Drop(seg, index, r);
      }
      if (covered) ++stats_.remaps;
      ++stats_.misses;
      Result<std::unique_ptr<Run>> fresh = RegisterRun(at, piece_end - at);
      if (!fresh.ok()) {
        if (at > vaddr) Release(vaddr, at - vaddr);
        return fresh.status();
      }
      f = fresh->get();
      frag.push_back(std::move(*fresh));
      seg.registered.set(index);
    }
    ++f->uses;
    f->idle_s = 0;
    spans.push_back(Span{at, piece_end - at, f->reg.pvo + (at - f->begin)});
    at = piece_end;
  }
  if (len == 0) spans.back().len = 0;
  return spans;
}

void RegistrationCache::Release(uint64_t vaddr, uint64_t len) {
  bool idle = false;
  ForEachPiece(vaddr, len, [&idle](Segment& seg, uint32_t index, uint64_t at, uint64_t end) {
    for (auto& run : seg.fragments[index]) {
      if (at >= run->begin && end <= run->end && run->uses > 0) {
        idle |= --run->uses == 0;
        break;
      }
    }
  });
  if (idle) ArmTick();
}

}  // namespace nicsim::ulp
