// Builds a JSON value from a subtree's bytes through nlohmann::json's SAX interface (kineto_json_subtree.hpp).
#include "core/importers/kineto_json_subtree.hpp"

#include <climits>
#include <string>
#include <utility>
#include <vector>

namespace meshscope::kineto_json {
namespace {

using json = nlohmann::json;

// NOLINTNEXTLINE(bugprone-exception-escape): reported on the implicit members, which only run json's noexcept ones.
class SubtreeBuilder {
 public:
  void start(json container) {
    if (stack_.empty()) {
      root_ = std::move(container);
      stack_.push_back(&root_);
      return;
    }
    stack_.push_back(insert(std::move(container)));
  }
  void value(json v) { insert(std::move(v)); }
  void key(std::string k) { key_ = std::move(k); }
  void end() { stack_.pop_back(); }
  json take() { return std::move(root_); }

 private:
  json* insert(json v) {
    if (stack_.empty()) {  // a scalar subtree: the callers never pass one, but keep it well-defined
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }

  json root_;
  std::vector<json*> stack_;
  std::string key_;
};

// nlohmann::json's SAX interface over the bytes of a subtree the cursor has already checked. Integers above INT64_MAX
// become doubles, as the importer has always read them.
// NOLINTNEXTLINE(bugprone-exception-escape): as SubtreeBuilder (its member).
class SubtreeSax {
 public:
  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(json::number_integer_t v) { return put(v); }
  bool number_unsigned(json::number_unsigned_t v) {
    if (v <= static_cast<json::number_unsigned_t>(INT64_MAX)) return put(static_cast<int64_t>(v));
    return put(static_cast<double>(v));
  }
  bool number_float(json::number_float_t v, const std::string&) { return put(v); }
  bool string(std::string& v) { return put(std::move(v)); }
  bool binary(json::binary_t&) { return put(nullptr); }
  bool start_object(std::size_t) {
    builder_.start(json::object());
    return true;
  }
  bool start_array(std::size_t) {
    builder_.start(json::array());
    return true;
  }
  bool end_object() {
    builder_.end();
    return true;
  }
  bool end_array() {
    builder_.end();
    return true;
  }
  bool key(std::string& k) {
    builder_.key(std::move(k));
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
  json take() { return builder_.take(); }

 private:
  bool put(json v) {
    builder_.value(std::move(v));
    return true;
  }
  SubtreeBuilder builder_;
};

}  // namespace

json build_subtree(const char* begin, const char* end) {
  SubtreeSax sax;
  json::sax_parse(begin, end, &sax, json::input_format_t::json, true, false);
  return sax.take();
}

}  // namespace meshscope::kineto_json
