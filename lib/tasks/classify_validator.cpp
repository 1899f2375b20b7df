#include "tasks/classify_validator.h"

#include <algorithm>
#include <numeric>

#include "data/sampler.h"
#include "tasks/classify_task.h"
#include "tasks/confusion_counts.h"

namespace trainer {

ClassifyValidator::ClassifyValidator(ClassifyTask& task)
    : task_(task), confusion_(task.class_names_.size() * task.class_names_.size()) {}

void ClassifyValidator::validate_shard(const torch::Device& device, const Shard& shard) {
  const int64_t batch_size = validation_batch(task_.shared_.schedule);
  Loader loader(
      Loader::for_device(make_classify_collate(*task_.val_, task_.evaluation_augment(), task_.normalization_, 0),
                         device),
      task_.shared_.data.workers, task_.shared_.data.prefetch);
  std::vector<size_t> order(task_.val_->size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto batches = shard_batches(make_batches(order, batch_size, false), shard);
  loader.start_epoch(batches, 0);

  const int64_t k = std::min<int64_t>(5, task_.classes());
  // Sums stay on the device; one read-back at the end.
  torch::Tensor loss_sum = torch::zeros({}, torch::TensorOptions().device(device));
  torch::Tensor top1 = torch::zeros({}, torch::TensorOptions().device(device).dtype(torch::kLong));
  torch::Tensor topk = torch::zeros_like(top1);
  torch::Tensor confusion = torch::zeros({task_.classes() * task_.classes()}, top1.options());
  int64_t seen = 0;
  for_each_validation_batch(
      *task_.model_.module, loader, batches.size(), batch_size, device,
      [&](size_t, const Batch& batch, const torch::Tensor& input) {
        const torch::Tensor logits = task_.logits(input).narrow(0, 0, batch.size).to(torch::kFloat);
        loss_sum += torch::nn::functional::cross_entropy(
            logits, batch.target,
            torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
        const torch::Tensor hits = std::get<1>(logits.topk(k, 1)).eq(batch.target.unsqueeze(1));
        top1 += hits.select(1, 0).sum();
        topk += hits.any(1).sum();
        add_classification_confusion(confusion, logits, batch.target);
        seen += batch.size;
      });
  loss_.add(loss_sum.item<double>());
  top1_.add(static_cast<double>(top1.item<int64_t>()));
  topk_.add(static_cast<double>(topk.item<int64_t>()));
  samples_.add(static_cast<double>(seen));
  const torch::Tensor counts = confusion.cpu();
  confusion_.add(std::vector<int64_t>(counts.data_ptr<int64_t>(),
                                      counts.data_ptr<int64_t>() + counts.numel()));
}

Metrics ClassifyValidator::metrics() const {
  const double count = std::max(samples_.value(), 1.0);
  Metrics metrics;
  metrics.values = {{"val/loss", loss_.value() / count},
                    {"top1", top1_.value() / count},
                    {"top5", topk_.value() / count}};
  metrics.fitness = top1_.value() / count;
  metrics.confusion = ConfusionMatrix{task_.class_names_, confusion_.value()};
  return metrics;
}

}  // namespace trainer
