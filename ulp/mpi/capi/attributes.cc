// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/attributes.h"

#include "ulp/mpi/capi/error_codes.h"

namespace nicsim::mpi::capi {

Attributes& Attributes::Get() {
  static auto* attributes = new Attributes();  // never destroyed: atexit handlers may call
  return *attributes;
}

int Attributes::CreateKeyval(AttrKind kind, AttrCopyFn* copy, AttrDeleteFn* del,
                             void* extra_state) {
  const int keyval = next_keyval_++;
  keyvals_[keyval] = Keyval{kind, copy, del, extra_state, false, 0};
  return keyval;
}

bool Attributes::IsKeyval(AttrKind kind, int keyval) const {
  const auto k = keyvals_.find(keyval);
  return k != keyvals_.end() && k->second.kind == kind;
}

void Attributes::FreeKeyval(int keyval) {
  const auto k = keyvals_.find(keyval);
  if (k == keyvals_.end()) return;
  k->second.freed = true;
  if (k->second.uses == 0) keyvals_.erase(k);
}

Attributes::Attribute* Attributes::FindAttribute(const Object& o, int keyval) {
  const auto list = cached_.find(o);
  if (list == cached_.end()) return nullptr;
  for (Attribute& a : list->second) {
    if (a.keyval == keyval) return &a;
  }
  return nullptr;
}

void Attributes::Store(const Object& o, int keyval, void* value) {
  if (Attribute* a = FindAttribute(o, keyval)) {
    a->value = value;
    return;
  }
  // A callback may have deleted the last use of a freed keyval: then it is gone.
  const auto k = keyvals_.find(keyval);
  if (k == keyvals_.end()) return;
  cached_[o].push_back(Attribute{keyval, value});
  ++k->second.uses;
}

void Attributes::Erase(const Object& o, int keyval) {
  const auto list = cached_.find(o);
  if (list == cached_.end()) return;
  std::vector<Attribute>& attrs = list->second;
  for (auto a = attrs.begin(); a != attrs.end(); ++a) {
    if (a->keyval != keyval) continue;
    attrs.erase(a);
    if (attrs.empty()) cached_.erase(list);
    const auto k = keyvals_.find(keyval);
    if (k != keyvals_.end() && --k->second.uses == 0 && k->second.freed) keyvals_.erase(k);
    return;
  }
}

int Attributes::CallDelete(const Object& o, int keyval, void* value) {
  const auto k = keyvals_.find(keyval);
  if (k == keyvals_.end() || k->second.del == nullptr) return MPI_SUCCESS;
  // Copies: the callback may free the keyval or cache more attributes.
  AttrDeleteFn* del = k->second.del;
  void* extra_state = k->second.extra_state;
  const int result = del(o.second, keyval, value, extra_state);
  return result == MPI_SUCCESS ? MPI_SUCCESS : CallbackErrorCode(result);
}

int Attributes::Set(AttrKind kind, int object, int keyval, void* value) {
  const Object o{kind, object};
  if (const Attribute* old = FindAttribute(o, keyval)) {
    const int result = CallDelete(o, keyval, old->value);
    if (result != MPI_SUCCESS) return result;
  }
  Store(o, keyval, value);
  return MPI_SUCCESS;
}

bool Attributes::Find(AttrKind kind, int object, int keyval, void** value) const {
  const auto list = cached_.find(Object{kind, object});
  if (list == cached_.end()) return false;
  for (const Attribute& a : list->second) {
    if (a.keyval != keyval) continue;
    *value = a.value;
    return true;
  }
  return false;
}

int Attributes::Delete(AttrKind kind, int object, int keyval) {
  const Object o{kind, object};
  const Attribute* a = FindAttribute(o, keyval);
  if (a == nullptr) return MPI_SUCCESS;
  const int result = CallDelete(o, keyval, a->value);
  if (result != MPI_SUCCESS) return result;
  Erase(o, keyval);
  return MPI_SUCCESS;
}

int Attributes::DeleteAll(AttrKind kind, int object) {
  const Object o{kind, object};
  int first_error = MPI_SUCCESS;
  // Last set first (MPI 3.1, 8.7.1 asks it of MPI_COMM_SELF at MPI_Finalize; MPICH does it
  // on every free). A callback may delete others or add more: look again after each.
  for (;;) {
    const auto list = cached_.find(o);
    if (list == cached_.end() || list->second.empty()) break;
    const Attribute last = list->second.back();
    const int result = CallDelete(o, last.keyval, last.value);
    if (result != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = result;
    Erase(o, last.keyval);
  }
  return first_error;
}

int Attributes::CopyAll(AttrKind kind, int old, int made) {
  const Object from{kind, old};
  const Object to{kind, made};
  const auto list = cached_.find(from);
  if (list == cached_.end()) return MPI_SUCCESS;
  const std::vector<Attribute> snapshot = list->second;
  for (const Attribute& s : snapshot) {
    // An earlier callback may have deleted or replaced this one.
    const Attribute* a = FindAttribute(from, s.keyval);
    const auto k = keyvals_.find(s.keyval);
    if (a == nullptr || k == keyvals_.end() || k->second.copy == nullptr) continue;
    AttrCopyFn* copy = k->second.copy;
    void* extra_state = k->second.extra_state;
    void* value_in = a->value;
    void* value_out = nullptr;
    int flag = 0;
    const int result = copy(old, s.keyval, extra_state, value_in, &value_out, &flag);
    if (result != MPI_SUCCESS) {
      DeleteAll(kind, made);
      return CallbackErrorCode(result);
    }
    if (flag != 0) Store(to, s.keyval, value_out);
  }
  return MPI_SUCCESS;
}

}  // namespace nicsim::mpi::capi
