#pragma once
// The app's own settings (QSettings, ~/.config/meshscope/meshscope.conf): one typed accessor per
// key, so that no widget spells a settings key.
#include <QSettings>

#include <algorithm>

namespace meshscope::ui {

class AppSettings {
 public:
  static constexpr int kDefaultAutosaveIntervalS = 60;

  // How often an unsaved project is written to the recovery file (seconds, ≥ 1).
  [[nodiscard]] int autosave_interval_s() const {
    return std::max(1, settings_.value(kAutosaveKey, kDefaultAutosaveIntervalS).toInt());
  }
  void set_autosave_interval_s(int seconds) { settings_.setValue(kAutosaveKey, std::max(1, seconds)); }

 private:
  static constexpr const char* kAutosaveKey = "autosaveIntervalSeconds";
  QSettings settings_;
};

}  // namespace meshscope::ui
