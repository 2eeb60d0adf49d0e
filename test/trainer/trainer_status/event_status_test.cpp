#include "trainer/trainer_status/event_status.h"

#include <catch2/catch.hpp>

#include "wire/progress_events.h"

using namespace kftrain::trainer;
using namespace kftrain::trainer::trainer_status;
namespace event = kftrain::wire::event;
namespace field = kftrain::wire::field;

namespace {

std::chrono::system_clock::time_point example_time() {
    return std::chrono::system_clock::time_point(std::chrono::seconds(1781233200));
}

// A start event of 2 epochs of 10 steps, as run.cpp emits it.
Fields start_event(const Fields& resumed_from = nullptr) {
    return {{field::k_model, "mlp"},        {field::k_dataset, "synthetic"},
            {field::k_epochs, 2},           {field::k_batch_size, 32},
            {field::k_steps_per_epoch, 10}, {field::k_resumed_from, resumed_from}};
}

Fields progress_event(int epoch, int global_step, double loss, double eta) {
    return {{field::k_epoch, epoch},
            {field::k_epochs, 2},
            {field::k_step, global_step - (epoch - 1) * 10},
            {field::k_steps_per_epoch, 10},
            {field::k_global_step, global_step},
            {field::k_loss, loss},
            {field::k_accuracy, 0.5},
            {field::k_samples_per_sec, 640.25},
            {field::k_lr, 0.01},
            {field::k_elapsed_s, 3.0},
            {field::k_eta_s, eta}};
}

std::string body_after(EventStatus& state) {
    return trainer_status_body(state.status(example_time()));
}

}  // namespace

TEST_CASE("the start event posts 0% with no ETA, or where a resumed run starts",
          "[trainer][trainer_status]") {
    EventStatus fresh;
    CHECK(fresh.apply(event::k_start, start_event()));
    CHECK(
        body_after(fresh) ==
        R"({"trainerStatus":{"progressPercentage":0,"lastUpdatedTime":"2026-06-12T03:00:00.000Z"}})");
    EventStatus resumed;
    resumed.apply(event::k_start, start_event(15));
    CHECK(resumed.status(example_time()).progress_percentage == 75);
}

TEST_CASE("progress events give percent of all steps, ETA and the metrics as strings",
          "[trainer][trainer_status]") {
    EventStatus state;
    state.apply(event::k_start, start_event());
    CHECK(state.apply(event::k_progress, progress_event(1, 9, 0.23471, 33.6)));
    CHECK(body_after(state) ==
          R"({"trainerStatus":{"progressPercentage":45,"estimatedRemainingSeconds":34,)"
          R"("metrics":[{"name":"loss","value":"0.2347"},{"name":"accuracy","value":"0.5000"},)"
          R"({"name":"samples_per_sec","value":"640.2"},{"name":"epoch","value":"1"}],)"
          R"("lastUpdatedTime":"2026-06-12T03:00:00.000Z"}})");
    CHECK_FALSE(state.finished());
}

TEST_CASE("the last step is 99% until the finish event makes it 100% with no time left",
          "[trainer][trainer_status]") {
    EventStatus state;
    state.apply(event::k_start, start_event());
    state.apply(event::k_progress, progress_event(2, 20, 0.1, 0.0));
    CHECK(state.status(example_time()).progress_percentage == 99);
    CHECK(state.apply(event::k_eval, {{field::k_epoch, 2},
                                      {field::k_loss, 0.125},
                                      {field::k_accuracy, 0.875},
                                      {field::k_samples, 100}}));
    CHECK_FALSE(state.apply(event::k_checkpoint, {{field::k_path, "/c"}}));
    CHECK_FALSE(state.apply(event::k_warning, {{field::k_message, "x"}}));
    CHECK(state.apply(event::k_finish, {{field::k_epochs, 2},
                                        {field::k_global_step, 20},
                                        {field::k_loss, 0.1},
                                        {field::k_accuracy, 0.9},
                                        {field::k_elapsed_s, 7.5},
                                        {field::k_samples_per_sec, 600.0}}));
    CHECK(state.finished());
    CHECK(body_after(state) ==
          R"({"trainerStatus":{"progressPercentage":100,"estimatedRemainingSeconds":0,)"
          R"("metrics":[{"name":"loss","value":"0.1000"},{"name":"accuracy","value":"0.9000"},)"
          R"({"name":"samples_per_sec","value":"600.0"},{"name":"epoch","value":"2"},)"
          R"({"name":"eval_loss","value":"0.1250"},{"name":"eval_accuracy","value":"0.8750"}],)"
          R"("lastUpdatedTime":"2026-06-12T03:00:00.000Z"}})");
}

TEST_CASE("percent and ETA stay within trainerStatus's bounds", "[trainer][trainer_status]") {
    CHECK(percent_done(0, 0) == std::nullopt);
    CHECK(percent_done(5, 10) == 50);
    CHECK(percent_done(12, 10) == 99);
    CHECK(percent_done(-1, 10) == 0);
    CHECK(remaining_seconds(-3) == 0);
    CHECK(remaining_seconds(2.5) == 3);
    CHECK(remaining_seconds(1e12) == 2147483647);
}
