// Reading back what an exported file says about itself (GraphBuilder's metadata_props).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/model_card.h"

namespace trainer::onnx_export {

struct OnnxFileInfo {
  std::map<std::string, std::string> metadata;  ///< metadata_props
  int64_t batch = 0;                            ///< the input's declared batch; 0 where it is named (dynamic)
};

// What an ONNX file says about itself, read with the ONNX protobuf classes. A file that does not
// parse, or whose input is not one fp32 tensor (OpenCV DNN runs fp32 files; `half` exports are
// for other runtimes), is a UserError naming it.
OnnxFileInfo read_onnx_file_info(const std::filesystem::path& path);

// What the metadata of an exported file says of the model (its card; the recipe is not filled):
// task, names (Ultralytics' {0: 'name', …}) or the OCR charset, channels, imgsz, and the mean and
// std export writes. nullopt where a needed entry is missing: files exported before mean and std
// were written, except detection, whose pixels are scaled to [0, 1] alone (Ultralytics' files).
// A malformed entry is a UserError naming it.
std::optional<ModelCard> card_of_metadata(const std::map<std::string, std::string>& metadata);

// The file with its input declared as `shape` (named dimensions given sizes), serialized: for
// OpenCV 4.6, whose LSTM import needs every input dimension known.
std::string with_input_shape(const std::filesystem::path& path, const std::vector<int64_t>& shape);

// The file's graph computing `value` as its one output, the nodes after it dropped, serialized: an
// end-to-end detector's predictions before its top-k tail, whose TopK and GatherElements OpenCV 4.6
// does not import.
std::string graph_up_to(const std::filesystem::path& path, const std::string& value);

}  // namespace trainer::onnx_export
