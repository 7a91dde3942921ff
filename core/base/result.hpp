#pragma once
// Error values for input that can be wrong (files, user fields). Programming errors are asserts.
#include <string>
#include <tl/expected.hpp>
#include <utility>

namespace meshscope {

enum class ErrorCode {
  invalid_argument,  // a user-supplied key, value or option is not understood
  missing_field,     // a required field is absent from a file
  wrong_type,        // a field has the wrong JSON type
  parse_error,       // the file is not valid JSON / text in the expected format
  io_error,          // the file cannot be read
  unsupported,       // a recognised but unsupported variant (e.g. an unknown model_type)
  invalid_layout,    // the parallel layout violates a constraint
};

struct Error {
  ErrorCode code = ErrorCode::invalid_argument;
  std::string message;   // a sentence a user understands
  std::string location;  // file, field or line where known ("config.json: num_attention_heads")

  [[nodiscard]] std::string to_string() const { return location.empty() ? message : location + ": " + message; }
};

template <typename T>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> make_error(ErrorCode code, std::string message, std::string location = {}) {
  return tl::unexpected<Error>(Error{code, std::move(message), std::move(location)});
}

}  // namespace meshscope

// Unwraps a Result into `var`, or returns its error from the enclosing function.
// NOLINTBEGIN(bugprone-macro-parentheses): `var` names the variable the macro declares; it cannot be parenthesised.
#define MS_TRY(var, expr)                                         \
  auto var##_result = (expr);                                     \
  if (!var##_result) return tl::unexpected(var##_result.error()); \
  auto var = std::move(*var##_result)
// NOLINTEND(bugprone-macro-parentheses)
