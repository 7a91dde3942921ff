// Catch2's runner inside a QApplication: item-model roles build QFont and QBrush values, which
// need a GUI application (offscreen in CTest).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>

int main(int argc, char** argv) {
  QApplication app(argc, argv);  // takes Qt's own options (-platform ...) out of argv
  return Catch::Session().run(argc, argv);
}
