#include "tasks/detection_metrics.h"

#include <cstdint>
#include <numeric>

#include <fmt/format.h>

#include "tasks/box_ops.h"

namespace trainer {
namespace {

constexpr size_t kCurvePoints = 1000;

// The recall and precision of one class at IoU 0.5 after each of its detections, for Ultralytics'
// P and R and their curves.
struct ClassCurves {
  std::vector<double> confidence, recall, precision;  ///< after each detection, decreasing confidence
};

// numpy.interp(x, xp, fp, left) for increasing xp, with right = fp.back().
double interpolate(double x, const std::vector<double>& xp, const std::vector<double>& fp, double left) {
  if (x < xp.front()) return left;
  if (x >= xp.back()) return fp.back();
  const size_t j = static_cast<size_t>(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
  return fp[j] + (x - xp[j]) * (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
}

// Ultralytics' smooth(y, f): a box filter of round(2 f n) // 2 + 1 points, edge values repeated.
std::vector<double> smooth(const std::vector<double>& values, double fraction) {
  const size_t window = static_cast<size_t>(std::lround(static_cast<double>(values.size()) * fraction * 2)) / 2 + 1;
  const size_t half = window / 2;
  std::vector<double> padded(half, values.front());
  padded.insert(padded.end(), values.begin(), values.end());
  padded.insert(padded.end(), half, values.back());
  std::vector<double> out(values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = std::accumulate(padded.begin() + static_cast<std::ptrdiff_t>(i),
                             padded.begin() + static_cast<std::ptrdiff_t>(i + window), 0.0) /
             static_cast<double>(window);
  }
  return out;
}

// Made non-increasing from the right: the precision envelope AP reads.
void take_envelope(std::vector<double>& precision) {
  for (size_t i = precision.size(); i > 1; --i) precision[i - 2] = std::max(precision[i - 2], precision[i - 1]);
}

// x = 0, 1/999, ..., 1: Ultralytics' np.linspace(0, 1, 1000).
double curve_point(size_t k) { return static_cast<double>(k) / static_cast<double>(kCurvePoints - 1); }

// Ultralytics' per-class precision, recall and F1 at each confidence threshold, and the precision
// envelope at each recall.
void add_curves(const ClassCurves& source, DetectionSummary& summary) {
  std::vector<double> precision(kCurvePoints, 0.0), recall(kCurvePoints, 0.0), f1(kCurvePoints, 0.0),
      pr(kCurvePoints, 0.0);
  if (!source.confidence.empty()) {  // else Ultralytics leaves every curve at 0
    std::vector<double> negated(source.confidence.size());
    std::transform(source.confidence.begin(), source.confidence.end(), negated.begin(), [](double v) { return -v; });
    for (size_t k = 0; k < kCurvePoints; ++k) {
      recall[k] = interpolate(-curve_point(k), negated, source.recall, 0.0);
      precision[k] = interpolate(-curve_point(k), negated, source.precision, 1.0);
      f1[k] = 2 * precision[k] * recall[k] / (precision[k] + recall[k] + 1e-16);
    }
    // compute_ap's sentinels (recall 0 at precision 1, recall 1 at precision 0), then the envelope.
    std::vector<double> sentinel_recall{0.0}, envelope{1.0};
    sentinel_recall.insert(sentinel_recall.end(), source.recall.begin(), source.recall.end());
    envelope.insert(envelope.end(), source.precision.begin(), source.precision.end());
    sentinel_recall.push_back(1.0);
    envelope.push_back(0.0);
    take_envelope(envelope);
    for (size_t k = 0; k < kCurvePoints; ++k) pr[k] = interpolate(curve_point(k), sentinel_recall, envelope, 1.0);
  }
  summary.precision_curves.push_back(std::move(precision));
  summary.recall_curves.push_back(std::move(recall));
  summary.f1_curves.push_back(std::move(f1));
  summary.pr_curves.push_back(std::move(pr));
}

std::vector<double> mean_over_classes(const std::vector<std::vector<double>>& curves) {
  std::vector<double> mean(kCurvePoints, 0.0);
  for (const auto& curve : curves) {
    for (size_t k = 0; k < kCurvePoints; ++k) mean[k] += curve[k] / static_cast<double>(curves.size());
  }
  return mean;
}

}  // namespace

const std::array<double, 10>& coco_iou_thresholds() {
  // Bit for bit pycocotools' np.linspace(.5, .95, 10): start + i * ((stop - start) / 9), the last one stop.
  static const std::array<double, 10> thresholds = [] {
    std::array<double, 10> values{};
    const double step = (0.95 - 0.5) / 9;
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i) * step + 0.5;
    values.back() = 0.95;
    return values;
  }();
  return thresholds;
}

double average_precision(const std::vector<double>& recall, const std::vector<double>& precision) {
  TORCH_CHECK(recall.size() == precision.size(), "average_precision: ", recall.size(), " recalls, ", precision.size(),
              " precisions");
  std::vector<double> envelope = precision;
  take_envelope(envelope);
  double sum = 0;
  for (int k = 0; k <= 100; ++k) {
    // pycocotools samples np.linspace(0, 1, 101), whose values are k * 0.01 rather than k / 100.
    const double sample = k * 0.01;
    const auto reached = std::lower_bound(recall.begin(), recall.end(), sample);
    if (reached != recall.end()) sum += envelope[static_cast<size_t>(reached - recall.begin())];
  }
  return sum / 101;
}

void DetectionMetrics::add_image(const torch::Tensor& detections, const torch::Tensor& gt_boxes,
                                 const torch::Tensor& gt_classes) {
  TORCH_CHECK(detections.dim() == 2 && detections.size(1) == 6, "detections must be [N, 6], got ", detections.sizes());
  TORCH_CHECK(gt_boxes.dim() == 2 && gt_boxes.size(1) == 4 && gt_classes.numel() == gt_boxes.size(0),
              "ground truth must be [M, 4] boxes and [M] classes, got ", gt_boxes.sizes(), " and ", gt_classes.sizes());
  const torch::Tensor dets = detections.detach().to(torch::kCPU, torch::kDouble);
  const torch::Tensor truth = gt_boxes.detach().to(torch::kCPU, torch::kDouble);
  const torch::Tensor truth_classes = gt_classes.detach().to(torch::kCPU, torch::kLong).reshape({-1}).contiguous();
  const int64_t count = dets.size(0), truths = truth.size(0);
  const int64_t* truth_class = truth_classes.data_ptr<int64_t>();
  for (int64_t g = 0; g < truths; ++g) ++gt_counts_[truth_class[g]];

  const torch::Tensor iou = box_iou(dets.narrow(1, 0, 4).unsqueeze(1), truth.unsqueeze(0)).contiguous();  // [N, M]
  const auto overlap = iou.accessor<double, 2>();
  const auto row = dets.accessor<double, 2>();
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a][4] > row[b][4]; });

  std::vector<Detection> scored;
  for (const int64_t d : order) scored.push_back({row[d][4], static_cast<int64_t>(row[d][5]), {}});
  const std::array<double, 10>& thresholds = coco_iou_thresholds();
  for (size_t t = 0; t < thresholds.size(); ++t) {
    std::vector<bool> matched(static_cast<size_t>(truths), false);
    for (size_t i = 0; i < order.size(); ++i) {
      double best = std::min(thresholds[t], 1 - 1e-10);  // pycocotools' bound
      int64_t match = -1;
      for (int64_t g = 0; g < truths; ++g) {
        if (matched[static_cast<size_t>(g)] || truth_class[g] != scored[i].label || overlap[order[i]][g] < best)
          continue;
        best = overlap[order[i]][g];
        match = g;
      }
      if (match < 0) continue;
      matched[static_cast<size_t>(match)] = true;
      scored[i].correct[t] = true;
    }
  }
  detections_.insert(detections_.end(), scored.begin(), scored.end());
}

// Layout: class count G, G × (class, ground truth boxes), then per detection (confidence, class,
// the correct flags as a bit mask); every value is an integer or a confidence, exact in a double.
void DetectionMetrics::reset() {
  detections_.clear();
  gt_counts_.clear();
}

std::vector<double> DetectionMetrics::pack() const {
  std::vector<double> values{static_cast<double>(gt_counts_.size())};
  for (const auto& [label, count] : gt_counts_) values.insert(values.end(), {static_cast<double>(label), static_cast<double>(count)});
  for (const Detection& detection : detections_) {
    uint32_t mask = 0;
    for (size_t t = 0; t < detection.correct.size(); ++t) mask |= detection.correct[t] ? 1U << t : 0U;
    values.insert(values.end(), {detection.confidence, static_cast<double>(detection.label), static_cast<double>(mask)});
  }
  return values;
}

void DetectionMetrics::merge(const std::vector<double>& values) {
  TORCH_CHECK(!values.empty(), "detection metric values are empty");
  const auto classes = static_cast<size_t>(values[0]);
  const size_t detections_start = 1 + 2 * classes;
  TORCH_CHECK(values.size() >= detections_start && (values.size() - detections_start) % 3 == 0,
              "detection metric values have a wrong length: ", values.size());
  for (size_t i = 1; i < detections_start; i += 2) gt_counts_[static_cast<int64_t>(values[i])] += static_cast<int64_t>(values[i + 1]);
  for (size_t i = detections_start; i < values.size(); i += 3) {
    Detection detection{values[i], static_cast<int64_t>(values[i + 1]), {}};
    const auto mask = static_cast<uint32_t>(values[i + 2]);
    for (size_t t = 0; t < detection.correct.size(); ++t) detection.correct[t] = (mask >> t) & 1U;
    detections_.push_back(detection);
  }
}

DetectionSummary DetectionMetrics::summarize() const {
  DetectionSummary summary;
  for (const auto& [label, gt_count] : gt_counts_) {
    std::vector<const Detection*> mine;
    for (const Detection& detection : detections_) {
      if (detection.label == label) mine.push_back(&detection);
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const Detection* a, const Detection* b) { return a->confidence > b->confidence; });
    ClassCurves at_iou50;
    double ap_sum = 0;
    for (size_t t = 0; t < coco_iou_thresholds().size(); ++t) {
      std::vector<double> recall, precision;
      double true_positives = 0;
      for (size_t i = 0; i < mine.size(); ++i) {
        true_positives += mine[i]->correct[t] ? 1 : 0;
        recall.push_back(true_positives / static_cast<double>(gt_count));
        precision.push_back(true_positives / static_cast<double>(i + 1));
      }
      const double ap = average_precision(recall, precision);
      ap_sum += ap;
      if (t == 0) {
        summary.ap50.push_back(ap);
        at_iou50.recall = recall;
        at_iou50.precision = precision;
        for (const Detection* detection : mine) at_iou50.confidence.push_back(detection->confidence);
      }
    }
    summary.classes.push_back(label);
    summary.instances.push_back(gt_count);
    summary.ap50_95.push_back(ap_sum / static_cast<double>(coco_iou_thresholds().size()));
    add_curves(at_iou50, summary);
  }
  if (summary.classes.empty()) return summary;
  const double classes = static_cast<double>(summary.classes.size());
  summary.map50 = std::accumulate(summary.ap50.begin(), summary.ap50.end(), 0.0) / classes;
  summary.map50_95 = std::accumulate(summary.ap50_95.begin(), summary.ap50_95.end(), 0.0) / classes;
  // Ultralytics' P and R: each class's at the one threshold where the smoothed mean F1 peaks.
  const std::vector<double> mean_f1 = smooth(mean_over_classes(summary.f1_curves), 0.1);
  const auto best = static_cast<size_t>(std::max_element(mean_f1.begin(), mean_f1.end()) - mean_f1.begin());
  for (size_t c = 0; c < summary.classes.size(); ++c) {
    summary.class_precision.push_back(summary.precision_curves[c][best]);
    summary.class_recall.push_back(summary.recall_curves[c][best]);
  }
  summary.precision = std::accumulate(summary.class_precision.begin(), summary.class_precision.end(), 0.0) / classes;
  summary.recall = std::accumulate(summary.class_recall.begin(), summary.class_recall.end(), 0.0) / classes;
  return summary;
}


std::vector<CurveChart> detection_curve_charts(const DetectionSummary& summary, const std::vector<std::string>& names) {
  std::vector<double> x(kCurvePoints);
  for (size_t k = 0; k < kCurvePoints; ++k) x[k] = curve_point(k);
  std::vector<std::string> class_names;
  for (const int64_t cls : summary.classes) class_names.push_back(names.at(static_cast<size_t>(cls)));

  CurveChart pr{"PR_curve", "Precision-Recall Curve", "Recall", "Precision", x, {}, summary.pr_curves,
                mean_over_classes(summary.pr_curves), fmt::format("all classes {:.3f} mAP@0.5", summary.map50)};
  for (size_t c = 0; c < class_names.size(); ++c) pr.labels.push_back(fmt::format("{} {:.3f}", class_names[c], summary.ap50[c]));
  std::vector<CurveChart> charts{std::move(pr)};
  const auto against_confidence = [&](std::string name, std::string title, std::string y_label,
                                      const std::vector<std::vector<double>>& curves) {
    CurveChart chart{std::move(name), std::move(title), "Confidence", std::move(y_label), x, class_names, curves,
                     smooth(mean_over_classes(curves), 0.05), ""};
    const auto peak = static_cast<size_t>(std::max_element(chart.mean.begin(), chart.mean.end()) - chart.mean.begin());
    chart.mean_label = fmt::format("all classes {:.2f} at {:.3f}", chart.mean[peak], x[peak]);
    charts.push_back(std::move(chart));
  };
  against_confidence("F1_curve", "F1-Confidence Curve", "F1", summary.f1_curves);
  against_confidence("P_curve", "Precision-Confidence Curve", "Precision", summary.precision_curves);
  against_confidence("R_curve", "Recall-Confidence Curve", "Recall", summary.recall_curves);
  return charts;
}

}  // namespace trainer
