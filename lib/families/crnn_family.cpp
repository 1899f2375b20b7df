// EasyOCR's CRNN: text-line recognition (models/crnn.h, onnx/crnn_graph.h), sized by the OCR
// recipe.
#include "config/settings.h"
#include "families/model_family.h"
#include "models/crnn.h"
#include "onnx/crnn_graph.h"

namespace trainer {

ModelFamily crnn_family() {
  ModelFamily family;
  family.names = {names_starting_with("crnn"), "crnn", TaskKind::ocr, "crnn"};
  family.build = [](const ModelRequest& request) -> std::shared_ptr<torch::nn::Module> {
    TORCH_INTERNAL_ASSERT(request.ocr != nullptr, "the CRNN is built from the OCR recipe's sizes");
    const OcrSettings& ocr = *request.ocr;
    return Crnn(CrnnOptions()
                    .in_channels(request.in_channels)
                    .output_channel(ocr.output_channel)
                    .hidden_size(ocr.hidden_size)
                    .classes(request.classes)
                    .norm(request.norm)
                    .dropout(ocr.dropout))
        .ptr();
  };
  family.onnx_graph = onnx_export::graph_writer<CrnnImpl>(&onnx_export::crnn_onnx, "CRNN");
  return family;
}

}  // namespace trainer
