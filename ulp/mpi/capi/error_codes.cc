// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/error_codes.h"

#include <vector>

#include "ulp/mpi/capi/client.h"

namespace nicsim::mpi::capi {
namespace {

/** A code (or class) the program added: the class it belongs to and its text. */
struct AddedCode {
  int error_class = 0;
  std::string text;
};

struct AddedCodes {
  /** Code MPI_ERR_LASTCODE + 1 + i is entry i: codes and classes share one number line. */
  std::vector<AddedCode> codes;
  int last_used = MPI_ERR_LASTCODE;

  AddedCode* Find(int code) {
    const long i = static_cast<long>(code) - (MPI_ERR_LASTCODE + 1);
    return i >= 0 && static_cast<size_t>(i) < codes.size() ? &codes[static_cast<size_t>(i)]
                                                           : nullptr;
  }
  int Add(int error_class) {
    codes.push_back(AddedCode{error_class, ""});
    last_used = MPI_ERR_LASTCODE + static_cast<int>(codes.size());
    return last_used;
  }
};

AddedCodes& Added() {
  static AddedCodes* added = new AddedCodes();  // never destroyed: atexit handlers may call
  return *added;
}

}  // namespace

int AddErrorClass() {
  AddedCodes& a = Added();
  return a.Add(a.last_used + 1);
}

int AddErrorCode(int error_class) {
  // MPI_SUCCESS is no error class: a code of it would be an error that means success.
  if (error_class == MPI_SUCCESS || ErrorClassOf(error_class) != error_class) return -1;
  return Added().Add(error_class);
}

bool SetErrorString(int code, const std::string& text) {
  AddedCode* c = Added().Find(code);
  if (c == nullptr) return false;
  c->text = text;
  return true;
}

int ErrorClassOf(int code) {
  if (code >= MPI_SUCCESS && code <= MPI_ERR_LASTCODE) return code;
  const AddedCode* c = Added().Find(code);
  return c != nullptr ? c->error_class : -1;
}

int* LastUsedErrorCode() { return &Added().last_used; }

std::string ErrorString(int code) {
  if (code >= MPI_SUCCESS && code <= MPI_ERR_LASTCODE) return ErrorClassText(code);
  const AddedCode* c = Added().Find(code);
  return c != nullptr ? c->text : std::string();
}

std::string ErrorDescription(int code) {
  if (code >= MPI_SUCCESS && code <= MPI_ERR_LASTCODE) return ErrorClassText(code);
  const AddedCode* c = Added().Find(code);
  if (c == nullptr) return "unknown error code " + std::to_string(code);
  std::string d =
      "error code " + std::to_string(code) + " of class " + std::to_string(c->error_class);
  return c->text.empty() ? d : d + " (" + c->text + ")";
}

int CallbackErrorCode(int result) {
  return ErrorClassOf(result) > MPI_SUCCESS ? result : MPI_ERR_OTHER;
}

}  // namespace nicsim::mpi::capi
