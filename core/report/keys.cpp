#include "core/report/keys.hpp"

#include <nlohmann/json.hpp>

namespace meshscope {

namespace {

std::string_view type_name(KeyType type) {
  switch (type) {
    case KeyType::integer:
      return "integer";
    case KeyType::number:
      return "number";
    case KeyType::boolean:
      return "bool";
    case KeyType::choice:
      return "choice";
    case KeyType::dtype:
      return "dtype";
    case KeyType::text:
      return "text";
  }
  return "text";
}

}  // namespace

std::string_view key_scope_name(KeyScope scope) {
  switch (scope) {
    case KeyScope::train:
      return "train";
    case KeyScope::serve:
      return "serve";
    case KeyScope::layout:
      return "layout";
    case KeyScope::serving_layout:
      return "serving-layout";
  }
  return "train";
}

nlohmann::json key_table_report(KeyScope scope) {
  nlohmann::json keys = nlohmann::json::array();
  for (const KeyInfo& info : key_table(scope)) {
    keys.push_back({{"name", info.name},
                    {"alias", info.alias},
                    {"type", type_name(info.type)},
                    {"choices", info.choices},
                    {"values", info.values},
                    {"unit", info.unit},
                    {"default", info.default_text},
                    {"meaning", info.help},
                    {"source", info.source}});
  }
  return {{"scope", key_scope_name(scope)}, {"keys", keys}};
}

nlohmann::json key_tables_report(const std::vector<KeyScope>& scopes) {
  nlohmann::json doc = nlohmann::json::array();
  for (const KeyScope scope : scopes) doc.push_back(key_table_report(scope));
  return doc;
}

}  // namespace meshscope
