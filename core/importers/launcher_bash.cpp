// A reader for the bash that Megatron-LM launch scripts are written in (launcher_bash.hpp).
#include "core/importers/launcher_bash.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>

namespace meshscope::launcher_detail {
namespace {

enum class TokenKind { word, newline, semicolon, open_paren, close_paren, or_op, and_op };

struct Token {
  TokenKind kind = TokenKind::word;
  std::string text;  // raw, quotes kept (expanded later)
  int line = 0;
};

bool is_name_char(char c) {
  return (std::isalnum(static_cast<unsigned char>(c)) != 0) || c == '_';
}

// Splits the text into words and operators; a backslash-newline joins lines, `#` at the start of a
// word starts a comment, and `$(...)`, `${...}` and quotes are kept whole inside their word.
Result<std::vector<Token>> tokenize(std::string_view text, const std::string& origin) {
  std::vector<Token> tokens;
  std::string word;
  int line = 1;
  int word_line = 1;
  bool in_word = false;
  const auto end_word = [&] {
    if (in_word) tokens.push_back({TokenKind::word, word, word_line});
    word.clear();
    in_word = false;
  };
  const auto start_word = [&] {
    if (!in_word) {
      in_word = true;
      word_line = line;
    }
  };
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '\\' && i + 1 < n && text[i + 1] == '\n') {
      i += 2;
      ++line;
      end_word();
      continue;
    }
    if (c == '\\' && i + 2 < n && text[i + 1] == '\r' && text[i + 2] == '\n') {
      i += 3;
      ++line;
      end_word();
      continue;
    }
    if (c == '\'' || c == '"') {
      start_word();
      const int quote_line = line;
      word += c;
      ++i;
      bool closed = false;
      while (i < n) {
        const char q = text[i];
        if (q == '\n') ++line;
        if (c == '"' && q == '\\' && i + 1 < n) {
          word += q;
          word += text[i + 1];
          if (text[i + 1] == '\n') ++line;
          i += 2;
          continue;
        }
        word += q;
        ++i;
        if (q == c) {
          closed = true;
          break;
        }
      }
      if (!closed)
        return make_error(ErrorCode::parse_error, std::string("the quote ") + c + " opened here is not closed",
                          origin + ": line " + std::to_string(quote_line));
      continue;
    }
    if (c == '#' && !in_word) {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '$' && i + 1 < n && (text[i + 1] == '(' || text[i + 1] == '{')) {
      start_word();
      const char open = text[i + 1];
      const char close = open == '(' ? ')' : '}';
      const int open_line = line;
      int depth = 0;
      word += c;
      ++i;
      bool closed = false;
      while (i < n) {
        const char q = text[i];
        if (q == '\n') ++line;
        word += q;
        ++i;
        if (q == open) ++depth;
        if (q == close && --depth == 0) {
          closed = true;
          break;
        }
      }
      if (!closed)
        return make_error(ErrorCode::parse_error, std::string("the $") + open + " opened here is not closed",
                          origin + ": line " + std::to_string(open_line));
      continue;
    }
    if (c == '\n') {
      end_word();
      tokens.push_back({TokenKind::newline, "", line});
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      end_word();
      ++i;
      continue;
    }
    if (c == ';') {
      end_word();
      tokens.push_back({TokenKind::semicolon, ";", line});
      ++i;
      continue;
    }
    if (c == '(' || c == ')') {
      end_word();
      tokens.push_back({c == '(' ? TokenKind::open_paren : TokenKind::close_paren, std::string(1, c), line});
      ++i;
      continue;
    }
    if ((c == '|' || c == '&') && i + 1 < n && text[i + 1] == c) {
      end_word();
      tokens.push_back({c == '|' ? TokenKind::or_op : TokenKind::and_op, std::string(2, c), line});
      i += 2;
      continue;
    }
    if (c == '\\' && i + 1 < n) {
      start_word();
      word += c;
      word += text[i + 1];
      i += 2;
      continue;
    }
    start_word();
    word += c;
    ++i;
  }
  end_word();
  return tokens;
}

struct Variable {
  std::vector<ScriptWord> elements;  // a scalar is one element
  bool is_array = false;
  bool known = true;
};

struct Field {
  std::string text;
  int line = 0;
  bool known = true;
};

class Script {
 public:
  explicit Script(const std::string& origin) : origin_(origin) {}

  std::vector<std::string> warnings;

  // Expands one raw word into fields (bash: quote removal, parameter expansion, word splitting of
  // unquoted expansions).
  std::vector<Field> expand(const std::string& raw, int line) {
    std::vector<Field> fields;
    Field current{"", line, true};
    bool have = false;
    const auto add_text = [&](const std::string& text, bool quoted, bool known) {
      if (!known) current.known = false;
      if (quoted) {
        current.text += text;
        have = true;
        return;
      }
      // Unquoted: split on blanks.
      size_t i = 0;
      bool first = true;
      while (i <= text.size()) {
        size_t j = i;
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])) == 0) ++j;
        const std::string piece = text.substr(i, j - i);
        if (!first) {
          if (have) fields.push_back(current);
          current = Field{"", line, known};
          have = false;
        }
        if (!piece.empty()) {
          current.text += piece;
          have = true;
        }
        first = false;
        if (j >= text.size()) break;
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])) != 0) ++j;
        if (j >= text.size()) {
          if (have) fields.push_back(current);
          current = Field{"", line, known};
          have = false;
          break;
        }
        i = j;
      }
    };
    const auto add_elements = [&](const std::vector<ScriptWord>& elements, bool quoted, bool known) {
      if (!quoted) {
        for (size_t e = 0; e < elements.size(); ++e) {
          if (e > 0) add_text(" ", false, known);
          current.line = have ? current.line : elements[e].line;
          add_text(elements[e].text, false, known);
          if (!have) current.line = line;
        }
        return;
      }
      for (size_t e = 0; e < elements.size(); ++e) {
        if (e > 0) {
          fields.push_back(current);
          current = Field{"", elements[e].line, known};
        } else if (!have) {
          current.line = elements[e].line;
        }
        current.text += elements[e].text;
        have = true;
      }
      if (elements.empty() && !have) have = false;
    };

    size_t i = 0;
    bool in_double = false;
    while (i < raw.size()) {
      const char c = raw[i];
      if (!in_double && c == '\'') {
        const size_t close = raw.find('\'', i + 1);
        add_text(raw.substr(i + 1, close - i - 1), true, true);
        i = close == std::string::npos ? raw.size() : close + 1;
        continue;
      }
      if (c == '"') {
        in_double = !in_double;
        have = true;
        ++i;
        continue;
      }
      if (c == '\\' && i + 1 < raw.size()) {
        add_text(std::string(1, raw[i + 1]), true, true);
        i += 2;
        continue;
      }
      if (c == '$' && i + 1 < raw.size()) {
        size_t end = i;
        Expansion x = dollar(raw, i, end, line);
        if (x.is_array)
          add_elements(x.elements, in_double, x.known);
        else
          add_text(x.text, in_double, x.known);
        i = end;
        continue;
      }
      add_text(std::string(1, c), true, true);
      ++i;
    }
    if (have || !current.text.empty()) fields.push_back(current);
    return fields;
  }

  std::string expand_scalar(const std::string& raw, int line, bool& known) {
    std::string out;
    for (const Field& f : expand(raw, line)) {
      if (!out.empty()) out += ' ';
      out += f.text;
      if (!f.known) known = false;
    }
    return out;
  }

  void assign(const std::string& name, std::vector<ScriptWord> elements, bool is_array, bool append, bool known) {
    Variable& v = variables_[name];
    if (!append) v.elements.clear();
    if (!append || !v.is_array) v.is_array = is_array;
    for (auto& e : elements) v.elements.push_back(std::move(e));
    v.known = known && (append ? v.known : true);
  }

 private:
  struct Expansion {
    std::string text;
    std::vector<ScriptWord> elements;
    bool is_array = false;
    bool known = true;
  };

  static std::string placeholder(const std::string& name) { return "<" + name + ">"; }

  Expansion lookup(const std::string& name, int line) {
    if (auto it = variables_.find(name); it != variables_.end()) {
      Expansion x;
      x.known = it->second.known;
      if (it->second.is_array) {
        x.is_array = true;
        x.elements = it->second.elements;
      } else {
        x.text = it->second.elements.empty() ? "" : it->second.elements.front().text;
      }
      return x;
    }
    const bool positional = !name.empty() && (std::isdigit(static_cast<unsigned char>(name[0])) != 0);
    warnings.push_back("line " + std::to_string(line) + ": $" + name +
                       (positional ? " is an argument of the script" : " is not set in the script") + ": left as " +
                       placeholder(positional ? "ARG" + name : name));
    return Expansion{placeholder(positional ? "ARG" + name : name), {}, false, false};
  }

  // $NAME, ${NAME}, ${NAME:-default}, ${NAME[@]}, $((arithmetic)), $(command); `end` is set past it.
  Expansion dollar(const std::string& raw, size_t start, size_t& end, int line) {
    const char next = raw[start + 1];
    if (next == '(') {
      const bool arithmetic = start + 2 < raw.size() && raw[start + 2] == '(';
      int depth = 0;
      size_t j = start + 1;
      for (; j < raw.size(); ++j) {
        if (raw[j] == '(') ++depth;
        if (raw[j] == ')' && --depth == 0) break;
      }
      end = std::min(raw.size(), j + 1);
      const std::string body = raw.substr(start, end - start);
      if (arithmetic) {
        bool known = true;
        const std::string inner = raw.substr(start + 3, j >= start + 4 ? j - start - 4 : 0);
        std::string substituted;
        for (size_t k = 0; k < inner.size();) {
          if (inner[k] == '$' || std::isalpha(static_cast<unsigned char>(inner[k])) != 0 || inner[k] == '_') {
            if (inner[k] == '$') ++k;
            size_t m = k;
            if (m < inner.size() && inner[m] == '{') {
              const size_t close = inner.find('}', m);
              const std::string name = inner.substr(m + 1, close - m - 1);
              substituted += lookup(name, line).text;
              k = close == std::string::npos ? inner.size() : close + 1;
              continue;
            }
            while (m < inner.size() && is_name_char(inner[m])) ++m;
            const Expansion x = lookup(inner.substr(k, m - k), line);
            if (!x.known) known = false;
            substituted += x.text;
            k = m;
            continue;
          }
          substituted += inner[k++];
        }
        if (known) {
          if (auto value = evaluate_arithmetic(substituted)) return Expansion{std::to_string(*value), {}, false, true};
        }
        warnings.push_back("line " + std::to_string(line) + ": " + body + " is not evaluated: left as <" + body + ">");
        return Expansion{"<" + body + ">", {}, false, false};
      }
      warnings.push_back("line " + std::to_string(line) + ": " + body + " runs a command: left as <" + body + ">");
      return Expansion{"<" + body + ">", {}, false, false};
    }
    if (next == '{') {
      const size_t close = raw.find('}', start + 2);
      end = close == std::string::npos ? raw.size() : close + 1;
      const std::string body = raw.substr(start + 2, (close == std::string::npos ? raw.size() : close) - start - 2);
      size_t k = 0;
      while (k < body.size() && is_name_char(body[k])) ++k;
      const std::string name = body.substr(0, k);
      const std::string rest = body.substr(k);
      if (rest == "[@]" || rest == "[*]") {
        auto it = variables_.find(name);
        if (it == variables_.end()) return lookup(name, line);
        Expansion x;
        x.is_array = true;
        x.elements = it->second.elements;
        x.known = it->second.known;
        return x;
      }
      if (rest.starts_with(":-") || rest.starts_with("-")) {
        const std::string fallback = rest.substr(rest.starts_with(":-") ? 2 : 1);
        auto it = variables_.find(name);
        const bool set = it != variables_.end() && !it->second.elements.empty() &&
                         (rest.starts_with("-") || !it->second.elements.front().text.empty());
        if (set) return lookup(name, line);
        bool known = true;
        std::string value = expand_scalar(fallback, line, known);
        return Expansion{value, {}, false, known};
      }
      if (!rest.empty()) {
        warnings.push_back("line " + std::to_string(line) + ": ${" + body + "} is not evaluated: left as <" + name +
                           ">");
        return Expansion{placeholder(name), {}, false, false};
      }
      return lookup(name, line);
    }
    size_t k = start + 1;
    if (std::isdigit(static_cast<unsigned char>(raw[k])) != 0 || raw[k] == '@' || raw[k] == '*' || raw[k] == '#') {
      end = k + 1;
      return lookup(std::string(1, raw[k]), line);
    }
    while (k < raw.size() && is_name_char(raw[k])) ++k;
    end = k;
    if (k == start + 1) return Expansion{"$", {}, false, true};
    return lookup(raw.substr(start + 1, k - start - 1), line);
  }

  // + - * / % and parentheses over integers.
  static std::optional<long long> evaluate_arithmetic(const std::string& text) {
    size_t pos = 0;
    bool ok = true;
    const auto skip = [&] {
      while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])) != 0) ++pos;
    };
    std::function<long long()> expr;
    std::function<long long()> term;
    int depth = 0;  // nesting of parentheses and signs: a hostile "((((…" must not exhaust the stack
    std::function<long long()> factor = [&]() -> long long {
      skip();
      if (++depth > 64) {
        ok = false;
        pos = text.size();
        return 0;
      }
      struct Leave {
        int& d;
        ~Leave() { --d; }
      } leave{depth};
      if (pos < text.size() && text[pos] == '(') {
        ++pos;
        const long long v = expr();
        skip();
        if (pos < text.size() && text[pos] == ')')
          ++pos;
        else
          ok = false;
        return v;
      }
      if (pos < text.size() && text[pos] == '-') {
        ++pos;
        return -factor();
      }
      size_t digits = pos;
      while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) ++digits;
      if (digits == pos || digits - pos > 15) {
        ok = false;
        return 0;
      }
      const long long v = std::stoll(text.substr(pos, digits - pos));
      pos = digits;
      return v;
    };
    term = [&]() -> long long {
      long long v = factor();
      for (;;) {
        skip();
        if (pos >= text.size() || (text[pos] != '*' && text[pos] != '/' && text[pos] != '%')) return v;
        const char op = text[pos++];
        const long long r = factor();
        if (op == '*') {
          if (r != 0 && (v > (1LL << 40) || r > (1LL << 40) || v < -(1LL << 40) || r < -(1LL << 40)))
            ok = false;
          else
            v *= r;
        } else if (r == 0) {
          ok = false;
        } else {
          v = op == '/' ? v / r : v % r;
        }
      }
    };
    expr = [&]() -> long long {
      long long v = term();
      for (;;) {
        skip();
        if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return v;
        const char op = text[pos++];
        const long long r = term();
        v = op == '+' ? v + r : v - r;
      }
    };
    const long long value = expr();
    skip();
    if (!ok || pos != text.size()) return std::nullopt;
    return value;
  }

  std::string origin_;
  std::map<std::string, Variable> variables_;
};

// NAME=, NAME+=: the name and whether it appends; nullopt: not an assignment.
std::optional<std::pair<std::string, bool>> assignment_name(const std::string& word) {
  size_t k = 0;
  if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0])) != 0) return std::nullopt;
  while (k < word.size() && is_name_char(word[k])) ++k;
  if (k == 0 || k >= word.size()) return std::nullopt;
  if (word[k] == '=') return std::pair{word.substr(0, k), false};
  if (word[k] == '+' && k + 1 < word.size() && word[k + 1] == '=') return std::pair{word.substr(0, k), true};
  return std::nullopt;
}

// A training script's path: one word ending in .py (not a sentence that mentions one).
bool is_training_script(const std::string& word) {
  return word.ends_with(".py") && word.find('<') == std::string::npos &&
         std::none_of(word.begin(), word.end(),
                      [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

// Commands that print or test, whose words are never a launch.
bool is_output_command(const std::string& word) {
  return word == "echo" || word == "printf" || word == "cat" || word == "test" || word == "[" || word == "[[" ||
         word == "ls" || word == "mkdir";
}

struct Frame {
  bool parent_active = true;
  bool active = true;
  bool taken = false;    // a branch of this if was taken
  bool unknown = false;  // the condition could not be evaluated (the then branch is read)
  bool warned = false;
  int line = 0;
};

// Reads the script statement by statement: if/elif/else/fi choose what is read, assignments set
// variables, and the command that runs a training script (or a bare argument list) is the launch.
class LaunchReader {
 public:
  explicit LaunchReader(const std::string& origin) : origin_(origin), script_(origin) {}

  Result<LaunchCommand> read(const std::vector<Token>& tokens) {
    size_t i = 0;
    while (i < tokens.size()) {
      MS_TRY(statement, next_statement(tokens, i));
      if (statement.empty()) continue;
      if (control_statement(statement)) continue;
      if (!active()) continue;
      const size_t w = assignments(statement);
      if (w >= statement.size()) continue;
      command(statement, w);
    }
    for (auto& warning : script_.warnings) out_.warnings.push_back(std::move(warning));
    if (out_.script.empty()) out_.args = std::move(bare_args_);
    return std::move(out_);
  }

 private:
  [[nodiscard]] bool active() const { return frames_.empty() || frames_.back().active; }

  // One statement from token `i` on: the tokens up to a newline or `;`, arrays spanning lines.
  Result<std::vector<Token>> next_statement(const std::vector<Token>& tokens, size_t& i) const {
    std::vector<Token> statement;
    int open_array_line = 0;
    std::string open_array_name;
    for (; i < tokens.size(); ++i) {
      const Token& t = tokens[i];
      if (open_array_line == 0 && (t.kind == TokenKind::newline || t.kind == TokenKind::semicolon)) {
        ++i;
        break;
      }
      if (t.kind == TokenKind::newline) continue;
      if (t.kind == TokenKind::open_paren && !statement.empty() && statement.back().kind == TokenKind::word &&
          statement.back().text.ends_with("=")) {
        open_array_line = t.line;
        open_array_name = statement.back().text;
      }
      if (t.kind == TokenKind::close_paren) open_array_line = 0;
      statement.push_back(t);
    }
    if (open_array_line != 0) {
      const std::string name = open_array_name.substr(0, open_array_name.find_first_of("+="));
      return make_error(ErrorCode::parse_error, "the array " + name + "=( opened here is not closed with )",
                        origin_ + ": line " + std::to_string(open_array_line));
    }
    return statement;
  }

  // if, elif, then, else, fi: which branch is read. True when the statement was one of them.
  bool control_statement(const std::vector<Token>& statement) {
    if (statement.front().kind != TokenKind::word) return false;
    const std::string& head = statement.front().text;
    if (head == "if" || head == "elif") {
      std::vector<Token> cond(statement.begin() + 1, statement.end());
      if (!cond.empty() && cond.back().text == "then") cond.pop_back();
      if (head == "if") {
        Frame f;
        f.parent_active = active();
        f.line = statement.front().line;
        frames_.push_back(f);
      } else if (frames_.empty()) {
        return true;
      }
      Frame& f = frames_.back();
      if (f.taken || !f.parent_active) {
        f.active = false;
        return true;
      }
      const std::optional<bool> value = evaluate_condition(cond);
      f.unknown = !value.has_value();
      f.active = value.value_or(true);
      f.taken = f.active;
      return true;
    }
    if (head == "then" && statement.size() == 1) return true;
    if (head == "else") {
      if (!frames_.empty()) {
        Frame& f = frames_.back();
        f.active = f.parent_active && !f.taken;
        f.unknown = false;
        f.taken = true;
      }
      return true;
    }
    if (head == "fi") {
      if (!frames_.empty()) frames_.pop_back();
      return true;
    }
    return false;
  }

  // Evaluates an if/elif condition: tests of the form [[ A == B ]], [ A != B ], -z A, -n A, joined by || and &&.
  std::optional<bool> evaluate_condition(const std::vector<Token>& cond) {
    std::optional<bool> result;
    TokenKind join = TokenKind::or_op;
    size_t i = 0;
    while (i < cond.size()) {
      if (cond[i].kind == TokenKind::or_op || cond[i].kind == TokenKind::and_op) {
        join = cond[i].kind;
        ++i;
        continue;
      }
      std::vector<std::string> words;
      bool known = true;
      bool negate = false;
      size_t j = i;
      for (; j < cond.size() && cond[j].kind == TokenKind::word; ++j) {
        const std::string& w = cond[j].text;
        if (w == "[[" || w == "[") continue;
        if (w == "]]" || w == "]") {
          ++j;
          break;
        }
        if (w == "!" && words.empty()) {
          negate = !negate;
          continue;
        }
        bool k = true;
        words.push_back(script_.expand_scalar(w, cond[j].line, k));
        if (!k) known = false;
      }
      i = j;
      std::optional<bool> test;
      if (known && words.size() == 3 && (words[1] == "==" || words[1] == "=")) test = words[0] == words[2];
      if (known && words.size() == 3 && words[1] == "!=") test = words[0] != words[2];
      if (known && words.size() == 2 && words[0] == "-z") test = words[1].empty();
      if (known && words.size() == 2 && words[0] == "-n") test = !words[1].empty();
      if (test && negate) test = !*test;
      if (!test) return std::nullopt;
      if (!result)
        result = test;
      else
        result = join == TokenKind::or_op ? (*result || *test) : (*result && *test);
    }
    return result;
  }

  // The statement's leading assignments (NAME=value, NAME=( ... ), NAME+=( ... ), after export, local
  // or declare); the index of the first word after them.
  size_t assignments(const std::vector<Token>& statement) {
    size_t w = 0;
    if (statement[w].kind == TokenKind::word &&
        (statement[w].text == "export" || statement[w].text == "local" || statement[w].text == "declare"))
      ++w;
    while (w < statement.size() && statement[w].kind == TokenKind::word) {
      const auto name = assignment_name(statement[w].text);
      if (!name) break;
      if (!frames_.empty() && frames_.back().unknown && !frames_.back().warned) {
        frames_.back().warned = true;
        out_.warnings.push_back("line " + std::to_string(frames_.back().line) +
                                ": the if condition is not evaluated: its first branch is read");
      }
      const std::string value_raw = statement[w].text.substr(name->first.size() + (name->second ? 2 : 1));
      if (value_raw.empty() && w + 1 < statement.size() && statement[w + 1].kind == TokenKind::open_paren) {
        w = assign_array(statement, w, *name);
        continue;
      }
      bool known = true;
      const size_t warnings_before = script_.warnings.size();
      std::string value = script_.expand_scalar(value_raw, statement[w].line, known);
      if (!known) {
        // One warning, naming the variable, instead of one per unknown part of its value.
        script_.warnings.resize(warnings_before);
        out_.warnings.push_back("line " + std::to_string(statement[w].line) + ": " + name->first + "=" + value_raw +
                                " is not known from the script: left as <" + name->first + ">");
        value = "<" + name->first + ">";
      }
      script_.assign(name->first, {{value, statement[w].line}}, false, name->second, known);
      ++w;
    }
    return w;
  }

  // NAME=( ... ) or NAME+=( ... ) at word `w`: the array's elements, expanded; the index after its `)`.
  size_t assign_array(const std::vector<Token>& statement, size_t w, const std::pair<std::string, bool>& name) {
    std::vector<ScriptWord> elements;
    bool known = true;
    size_t k = w + 2;
    for (; k < statement.size() && statement[k].kind != TokenKind::close_paren; ++k) {
      if (statement[k].kind != TokenKind::word) continue;
      for (Field& f : script_.expand(statement[k].text, statement[k].line)) {
        if (!f.known) known = false;
        elements.push_back({std::move(f.text), f.line});
      }
    }
    script_.assign(name.first, std::move(elements), true, name.second, known);
    return k + 1;
  }

  // A command from word `w` on: expand its words (not those of echo, mkdir, ...: they launch nothing);
  // the first that runs a training script is the launch, a list of --flags may be the arguments.
  void command(const std::vector<Token>& statement, size_t w) {
    if (statement[w].kind == TokenKind::word && is_output_command(statement[w].text)) return;
    std::vector<ScriptWord> words;
    for (; w < statement.size(); ++w) {
      if (statement[w].kind != TokenKind::word) break;  // a pipe or list operator ends what we read
      for (Field& f : script_.expand(statement[w].text, statement[w].line))
        words.push_back({std::move(f.text), f.line});
    }
    if (words.empty()) return;
    size_t script_at = words.size();
    for (size_t k = 0; k < words.size() && !is_output_command(words.front().text); ++k)
      if (is_training_script(words[k].text)) {
        script_at = k;
        break;
      }
    if (script_at < words.size()) {
      if (!out_.script.empty()) {
        out_.warnings.push_back("line " + std::to_string(statement.front().line) + ": a second launch command (" +
                                words[script_at].text + ") is not read");
        return;
      }
      out_.script = words[script_at].text;
      out_.launcher_args.assign(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(script_at));
      out_.args.assign(words.begin() + static_cast<std::ptrdiff_t>(script_at) + 1, words.end());
      return;
    }
    if (words.front().text.starts_with("--")) bare_args_.insert(bare_args_.end(), words.begin(), words.end());
  }

  const std::string& origin_;
  Script script_;
  LaunchCommand out_;
  std::vector<ScriptWord> bare_args_;  // statements that are argument lists (a pasted command line)
  std::vector<Frame> frames_;
};

}  // namespace

Result<LaunchCommand> parse_launch_script(std::string_view text, const std::string& origin) {
  MS_TRY(tokens, tokenize(text, origin));
  return LaunchReader(origin).read(tokens);
}

}  // namespace meshscope::launcher_detail
