// YOLOv8 as an ONNX graph: [B, 3, height, width] -> Ultralytics' Detect output
// [B, 4 + classes, anchors]: boxes as (cx, cy, w, h) in input pixels, then sigmoid class scores;
// the anchors are those of this size.
#pragma once
#include <cstdint>
#include <string>

#include "models/yolo.h"
#include "onnx/graph_builder.h"
#include "onnx/onnx_export.h"

namespace trainer::onnx_export {

// The evaluation forward from the graph input `images`; returns the output value. `fold` folds
// norms into convolutions.
std::string yolov8_graph(GraphBuilder& graph, const YoloImpl& model, const std::string& images,
                         bool fold, int64_t height, int64_t width);

// The family's graph writer: sides that are multiples of the stride 32.
FamilyGraph yolov8_onnx(GraphBuilder& graph, const YoloImpl& model, const GraphRequest& request);

}  // namespace trainer::onnx_export
