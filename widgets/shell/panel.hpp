#pragma once
// The panel framework: one class per panel (one file each), a registry that the View menu, the
// default layout and lessons use. A panel only lays out figures that core computed.

#include "widgets/shell/actions.hpp"
#include "widgets/shell/app_state.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shardscope::ui {

// Where a panel sits on first start, as fractions of the area below the menu bar (1.86 has no docking).
struct Placement {
    float x = 0, y = 0, w = 0.5f, h = 0.5f;
};

class Panel {
public:
    Panel(std::string id, std::string title, Placement placement, bool open_by_default)
        : open(open_by_default), id_(std::move(id)), title_(std::move(title)), placement_(placement),
          default_placement_(placement), open_by_default_(open_by_default) {}
    virtual ~Panel() = default;
    Panel(const Panel&) = delete;
    Panel& operator=(const Panel&) = delete;

    [[nodiscard]] const std::string& id() const noexcept { return id_; }
    [[nodiscard]] const std::string& title() const noexcept { return title_; }
    [[nodiscard]] const Placement& placement() const noexcept { return placement_; }
    void set_placement(Placement p) noexcept { placement_ = p; }
    // Back to the catalog's tile and open state (View > Reset layout after a lesson moved things).
    void restore_default_placement() noexcept {
        placement_ = default_placement_;
        open = open_by_default_;
    }
    // The window's name: the title shown, and the id after "###" so imgui.ini keeps it by id.
    [[nodiscard]] std::string window_name() const { return title_ + "###" + id_; }

    // Draws the panel's contents inside its window (Begin/End are the registry's).
    virtual void draw(AppState& state) = 0;
    // Called every frame before any window is drawn, open or not: a panel whose state is tied to what
    // happened elsewhere (a lesson on its step, whose scenario a New or an Open replaced) follows it.
    virtual void follow(AppState& state) { (void)state; }
    // A named action with a text value, from a lesson step or `--action ID.NAME=VALUE` (e.g. mesh
    // "dim" = "dp_shard", collective "step" = "5"), looked up in the panel's action table and its value
    // read by the one parser. Returns "" when done, else why not ("ID.NAME: rule").
    std::string act(AppState& state, const std::string& action, const std::string& value) {
        return actions_.run(id_, state, action, value);
    }
    // The actions this panel takes, with their value types (for `--action list`).
    [[nodiscard]] const ActionTable& actions() const noexcept { return actions_; }
    // Back to what a fresh view of the current scenario shows (no comparison left on, an animation at
    // its start): a lesson step or a cheat-sheet example calls it on the panels it shows, before its
    // own actions, so nothing leaks from what was shown before.
    virtual void reset_view(AppState& state) { (void)state; }
    // Draw the current scenario itself where the panel can also draw an example of its own (the
    // Pipeline timeline's From scenario): a cheat-sheet row that loads a scenario calls it.
    virtual void show_scenario(AppState& state) { (void)state; }
    // Whether the panel changes on screen by itself (an animation playing, a background job running):
    // while any open panel does, the window draws frames without waiting for input.
    [[nodiscard]] virtual bool animating() const { return false; }
    // Whether it changes by itself but slowly, so a few frames a second show it (a job on this
    // machine's CPU, which continuous frames under software GL would slow down).
    [[nodiscard]] virtual bool polling() const { return false; }
    // A line saying where the panel is (the step shown, playing or not) for the window tests' probe,
    // which reads what a person sees without reading pixels; empty for panels with nothing to say.
    [[nodiscard]] virtual std::string probe_state() const { return {}; }
    // The window opens at its top when next drawn: a lesson step or an example that brings the panel
    // into view shows it from the start, not where an earlier scroll left it.
    void scroll_to_top() noexcept { scroll_to_top_ = true; }

    bool open;

protected:
    // Filled by each panel's constructor; the UI controls call the same setters as these actions.
    ActionTable actions_;

private:
    friend class PanelRegistry;
    std::string id_;
    std::string title_;
    Placement placement_;
    Placement default_placement_;
    bool open_by_default_;
    unsigned placed_layout_ = 0;  // the registry's layout generation this window was last placed for
    bool scroll_to_top_ = false;
};

class PanelRegistry {
public:
    Panel& add(std::unique_ptr<Panel> panel);
    [[nodiscard]] Panel* find(const std::string& id) const;
    [[nodiscard]] const std::vector<std::unique_ptr<Panel>>& panels() const noexcept { return panels_; }

    // Draws every open panel in its own window; a highlighted one gets a pulsing outline.
    void draw_all(AppState& state, float seconds_since_start);
    // Lessons point at a panel by id ("" for none).
    // The outline pulses a few times from the moment it is set, then stays still (a window left on a
    // lesson step draws nothing until something moves).
    void set_highlight(std::string id) {
        if (id != highlighted_) highlight_since_s_ = -1.0f;
        highlighted_ = std::move(id);
    }
    [[nodiscard]] const std::string& highlighted() const noexcept { return highlighted_; }
    // Whether an open panel moves without input (an animation, a background job's progress).
    [[nodiscard]] bool animating() const;
    // Whether a lesson's outline pulses or an open panel polls: slow enough for a few frames a second.
    [[nodiscard]] bool pulsing() const;
    // Every window goes to its tile again the next time it is drawn: each panel is placed once per
    // request, even when the request comes midway through a frame (a lesson step opening panels) or
    // the panel is drawn only frames later.
    void reset_layout() { ++layout_; }
    // View > Reset layout: every panel back to the catalog's tile and open state, then placed.
    void restore_default_layout();
    // Opens a panel from a menu so that it covers none: it takes the right 45% of the work area at full
    // height, and the other open panels tile the rest in a grid, in View-menu order. One already open
    // only comes to the front.
    void open_tiled(const std::string& id);
    // Every open panel tiles the work area in a grid, in View-menu order.
    void tile_open_panels();
    // Whether any two open panels' windows cover more than 1% of the smaller (tiles share edges).
    [[nodiscard]] bool open_windows_overlap() const;
    // Whether the open panels' windows, clipped to the work area, cover at least 90% of it.
    [[nodiscard]] bool open_windows_cover_work_area() const;
    // Once the windows of a layout kept from an earlier run (imgui.ini) exist: when open panels cover
    // each other, as a layout saved during a lesson does under the default panels, or leave a tenth of
    // the window empty, as one saved with a panel open that does not open at start does, they tile
    // again. True when it re-tiled.
    bool tile_unless_tiled();
    // Opens exactly these panels (closing the rest), tiled side by side over the whole work area:
    // for `--show` screenshots and lessons that focus on one panel. Returns the unknown ids.
    std::vector<std::string> show_only(const std::vector<std::string>& ids);
    // Every panel's id, comma-separated, for a message that names the ones there are.
    [[nodiscard]] std::string id_list() const;
    // Runs "ID.NAME=VALUE" on panel ID; "" when done, else the reason (unknown panel, bad action).
    std::string run_action(AppState& state, const std::string& spec);

private:
    [[nodiscard]] std::vector<std::string> open_ids() const;

    std::vector<std::unique_ptr<Panel>> panels_;
    std::string highlighted_;
    float highlight_since_s_ = -1.0f;  // when the outline was first drawn; -1 before
    float last_drawn_s_ = 0.0f;        // the time draw_all was last given
    unsigned layout_ = 1;  // generation: panels placed for an older one are placed again
    float last_width_ = 0, last_height_ = 0;  // the window's size when last drawn: a resize re-tiles
    std::vector<std::string> last_open_;      // the panels open when last drawn: a closed one re-tiles
    unsigned last_layout_ = 0;                // the generation last drawn for
};

// Every panel's actions as a Markdown table (action, value, what it does), in View-menu order: what
// `--action list` prints and docs/cli.md's list of actions is.
[[nodiscard]] std::string action_reference(const PanelRegistry& registry);

}  // namespace shardscope::ui
