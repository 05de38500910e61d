#pragma once
// The strict JSON reader behind parse_scenario, shared with the preset loaders (core/presets.cpp) so
// a preset file is read by exactly the same rules as a scenario's "model" or "cluster" object.
// Internal to core: nothing outside core/ should include it.

#include "core/scenario.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <set>
#include <string>

namespace shardscope::detail {

using Json = nlohmann::ordered_json;

// Thrown inside the loader only; parse_scenario turns it into ScenarioLoad::error.
struct FieldError {
    std::string message;
};

[[noreturn]] inline void fail(const std::string& path, const std::string& rule) {
    throw FieldError{path + ": " + rule};
}

inline std::string join_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

// Reads one JSON object field by field and rejects keys nobody asked for (typos must not pass).
class ObjectReader {
public:
    ObjectReader(const Json& j, std::string path) : json_(j), path_(std::move(path)) {
        if (!json_.is_object()) fail(path_.empty() ? "(document)" : path_, "must be an object");
    }

    [[nodiscard]] bool has(const std::string& key) const { return json_.contains(key); }

    const Json& required(const std::string& key) {
        seen_.insert(key);
        if (!json_.contains(key)) fail(join_path(path_, key), "is required");
        return json_.at(key);
    }

    std::string path(const std::string& key) const { return join_path(path_, key); }

    std::string string_field(const std::string& key, std::optional<std::string> fallback = std::nullopt) {
        if (!has(key) && fallback) return *fallback;
        const Json& v = required(key);
        if (!v.is_string()) fail(path(key), "must be a string");
        return v.get<std::string>();
    }

    int64_t int_field(const std::string& key, std::optional<int64_t> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const Json& v = required(key);
        if (v.is_number_integer() || v.is_number_unsigned()) return v.get<int64_t>();
        if (v.is_number_float()) {
            const double d = v.get<double>();
            if (std::floor(d) == d && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
        }
        fail(path(key), "must be a whole number");
    }

    double number_field(const std::string& key, std::optional<double> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const Json& v = required(key);
        if (!v.is_number()) fail(path(key), "must be a number");
        const double d = v.get<double>();
        if (!std::isfinite(d)) fail(path(key), "must be finite");
        return d;
    }

    bool bool_field(const std::string& key, std::optional<bool> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const Json& v = required(key);
        if (!v.is_boolean()) fail(path(key), "must be true or false");
        return v.get<bool>();
    }

    template <typename Enum>
    Enum enum_field(const std::string& key, std::optional<Enum> (*parse)(std::string_view) noexcept,
                    const char* allowed, std::optional<Enum> fallback = std::nullopt) {
        if (!has(key) && fallback) { seen_.insert(key); return *fallback; }
        const std::string s = string_field(key);
        if (auto e = parse(s)) return *e;
        fail(path(key), "\"" + s + "\" is not one of " + allowed);
    }

    void reject_unknown() const {
        for (auto it = json_.begin(); it != json_.end(); ++it)
            if (!seen_.count(it.key())) fail(join_path(path_, it.key()), "unknown field");
    }

private:
    const Json& json_;
    std::string path_;
    std::set<std::string> seen_;
};

// The "model" and "cluster" objects of a scenario (paths in messages start with "model." / "cluster.").
// Throw FieldError on the first broken field rule; cross-field rules are validate_model / validate_cluster.
[[nodiscard]] ModelSpec read_model(const Json& j);
[[nodiscard]] ClusterSpec read_cluster(const Json& j);

}  // namespace shardscope::detail
