// SPDX-License-Identifier: Apache-2.0
// The error classes and codes a program adds above MPI's (MPI_Add_error_class / _code /
// _string), and the class and text of any code, predefined or added.
#pragma once

#include <string>

namespace nicsim::mpi::capi {

/** A new error class, one above the last used code (which it becomes). */
int AddErrorClass();
/** A new error code of class `error_class`, or -1 when that is no class. */
int AddErrorCode(int error_class);
/** Gives an added code or class its text; false for a predefined or unknown one. */
bool SetErrorString(int code, const std::string& text);

/** The class of `code`, or -1 when it is no code (predefined or added). */
int ErrorClassOf(int code);
/** The largest code in use; MPI_LASTUSEDCODE's attribute value points here, so a program
 *  holding that pointer sees codes added later. */
int* LastUsedErrorCode();
/** What MPI_Error_string gives for `code` (an added code without a text gives ""). */
std::string ErrorString(int code);
/** `code` for messages: the class's text, or the code and class of an added one. */
std::string ErrorDescription(int code);
/** An attribute callback's result as an error code: itself when it is one, else MPI_ERR_OTHER
 *  (a callback may return any int, and the caller must get a code MPI_Error_class knows). */
int CallbackErrorCode(int result);

}  // namespace nicsim::mpi::capi
