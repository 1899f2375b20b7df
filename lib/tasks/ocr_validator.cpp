#include "tasks/ocr_validator.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <numeric>

#include "data/sampler.h"
#include "tasks/ocr_task.h"
#include "util/utf8.h"

namespace trainer {
namespace {

// Decoded validation samples logged after each validation, so a user sees what the model reads.
constexpr size_t kShownSamples = 4;

std::string quoted(const std::u32string& text) { return "'" + encode_utf8(text) + "'"; }

}  // namespace

std::vector<std::string> OcrValidator::metric_names() const {
  return {"val/" + task_.loss_names().front(), "accuracy", "norm_ED", "CER"};
}

void OcrValidator::validate_shard(const torch::Device& device, const Shard& shard) {
  // One fixed batch size for every validation batch (R28): twice the training micro-batch.
  const int64_t batch_size = validation_batch(task_.shared_.schedule);
  std::vector<size_t> all(task_.val_->size());
  std::iota(all.begin(), all.end(), size_t{0});
  const auto batches =
      shard_batches(bucket_batches_in_order(all, task_.val_buckets_, batch_size), shard);
  Loader loader(Loader::for_device(make_text_line_collate(*task_.val_, *task_.charset_, task_.shape_), device),
                task_.shared_.data.workers, task_.shared_.data.prefetch);
  loader.start_epoch(batches, 0);

  torch::Tensor loss_sum = torch::zeros({}, torch::TensorOptions().device(device));
  std::vector<std::string> shown;
  for_each_validation_batch(
      *task_.model_.module, loader, batches.size(), batch_size, device,
      [&](size_t position, const Batch& batch, const torch::Tensor& input) {
        const torch::Tensor logits = task_.logits(input).narrow(0, 0, batch.size);
        loss_sum += task_.evaluation_loss(logits, batch);
        const std::vector<DecodedText> decoded = task_.decode(logits);
        for (size_t row = 0; row < decoded.size(); ++row) {
          const std::u32string& truth = task_.val_->label(batches[position][row]);
          scores_.add(decoded[row].text, truth);
          if (shown.size() < kShownSamples) {
            shown.push_back(quoted(truth) + " -> " + quoted(decoded[row].text) +
                            (decoded[row].text == truth ? "" : " (wrong)"));
          }
        }
      });
  spdlog::info("val samples: {}", fmt::join(shown, ", "));
  loss_.add(loss_sum.item<double>());
}

Metrics OcrValidator::metrics() const {
  Metrics metrics;
  metrics.values = {{metric_names().front(),
                     loss_.value() / static_cast<double>(std::max<int64_t>(scores_.samples(), 1))},
                    {"accuracy", scores_.accuracy()},
                    {"norm_ED", scores_.norm_ed()},
                    {"CER", scores_.cer()}};
  metrics.fitness = scores_.accuracy();
  return metrics;
}

}  // namespace trainer
