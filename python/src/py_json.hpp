#pragma once
// nlohmann::json ↔ Python objects, for the binding's documents (the CLI's --json) and its dict arguments.
// JSON null, boolean, integer, float, string, array and object are None, bool, int, float, str, list and dict.
#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

namespace meshscope::python {

// The document as Python objects. A non-finite float is None, as the CLI prints it (nlohmann::json::dump writes
// NaN and infinity as null), so that a result equals the parsed `--json` output of the same command.
[[nodiscard]] pybind11::object to_python(const nlohmann::json& doc);

// A Python value as JSON: None, bool, int (within int64 or uint64), float, str, dict with str keys, list and
// tuple. Anything else is a TypeError naming `what` (the argument) and the type.
[[nodiscard]] nlohmann::json from_python(const pybind11::handle& value, const std::string& what);

}  // namespace meshscope::python
