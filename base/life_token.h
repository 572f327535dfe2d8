// SPDX-License-Identifier: Apache-2.0
// A non-atomic weak reference for single-threaded simulation code: events
// scheduled for an object check, when they run, that it still exists, without
// std::weak_ptr's atomic counts.
#pragma once

#include <cstdint>

namespace nicsim {

/**
 * Owned by the object whose lifetime it tracks. Watches taken from it report
 * alive() until the token is destroyed; the shared cell lives until the last of
 * them is gone. Not thread safe: the token and its watches must be used by one
 * thread at a time (the simulation's).
 */
class LifeToken {
  struct Cell {
    bool alive = true;
    uint32_t refs = 1;
  };

 public:
  /** A copyable observer of one token. */
  class Watch {
   public:
    Watch(const Watch& other) : cell_(other.cell_) { ++cell_->refs; }
    Watch(Watch&& other) noexcept : cell_(other.cell_) { other.cell_ = nullptr; }
    Watch& operator=(const Watch&) = delete;
    Watch& operator=(Watch&&) = delete;
    ~Watch() { Drop(cell_); }
    /** True while the token this watch was taken from exists. */
    bool alive() const { return cell_->alive; }

   private:
    friend class LifeToken;
    explicit Watch(Cell* cell) : cell_(cell) { ++cell_->refs; }
    Cell* cell_;
  };

  LifeToken() : cell_(new Cell) {}
  LifeToken(const LifeToken&) = delete;
  LifeToken& operator=(const LifeToken&) = delete;
  ~LifeToken() {
    cell_->alive = false;
    Drop(cell_);
  }
  /** A watch that reports whether this token still exists. */
  Watch watch() const { return Watch(cell_); }

 private:
  static void Drop(Cell* cell) {
    if (cell != nullptr && --cell->refs == 0) delete cell;
  }
  Cell* cell_;
};

}  // namespace nicsim
