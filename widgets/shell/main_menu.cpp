#include "widgets/shell/main_menu.hpp"

#include "widgets/shell/copy_out.hpp"
#include "widgets/kit/item_rects.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // ClosePopupsExceptModals

namespace shardscope::ui {

namespace {

void draw_copy_as_menu(AppState& state) {
    const bool open = ImGui::BeginMenu("Copy scenario as");
    note_last_item("menu/File/copy");
    if (!open) return;
    for (ExportTarget t : export_targets()) {
        if (ImGui::MenuItem(framework_label(t).c_str())) copy_scenario_as(state, state.scenario(), t, "the scenario");
        note_last_item("menu/File/copy/" + std::string(to_string(t)));
    }
    ImGui::EndMenu();
}

void draw_file_menu(AppState& state) {
    const bool open = ImGui::BeginMenu("File");
    note_last_item("menu/File");
    if (!open) return;
    if (ImGui::MenuItem("New scenario", "Ctrl+N")) state.requests.new_scenario = true;
    note_last_item("menu/File/new");
    if (ImGui::MenuItem("Open scenario...", "Ctrl+O")) state.ui.file_dialog = FileDialogMode::open;
    note_last_item("menu/File/open");
    if (ImGui::MenuItem("Import model...")) state.ui.file_dialog = FileDialogMode::import_model;
    note_last_item("menu/File/import");
    if (ImGui::MenuItem("Save scenario", "Ctrl+S")) save_or_save_as(state, false);
    note_last_item("menu/File/save");
    if (ImGui::MenuItem("Save scenario as...", "Ctrl+Shift+S")) save_or_save_as(state, true);
    note_last_item("menu/File/save_as");
    if (state.ui.keeps_recent_files && ImGui::BeginMenu("Recent files", !state.ui.recent_files.empty())) {
        for (const std::string& path : state.ui.recent_files)
            if (ImGui::MenuItem(path.c_str())) state.requests.open_path = path;
        ImGui::EndMenu();
    }
    ImGui::Separator();
    draw_copy_as_menu(state);
    if (ImGui::MenuItem("Export trace of the step...")) state.ui.file_dialog = FileDialogMode::export_trace;
    note_last_item("menu/File/trace");
    if (ImGui::MenuItem("Export screenshot", "F12")) state.requests.screenshot = true;
    note_last_item("menu/File/screenshot");
    if (state.ui.can_quit) {
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) state.requests.quit = true;
        note_last_item("menu/File/quit");
    }
    ImGui::EndMenu();
}

void draw_edit_menu(AppState& state) {
    const bool open = ImGui::BeginMenu("Edit");
    note_last_item("menu/Edit");
    if (!open) return;
    if (ImGui::MenuItem("Undo", "Ctrl+Z", false, state.can_undo())) state.undo();
    note_last_item("menu/Edit/undo");
    if (ImGui::MenuItem("Redo", "Ctrl+Shift+Z / Ctrl+Y", false, state.can_redo())) state.redo();
    note_last_item("menu/Edit/redo");
    ImGui::EndMenu();
}

void draw_view_menu(PanelRegistry& registry) {
    const bool open = ImGui::BeginMenu("View");
    note_last_item("menu/View");
    if (!open) return;
    for (const auto& panel : registry.panels()) {
        // Ticked closes it; unticked opens it in a tile of its own beside the open panels.
        if (ImGui::MenuItem(panel->title().c_str(), nullptr, panel->open)) {
            if (panel->open) panel->open = false;
            else registry.open_tiled(panel->id());
        }
        note_last_item("menu/View/" + panel->id());
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Reset layout")) registry.restore_default_layout();
    note_last_item("menu/View/reset");
    ImGui::EndMenu();
}

// Opens a teaching panel where a newcomer looks first: the Help menu.
void help_panel_item(PanelRegistry& registry, const char* label, const char* id) {
    Panel* panel = registry.find(id);
    if (!panel) return;
    if (ImGui::MenuItem(label)) registry.open_tiled(id);
    note_last_item(std::string("menu/Help/") + id);
}

void draw_help_menu(AppState& state, PanelRegistry& registry) {
    const bool open = ImGui::BeginMenu("Help");
    note_last_item("menu/Help");
    if (!open) return;
    help_panel_item(registry, "Lessons: start here", "lesson");
    help_panel_item(registry, "Glossary", "glossary");
    help_panel_item(registry, "Cheat sheet", "cheatsheet");
    ImGui::Separator();
    ImGui::MenuItem("Keyboard shortcuts", nullptr, &state.ui.show_shortcuts);
    note_last_item("menu/Help/shortcuts");
    ImGui::MenuItem("About Shardscope", nullptr, &state.ui.show_about);
    note_last_item("menu/Help/about");
    ImGui::EndMenu();
}

}  // namespace

void draw_main_menu(AppState& state, PanelRegistry& registry) {
    // Escape closes an open menu or combo list, as in any desktop program; ImGui 1.86 does so only with
    // keyboard navigation on, which would also take the arrow keys the lessons step with. Dialogs
    // (modal) answer Escape themselves.
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) ImGui::ClosePopupsExceptModals();
    if (!ImGui::BeginMainMenuBar()) return;
    draw_file_menu(state);
    draw_edit_menu(state);
    draw_view_menu(registry);
    draw_help_menu(state, registry);
    ImGui::EndMainMenuBar();
}

}  // namespace shardscope::ui
