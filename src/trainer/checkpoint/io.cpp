#include "trainer/checkpoint/io.h"

#include <fmt/format.h>

#include <sstream>

#include "trainer/checkpoint/frame.h"
#include "trainer/data/file_bytes.h"
#include "util/files.h"
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

std::string shape_text(torch::IntArrayRef sizes) {
    return sizes.empty() ? "a scalar" : fmt::format("[{}]", fmt::join(sizes, ", "));
}

// Return the first parameter or buffer of module (named from prefix) whose shape in archive
// differs from the module's; empty when all agree. Reading into a fresh tensor leaves the
// module as it is (Module::load replaces each tensor's data without looking at its shape).
std::string shape_mismatch(torch::nn::Module& module, torch::serialize::InputArchive& archive,
                           const std::string& prefix) {
    const auto compare = [&](const std::string& key, const torch::Tensor& mine,
                             bool buffer) -> std::string {
        torch::Tensor saved;
        archive.read(key, saved, buffer);
        if (saved.sizes() == mine.sizes()) {
            return "";
        }
        return fmt::format("{}{} is {} there and {} in this model", prefix, key,
                           shape_text(saved.sizes()), shape_text(mine.sizes()));
    };
    for (const auto& p : module.named_parameters(false)) {
        if (auto found = compare(p.key(), p.value(), false); !found.empty()) {
            return found;
        }
    }
    for (const auto& b : module.named_buffers(false)) {
        if (auto found = compare(b.key(), b.value(), true); !found.empty()) {
            return found;
        }
    }
    for (const auto& child : module.named_children()) {
        torch::serialize::InputArchive sub;
        archive.read(child.key(), sub);
        if (auto found = shape_mismatch(*child.value(), sub, prefix + child.key() + ".");
            !found.empty()) {
            return found;
        }
    }
    return "";
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
        if (auto mismatch = shape_mismatch(model, model_archive, ""); !mismatch.empty()) {
            return util::error(
                fmt::format("{}: a checkpoint of another model or image size: {} (another --model, "
                            "--dataset or image size than the run that wrote it)",
                            name, mismatch));
        }
        model.load(model_archive);
        // Loading replaced each parameter's data with the checkpoint's, laid out as the
        // writer's were: lay them out as this run's model does again.
        model.set_memory_format(model.memory_format());
        try {
            optimizer.load(optimizer_archive);
        } catch (const std::exception&) {
            // Another optimizer's state (Adam's averages where SGD keeps momentum) fails inside
            // libtorch with an internal assertion asking to report a bug to PyTorch.
            const bool sgd = dynamic_cast<torch::optim::SGD*>(&optimizer) != nullptr;
            return util::error(fmt::format(
                "{}: its optimizer state is not {}'s (written with another --optimizer)", name,
                sgd ? "sgd" : "adam"));
        }
        lay_out_optimizer_state(optimizer, model.memory_format());
        torch::Tensor epoch, step;
        archive.read("epoch", epoch);
        archive.read("global_step", step);
        return TrainPosition{epoch.item<int64_t>(), step.item<int64_t>()};
    } catch (const std::exception& e) {
        return util::error(fmt::format("{}: not a checkpoint of this model and optimizer ({})",
                                       name, util::first_line(e.what())));
    }
}

util::Result<ResumeChoice> load_newest_usable(const std::string& dir, Net& model,
                                              torch::optim::Optimizer& optimizer,
                                              TrainPosition& pos) {
    return choose_checkpoint(
        dir, [&](const std::string& path, const std::string& payload) -> util::Status {
            auto loaded = load_checkpoint_bytes(payload, path, model, optimizer);
            if (!loaded.ok()) {
                return util::error(loaded.error());
            }
            pos = *loaded;
            return util::ok_status();
        });
}

util::Status save_checkpoint(const std::string& path, Net& model,
                             torch::optim::Optimizer& optimizer, TrainPosition pos) {
    return util::write_file_atomic(path, encode_frame(checkpoint_bytes(model, optimizer, pos)),
                                   data::k_file_mode);
}

util::Status write_params_dump(const std::string& path, Net& model) {
    std::string bytes;
    for (const auto& p : model.parameters()) {
        auto flat = p.detach().to(torch::kCPU, torch::kFloat32).contiguous().reshape({-1});
        const auto* data = reinterpret_cast<const char*>(flat.data_ptr<float>());
        bytes.append(data, static_cast<std::size_t>(flat.numel()) * sizeof(float));
    }
    return util::write_file_atomic(path, bytes, data::k_file_mode);
}

}  // namespace kftrain::trainer::checkpoint
