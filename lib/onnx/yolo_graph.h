// Ultralytics' YOLO models as ONNX graphs, layer by layer as their model yaml builds them: YOLOv5u,
// YOLOv8, YOLO11, YOLO26 and a user's own definition. [B, C, height, width] -> a detector's output
// in Ultralytics' layout ([B, 4 + classes, anchors], or an end-to-end model's [B, k, 6] top rows;
// onnx/yolo_head_graphs.h), or a -cls model's class probabilities [B, classes].
#pragma once
#include "models/yolo.h"
#include "onnx/graph_builder.h"
#include "onnx/onnx_export.h"

namespace trainer::onnx_export {

// The family's graph writer: sides that are multiples of the model's largest stride.
FamilyGraph yolo_onnx(GraphBuilder& graph, const YoloImpl& model, const GraphRequest& request);

}  // namespace trainer::onnx_export
