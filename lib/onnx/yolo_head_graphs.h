// Ultralytics' YOLO heads (models/yolo_head.h) as ONNX nodes, in the layouts Ultralytics exports:
// Detect as [B, 4 + classes, anchors] ((cx, cy, w, h) in input pixels, sigmoid scores) or, for an
// end-to-end head's one-to-one branch, as its top rows [B, k, 6] (x1, y1, x2, y2, score, class);
// Classify as class probabilities [B, classes].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/yolo_head.h"
#include "onnx/graph_builder.h"

namespace trainer::onnx_export {

struct DetectGraphRequest {
  std::string key;             ///< the head's state-dict prefix, e.g. model.22
  bool fold = false;           ///< norms folded into the convolutions
  int64_t height = 0, width = 0;  ///< the input's sides
  bool one_to_one = false;     ///< an end-to-end head's one-to-one branch and top-k rows
  int64_t max_det = 300;       ///< rows of the one-to-one output (fewer when there are fewer anchors)
};

struct DetectGraph {
  std::string output;
  // The one-to-one branch's boxes (x1, y1, x2, y2) and scores [B, 4 + classes, anchors] before the
  // top-k rows are taken; empty for the other layout.
  std::string predictions;
  int64_t rows = 0;  ///< the top-k output's rows
};

DetectGraph detect_graph(GraphBuilder& graph, const yolo::DetectImpl& head, const std::vector<std::string>& levels,
                         const DetectGraphRequest& request);

std::string classify_graph(GraphBuilder& graph, const yolo::ClassifyImpl& head, const std::string& x, bool fold,
                           const std::string& key);

// The anchors of a head at an input size: the sum over levels of the cells.
int64_t anchor_count(const std::vector<double>& strides, int64_t height, int64_t width);

}  // namespace trainer::onnx_export
