#include "widgets/shell/dialogs.hpp"

#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/wrap.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // BringWindowToDisplayFront: the status line over every panel

#include <algorithm>
#include <string>
#include <string_view>

namespace shardscope::ui {

namespace {
// The lesson a newcomer starts with (lessons/01_why_split.json).
constexpr const char* kFirstLessonId = "why-split";
constexpr const char* kErrorPopup = "Could not use that file###error_modal";
constexpr const char* kImportPopup = "Import a Hugging Face model###import_modal";
constexpr const char* kDiscardPopup = "Unsaved changes###discard_modal";

// Dialog sizes in font heights, so they grow with the font at every scale.
ImVec2 ems(float width, float height = 0.0f) {
    const float f = ImGui::GetFontSize();
    return ImVec2(f * width, f * height);
}
constexpr float kButtonEms = 8.0f;  // a dialog's ordinary button
}

void draw_error_modal(AppState& state) {
    if (!state.ui.error_message.empty() && !ImGui::IsPopupOpen(kErrorPopup)) ImGui::OpenPopup(kErrorPopup);
    ImGui::SetNextWindowSize(ems(35.0f), ImGuiCond_Appearing);
    if (!ImGui::BeginPopupModal(kErrorPopup, nullptr)) return;
    ImGui::TextUnformatted(state.ui.error_title.c_str());
    ImGui::Separator();
    text_wrapped(state.ui.error_message);
    ImGui::Spacing();
    ImGui::TextDisabled("The current scenario is unchanged.");
    // Enter and Escape close it as OK does, as in any message box.
    const bool key_closes = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false) ||
                            ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
    if (ImGui::Button("OK", ems(kButtonEms)) || key_closes) {
        state.ui.error_message.clear();
        state.ui.error_title.clear();
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void draw_discard_question(AppState& state) {
    if (!state.ui.discard_question) return;
    const DiscardQuestion question = *state.ui.discard_question;
    if (!ImGui::IsPopupOpen(kDiscardPopup) && state.ui.error_message.empty()) ImGui::OpenPopup(kDiscardPopup);
    if (!ImGui::BeginPopupModal(kDiscardPopup, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    const std::string& file = state.ui.current_file;
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    text_wrapped("The scenario has changes that are not saved" + (file.empty() ? std::string() : " to " + file) + ".");
    text_wrapped(question.action == DiscardAction::quit           ? std::string("Quitting now loses them.")
                 : question.action == DiscardAction::new_scenario ? std::string("A new scenario replaces it and loses them.")
                                                                  : "Opening " + question.path +
                                                                        " replaces the scenario and loses them.");
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    const auto close = [&] {
        state.ui.discard_question.reset();
        ImGui::CloseCurrentPopup();
    };
    // Saving to a file it already has goes ahead once the save succeeds; without one, Save as is
    // the person's next step and the action waits for them to ask again.
    if (ImGui::Button(file.empty() ? "Save as..." : "Save", ems(kButtonEms))) {
        if (file.empty()) {
            state.ui.file_dialog = FileDialogMode::save;
        } else {
            state.ui.after_save = question;
            state.requests.save_path = file;
        }
        close();
    }
    note_last_item("discard/save");
    ImGui::SameLine();
    if (ImGui::Button("Discard changes", ems(10.0f))) {
        state.go_ahead(question);
        close();
    }
    note_last_item("discard/discard");
    ImGui::SameLine();
    if (ImGui::Button("Cancel", ems(kButtonEms)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) close();
    note_last_item("discard/cancel");
    ImGui::EndPopup();
}

void draw_model_import_modal(AppState& state) {
    if (!state.ui.pending_import) return;
    PendingModelImport& pending = *state.ui.pending_import;
    if (!ImGui::IsPopupOpen(kImportPopup) && state.ui.error_message.empty()) ImGui::OpenPopup(kImportPopup);
    ImGui::SetNextWindowSize(ems(35.0f), ImGuiCond_Appearing);
    // Grows and shrinks with the warning lines below, so the buttons are never cut off.
    if (!ImGui::BeginPopupModal(kImportPopup, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
    text_wrapped(pending.model);
    ImGui::TextDisabled("%s", pending.path.c_str());
    ImGui::Separator();
    if (pending.context_window > 0)
        text_wrapped_f("Its config gives max_position_embeddings = %lld: the longest context the model takes, not "
                           "the length a run trains at.",
                           static_cast<long long>(pending.context_window));
    else
        text_wrapped("A Hugging Face config does not say the length a run trains at.");
    ImGui::TextUnformatted("Train at a sequence length of (tokens):");
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const ImS64 one = 1;
    ImGui::SetNextItemWidth(160);
    ImGui::InputScalar("##seq_len", ImGuiDataType_S64, &pending.seq_len, &one);
    note_last_item("import/seq_len");
    const bool valid = pending.seq_len > 0;
    if (!valid) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "A sequence is at least 1 token.");
    else if (pending.context_window > 0 && pending.seq_len > pending.context_window)
        ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1), "Longer than the model's context window.");
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    ImGui::BeginDisabled(!valid);
    const bool accept = ImGui::Button("Import", ems(kButtonEms)) ||
                        (valid && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false));
    ImGui::EndDisabled();
    note_last_item("import/ok");
    ImGui::SameLine();
    const bool cancel = ImGui::Button("Cancel", ems(kButtonEms)) ||
                        ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
    note_last_item("import/cancel");
    if (accept) state.requests.import_model = ModelImportRequest{pending.path, pending.seq_len};
    if (accept || cancel) {
        if (cancel) state.ui.status = "Import cancelled: the scenario is unchanged";
        state.ui.pending_import.reset();
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void draw_welcome_window(AppState& state, PanelRegistry& registry) {
    if (!state.ui.show_welcome) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.35f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ems(32.0f), ImGuiCond_Appearing);
    bool open = true;
    if (ImGui::Begin("Welcome to Shardscope###welcome", &open,
                     ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
        if (ImGui::IsWindowAppearing()) ImGui::SetWindowFocus();  // in front once, then like any window
        text_wrapped("Shardscope shows how LLM training is split across GPUs and what each split costs: "
                     "what every GPU holds and sends, memory per GPU, step time.");
        ImGui::Spacing();
        text_wrapped("New to it? Nine short lessons walk through each strategy, driving the panels as they "
                     "go, each step with a question to check yourself. They are always under Help > "
                     "Lessons: start here.");
        ImGui::Spacing();
        if (ImGui::Button("Start the first lesson")) {
            const std::string error = registry.run_action(state, "lesson.open=" + std::string(kFirstLessonId));
            if (!error.empty()) state.ui.status = error;
            open = false;
        }
        note_last_item("welcome/start");
        ImGui::SameLine();
        if (ImGui::Button("Not now")) open = false;
        note_last_item("welcome/dismiss");
    }
    ImGui::End();
    if (!open) {
        state.ui.show_welcome = false;
        state.ui.welcome_answered = true;
    }
}

namespace {

// A window opened from Help comes up in the middle of the app, not at ImGui's default corner on top
// of whatever was opened there before.
void appear_centred() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
}

// Escape closes a small window of its own (About, Keyboard shortcuts) while it has the focus, as a
// desktop program's dialogs close.
void close_on_escape(bool& shown) {
    if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) &&
        ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
        shown = false;
}

}  // namespace

void draw_about_window(AppState& state) {
    if (!state.ui.show_about) return;
    ImGui::SetNextWindowSize(ems(29.0f), ImGuiCond_Appearing);
    appear_centred();
    if (ImGui::Begin("About Shardscope###about", &state.ui.show_about, ImGuiWindowFlags_NoCollapse)) {
        close_on_escape(state.ui.show_about);
        ImGui::Text("Shardscope %s", SHARDSCOPE_VERSION);
        text_wrapped("See and price how LLM training is split across GPUs.");
        ImGui::Separator();
        if (ImGui::BeginTable("versions", 2, ImGuiTableFlags_BordersInnerH)) {
            for (const auto& [library, version] : state.ui.library_versions) {
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(library.c_str());
                ImGui::TableNextColumn();
                text_wrapped(version);  // a WebGL or driver string can be long
            }
            ImGui::EndTable();
        }
    }
    ImGui::End();
}

void draw_shortcuts_window(AppState& state) {
    if (!state.ui.show_shortcuts) return;
    static constexpr const char* kShortcuts[][2] = {
        {"Ctrl+N", "New scenario (the default one, untitled)"},
        {"Ctrl+O", "Open a scenario"},       {"Ctrl+S", "Save the scenario (to its file)"},
        {"Ctrl+Shift+S", "Save the scenario as"},
        {"Ctrl+Z", "Undo a scenario edit"},  {"Ctrl+Shift+Z or Ctrl+Y", "Redo"},
        {"F12", "Export a screenshot (PNG)"}, {"Ctrl+Q", "Quit"},
        {"Escape", "Close a menu, a list, or this window"},
        {"Left / Right", "Lesson: previous / next step; in the Collective animator (clicked): step back / forward"},
        {"Space", "Collective animator (clicked): play / pause"},
        {"Home / End", "Collective animator (clicked): the start / the last step"},
        {"Enter", "Lesson: check a typed answer; file browser: open or save the typed name"},
        {"Mouse wheel", "Pipeline timeline, Device mesh: zoom around the mouse"},
        {"Drag", "Pipeline timeline, Device mesh: pan; Device mesh order: move a dim"},
        {"Double-click", "Pipeline timeline, Device mesh: fit everything in view"},
        {"Drop a .json", "Open that scenario, or import that model (preset or Hugging Face config.json)"},
    };
    appear_centred();
    if (ImGui::Begin("Keyboard shortcuts###shortcuts", &state.ui.show_shortcuts, ImGuiWindowFlags_AlwaysAutoResize)) {
        close_on_escape(state.ui.show_shortcuts);
        if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg)) {
            for (const auto& row : kShortcuts) {
                if (!state.ui.can_quit && std::string_view(row[0]) == "Ctrl+Q") continue;
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(row[0]);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(row[1]);
            }
            ImGui::EndTable();
            note_last_item("shortcuts/table");
        }
    }
    ImGui::End();
}

void draw_status_line(const AppState& state) {
    if (state.ui.status.empty()) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    // As tall as the message wrapped to the window's width: a long one is read whole, not cut off.
    const float padding = 8.0f;
    const float text_h = ImGui::CalcTextSize(state.ui.status.c_str(), nullptr, false, vp->WorkSize.x - 2 * padding).y;
    const float height = std::max(ImGui::GetFrameHeight(), text_h + 4.0f);
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - height));
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, height));
    ImGui::SetNextWindowBgAlpha(1.0f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(padding, 2));
    if (ImGui::Begin("##status", nullptr, flags)) {
        // A message of several lines (an export's notes) rises over the panels' bottom rows: opaque and
        // in front of them, or a panel clicked since would cover it and text behind would show through.
        ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
        text_wrapped(state.ui.status);
    }
    ImGui::End();
    ImGui::PopStyleVar();
}

}  // namespace shardscope::ui
