#include "core/teaching/glossary.hpp"

#include "core/scenario/json_reader.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace shardscope {

using json_read::fail;
using json_read::index_path;
using json_read::Json;
using json_read::ObjectReader;

std::string normalise_term(std::string_view term) {
    std::string out;
    for (char c : term) {
        const bool separator = c == '-' || c == '_' || std::isspace(static_cast<unsigned char>(c));
        if (separator) {
            if (!out.empty() && out.back() != ' ') out.push_back(' ');
        } else {
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

const GlossaryEntry* Glossary::find(std::string_view term_or_alias) const {
    const std::string key = normalise_term(term_or_alias);
    for (const GlossaryEntry& e : entries_) {
        if (normalise_term(e.term) == key) return &e;
        for (const std::string& a : e.aliases)
            if (normalise_term(a) == key) return &e;
    }
    return nullptr;
}

std::vector<size_t> Glossary::referrers(size_t index) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < entries_.size(); ++i)
        for (const std::string& link : entries_[i].see_also)
            if (find(link) == &entries_[index]) {
                out.push_back(i);
                break;
            }
    return out;
}

std::vector<std::string> Glossary::groups() const {
    std::vector<std::string> out;
    for (const GlossaryEntry& e : entries_)
        if (std::find(out.begin(), out.end(), e.group) == out.end()) out.push_back(e.group);
    return out;
}

namespace {

std::vector<std::string> words_of(std::string_view query) {
    std::istringstream in(normalise_term(query));
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

bool contains_all(const std::string& haystack, const std::vector<std::string>& words) {
    return std::all_of(words.begin(), words.end(),
                       [&](const std::string& w) { return haystack.find(w) != std::string::npos; });
}

}  // namespace

std::vector<size_t> Glossary::search(std::string_view query) const {
    const std::vector<std::string> words = words_of(query);
    std::vector<size_t> by_name, by_text;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const GlossaryEntry& e = entries_[i];
        std::string names = normalise_term(e.term);
        for (const std::string& a : e.aliases) names += " | " + normalise_term(a);
        if (contains_all(names, words)) by_name.push_back(i);
        else if (contains_all(names + " " + normalise_term(e.definition), words)) by_text.push_back(i);
    }
    by_name.insert(by_name.end(), by_text.begin(), by_text.end());
    return by_name;
}

namespace {

// The term first, then its aliases.
std::vector<std::string> names_of(const GlossaryEntry& e) {
    std::vector<std::string> names = e.aliases;
    names.insert(names.begin(), e.term);
    return names;
}

GlossaryEntry read_entry(const Json& j, const std::string& path) {
    ObjectReader r(j, path);
    GlossaryEntry e;
    e.term = r.text_field("term");
    e.aliases = r.string_list("aliases");
    e.group = r.text_field("group");
    e.definition = r.text_field("definition");
    e.see_also = r.string_list("see_also");
    r.reject_unknown();
    return e;
}

Glossary read_glossary(const Json& doc, std::vector<std::string>& skipped) {
    ObjectReader r(doc, "");
    r.expect_schema(kGlossarySchema);
    const Json& terms = r.array_field("terms");
    r.reject_unknown();
    std::vector<GlossaryEntry> entries;
    std::vector<std::string> paths;       // each kept entry's place in the file
    std::map<std::string, size_t> owner;  // normalised name -> entry index
    for (size_t i = 0; i < terms.size(); ++i) {
        const std::string path = index_path("terms", i);
        GlossaryEntry e;
        const std::string error = json_read::first_error([&] {
            e = read_entry(terms[i], path);
            for (const std::string& name : names_of(e)) {
                const auto it = owner.find(normalise_term(name));
                if (it != owner.end())
                    fail(path, "\"" + name + "\" is already the term or an alias of \"" + entries[it->second].term + "\"");
            }
        });
        if (!error.empty()) {
            skipped.push_back(error + "; the entry is left out");
            continue;
        }
        for (const std::string& name : names_of(e)) owner.emplace(normalise_term(name), entries.size());
        entries.push_back(std::move(e));
        paths.push_back(path);
    }
    for (size_t i = 0; i < entries.size(); ++i) {
        GlossaryEntry& e = entries[i];
        std::vector<std::string> kept;
        for (size_t k = 0; k < e.see_also.size(); ++k) {
            if (owner.count(normalise_term(e.see_also[k]))) kept.push_back(e.see_also[k]);
            else
                skipped.push_back(index_path(paths[i] + ".see_also", k) + ": \"" + e.see_also[k] +
                                  "\" is not a term of the glossary; the link is left out");
        }
        e.see_also = std::move(kept);
    }
    return Glossary(std::move(entries));
}

}  // namespace

GlossaryLoad parse_glossary(std::string_view json_text, const std::string& file) {
    GlossaryLoad out;
    std::vector<std::string> skipped;
    const std::string error =
        json_read::first_error([&] { out.glossary = read_glossary(json_read::parse_document(json_text), skipped); });
    if (!error.empty()) out.error = file + ": " + error;
    for (const std::string& why : skipped) out.skipped.push_back(file + ": " + why);
    return out;
}

}  // namespace shardscope
