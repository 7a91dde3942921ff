#pragma once
// The app's own settings (QSettings, ~/.config/meshscope/meshscope.conf): one key table (name, type,
// default, what it is for) and one typed accessor per key, so that no widget spells a settings key.
#include <QByteArray>
#include <QMetaType>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <array>

namespace meshscope::ui {

class AppSettings {
 public:
  enum class Key { autosave_interval_s, recent_files, window_geometry, window_state, presenter_mode };
  struct KeySpec {
    Key key;
    const char* name;  // the QSettings key: unchanged since it was first written
    QMetaType::Type type;
    QVariant default_value;
    const char* help;
  };
  static constexpr int kDefaultAutosaveIntervalS = 60;
  static constexpr int kKeyCount = 5;

  // Every setting, in Key order.
  [[nodiscard]] static const std::array<KeySpec, kKeyCount>& keys();
  [[nodiscard]] static const KeySpec& spec(Key key);

  // How often an unsaved project is written to the recovery file (seconds, ≥ 1).
  [[nodiscard]] int autosave_interval_s() const;
  void set_autosave_interval_s(int seconds);
  // File → Open Recent, most recent first.
  [[nodiscard]] QStringList recent_files() const;
  void set_recent_files(const QStringList& paths);
  // The main window's geometry and dock arrangement (QMainWindow::saveGeometry, saveState).
  [[nodiscard]] QByteArray window_geometry() const;
  void set_window_geometry(const QByteArray& geometry);
  [[nodiscard]] QByteArray window_state() const;
  void set_window_state(const QByteArray& state);

  // View → Presenter mode, as the user left it (ui/lessons/lesson_controller.cpp).
  [[nodiscard]] bool presenter_mode() const;
  void set_presenter_mode(bool on);

  // Forgets a setting (it reads as its default again).
  void reset(Key key);

 private:
  [[nodiscard]] QVariant value(Key key) const;
  void set_value(Key key, const QVariant& value);

  QSettings settings_;
};

}  // namespace meshscope::ui
