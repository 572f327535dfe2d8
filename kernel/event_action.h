// SPDX-License-Identifier: Apache-2.0
// A move-only callable for the event queue that keeps captures of up to kInlineBytes in
// place: the hot events (DMA completions, link hand-overs, frames in the fabric) schedule
// and run without touching the allocator. Larger captures go to the heap, as with
// std::function.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace nicsim::kernel {

class EventAction {
 public:
  /** Capture bytes held in place (a frame in flight: this, a Frame and a few words). */
  static constexpr size_t kInlineBytes = 56;

  EventAction() = default;
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EventAction>>>
  EventAction(F&& f) {  // NOLINT(google-explicit-constructor): used like std::function
    Construct(std::forward<F>(f));
  }
  /** Replaces the callable with `f`, built in place. */
  template <typename F>
  void Emplace(F&& f) {
    if constexpr (std::is_same_v<std::decay_t<F>, EventAction>) {
      *this = std::move(f);
    } else {
      Reset();
      Construct(std::forward<F>(f));
    }
  }
  EventAction(EventAction&& other) noexcept : ops_(other.ops_) {
    if (ops_ != nullptr) ops_->relocate(storage_, other.storage_);
    other.ops_ = nullptr;
  }
  EventAction& operator=(EventAction&& other) noexcept {
    if (this != &other) {
      Reset();
      ops_ = other.ops_;
      if (ops_ != nullptr) ops_->relocate(storage_, other.storage_);
      other.ops_ = nullptr;
    }
    return *this;
  }
  EventAction(const EventAction&) = delete;
  EventAction& operator=(const EventAction&) = delete;
  ~EventAction() { Reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->invoke(storage_); }
  /**
   * Runs the callable, then destroys it (leaving this empty): one indirect call instead of
   * two, for the event queue's run-and-forget. The callable stays in place while it runs.
   */
  void RunOnce() {
    const Ops* ops = ops_;
    ops->run_once(storage_);
    ops_ = nullptr;
  }
  /** Destroys the callable (and what it captured). */
  void Reset() {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  template <typename F>
  void Construct(F&& f) {
    using Fn = std::decay_t<F>;
    if constexpr (sizeof(Fn) <= kInlineBytes && alignof(Fn) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<Fn>) {
      new (storage_) Fn(std::forward<F>(f));
      ops_ = &kInlineOps<Fn>;
    } else {
      new (storage_) Fn*(new Fn(std::forward<F>(f)));
      ops_ = &kHeapOps<Fn>;
    }
  }

  struct Ops {
    void (*invoke)(void* self);
    /** invoke, then destroy. */
    void (*run_once)(void* self);
    /** Move-constructs into `dst` and destroys the source. */
    void (*relocate)(void* dst, void* src);
    void (*destroy)(void* self);
  };
  template <typename Fn>
  static constexpr Ops kInlineOps = {[](void* self) { (*static_cast<Fn*>(self))(); },
                                     [](void* self) {
                                       Fn& fn = *static_cast<Fn*>(self);
                                       fn();
                                       fn.~Fn();
                                     },
                                     [](void* dst, void* src) {
                                       new (dst) Fn(std::move(*static_cast<Fn*>(src)));
                                       static_cast<Fn*>(src)->~Fn();
                                     },
                                     [](void* self) { static_cast<Fn*>(self)->~Fn(); }};
  template <typename Fn>
  static constexpr Ops kHeapOps = {
      [](void* self) { (**static_cast<Fn**>(self))(); },
      [](void* self) {
        Fn* fn = *static_cast<Fn**>(self);
        (*fn)();
        delete fn;
      },
      [](void* dst, void* src) { new (dst) Fn*(*static_cast<Fn**>(src)); },
      [](void* self) { delete *static_cast<Fn**>(self); }};

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace nicsim::kernel
