#pragma once
// The glossary (assets/glossary.json): every term the app explains, in our own words, grouped and
// cross-linked. It backs the Glossary panel, the hover links in lessons ([[term]]) and tooltips in
// other panels. No I/O: the app hands the file's text in.
//
// File: { "schema": "shardscope.glossary/1",
//         "terms": [ { "term": "All-reduce", "aliases": ["allreduce"], "group": "Collectives",
//                      "definition": "...", "see_also": ["Reduce-scatter", "All-gather"] } ] }
// Lookups ignore case and treat spaces, hyphens and underscores alike ("all reduce" = "All-reduce").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

inline constexpr std::string_view kGlossarySchema = "shardscope.glossary/1";

struct GlossaryEntry {
    std::string term;
    std::vector<std::string> aliases;
    std::string group;
    std::string definition;
    std::vector<std::string> see_also;  // other terms (or aliases), each must resolve
};

class Glossary {
public:
    Glossary() = default;
    explicit Glossary(std::vector<GlossaryEntry> entries) : entries_(std::move(entries)) {}

    [[nodiscard]] const std::vector<GlossaryEntry>& entries() const noexcept { return entries_; }
    [[nodiscard]] size_t size() const noexcept { return entries_.size(); }
    // By term or alias; nullptr when unknown.
    [[nodiscard]] const GlossaryEntry* find(std::string_view term_or_alias) const;
    // Entries whose see-also links point at entry `index` (the cross-links back), in file order.
    [[nodiscard]] std::vector<size_t> referrers(size_t index) const;
    // Groups in order of first appearance.
    [[nodiscard]] std::vector<std::string> groups() const;
    // Indices of the entries matching every word of `query` in term, aliases or definition; entries
    // whose term or alias matches come first. An empty query matches everything, in file order.
    [[nodiscard]] std::vector<size_t> search(std::string_view query) const;

private:
    std::vector<GlossaryEntry> entries_;
};

// "All-Reduce", "all reduce" and "all_reduce" all become "all reduce".
[[nodiscard]] std::string normalise_term(std::string_view term);

struct GlossaryLoad {
    std::optional<Glossary> glossary;
    std::string error;  // "FILE: FIELD: RULE" when the document itself is unreadable
    // The entries left out (and see-also links dropped), each "FILE: terms[K].FIELD: RULE": one bad
    // entry costs only itself.
    std::vector<std::string> skipped;
    [[nodiscard]] bool ok() const noexcept { return glossary.has_value(); }
};

// Strict, entry by entry: an entry with an unknown field or an empty definition, or whose term or
// alias another entry already names, is left out and named in `skipped`; a see-also link that does
// not resolve is dropped and named. A document that is not a glossary is an error.
[[nodiscard]] GlossaryLoad parse_glossary(std::string_view json_text, const std::string& file);

}  // namespace shardscope
