#include "trainer/checkpoint/io.h"

#include <fmt/format.h>

#include <sstream>

#include "trainer/checkpoint/frame.h"
#include "trainer/data/file_bytes.h"
#include "util/text.h"

namespace kftrain::trainer::checkpoint {
namespace {

// Lay out the optimizer's state of each parameter (SGD's momentum, Adam's averages) in the
// model's memory format: loading keeps the writer's layout (a checkpoint written with
// --memory-format contiguous, or by a trainer before channels last), and an update that
// mixes layouts walks one of its operands out of order on every step.
void lay_out_optimizer_state(torch::optim::Optimizer& optimizer, torch::MemoryFormat format) {
    auto& states = optimizer.state();
    for (auto& group : optimizer.param_groups()) {
        for (auto& p : group.params()) {
            auto found = states.find(c10::guts::to_string(p.unsafeGetTensorImpl()));
            if (found == states.end()) {
                continue;
            }
            auto* state = found->second.get();
            if (auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(state)) {
                sgd->momentum_buffer(in_memory_format(sgd->momentum_buffer(), format));
            } else if (auto* adam = dynamic_cast<torch::optim::AdamParamState*>(state)) {
                adam->exp_avg(in_memory_format(adam->exp_avg(), format));
                adam->exp_avg_sq(in_memory_format(adam->exp_avg_sq(), format));
                adam->max_exp_avg_sq(in_memory_format(adam->max_exp_avg_sq(), format));
            }
        }
    }
}

}  // namespace

std::string checkpoint_bytes(Net& model, torch::optim::Optimizer& optimizer, TrainPosition pos) {
    torch::serialize::OutputArchive archive, model_archive, optimizer_archive;
    model.save(model_archive);
    optimizer.save(optimizer_archive);
    archive.write("model", model_archive);
    archive.write("optimizer", optimizer_archive);
    archive.write("epoch", torch::tensor(pos.epoch, torch::kInt64));
    archive.write("global_step", torch::tensor(pos.global_step, torch::kInt64));
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
}

util::Result<TrainPosition> load_checkpoint_bytes(const std::string& bytes, const std::string& name,
                                                  Net& model, torch::optim::Optimizer& optimizer) {
    try {
        std::istringstream in(bytes);
        torch::serialize::InputArchive archive, model_archive, optimizer_archive;
        // Map every tensor to the model's device: unmapped, a checkpoint written on a GPU does
        // not load on a CPU, and one written on a CPU would move a GPU model's parameters
        // back to the host (reading into a tensor on another device replaces its data).
        archive.load_from(in, model.parameters().at(0).device());
        archive.read("model", model_archive);
        archive.read("optimizer", optimizer_archive);
        model.load(model_archive);
        // Loading replaced each parameter's data with the checkpoint's, laid out as the
        // writer's were: lay them out as this run's model does again.
        model.set_memory_format(model.memory_format());
        optimizer.load(optimizer_archive);
        lay_out_optimizer_state(optimizer, model.memory_format());
        torch::Tensor epoch, step;
        archive.read("epoch", epoch);
        archive.read("global_step", step);
        return TrainPosition{epoch.item<int64_t>(), step.item<int64_t>()};
    } catch (const std::exception& e) {
        return util::Error{fmt::format("{}: not a checkpoint of this model and optimizer ({})",
                                       name, util::first_line(e.what()))};
    }
}

util::Result<ResumeChoice> load_newest_usable(const std::string& dir, Net& model,
                                              torch::optim::Optimizer& optimizer,
                                              TrainPosition& pos) {
    return choose_checkpoint(
        dir, [&](const std::string& path, const std::string& payload) -> util::Status {
            auto loaded = load_checkpoint_bytes(payload, path, model, optimizer);
            if (!loaded.ok()) {
                return util::Error{loaded.error()};
            }
            pos = *loaded;
            return util::Unit{};
        });
}

util::Status save_checkpoint(const std::string& path, Net& model,
                             torch::optim::Optimizer& optimizer, TrainPosition pos) {
    return data::write_file_atomic(path, encode_frame(checkpoint_bytes(model, optimizer, pos)));
}

util::Status write_params_dump(const std::string& path, Net& model) {
    std::string bytes;
    for (const auto& p : model.parameters()) {
        auto flat = p.detach().to(torch::kCPU, torch::kFloat32).contiguous().reshape({-1});
        const auto* data = reinterpret_cast<const char*>(flat.data_ptr<float>());
        bytes.append(data, static_cast<std::size_t>(flat.numel()) * sizeof(float));
    }
    return data::write_file_atomic(path, bytes);
}

}  // namespace kftrain::trainer::checkpoint
