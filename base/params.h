// SPDX-License-Identifier: Apache-2.0
// Parameters declared by the component that owns them, SST-style: beside each config struct,
// a ParamDecls lists the struct's parameters (name, type, range, description) bound to its
// members. A parameter's default is its member's default in the struct, written once; the
// parameter table, `nicsim params`, docs/scenarios.md and the readers that fill a config from
// a run's values all come from these declarations.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/status.h"
#include "base/units.h"

namespace nicsim {

/**
 * The slowest rate a parameter may hold: 1 B/s (a byte per second, so a largest frame takes
 * about 35 minutes). Slower rates give frames wire times beyond the duration limit, and a rate
 * near zero an infinite one, which the timing models turned into zero.
 */
inline constexpr double kMinRateBytesPerSec = 1.0;

/** The type of a parameter: decides how text and TOML values are parsed and checked. */
enum class ParamType {
  kInt,
  kProbability,
  kBool,
  kString,
  kEnum,
  kDuration,
  kRate,
  kSize,
  kIntList
};

/** Lower-case name of a type for help text and messages: "int", "duration", "int list". */
std::string_view ParamTypeName(ParamType type);

/** One row of the parameter table. */
struct ParamSpec {
  /** Dotted name as written in TOML and --set: "fabric.loss". */
  std::string name;
  ParamType type;
  /** Default as a user would write it: "2GB/s", "0.0", "[0, 16, 64]", "func". */
  std::string default_value;
  /** One line, with units. */
  std::string description;
  /**
   * Inclusive range for kInt and for each element of kIntList; for kDuration in picoseconds
   * (by default [0, kMaxDurationPs]) and for kSize in bytes (by default unbounded). A kRate
   * with min 0 may also be 0 (the cost it sets is off); any other kRate is at least
   * kMinRateBytesPerSec.
   */
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  /** kEnum: the allowed strings. kInt: when non-empty, the only allowed values (as decimal). */
  std::vector<std::string> choices;
  /** kString: checks a value's syntax (nullptr: any text); the message gets the name. */
  Status (*check)(std::string_view value) = nullptr;
};

/** Typed parameter values by name, already checked against their specs: what readers read. */
class ParamSource {
 public:
  virtual ~ParamSource() = default;
  virtual int64_t Int(std::string_view name) const = 0;
  virtual double Probability(std::string_view name) const = 0;
  virtual bool Bool(std::string_view name) const = 0;
  virtual const std::string& String(std::string_view name) const = 0;
  virtual int64_t DurationPs(std::string_view name) const = 0;
  virtual double RateBytesPerSec(std::string_view name) const = 0;
  virtual uint64_t SizeBytes(std::string_view name) const = 0;
  virtual const std::vector<int64_t>& IntList(std::string_view name) const = 0;
};

/** A probability as a default is written: "0.0", "0.25". */
std::string FormatProbability(double p);
/** An int list as a default is written: "[0, 16, 64]". */
std::string FormatIntList(const std::vector<int64_t>& values);

/**
 * The parameters of one config struct, each bound to a member. Declare them once, in a
 * function beside the struct, as a chain:
 *
 *   static const auto* decls = &(new ParamDecls<FooConfig>())
 *       ->Int("foo.count", &FooConfig::count, 1, 64, "Foos per bar")
 *        .Duration("foo.latency", &FooConfig::latency_ps, "Time a foo takes");
 *
 * Specs() gives the table rows (defaults formatted from a default-constructed struct);
 * Read() fills a struct from a run's values. Members in a unit of their own (a rate kept as
 * picoseconds per byte) are converted by the declaration, not by each caller.
 */
template <class Config>
class ParamDecls {
 public:
  /** Fills one member from the values; an error names the parameter. */
  using Reader = std::function<Status(const ParamSource&, Config&)>;
  /** The text of a member's value as a user writes it (its default, from Config{}). */
  using Formatter = std::function<std::string(const Config&)>;

  /** An integer member of any integral type, checked against [min, max]. */
  template <class M>
  ParamDecls& Int(std::string name, M Config::*member, int64_t min, int64_t max, std::string doc) {
    static_assert(std::is_integral_v<M>);
    ParamSpec spec = Spec(std::move(name), ParamType::kInt, std::move(doc));
    spec.min = min;
    spec.max = max;
    return Add(
        std::move(spec), [member](const Config& c) { return std::to_string(c.*member); },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          c.*member = static_cast<M>(p.Int(n));
          return Status();
        });
  }

  /** A duration member, in picoseconds; its range is [0, kMaxDurationPs] unless Range()d. */
  template <class M>
  ParamDecls& Duration(std::string name, M Config::*member, std::string doc) {
    ParamSpec spec = Spec(std::move(name), ParamType::kDuration, std::move(doc));
    spec.min = 0;
    spec.max = kMaxDurationPs;
    return Add(
        std::move(spec),
        [member](const Config& c) { return FormatDuration(static_cast<int64_t>(c.*member)); },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          c.*member = static_cast<M>(p.DurationPs(n));
          return Status();
        });
  }

  /** A rate, kept in the struct as picoseconds per byte (the models' unit). */
  ParamDecls& RatePsPerByte(std::string name, double Config::*member, std::string doc) {
    ParamSpec spec = Spec(std::move(name), ParamType::kRate, std::move(doc));
    return Add(
        std::move(spec), [member](const Config& c) { return FormatRate(1e12 / (c.*member)); },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          c.*member = 1e12 / p.RateBytesPerSec(n);
          return Status();
        });
  }

  /**
   * A rate kept as picoseconds per byte that may also be 0 ("0B/s"), which turns the cost it
   * sets off: the member is then 0 too.
   */
  ParamDecls& RatePsPerByteOrOff(std::string name, double Config::*member, std::string doc) {
    ParamSpec spec = Spec(std::move(name), ParamType::kRate, std::move(doc));
    spec.min = 0;
    return Add(
        std::move(spec),
        [member](const Config& c) { return FormatRate(c.*member > 0 ? 1e12 / (c.*member) : 0.0); },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          const double bytes_per_sec = p.RateBytesPerSec(n);
          c.*member = bytes_per_sec > 0 ? 1e12 / bytes_per_sec : 0.0;
          return Status();
        });
  }

  /** A size member, in bytes, at least 0 (Range() narrows it). */
  template <class M>
  ParamDecls& Size(std::string name, M Config::*member, std::string doc) {
    static_assert(std::is_integral_v<M>);
    ParamSpec spec = Spec(std::move(name), ParamType::kSize, std::move(doc));
    spec.min = 0;
    return Add(
        std::move(spec),
        [member](const Config& c) { return FormatSize(static_cast<uint64_t>(c.*member)); },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          c.*member = static_cast<M>(p.SizeBytes(n));
          return Status();
        });
  }

  ParamDecls& Probability(std::string name, double Config::*member, std::string doc) {
    ParamSpec spec = Spec(std::move(name), ParamType::kProbability, std::move(doc));
    return Add(
        std::move(spec), [member](const Config& c) { return FormatProbability(c.*member); },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          c.*member = p.Probability(n);
          return Status();
        });
  }

  ParamDecls& Bool(std::string name, bool Config::*member, std::string doc) {
    ParamSpec spec = Spec(std::move(name), ParamType::kBool, std::move(doc));
    return Add(
        std::move(spec),
        [member](const Config& c) { return std::string(c.*member ? "true" : "false"); },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          c.*member = p.Bool(n);
          return Status();
        });
  }

  /** Free text; `check` (if any) vets its syntax when it is set. */
  ParamDecls& String(std::string name, std::string Config::*member, std::string doc,
                     Status (*check)(std::string_view) = nullptr) {
    ParamSpec spec = Spec(std::move(name), ParamType::kString, std::move(doc));
    spec.check = check;
    return Add(
        std::move(spec), [member](const Config& c) { return c.*member; },
        [member, n = last_name_](const ParamSource& p, Config& c) {
          c.*member = p.String(n);
          return Status();
        });
  }

  /** An enum member chosen by name: `names` pairs each value with its name, in help order. */
  template <class E>
  ParamDecls& Enum(std::string name, E Config::*member,
                   std::vector<std::pair<E, std::string>> names, std::string doc) {
    ParamSpec spec = Spec(std::move(name), ParamType::kEnum, std::move(doc));
    for (const auto& entry : names) spec.choices.push_back(entry.second);
    return Add(
        std::move(spec),
        [member, names](const Config& c) {
          for (const auto& [value, text] : names) {
            if (value == c.*member) return text;
          }
          NICSIM_CHECK(false, "an enum default has no name");
          return std::string();
        },
        [member, names, n = last_name_](const ParamSource& p, Config& c) {
          const std::string& text = p.String(n);
          for (const auto& [value, choice] : names) {
            if (choice == text) {
              c.*member = value;
              return Status();
            }
          }
          return Status::Error(n + ": '" + text + "' has no meaning here");
        });
  }

  /**
   * A list of integers, each in [min, max]: a std::vector (any length but empty) or a
   * std::array, whose length is fixed: a list of another length is an error saying the list
   * needs one entry per `entry` ("receive state").
   */
  template <class Seq>
  ParamDecls& IntList(std::string name, Seq Config::*member, int64_t min, int64_t max,
                      std::string doc, std::string entry = "") {
    ParamSpec spec = Spec(std::move(name), ParamType::kIntList, std::move(doc));
    spec.min = min;
    spec.max = max;
    return Add(
        std::move(spec),
        [member](const Config& c) {
          const Seq& seq = c.*member;
          return FormatIntList(std::vector<int64_t>(seq.begin(), seq.end()));
        },
        [member, n = last_name_, entry](const ParamSource& p, Config& c) {
          const std::vector<int64_t>& list = p.IntList(n);
          Seq& out = c.*member;
          if constexpr (IsArray<Seq>::value) {
            if (list.size() != out.size()) {
              return Status::Error(n + ": needs " + std::to_string(out.size()) +
                                   " entries (one per " + entry + "), got " +
                                   std::to_string(list.size()));
            }
            for (size_t i = 0; i < list.size(); ++i) {
              out[i] = static_cast<typename Seq::value_type>(list[i]);
            }
          } else {
            out.assign(list.begin(), list.end());
          }
          return Status();
        });
  }

  /**
   * A parameter whose members take a conversion of their own: `default_text` writes the
   * struct's default, `read` converts a value. Range(), Choices() and Check() refine it.
   */
  ParamDecls& Custom(std::string name, ParamType type, std::string doc, Formatter default_text,
                     Reader read) {
    ParamSpec spec = Spec(std::move(name), type, std::move(doc));
    if (type == ParamType::kDuration) spec.max = kMaxDurationPs;
    if (type == ParamType::kDuration || type == ParamType::kSize) spec.min = 0;
    return Add(std::move(spec), std::move(default_text), std::move(read));
  }

  /** The syntax check of the last (string) declaration, run when a value is set. */
  ParamDecls& Check(Status (*check)(std::string_view value)) {
    decls_.back().spec.check = check;
    return *this;
  }

  /** Every parameter of a member struct, declared by its own component, read into `member`. */
  template <class Sub>
  ParamDecls& Include(Sub Config::*member, const ParamDecls<Sub>& sub) {
    for (const typename ParamDecls<Sub>::Decl& d : sub.decls_) {
      decls_.push_back(
          Decl{d.spec, [member, f = d.default_text](const Config& c) { return f(c.*member); },
               d.run_default,
               [member, r = d.read](const ParamSource& p, Config& c) { return r(p, c.*member); }});
    }
    return *this;
  }

  /** Narrows the range of the last declaration (a duration's, a size's). */
  ParamDecls& Range(int64_t min, int64_t max) {
    decls_.back().spec.min = min;
    decls_.back().spec.max = max;
    return *this;
  }

  /**
   * The only values the last declaration allows: an enum's names, or an integer's values (its
   * range stays for help text).
   */
  ParamDecls& Choices(std::vector<std::string> choices) {
    decls_.back().spec.choices = std::move(choices);
    return *this;
  }

  /**
   * The default of a run (`nicsim run`, a scenario file) where it differs from the struct's,
   * which is the default of code that builds the config itself (a test, a library user).
   */
  ParamDecls& RunDefault(std::string text) {
    decls_.back().run_default = std::move(text);
    return *this;
  }

  /** The table rows, defaults from a default-constructed Config (or the run default). */
  std::vector<ParamSpec> Specs() const {
    const Config defaults{};
    std::vector<ParamSpec> specs;
    specs.reserve(decls_.size());
    for (const Decl& d : decls_) {
      specs.push_back(d.spec);
      specs.back().default_value = d.run_default ? *d.run_default : d.default_text(defaults);
    }
    return specs;
  }

  /**
   * Fills every declared member of `config` from `source` (those `wanted` accepts, if given);
   * the first error stops it.
   */
  Status Read(const ParamSource& source, Config* config,
              const std::function<bool(std::string_view name)>& wanted = nullptr) const {
    for (const Decl& d : decls_) {
      if (wanted && !wanted(d.spec.name)) continue;
      if (Status s = d.read(source, *config); !s.ok()) return s;
    }
    return Status();
  }

 private:
  template <class Other>
  friend class ParamDecls;

  template <class T>
  struct IsArray : std::false_type {};
  template <class T, size_t N>
  struct IsArray<std::array<T, N>> : std::true_type {};

  struct Decl {
    ParamSpec spec;
    Formatter default_text;
    std::optional<std::string> run_default;
    Reader read;
  };

  ParamSpec Spec(std::string name, ParamType type, std::string doc) {
    last_name_ = name;
    ParamSpec spec;
    spec.name = std::move(name);
    spec.type = type;
    spec.description = std::move(doc);
    return spec;
  }

  ParamDecls& Add(ParamSpec spec, Formatter default_text, Reader read) {
    decls_.push_back(Decl{std::move(spec), std::move(default_text), std::nullopt, std::move(read)});
    return *this;
  }

  std::vector<Decl> decls_;
  /** The name of the declaration being made, for readers built before its spec moves. */
  std::string last_name_;
};

}  // namespace nicsim
