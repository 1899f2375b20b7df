// The three model families as ONNX graphs: each writes its model's evaluation forward from the
// graph input `images` and returns the output value. `fold` folds norms into convolutions.
#pragma once
#include <cstdint>
#include <string>

#include "models/crnn.h"
#include "models/resnet.h"
#include "models/yolov8.h"
#include "onnx/graph_builder.h"

namespace trainer::onnx_export {

// [B, C, H, W] -> logits [B, classes].
std::string resnet_graph(GraphBuilder& graph, const ResNetImpl& model, const std::string& images, bool fold);

// [B, C, imgH, W] -> per-frame logits [B, W / 4 - 1, classes] (class 0 the CTC blank), as EasyOCR's
// recognizer returns them.
std::string crnn_graph(GraphBuilder& graph, const CrnnImpl& model, const std::string& images, bool fold);

// [B, 3, height, width] -> Ultralytics' Detect output [B, 4 + classes, anchors]: boxes as
// (cx, cy, w, h) in input pixels, then sigmoid class scores; the anchors are those of this size.
std::string yolov8_graph(GraphBuilder& graph, const YOLOv8Impl& model, const std::string& images, bool fold,
                         int64_t height, int64_t width);

}  // namespace trainer::onnx_export
