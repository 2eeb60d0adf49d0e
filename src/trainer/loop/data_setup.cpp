#include "trainer/loop/data_setup.h"

#include <vector>

#include "trainer/data/datasets.h"
#include "trainer/data/sampler.h"
#include "trainer/loop/session.h"
#include "trainer/startup/device.h"

namespace kftrain::trainer {
namespace {

TensorSet to_tensors(const data::ImageSet& set) {
    auto images = torch::from_blob(const_cast<uint8_t*>(set.pixels.data()),
                                   {set.count, set.channels, set.rows, set.cols}, torch::kUInt8);
    auto labels =
        torch::from_blob(const_cast<uint8_t*>(set.labels.data()), {set.count}, torch::kUInt8);
    return TensorSet{images.clone(), labels.to(torch::kInt64)};
}

}  // namespace

util::Status setup_data(Session& s) {
    auto splits = data::load_datasets(s.options);
    if (!splits.ok()) {
        return util::error(splits.error());
    }
    const auto& train = splits->train;
    s.train = to_tensors(train);
    s.test = to_tensors(splits->test);
    const int c = train.channels;
    s.mean = torch::tensor(std::vector<float>(train.mean.begin(), train.mean.begin() + c))
                 .view({1, c, 1, 1})
                 .to(s.device);
    s.stddev = torch::tensor(std::vector<float>(train.stddev.begin(), train.stddev.begin() + c))
                   .view({1, c, 1, 1})
                   .to(s.device);
    s.shard_size = data::sampler_num_samples(s.train.size(), s.world(), false);
    const int64_t b = s.options.batch_size;
    s.steps_per_epoch = (s.shard_size + b - 1) / b;
    auto model = make_model(s.options.model, c, train.rows, train.cols);
    if (!model.ok()) {
        return util::error(model.error());
    }
    s.model = *model;
    // Initialised on the host from the seed, so every device starts from the same weights.
    s.model->to(s.device);
    const bool channels_last =
        choose_channels_last(s.options.memory_format, s.model->convolutional(), s.device.is_cuda());
    s.model->set_memory_format(channels_last ? torch::MemoryFormat::ChannelsLast
                                             : torch::MemoryFormat::Contiguous);
    return util::ok_status();
}

}  // namespace kftrain::trainer
