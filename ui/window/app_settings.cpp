#include "ui/window/app_settings.hpp"

#include <algorithm>

namespace meshscope::ui {

const std::array<AppSettings::KeySpec, AppSettings::kKeyCount>& AppSettings::keys() {
  static const std::array<KeySpec, kKeyCount> table = {{
      {Key::autosave_interval_s, "autosaveIntervalSeconds", QMetaType::Int, kDefaultAutosaveIntervalS,
       "seconds between writes of an unsaved project to the recovery file"},
      {Key::recent_files, "recentFiles", QMetaType::QStringList, QStringList(), "File → Open Recent, newest first"},
      {Key::window_geometry, "geometry", QMetaType::QByteArray, QByteArray(), "QMainWindow::saveGeometry()"},
      {Key::window_state, "windowState", QMetaType::QByteArray, QByteArray(), "QMainWindow::saveState(): the docks"},
      {Key::presenter_mode, "presenterMode", QMetaType::Bool, false, "View → Presenter mode is on"},
  }};
  return table;
}

const AppSettings::KeySpec& AppSettings::spec(Key key) {
  return keys()[static_cast<size_t>(key)];
}

QVariant AppSettings::value(Key key) const {
  // As stored; each accessor converts it to the key's type (QSettings' INI files keep no types).
  const KeySpec& s = spec(key);
  return settings_.value(QLatin1String(s.name), s.default_value);
}

void AppSettings::set_value(Key key, const QVariant& value) {
  settings_.setValue(QLatin1String(spec(key).name), value);
}

void AppSettings::reset(Key key) {
  settings_.remove(QLatin1String(spec(key).name));
}

int AppSettings::autosave_interval_s() const {
  return std::max(1, value(Key::autosave_interval_s).toInt());
}

void AppSettings::set_autosave_interval_s(int seconds) {
  set_value(Key::autosave_interval_s, std::max(1, seconds));
}

QStringList AppSettings::recent_files() const {
  return value(Key::recent_files).toStringList();
}

void AppSettings::set_recent_files(const QStringList& paths) {
  set_value(Key::recent_files, paths);
}

QByteArray AppSettings::window_geometry() const {
  return value(Key::window_geometry).toByteArray();
}

void AppSettings::set_window_geometry(const QByteArray& geometry) {
  set_value(Key::window_geometry, geometry);
}

QByteArray AppSettings::window_state() const {
  return value(Key::window_state).toByteArray();
}

void AppSettings::set_window_state(const QByteArray& state) {
  set_value(Key::window_state, state);
}

bool AppSettings::presenter_mode() const {
  return value(Key::presenter_mode).toBool();
}

void AppSettings::set_presenter_mode(bool on) {
  set_value(Key::presenter_mode, on);
}

}  // namespace meshscope::ui
