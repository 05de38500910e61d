#pragma once
// A registered window for a panel whose content has not been built yet: it says what will be there.

#include "widgets/panel.hpp"

namespace shardscope::ui {

class PlaceholderPanel final : public Panel {
public:
    PlaceholderPanel(std::string id, std::string title, Placement placement, bool open, std::string purpose)
        : Panel(std::move(id), std::move(title), placement, open), purpose_(std::move(purpose)) {}
    void draw(AppState& state) override;

private:
    std::string purpose_;
};

}  // namespace shardscope::ui
