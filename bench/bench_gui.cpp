// meshscope_gui_bench: the app's responsiveness on the default project (issue 5's targets).
//   start-up: from the QApplication to the first filled screen — every view showing the
//             evaluation of the best-ranked layout, painted once (grab) — target < 2 s;
//   edits:    from a parameter edit in the workload panel to every view showing its evaluation
//             and painted, debounce included — target < 100 ms.
// Run offscreen: QT_QPA_PLATFORM=offscreen build/bench/bench/meshscope_gui_bench [repetitions]
#include <QApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/project/project.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/window/main_window.hpp"

namespace {

using namespace meshscope;

struct Edit {
  const char* what;
  std::function<void(ui::MainWindow&, int)> apply;  // the int alternates between two values
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Paints every visible view once, as the screen would after the update.
void paint(ui::MainWindow& window) {
  (void)window.grab();
}

}  // namespace

int main(int argc, char** argv) {
  QElapsedTimer clock;
  clock.start();
  QApplication app(argc, argv);
  const int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;

  auto project = default_project();
  if (!project) {
    std::fprintf(stderr, "%s\n", project.error().to_string().c_str());
    return 1;
  }
  ui::MainWindow::Options options;
  options.select_best_layout = true;
  ui::MainWindow window(*project, options);
  window.show();
  window.waitForEvaluation();
  paint(window);
  const double startup_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  std::printf("start-up to a filled first screen (best-ranked layout selected): %.0f ms\n", startup_ms);

  const std::vector<Edit> edits = {
      {"layout: micro_batch 1 <-> 2",
       [](ui::MainWindow& w, int i) {
         (void)w.workloadPanel()->layoutForm()->setValue("micro_batch", i % 2 ? "2" : "1");
       }},
      {"layout: vpp 5 <-> 4",
       [](ui::MainWindow& w, int i) { (void)w.workloadPanel()->layoutForm()->setValue("vpp", i % 2 ? "4" : "5"); }},
      {"training: global_batch 512 <-> 1024",
       [](ui::MainWindow& w, int i) {
         (void)w.workloadPanel()->trainingForm()->setValue("global_batch", i % 2 ? "1024" : "512");
       }},
      {"training: seq 8192 <-> 4096 (re-runs the search)",
       [](ui::MainWindow& w, int i) {
         (void)w.workloadPanel()->trainingForm()->setValue("seq", i % 2 ? "4096" : "8192");
       }},
      {"training: recompute none <-> full",
       [](ui::MainWindow& w, int i) {
         (void)w.workloadPanel()->trainingForm()->setValue("recompute", i % 2 ? "full" : "none");
       }},
  };
  std::printf("%-50s %10s %10s %12s %10s   (%d edits each; debounce %d ms included)\n", "edit", "median ms", "max ms",
              "evaluated ms", "paint ms", repetitions, ui::Evaluator::kDefaultDebounceMs);
  for (const Edit& edit : edits) {
    std::vector<double> times, evaluated, painted;
    for (int i = 1; i <= repetitions; ++i) {
      QElapsedTimer timer;
      timer.start();
      edit.apply(window, i);
      window.waitForEvaluation();
      const double shown = static_cast<double>(timer.nsecsElapsed()) / 1e6;
      paint(window);
      const double total = static_cast<double>(timer.nsecsElapsed()) / 1e6;
      times.push_back(total);
      evaluated.push_back(shown);
      painted.push_back(total - shown);
    }
    std::printf("%-50s %10.1f %10.1f %12.1f %10.1f\n", edit.what, median(times),
                *std::max_element(times.begin(), times.end()), median(evaluated), median(painted));
  }
  return 0;
}
