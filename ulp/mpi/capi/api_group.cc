// SPDX-License-Identifier: Apache-2.0
// MPI's group calls. A group is a list of world ranks held in the program's process: every
// group operation is local, and only a communicator made from a group involves the simulator.
#include <algorithm>
#include <string>
#include <vector>

#include "ulp/mpi/capi/checks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

/** The group of handle `g`, or the error MPI_ERR_GROUP. */
int CheckGroup(MPI_Group g, const char* call, const GroupInfo** info) {
  *info = C().Group(g);
  if (*info == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_GROUP, call, "invalid group");
  return MPI_SUCCESS;
}

/**
 * The ranks of `g` that `ranks` (n of them) name, each in range and none twice, or the error
 * MPI_ERR_RANK; `picked[r]` is set for each.
 */
int Pick(const GroupInfo& g, int n, const int ranks[], const char* call,
         std::vector<bool>* picked) {
  if (n < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "negative count");
  picked->assign(g.members.size(), false);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= static_cast<int>(g.members.size()) || (*picked)[static_cast<size_t>(r)]) {
      return C().Error(MPI_COMM_WORLD, MPI_ERR_RANK, call,
                       "rank " + std::to_string(r) + " of a group of " +
                           std::to_string(g.members.size()) + " (or named twice)");
    }
    (*picked)[static_cast<size_t>(r)] = true;
  }
  return MPI_SUCCESS;
}

/** The ranks that n (first, last, stride) triplets name, in order, each checked as Pick does. */
int Expand(const GroupInfo& g, int n, int ranges[][3], const char* call, std::vector<int>* ranks) {
  if (n < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "negative count");
  const int size = static_cast<int>(g.members.size());
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0 || first < 0 || first >= size || last < 0 || last >= size ||
        (stride > 0 && first > last) || (stride < 0 && first < last)) {
      return C().Error(MPI_COMM_WORLD, stride == 0 ? MPI_ERR_ARG : MPI_ERR_RANK, call,
                       "range (" + std::to_string(first) + ", " + std::to_string(last) + ", " +
                           std::to_string(stride) + ") in a group of " + std::to_string(size));
    }
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) ranks->push_back(r);
  }
  return MPI_SUCCESS;
}

int Include(const GroupInfo& g, const std::vector<bool>& picked, const std::vector<int>& order,
            bool keep, MPI_Group* newgroup) {
  std::vector<int> members;
  if (keep) {
    for (int r : order) members.push_back(g.members[static_cast<size_t>(r)]);
  } else {
    for (size_t r = 0; r < g.members.size(); ++r) {
      if (!picked[r]) members.push_back(g.members[r]);
    }
  }
  *newgroup = C().AddGroup(std::move(members));
  return MPI_SUCCESS;
}

/** The ranks of `group` that `ranks` names, in that order (`keep`), or all the others. */
int Select(MPI_Group group, int n, const int ranks[], bool keep, MPI_Group* newgroup,
           const char* call) {
  const GroupInfo* g = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group, call, &g));
  std::vector<bool> picked;
  NICSIM_MPI_TRY(Pick(*g, n, ranks, call, &picked));
  return Include(*g, picked, keep ? std::vector<int>(ranks, ranks + n) : std::vector<int>{}, keep,
                 newgroup);
}

/** Select, with the ranks given as (first, last, stride) triplets. */
int SelectRanges(MPI_Group group, int n, int ranges[][3], bool keep, MPI_Group* newgroup,
                 const char* call) {
  const GroupInfo* g = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group, call, &g));
  std::vector<int> ranks;
  NICSIM_MPI_TRY(Expand(*g, n, ranges, call, &ranks));
  return Select(group, static_cast<int>(ranks.size()), ranks.data(), keep, newgroup, call);
}

/** The members of group1 (in its order) that are in group2 (`in`), or that are not. */
int Filter(MPI_Group group1, MPI_Group group2, bool in, MPI_Group* newgroup, const char* call) {
  const GroupInfo *a = nullptr, *b = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group1, call, &a));
  NICSIM_MPI_TRY(CheckGroup(group2, call, &b));
  std::vector<int> members;
  for (int w : a->members) {
    if (Contains(b->members, w) == in) members.push_back(w);
  }
  *newgroup = C().AddGroup(std::move(members));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Comm_group"));
  *group = C().AddGroup(C().Comm(comm)->members);
  return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int* size) {
  const GroupInfo* g = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group, "MPI_Group_size", &g));
  *size = static_cast<int>(g->members.size());
  return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  const GroupInfo* g = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group, "MPI_Group_rank", &g));
  *rank = RankIn(g->members, C().world_rank);
  return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]) {
  const char* call = "MPI_Group_translate_ranks";
  const GroupInfo *a = nullptr, *b = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group1, call, &a));
  NICSIM_MPI_TRY(CheckGroup(group2, call, &b));
  if (n < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "negative count");
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    if (r == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (r < 0 || r >= static_cast<int>(a->members.size())) {
      return C().Error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "rank " + std::to_string(r));
    }
    ranks2[i] = RankIn(b->members, a->members[static_cast<size_t>(r)]);
  }
  return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const GroupInfo *a = nullptr, *b = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group1, "MPI_Group_compare", &a));
  NICSIM_MPI_TRY(CheckGroup(group2, "MPI_Group_compare", &b));
  if (a->members == b->members) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  std::vector<int> sa = a->members, sb = b->members;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  *result = sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const GroupInfo *a = nullptr, *b = nullptr;
  NICSIM_MPI_TRY(CheckGroup(group1, "MPI_Group_union", &a));
  NICSIM_MPI_TRY(CheckGroup(group2, "MPI_Group_union", &b));
  std::vector<int> members = a->members;
  for (int w : b->members) {
    if (!Contains(a->members, w)) members.push_back(w);
  }
  *newgroup = C().AddGroup(std::move(members));
  return MPI_SUCCESS;
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Filter(group1, group2, true, newgroup, "MPI_Group_intersection");
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Filter(group1, group2, false, newgroup, "MPI_Group_difference");
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return Select(group, n, ranks, true, newgroup, "MPI_Group_incl");
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return Select(group, n, ranks, false, newgroup, "MPI_Group_excl");
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return SelectRanges(group, n, ranges, true, newgroup, "MPI_Group_range_incl");
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return SelectRanges(group, n, ranges, false, newgroup, "MPI_Group_range_excl");
}

int MPI_Group_free(MPI_Group* group) {
  const GroupInfo* g = nullptr;
  NICSIM_MPI_TRY(CheckGroup(*group, "MPI_Group_free", &g));
  C().FreeGroup(*group);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"
