#include "run/validation_files.h"

#include "run/confusion_matrix_files.h"
#include "run/curve_chart_plot.h"

namespace trainer {

void save_validation_files(const std::optional<ConfusionMatrix>& confusion, const std::vector<CurveChart>& curves,
                           const std::filesystem::path& folder, bool plots) {
  if (confusion) save_confusion_matrix(*confusion, folder, plots);
  if (!plots) return;
  for (const CurveChart& chart : curves) draw_curve_chart(chart, folder / (chart.name + ".png"));
}

void ValidationFiles::on_epoch_end(const EpochRecord& record) {
  save_validation_files(record.confusion, record.curves, folder_, plots_);
}

}  // namespace trainer
