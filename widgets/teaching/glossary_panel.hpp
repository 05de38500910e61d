#pragma once
// The Glossary panel: every term in our own words, searchable, grouped, cross-linked. It reads
// the glossary the app shared (widgets/kit/glossary_tooltip.hpp), the same one behind every hover link.
//
// Two passes: build_view() filters and groups the entries into GlossaryView (what tests read), draw()
// paints the list and the selected term.

#include "widgets/shell/panel.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

struct GlossaryGroupRows {
    std::string group;
    std::vector<size_t> entries;   // indices into Glossary::entries()
};

struct GlossaryView {
    std::vector<GlossaryGroupRows> groups;
    size_t matches = 0;
    size_t total = 0;
    int selected = -1;             // entry index, -1 none
};

// Where a lesson explains a term: the lesson and the first step whose text links to it.
struct LessonMention {
    std::string lesson_id;
    std::string title;
    int step = 1;  // from 1

    bool operator==(const std::string& lesson_title) const { return title == lesson_title; }
};

class GlossaryPanel final : public Panel {
public:
    GlossaryPanel(PanelRegistry& registry, Placement placement);

    void draw(AppState& state) override;
    [[nodiscard]] std::string probe_state() const override { return std::string("search \"") + search_.data() + "\""; }

    // The lessons that explain each glossary term (the term as the glossary spells it), in lesson
    // order: links under a definition that open the lesson at that step.
    void set_lesson_mentions(std::map<std::string, std::vector<LessonMention>> mentions) { mentions_ = std::move(mentions); }
    [[nodiscard]] const std::map<std::string, std::vector<LessonMention>>& lesson_mentions() const noexcept { return mentions_; }

    // Selects a term (by term or alias); false when the glossary has no such term.
    bool select(const std::string& term);
    void set_search(const std::string& text);
    [[nodiscard]] GlossaryView build_view() const;
    [[nodiscard]] const GlossaryView& last_view() const noexcept { return view_; }

private:
    void declare_actions();
    void draw_list(const GlossaryView& v);
    void draw_entry(const GlossaryView& v);
    void draw_links(const std::vector<std::string>& terms, const char* id);

    std::array<char, 128> search_{};
    bool search_set_outside_ = false;  // set by an action or a link since the field last drew
    std::string group_;            // "" = all groups
    int selected_ = -1;
    bool scroll_to_selected_ = false;
    // Where a link was followed from: the term shown and the search typed, newest last (Back).
    struct Visit {
        int selected;
        std::array<char, 128> search;
        std::string group;
    };
    std::vector<Visit> back_;
    // Follows a See also / Linked from link, remembering where it came from.
    void follow_link(const std::string& term);
    void go_back();
    GlossaryView view_;
    std::map<std::string, std::vector<LessonMention>> mentions_;
    PanelRegistry& registry_;
    std::optional<LessonMention> open_request_;  // a lesson link clicked this frame
};

}  // namespace shardscope::ui
