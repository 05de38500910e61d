#pragma once
// A strict reader for the app's data files (lessons, glossary, cheat sheet): every field is read by
// name, unknown keys are an error (a typo must not pass silently) and every error names the file, the
// field path and the rule, e.g. `lessons/dp.json: steps[2].check.tolerance: must be a number`.
// The scenario and preset loaders read through it too (core/scenario/scenario_json.hpp), so every file the app
// takes follows one set of rules. Header-only: a handful of small inline functions.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope::json_read {

using Json = nlohmann::ordered_json;

// Thrown inside a loader only; each loader turns it into its own error string.
struct FieldError {
    std::string message;
};

[[noreturn]] inline void fail(const std::string& path, const std::string& rule) {
    throw FieldError{(path.empty() ? std::string("(document)") : path) + ": " + rule};
}

[[nodiscard]] inline std::string join_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

[[nodiscard]] inline std::string index_path(const std::string& parent, size_t index) {
    return parent + "[" + std::to_string(index) + "]";
}

// No file the app reads nests deeper than a handful of levels; the bound keeps every recursive walk
// of a document (merge, dump, compare) far from the end of the stack.
inline constexpr int kMaxNesting = 64;

// A parse error as a reader needs it: the library's "[json.exception.parse_error.101] " tag left out.
[[nodiscard]] inline std::string without_library_tag(const std::string& what) {
    const auto end = what.find("] ");
    return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

// One pass over the text before any tree is built (nlohmann's SAX parser loops, it does not recurse),
// tracking where it is so a broken rule names its field: nesting deeper than kMaxNesting, a number
// beyond a double's range (`1e400`) and an integer beyond int64 are rejected here, so no later step
// meets them. After a failed pass, `where` and `rule` say why (`where` empty for the whole document).
class DocumentCheck : public nlohmann::json_sax<Json> {
public:
    std::string where;
    std::string rule = "not valid JSON";

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t v) override {
        if (v > static_cast<number_unsigned_t>(INT64_MAX))
            return reject(path(), std::to_string(v) + " is beyond the range of a 64-bit integer (at most " +
                                      std::to_string(INT64_MAX) + ")");
        return value();
    }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(false); }
    bool key(string_t& k) override {
        frames_.back().key = k;
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(true); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override {
        // A number of a thousand digits is quoted only as far as a reader needs to recognise it.
        const std::string shown = token.size() <= 40 ? token : token.substr(0, 40) + "...";
        if (e.id == 406) return reject(path(), shown + " is beyond the range of a number (about 1.8e308)");
        return reject("", "not valid JSON: " + without_library_tag(e.what()));
    }

private:
    struct Frame {
        bool is_array = false;
        std::size_t index = 0;
        std::string key;
    };
    std::vector<Frame> frames_;

    [[nodiscard]] std::string path() const {
        std::string out;
        for (const Frame& f : frames_) out = f.is_array ? index_path(out, f.index) : join_path(out, f.key);
        return out;
    }
    bool reject(std::string at, std::string broken) {
        where = std::move(at);
        rule = std::move(broken);
        return false;
    }
    bool value() {
        if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
        return true;
    }
    bool open(bool is_array) {
        if (static_cast<int>(frames_.size()) >= kMaxNesting)
            return reject("", "nested deeper than " + std::to_string(kMaxNesting) + " levels");
        frames_.push_back(Frame{is_array, 0, {}});
        return true;
    }
    bool close() {
        frames_.pop_back();
        return value();
    }
};

// Parses text or fails with "path: rule": "(document): not valid JSON: ...", a number out of range
// or nesting too deep. Never lets a parser exception out.
[[nodiscard]] inline Json parse_document(std::string_view text) {
    DocumentCheck check;
    const bool passed = Json::sax_parse(text.begin(), text.end(), &check);
    if (!passed) fail(check.where, check.rule);
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        fail("", "not valid JSON: " + without_library_tag(e.what()));
    }
}

// Runs a loader's reading and returns its first broken rule ("" when none): a FieldError's message, or
// any other exception of the JSON library as a rule of the whole document, so no loader lets one out.
template <typename Read>
[[nodiscard]] std::string first_error(Read&& read) {
    try {
        read();
        return {};
    } catch (const FieldError& e) {
        return e.message;
    } catch (const nlohmann::json::exception& e) {
        return std::string("(document): ") + e.what();
    }
}

// While one is alive on a thread, every object reader there records the keys it accepted, by the
// object's path ("model", "cluster.gpu"): how a test compares a loader with the JSON Schema that
// documents it. A key read only when present (model.dropout) is recorded only when the document has it.
class ReaderLog {
public:
    ReaderLog() : previous_(current()) { current() = this; }
    ~ReaderLog() { current() = previous_; }
    ReaderLog(const ReaderLog&) = delete;
    ReaderLog& operator=(const ReaderLog&) = delete;
    static ReaderLog*& current() {
        thread_local ReaderLog* log = nullptr;
        return log;
    }
    std::map<std::string, std::set<std::string>> keys;

private:
    ReaderLog* previous_;
};

class ObjectReader {
public:
    ObjectReader(const Json& j, std::string path) : json_(j), path_(std::move(path)) {
        if (!json_.is_object()) fail(path_, "must be an object");
    }

    [[nodiscard]] bool has(const std::string& key) const { return json_.contains(key); }
    [[nodiscard]] std::string path(const std::string& key) const { return join_path(path_, key); }

    const Json& required(const std::string& key) {
        seen_.insert(key);
        if (!json_.contains(key)) fail(path(key), "is required");
        return json_.at(key);
    }
    // nullptr when absent (the key still counts as read).
    const Json* optional(const std::string& key) {
        seen_.insert(key);
        return json_.contains(key) ? &json_.at(key) : nullptr;
    }

    std::string string_field(const std::string& key, std::optional<std::string> fallback = std::nullopt) {
        if (!has(key) && fallback) return (seen_.insert(key), *fallback);
        const Json& v = required(key);
        if (!v.is_string()) fail(path(key), "must be a string");
        return v.get<std::string>();
    }
    std::string text_field(const std::string& key) {  // a string that must say something
        std::string s = string_field(key);
        if (s.find_first_not_of(" \t\n") == std::string::npos) fail(path(key), "must not be empty");
        return s;
    }
    std::string string_or(const std::string& key, std::string fallback) {
        return has(key) ? string_field(key) : (seen_.insert(key), std::move(fallback));
    }

    double number_field(const std::string& key, std::optional<double> fallback = std::nullopt) {
        if (!has(key) && fallback) return (seen_.insert(key), *fallback);
        const Json& v = required(key);
        if (!v.is_number()) fail(path(key), "must be a number");
        const double d = v.get<double>();
        if (!std::isfinite(d)) fail(path(key), "must be finite");
        return d;
    }

    int64_t int_field(const std::string& key, std::optional<int64_t> fallback = std::nullopt) {
        if (!has(key) && fallback) return (seen_.insert(key), *fallback);
        const Json& v = required(key);
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
            fail(path(key), "is beyond the range of a 64-bit integer");
        if (v.is_number_integer()) return v.get<int64_t>();
        if (v.is_number_float()) {
            const double d = v.get<double>();
            // Past 2^53 a double no longer holds every whole number: 1e20 is not the count it looks like.
            if (std::floor(d) == d && std::fabs(d) >= 9.0e15)
                fail(path(key), "must be a whole number below 9e15");
            if (std::floor(d) == d) return static_cast<int64_t>(d);
        }
        fail(path(key), "must be a whole number");
    }

    bool bool_field(const std::string& key, std::optional<bool> fallback = std::nullopt) {
        if (!has(key) && fallback) return (seen_.insert(key), *fallback);
        const Json& v = required(key);
        if (!v.is_boolean()) fail(path(key), "must be true or false");
        return v.get<bool>();
    }

    template <typename Enum>
    Enum enum_field(const std::string& key, std::optional<Enum> (*parse)(std::string_view) noexcept,
                    const char* allowed, std::optional<Enum> fallback = std::nullopt) {
        if (!has(key) && fallback) return (seen_.insert(key), *fallback);
        const std::string s = string_field(key);
        if (auto e = parse(s)) return *e;
        fail(path(key), "\"" + s + "\" is not one of " + allowed);
    }
    std::optional<double> optional_number(const std::string& key) {
        if (!has(key)) return (seen_.insert(key), std::nullopt);
        return number_field(key);
    }

    // A list of non-empty strings; absent = empty list.
    std::vector<std::string> string_list(const std::string& key) {
        std::vector<std::string> out;
        const Json* v = optional(key);
        if (!v) return out;
        if (!v->is_array()) fail(path(key), "must be a list of strings");
        for (size_t i = 0; i < v->size(); ++i) {
            const Json& item = (*v)[i];
            if (!item.is_string() || item.get<std::string>().empty())
                fail(index_path(path(key), i), "must be a non-empty string");
            out.push_back(item.get<std::string>());
        }
        return out;
    }

    // The list under key (absent = empty unless required).
    const Json& array_field(const std::string& key) {
        const Json& v = required(key);
        if (!v.is_array()) fail(path(key), "must be a list");
        return v;
    }

    // The document's "schema" field must name exactly this format and version.
    void expect_schema(std::string_view expected) {
        const std::string got = string_field("schema");
        if (got != expected)
            fail(path("schema"), "must be \"" + std::string(expected) + "\", got \"" + got + "\"");
    }

    void reject_unknown() const {
        if (ReaderLog* log = ReaderLog::current()) log->keys[path_].insert(seen_.begin(), seen_.end());
        for (auto it = json_.begin(); it != json_.end(); ++it)
            if (!seen_.count(it.key())) fail(path(it.key()), "unknown field");
    }

private:
    const Json& json_;
    std::string path_;
    std::set<std::string> seen_;
};

}  // namespace shardscope::json_read
