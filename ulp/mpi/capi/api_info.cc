// SPDX-License-Identifier: Apache-2.0
// MPI's info calls, and the info of communicators (MPI_Comm_set_info / MPI_Comm_get_info).
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/info.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

struct InfoTable {
  /** Handle h is entry h; empty for MPI_INFO_NULL and freed handles. */
  std::vector<std::optional<InfoEntries>> infos{std::nullopt, InfoEntries{}};
  std::vector<MPI_Info> free_handles;
  bool env_filled = false;
};

InfoTable& Table() {
  static auto* table = new InfoTable();  // never destroyed: atexit handlers may call
  return *table;
}

/**
 * MPI_INFO_ENV's keys that describe this process (MPI 3.1, 10.3.4): the command and its
 * arguments as the kernel has them, and how many processes `nicsim mpirun` started. Filled
 * once the world is known (MPI_Init).
 */
InfoEntries EnvEntries() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string cmdline{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::string> words;
  for (size_t start = 0; start < cmdline.size();) {
    const size_t end = std::min(cmdline.find('\0', start), cmdline.size());
    words.push_back(cmdline.substr(start, end - start));
    start = end + 1;
  }
  InfoEntries env;
  if (!words.empty()) env.emplace_back("command", words[0]);
  std::string args;
  for (size_t i = 1; i < words.size(); ++i) args += (i > 1 ? " " : "") + words[i];
  if (!args.empty()) env.emplace_back("argv", args);
  env.emplace_back("maxprocs", std::to_string(C().world_size));
  return env;
}

InfoEntries* Entries(MPI_Info info) {
  InfoTable& t = Table();
  if (info <= MPI_INFO_NULL || static_cast<size_t>(info) >= t.infos.size()) return nullptr;
  if (info == MPI_INFO_ENV && !t.env_filled && C().initialized) {
    t.infos[MPI_INFO_ENV] = EnvEntries();
    t.env_filled = true;
  }
  std::optional<InfoEntries>& e = t.infos[static_cast<size_t>(info)];
  return e.has_value() ? &*e : nullptr;
}

int CheckInfo(MPI_Info info, const char* call, InfoEntries** entries) {
  *entries = Entries(info);
  if (*entries != nullptr) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_INFO, call,
                   "invalid info handle " + std::to_string(info));
}

/** A key MPI accepts: not empty, at most MPI_MAX_INFO_KEY - 1 characters. */
int CheckKey(const char* key, const char* call) {
  const size_t len = key != nullptr ? strnlen(key, MPI_MAX_INFO_KEY) : 0;
  if (len > 0 && len < MPI_MAX_INFO_KEY) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, call,
                   key == nullptr ? "null key"
                   : len == 0     ? "empty key"
                                  : "key too long");
}

InfoEntries::iterator FindKey(InfoEntries& entries, const char* key) {
  return std::find_if(entries.begin(), entries.end(),
                      [key](const auto& e) { return e.first == key; });
}

int CheckOut(const void* out, const char* call) {
  if (out != nullptr) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "null output argument");
}

}  // namespace

namespace nicsim::mpi::capi {

const InfoEntries* FindInfo(MPI_Info info) { return Entries(info); }

MPI_Info AddInfo(InfoEntries entries) {
  InfoTable& t = Table();
  if (!t.free_handles.empty()) {
    const MPI_Info h = t.free_handles.back();
    t.free_handles.pop_back();
    t.infos[static_cast<size_t>(h)] = std::move(entries);
    return h;
  }
  t.infos.emplace_back(std::move(entries));
  return static_cast<MPI_Info>(t.infos.size() - 1);
}

}  // namespace nicsim::mpi::capi

extern "C" {

int MPI_Info_create(MPI_Info* info) {
  NICSIM_MPI_TRY(CheckOut(info, "MPI_Info_create"));
  *info = AddInfo({});
  return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(info, "MPI_Info_set", &entries));
  NICSIM_MPI_TRY(CheckKey(key, "MPI_Info_set"));
  if (value == nullptr || strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, "MPI_Info_set",
                     value == nullptr ? "null value" : "value too long");
  }
  // A key set again keeps its place (MPI_Info_get_nthkey's order is that of first setting).
  const auto e = FindKey(*entries, key);
  if (e != entries->end()) {
    e->second = value;
  } else {
    entries->emplace_back(key, value);
  }
  return MPI_SUCCESS;
}

int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(info, "MPI_Info_get", &entries));
  NICSIM_MPI_TRY(CheckKey(key, "MPI_Info_get"));
  NICSIM_MPI_TRY(CheckOut(flag, "MPI_Info_get"));
  if (valuelen < 0) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_get", "negative valuelen");
  }
  const auto e = FindKey(*entries, key);
  *flag = e != entries->end() ? 1 : 0;
  if (*flag == 0) return MPI_SUCCESS;
  NICSIM_MPI_TRY(CheckOut(value, "MPI_Info_get"));
  // `value` holds valuelen characters and the terminating null (MPI 3.1, 9: a longer value
  // is cut).
  const size_t n = std::min(e->second.size(), static_cast<size_t>(valuelen));
  std::memcpy(value, e->second.data(), n);
  value[n] = '\0';
  return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(info, "MPI_Info_get_valuelen", &entries));
  NICSIM_MPI_TRY(CheckKey(key, "MPI_Info_get_valuelen"));
  NICSIM_MPI_TRY(CheckOut(flag, "MPI_Info_get_valuelen"));
  NICSIM_MPI_TRY(CheckOut(valuelen, "MPI_Info_get_valuelen"));
  const auto e = FindKey(*entries, key);
  *flag = e != entries->end() ? 1 : 0;
  if (*flag != 0) *valuelen = static_cast<int>(e->second.size());
  return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(info, "MPI_Info_get_nkeys", &entries));
  NICSIM_MPI_TRY(CheckOut(nkeys, "MPI_Info_get_nkeys"));
  *nkeys = static_cast<int>(entries->size());
  return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(info, "MPI_Info_get_nthkey", &entries));
  NICSIM_MPI_TRY(CheckOut(key, "MPI_Info_get_nthkey"));
  if (n < 0 || static_cast<size_t>(n) >= entries->size()) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_get_nthkey",
                     "key " + std::to_string(n) + " of " + std::to_string(entries->size()));
  }
  // Keys are shorter than MPI_MAX_INFO_KEY (MPI_Info_set checked): the buffer holds one.
  const std::string& k = (*entries)[static_cast<size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(info, "MPI_Info_delete", &entries));
  NICSIM_MPI_TRY(CheckKey(key, "MPI_Info_delete"));
  const auto e = FindKey(*entries, key);
  if (e == entries->end()) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, "MPI_Info_delete",
                     std::string("no key ") + key);
  }
  entries->erase(e);
  return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(info, "MPI_Info_dup", &entries));
  NICSIM_MPI_TRY(CheckOut(newinfo, "MPI_Info_dup"));
  // A copy (AddInfo may move the table that `entries` points into).
  InfoEntries copy = *entries;
  *newinfo = AddInfo(std::move(copy));
  return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info* info) {
  NICSIM_MPI_TRY(CheckOut(info, "MPI_Info_free"));
  InfoEntries* entries = nullptr;
  NICSIM_MPI_TRY(CheckInfo(*info, "MPI_Info_free", &entries));
  if (*info == MPI_INFO_ENV) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_INFO, "MPI_Info_free", "MPI_INFO_ENV is predefined");
  }
  Table().infos[static_cast<size_t>(*info)].reset();
  Table().free_handles.push_back(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Comm_set_info"));
  // No hint changes what a communicator does here, so none is kept; MPI_INFO_NULL sets none.
  if (info != MPI_INFO_NULL && Entries(info) == nullptr) {
    return C().Error(comm, MPI_ERR_INFO, "MPI_Comm_set_info",
                     "invalid info handle " + std::to_string(info));
  }
  return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Comm_get_info"));
  if (info_used == nullptr) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Comm_get_info", "null info_used");
  }
  // The hints in use: none (MPI 3.1, 6.4.4 then asks for a new, empty info).
  *info_used = AddInfo({});
  return MPI_SUCCESS;
}

}  // extern "C"
