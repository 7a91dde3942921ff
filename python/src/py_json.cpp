#include "py_json.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace meshscope::python {

namespace py = pybind11;

py::object to_python(const nlohmann::json& doc) {
  switch (doc.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(doc.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(doc.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(doc.get<uint64_t>());
    case nlohmann::json::value_t::number_float: {
      const double value = doc.get<double>();
      if (!std::isfinite(value)) return py::none();
      return py::float_(value);
    }
    case nlohmann::json::value_t::string:
      return py::str(doc.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list list;
      for (const auto& item : doc) list.append(to_python(item));
      return list;
    }
    case nlohmann::json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : doc.items()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    case nlohmann::json::value_t::binary:
      break;
  }
  throw py::type_error("a binary JSON value has no Python equivalent");
}

nlohmann::json from_python(const py::handle& value, const std::string& what) {
  if (value.is_none()) return nullptr;
  // bool before int: Python's bool is a subclass of int.
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    try {
      return value.cast<int64_t>();
    } catch (const py::cast_error&) {
      try {
        return value.cast<uint64_t>();
      } catch (const py::cast_error&) {
        throw py::value_error(what + ": the integer " + py::str(value).cast<std::string>() +
                              " does not fit in 64 bits");
      }
    }
  }
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::dict>(value)) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [key, item] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key))
        throw py::type_error(what + ": dictionary keys must be str, not " +
                             py::str(py::type::of(key).attr("__name__")).cast<std::string>());
      const auto name = key.cast<std::string>();
      object[name] = from_python(item, what + "." + name);
    }
    return object;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json array = nlohmann::json::array();
    size_t index = 0;
    for (const auto& item : value) array.push_back(from_python(item, what + "[" + std::to_string(index++) + "]"));
    return array;
  }
  throw py::type_error(what + ": " + py::str(py::type::of(value).attr("__name__")).cast<std::string>() +
                       " is not a JSON value (None, bool, int, float, str, list or dict)");
}

}  // namespace meshscope::python
