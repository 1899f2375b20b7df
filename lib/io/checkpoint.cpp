#include "io/checkpoint.h"

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

#include "io/tensor_archive.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace trainer {
namespace {

// R22: whatever wraps the model (graph executor, distributed code) must not leak into the keys.
void require_plain_keys(const NamedTensors& tensors) {
  for (const auto& [name, tensor] : tensors) {
    TORCH_INTERNAL_ASSERT(name.rfind("module.", 0) != 0 && name.find("_orig_mod.") == std::string::npos,
                          "wrapper prefix in a saved key: ", name);
  }
}

c10::impl::GenericDict tensor_dict(const NamedTensors& tensors) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  for (const auto& [name, tensor] : tensors) dict.insert(name, tensor.detach().cpu().contiguous());
  return dict;
}

NamedTensors named_tensors(const c10::IValue& value, const std::string& key, const std::string& path) {
  if (!value.isGenericDict()) throw UserError(path + ": checkpoint entry '" + key + "' is not a dict of tensors");
  NamedTensors tensors;
  for (const auto& item : value.toGenericDict()) {
    if (!item.key().isString() || !item.value().isTensor()) {
      throw UserError(path + ": checkpoint entry '" + key + "' holds a non-tensor value");
    }
    tensors.emplace_back(item.key().toStringRef(), item.value().toTensor());
  }
  return tensors;
}

// Plain strings, integers and lists of strings, with the normalisation as tensors: what
// PyTorch < 2.0's weights_only loader reads (no Python floats).
c10::impl::GenericDict card_dict(const ModelCard& card) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("task", card.task);
  dict.insert("model_name", card.model_name);
  dict.insert("labels", c10::List<std::string>(card.labels));
  dict.insert("channels", card.channels);
  dict.insert("height", card.height);
  dict.insert("width", card.width);
  dict.insert("mean", at::tensor(card.normalization.mean, at::kDouble));
  dict.insert("std", at::tensor(card.normalization.std, at::kDouble));
  if (!card.model_definition.empty()) dict.insert("model_definition", card.model_definition);
  return dict;
}

std::vector<double> doubles(const at::Tensor& tensor) {
  const at::Tensor values = tensor.to(at::kDouble).contiguous();
  return {values.data_ptr<double>(), values.data_ptr<double>() + values.numel()};
}

ModelCard card_of(const c10::IValue& value, const std::string& recipe, const std::string& path) {
  const auto fail = [&](const std::string& what) -> ModelCard {
    throw UserError(path + ": checkpoint entry 'card' " + what);
  };
  if (!value.isGenericDict()) return fail("is not a dict");
  const auto dict = value.toGenericDict();
  for (const char* key : {"task", "model_name", "labels", "channels", "height", "width", "mean", "std"}) {
    if (!dict.contains(key)) return fail(std::string("has no '") + key + "'");
  }
  ModelCard card;
  card.task = dict.at("task").toStringRef();
  card.model_name = dict.at("model_name").toStringRef();
  for (const c10::IValue& label : dict.at("labels").toListRef()) card.labels.push_back(label.toStringRef());
  card.channels = dict.at("channels").toInt();
  card.height = dict.at("height").toInt();
  card.width = dict.at("width").toInt();
  card.normalization = {doubles(dict.at("mean").toTensor()), doubles(dict.at("std").toTensor())};
  if (dict.contains("model_definition")) {
    if (!dict.at("model_definition").isString()) return fail("holds a 'model_definition' that is not text");
    card.model_definition = dict.at("model_definition").toStringRef();
  }
  card.recipe = recipe;
  return card;
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  require_plain_keys(checkpoint.model);
  require_plain_keys(checkpoint.ema);
  c10::impl::GenericDict top(c10::StringType::get(), c10::AnyType::get());
  top.insert("format_version", checkpoint.kFormatVersion);
  top.insert("task", checkpoint.task);
  top.insert("model", tensor_dict(checkpoint.model));
  top.insert("ema", tensor_dict(checkpoint.ema));
  top.insert("optimizer", tensor_dict(checkpoint.optimizer));
  top.insert("scaler", tensor_dict(checkpoint.scaler));
  top.insert("grads", tensor_dict(checkpoint.grads));
  top.insert("rng", tensor_dict(checkpoint.rng));
  top.insert("progress", tensor_dict(checkpoint.progress));
  top.insert("epoch", checkpoint.epoch);
  top.insert("micro_batch", checkpoint.micro_batch);
  top.insert("updates", checkpoint.updates);
  // A 0-dim tensor, not a Python float: PyTorch < 2.0's weights_only loader cannot read floats.
  top.insert("best_fitness", at::scalar_tensor(checkpoint.best_fitness, at::kDouble));
  top.insert("recipe", checkpoint.recipe);
  if (checkpoint.card) top.insert("card", card_dict(*checkpoint.card));

  try {
    replace_file_atomically(path, [&](const std::filesystem::path& temporary) {
      write_archive(temporary.string(), c10::IValue(top));
    });
  } catch (const std::exception& error) {
    throw UserError("cannot write checkpoint " + path.string() + " (" + error.what() +
                    "); the previous file, if any, is unchanged");
  }
}

Checkpoint load_checkpoint(const std::filesystem::path& path) {
  return checkpoint_of(read_archive(path.string()), path);
}

Checkpoint checkpoint_of(const c10::IValue& value, const std::filesystem::path& path) {
  if (!value.isGenericDict()) throw UserError(path.string() + ": not a trainer checkpoint (no dict inside)");
  const auto dict = value.toGenericDict();
  const auto require = [&](const std::string& key) {
    if (!dict.contains(key)) throw UserError(path.string() + ": not a trainer checkpoint (no '" + key + "' entry)");
    return dict.at(key);
  };
  const int64_t version = require("format_version").toInt();
  if (version > Checkpoint::kFormatVersion) {
    throw UserError(path.string() + ": checkpoint format " + std::to_string(version) +
                    " is newer than this trainer understands (" + std::to_string(Checkpoint::kFormatVersion) + ")");
  }
  Checkpoint checkpoint;
  checkpoint.task = require("task").toStringRef();
  checkpoint.model = named_tensors(require("model"), "model", path.string());
  checkpoint.ema = named_tensors(require("ema"), "ema", path.string());
  checkpoint.optimizer = named_tensors(require("optimizer"), "optimizer", path.string());
  checkpoint.scaler = named_tensors(require("scaler"), "scaler", path.string());
  checkpoint.grads = named_tensors(require("grads"), "grads", path.string());
  checkpoint.rng = named_tensors(require("rng"), "rng", path.string());
  checkpoint.progress = named_tensors(require("progress"), "progress", path.string());
  checkpoint.epoch = require("epoch").toInt();
  checkpoint.micro_batch = require("micro_batch").toInt();
  checkpoint.updates = require("updates").toInt();
  checkpoint.best_fitness = require("best_fitness").toTensor().item<double>();
  checkpoint.recipe = require("recipe").toStringRef();
  if (dict.contains("card")) checkpoint.card = card_of(dict.at("card"), checkpoint.recipe, path.string());
  return checkpoint;
}

Checkpoint strip_for_inference(const Checkpoint& checkpoint) {
  Checkpoint stripped;
  stripped.task = checkpoint.task;
  NamedTensors& weights = checkpoint.ema.empty() ? stripped.model : stripped.ema;
  for (const auto& [name, tensor] : checkpoint.ema.empty() ? checkpoint.model : checkpoint.ema) {
    weights.emplace_back(name, tensor.is_floating_point() ? tensor.to(at::kHalf) : tensor);
  }
  stripped.epoch = checkpoint.epoch;
  stripped.updates = checkpoint.updates;
  stripped.best_fitness = checkpoint.best_fitness;
  stripped.recipe = checkpoint.recipe;
  stripped.card = checkpoint.card;
  return stripped;
}

bool is_stripped(const Checkpoint& checkpoint) {
  return checkpoint.optimizer.empty() && checkpoint.progress.empty() && checkpoint.rng.empty();
}

std::map<std::string, at::Tensor> to_map(const NamedTensors& tensors) {
  return {tensors.begin(), tensors.end()};
}

bool identical(const NamedTensors& a, const NamedTensors& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || !at::equal(a[i].second.cpu(), b[i].second.cpu())) return false;
  }
  return true;
}

}  // namespace trainer
