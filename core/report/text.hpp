#pragma once
// printf-style formatting into a stream, for the text renderings of the report documents (the tables the CLI
// prints without --json). Format strings are checked as printf's.
#include <ostream>
#include <string>

namespace meshscope {

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
void printf_to(std::ostream& out, const char* format, ...);

// `value` with `decimals` decimals, or "-" when it is not finite.
[[nodiscard]] std::string fixed_or_dash(double value, int decimals);

}  // namespace meshscope
