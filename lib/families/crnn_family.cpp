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
  family.logits_model = [](const ModelRequest& request) {
    TORCH_INTERNAL_ASSERT(request.ocr != nullptr, "the CRNN is built from the OCR recipe's sizes");
    const OcrSettings& ocr = *request.ocr;
    Crnn model(CrnnOptions()
                   .in_channels(request.in_channels)
                   .output_channel(ocr.output_channel)
                   .hidden_size(ocr.hidden_size)
                   .classes(request.classes)
                   .norm(request.norm)
                   .dropout(request.dropout)
                   .transformation(ocr.transformation)
                   .feature_extraction(ocr.feature_extraction)
                   .sequence_modeling(ocr.sequence_modeling)
                   .prediction(ocr.prediction)
                   .num_fiducial(ocr.num_fiducial)
                   .img_h(ocr.img_h)
                   .img_w(ocr.img_w)
                   .max_length(ocr.batch_max_length));
    LogitsModel built =
        bind_model<LogitsModel>(model, request.in_channels, &onnx_export::crnn_onnx);
    if (ocr.prediction == OcrPrediction::attn) {
      built.teacher_forced = [model](const torch::Tensor& images,
                                     const torch::Tensor& previous) mutable {
        return model->forward(images, previous);
      };
    }
    return built;
  };
  return family;
}

}  // namespace trainer
