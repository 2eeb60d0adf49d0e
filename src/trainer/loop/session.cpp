#include "trainer/loop/session.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainer/data/sampler.h"
#include "trainer/loop/divergence.h"
#include "trainer/loop/step_sync.h"

namespace kftrain::trainer {
namespace {

using SteadyClock = std::chrono::steady_clock;

}  // namespace

SteadyClock::time_point Session::synced_now() const {
    if (device.is_cuda()) {
        torch::cuda::synchronize(device.index());
    }
    return SteadyClock::now();
}

double Session::seconds_since(SteadyClock::time_point t) const {
    return std::chrono::duration<double>(synced_now() - t).count();
}

std::pair<torch::Tensor, torch::Tensor> Session::batch(const TensorSet& set,
                                                       const std::vector<int64_t>& indices) const {
    auto idx = torch::tensor(indices, torch::kInt64);
    // Copy the uint8 pixels (a quarter of the float bytes) and convert on the device.
    auto x = set.images.index_select(0, idx).to(device).to(torch::kFloat32).div_(255.0f);
    x = x.sub_(mean).div_(stddev);
    return {x, set.labels.index_select(0, idx).to(device)};
}

std::vector<int64_t> Session::epoch_indices(int64_t epoch) const {
    auto gen = at::detail::createCPUGenerator(static_cast<uint64_t>(options.seed + epoch));
    auto perm = torch::randperm(train.size(), gen, torch::kInt64);
    std::vector<int64_t> order(perm.data_ptr<int64_t>(), perm.data_ptr<int64_t>() + perm.numel());
    return data::shard_indices(order, rank(), world(), false);
}

void Session::drop_grads() {
    for (auto& group : optimizer->param_groups()) {
        for (auto& p : group.params()) {
            p.mutable_grad() = torch::Tensor();
        }
    }
}

void Session::set_lr(double lr) {
    for (auto& group : optimizer->param_groups()) {
        group.options().set_lr(lr);
    }
}

std::pair<torch::Tensor, torch::Tensor> Session::train_step(const std::vector<int64_t>& indices,
                                                            double lr, StepMetrics& metrics,
                                                            StepPhases* phases) {
    // The clock, read only when the step is timed (on CUDA it waits for the device).
    const auto now = [&] { return phases ? synced_now() : SteadyClock::time_point{}; };
    const auto t0 = now();
    // This rank's compute time, by the host's clock (no device sync): the step without its
    // wait for the other ranks in the gradients' all-reduce; a straggler's is the longest.
    const auto begin = SteadyClock::now();
    double waited = 0;
    auto xy = batch(train, indices);
    const auto& [x, y] = xy;
    set_lr(lr);
    drop_grads();
    const bool reduce = reducer && reducer->enabled();
    if (reduce) {
        reducer->prepare();
    }
    auto logits = model->forward(x);
    auto loss = torch::nn::functional::cross_entropy(logits, y);
    const auto t1 = now();
    loss.backward();
    if (reduce) {
        const auto wait = SteadyClock::now();
        reducer->finish();
        waited = std::chrono::duration<double>(SteadyClock::now() - wait).count();
    }
    const auto t2 = now();
    optimizer->step();
    metrics.add(loss, logits, y);
    metrics.add_step_time(std::chrono::duration<double>(SteadyClock::now() - begin).count(),
                          waited);
    if (phases) {
        const auto t3 = now();
        using Seconds = std::chrono::duration<double>;
        phases->forward += Seconds(t1 - t0).count();
        phases->backward += Seconds(t2 - t1).count();
        phases->optimizer += Seconds(t3 - t2).count();
    }
    return xy;
}

std::pair<double, double> Session::eval_sums(const std::vector<int64_t>& indices) {
    torch::NoGradGuard no_grad;
    model->eval();
    // Summed on the device and read once, after the last batch.
    const auto f64 = torch::TensorOptions(torch::kFloat64).device(device);
    auto loss_sum = torch::zeros({}, f64);
    auto correct = torch::zeros({}, f64);
    constexpr std::size_t k_eval_batch = 256;
    for (std::size_t i = 0; i < indices.size(); i += k_eval_batch) {
        const auto end = std::min(indices.size(), i + k_eval_batch);
        auto [x, y] = batch(test, {indices.begin() + i, indices.begin() + end});
        auto logits = model->forward(x);
        loss_sum +=
            torch::nn::functional::cross_entropy(
                logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                .to(torch::kFloat64);
        correct += logits.argmax(1).eq(y).sum().to(torch::kFloat64);
    }
    model->train();
    const auto totals = torch::stack({loss_sum, correct}).to(torch::kCPU);
    return {totals[0].item<double>(), totals[1].item<double>()};
}

std::string Session::unhealthy_state(const std::pair<torch::Tensor, torch::Tensor>& last_batch) {
    torch::NoGradGuard no_grad;
    for (const auto& p : model->parameters()) {
        if (!torch::isfinite(p).all().item<bool>()) {
            return "the parameters are not finite";
        }
    }
    const auto& [x, y] = last_batch;
    if (!x.defined()) {
        return "";
    }
    model->eval();
    const double loss = torch::nn::functional::cross_entropy(model->forward(x), y).item<double>();
    model->train();
    return std::isfinite(loss) ? "" : fmt::format("its loss is {}", nonfinite_text(loss));
}

std::vector<double> Session::sum_over_ranks(const std::vector<double>& values) {
    return comm ? comm->allreduce_sum(values) : values;
}

}  // namespace kftrain::trainer
