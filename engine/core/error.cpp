#include "core/error.h"

namespace lucid {

const char* error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Generic: return "LucidError";
    case ErrorKind::ShapeMismatch: return "ShapeMismatch";
    case ErrorKind::DtypeMismatch: return "DtypeMismatch";
    case ErrorKind::DeviceMismatch: return "DeviceMismatch";
    case ErrorKind::VersionMismatch: return "VersionMismatch";
    case ErrorKind::OutOfMemory: return "OutOfMemory";
    case ErrorKind::Index: return "IndexError";
    case ErrorKind::NotImplemented: return "NotImplementedError";
    case ErrorKind::Value: return "ValueError";
    case ErrorKind::Type: return "TypeError";
  }
  return "LucidError";
}

void throw_error(ErrorKind kind, const std::string& msg) { throw Error(kind, msg); }

}  // namespace lucid
