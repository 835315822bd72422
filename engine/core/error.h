#pragma once
// Typed errors. Every check in the engine goes through LUCID_CHECK, which throws lucid::Error
// carrying an ErrorKind; the bindings map each kind onto a Python class in lucid.errors.
#include <sstream>
#include <stdexcept>
#include <string>

namespace lucid {

enum class ErrorKind {
  Generic,         // lucid.LucidError (a RuntimeError)
  ShapeMismatch,
  DtypeMismatch,
  DeviceMismatch,
  VersionMismatch,
  OutOfMemory,
  Index,           // lucid.errors.IndexError (also a Python IndexError)
  NotImplemented,  // lucid.errors.NotImplementedError (also Python's)
  Value,           // Python ValueError
  Type,            // Python TypeError
};

const char* error_kind_name(ErrorKind k);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& msg) : std::runtime_error(msg), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] void throw_error(ErrorKind kind, const std::string& msg);

}  // namespace lucid

// LUCID_CHECK(cond, Kind, "[op] message " << value): throws lucid::Error(ErrorKind::Kind, message).
#define LUCID_CHECK(cond, kind, msg)                                      \
  do {                                                                    \
    if (__builtin_expect(!(cond), 0)) {                                   \
      std::ostringstream lucid_check_os_;                                 \
      lucid_check_os_ << msg;                                             \
      ::lucid::throw_error(::lucid::ErrorKind::kind, lucid_check_os_.str()); \
    }                                                                     \
  } while (0)

#define LUCID_FAIL(kind, msg) LUCID_CHECK(false, kind, msg)
