// An ONNX graph written node by node with the protobuf definitions Debian's libonnx-dev ships
// (onnx-ml.proto). Exporters call it with LibTorch tensors for the weights; it names every value,
// keeps the opset's spelling of the operators whose signature changed (Split, Squeeze, ReduceMean)
// out of the exporters, and stores floating constants in fp16 when the graph is half precision.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace trainer::onnx_export {

// The opsets the exporters write and python3-onnx 1.12's checker accepts.
inline constexpr int64_t kMinOpset = 11;
inline constexpr int64_t kMaxOpset = 17;
inline constexpr int64_t kDefaultOpset = 12;

// A dimension of a graph input or output: a size, or a name for one the caller chooses (dynamic).
using Dim = std::variant<int64_t, std::string>;

struct Attribute {
  std::string name;
  std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>> value;
};

class GraphBuilder {
 public:
  GraphBuilder(int64_t opset, bool half);
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  int64_t opset() const { return opset_; }
  bool half() const { return half_; }

  // A graph input of the graph's float type; returns its name.
  std::string input(const std::string& name, const std::vector<Dim>& dims);
  // Makes `value` the graph output `name` (float type, `dims`).
  void output(const std::string& value, const std::string& name, const std::vector<Dim>& dims);
  // A constant (initializer) holding `tensor`: floating tensors in the graph's float type, integer
  // ones as int64. `hint` becomes part of its name (e.g. the state-dict key).
  std::string constant(const std::string& hint, const torch::Tensor& tensor);
  std::string int64s(const std::string& hint, const std::vector<int64_t>& values);
  // A float32 constant whatever the graph's float type (inputs ONNX types as tensor(float), e.g.
  // Resize's scales).
  std::string floats(const std::string& hint, const std::vector<float>& values);
  // One node; returns its first output (`outputs` of them are made, see node_outputs).
  std::string node(const std::string& op, const std::vector<std::string>& inputs,
                   const std::vector<Attribute>& attributes = {});
  std::vector<std::string> node_outputs(const std::string& op, const std::vector<std::string>& inputs,
                                        const std::vector<Attribute>& attributes, int outputs);
  void metadata(const std::string& key, const std::string& value);

  // The operator types used, in first-use order (for the docs and the tests).
  const std::vector<std::string>& operators() const { return operators_; }
  // The finished model, serialized.
  std::string serialize() const;

 private:
  std::string fresh(const std::string& hint);
  std::string stored(const std::string& hint, const torch::Tensor& tensor, bool half);

  int64_t opset_;
  bool half_;
  std::unique_ptr<onnx::ModelProto> model_;
  std::map<std::string, int> used_names_;
  std::vector<std::string> operators_;
};

}  // namespace trainer::onnx_export
