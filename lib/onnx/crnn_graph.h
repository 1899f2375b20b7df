// The CRNN as an ONNX graph: [B, C, imgH, W] -> per-frame logits [B, steps, classes] (class 0 the
// CTC blank), as EasyOCR's recognizer returns them: VGG, RCNN or ResNet features, BiLSTM or no
// sequence modeling, CTC. TPS and Attn recognizers are refused with the stage named.
#pragma once
#include <string>

#include "models/crnn.h"
#include "onnx/graph_builder.h"
#include "onnx/onnx_export.h"

namespace trainer::onnx_export {

// The evaluation forward from the graph input `images`; returns the output value. `fold` folds
// norms into convolutions.
std::string crnn_graph(GraphBuilder& graph, const CrnnImpl& model, const std::string& images,
                       bool fold);

// The family's graph writer: height >= 32, width >= 8; dynamic names the width and the steps too.
// unsupported() names the stage a recognizer has that is not exported.
FamilyGraph crnn_onnx(GraphBuilder& graph, const CrnnImpl& model, const GraphRequest& request);

}  // namespace trainer::onnx_export
