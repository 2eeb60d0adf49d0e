// What status shows of a program's output as it comes (progress/progress_reader.h): text put
// together across lines, the precedence of progress lines, percentages only of known totals,
// ETAs only after a few moves.
#include "progress/progress_reader.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "progress/progress_line.h"
#include "progress/trainer_status.h"

using namespace kftrain;

namespace {

std::string bar(const std::string& label, int done, int total, const std::string& postfix = "") {
    const int percent = done * 100 / total;
    return label + (label.empty() ? "" : ": ") + std::to_string(percent) + "%|####      | " +
           std::to_string(done) + "/" + std::to_string(total) + " [00:02<00:03, 10.00it/s" +
           (postfix.empty() ? "" : ", " + postfix) + "]";
}

}  // namespace

TEST_CASE("a tqdm bar over the whole run gives a percentage, then an ETA after a few moves",
          "[progress]") {
    progress::ProgressReader reader;
    reader.take(bar("", 10, 200));
    REQUIRE(reader.progress());
    CHECK(reader.progress()->source == "a tqdm bar");
    CHECK(*reader.progress()->percent == 5);
    CHECK(!reader.progress()->eta_s);
    for (int done : {20, 30, 40}) {
        reader.take(bar("", done, 200, "loss=0.5"));
    }
    CHECK(*reader.progress()->percent == 20);
    CHECK(*reader.progress()->eta_s == 3);
    CHECK(*reader.progress()->loss == 0.5);
    CHECK(*reader.progress()->steps_per_sec == 10);
    reader.take(bar("", 199, 200));
    CHECK(*reader.progress()->percent == 99.5);
    reader.take(bar("", 200, 200));
    CHECK(*reader.progress()->percent == 100);
    CHECK(!reader.progress()->eta_s);  // nothing left: no ETA
}

TEST_CASE("a run one step short of its end is not shown as 100%", "[progress]") {
    progress::ProgressReader reader;
    reader.take(bar("", 199999, 200000));
    CHECK(*reader.progress()->percent == Approx(99.9));
}

TEST_CASE("bars redrawn with carriage returns are read drawing by drawing", "[progress]") {
    progress::ProgressReader reader;
    reader.take_output("\r" + bar("Epoch 1/2", 5, 10) + "\r" + bar("Epoch 1/2", 10, 10) + "\n\r" +
                       bar("Epoch 2/2", 5, 10));
    REQUIRE(reader.progress());
    CHECK(*reader.progress()->epoch == 2);
    CHECK(*reader.progress()->epochs == 2);
    CHECK(*reader.progress()->step == 5);
    CHECK(*reader.progress()->percent == 75);
}

TEST_CASE("a validation bar beside the epoch's does not move the run", "[progress]") {
    progress::ProgressReader reader;
    reader.take(bar("Epoch 1/2", 10, 100));
    reader.take(bar("Validation DataLoader 0", 20, 25));
    reader.take(bar("", 20, 25));
    CHECK(*reader.progress()->step == 10);
    CHECK(*reader.progress()->percent == 5);
}

TEST_CASE("a Lightning bar shows its epoch counted from 1 and no percentage", "[progress]") {
    progress::ProgressReader reader;
    reader.take(bar("Epoch 0", 90, 200, "v_num=0, train_loss=0.123"));
    REQUIRE(reader.progress());
    CHECK(reader.progress()->source == "a Lightning bar");
    CHECK(*reader.progress()->epoch == 1);
    CHECK(!reader.progress()->epochs);
    CHECK(!reader.progress()->percent);
    CHECK(*reader.progress()->loss == Approx(0.123));
    for (const auto& [name, value] : reader.progress()->metrics) {
        CHECK(name != "v_num");
    }
}

TEST_CASE("the Trainer's dicts merge with its bar, and its closing dict is the end", "[progress]") {
    progress::ProgressReader reader;
    reader.take(bar("", 50, 300));
    reader.take("{'loss': 0.6931, 'grad_norm': 1.2, 'learning_rate': 4.9e-05, 'epoch': 0.5}");
    REQUIRE(reader.progress());
    CHECK(reader.progress()->source == "Hugging Face Trainer logs");
    CHECK(*reader.progress()->loss == Approx(0.6931));
    reader.take(bar("", 20, 25));  // its evaluation bar
    CHECK(*reader.progress()->step == 50);
    reader.take(bar("", 300, 300));
    reader.take("{'train_runtime': 70.1, 'train_loss': 0.45, 'epoch': 3.0}");
    CHECK(*reader.progress()->percent == 100);
    CHECK(reader.line_metrics().size() == 2);
}

TEST_CASE("Keras output: epoch markers, step lines, and the closing line", "[progress]") {
    progress::ProgressReader reader;
    reader.take("Epoch 1/2");
    CHECK(!reader.progress());
    reader.take(" 50/100 [=====>........] - ETA: 1s - loss: 0.4321 - accuracy: 0.8765");
    REQUIRE(reader.progress());
    CHECK(reader.progress()->source == "Keras output");
    CHECK(*reader.progress()->percent == 25);
    CHECK(*reader.progress()->accuracy == Approx(0.8765));
    reader.take("100/100 [==============] - 2s 20ms/step - loss: 0.40 - accuracy: 0.88");
    reader.take("Epoch 2/2");
    CHECK(*reader.progress()->epoch == 2);
    CHECK(*reader.progress()->percent == 50);
    reader.take("100/100 [==============] - 2s 20ms/step - loss: 0.30 - accuracy: 0.90");
    CHECK(*reader.progress()->percent == 100);
}

TEST_CASE("a plain counter counts once it has risen, with an ETA from the rate seen",
          "[progress]") {
    progress::ProgressReader reader;
    reader.take("step 100/1000 loss 0.5", 0.0);
    CHECK(!reader.progress());
    reader.take("loaded 3/4 shards", 0.5);
    CHECK(!reader.progress());
    for (int step = 200; step <= 500; step += 100) {
        CHECK(!(reader.progress() && reader.progress()->eta_s));  // not before 3 moves
        reader.take("step " + std::to_string(step) + "/1000 loss: 0.25", step / 100.0 - 1);
    }
    REQUIRE(reader.progress());
    CHECK(reader.progress()->source == "plain progress lines");
    CHECK(*reader.progress()->percent == 50);
    CHECK(*reader.progress()->loss == 0.25);
    REQUIRE(reader.progress()->eta_s);
    CHECK(*reader.progress()->eta_s == Approx(5));  // 10% a second since first taken
}

TEST_CASE("plain epoch lines: alone they start the epoch, with figures they close it",
          "[progress]") {
    progress::ProgressReader reader;
    reader.take("epoch 1/4 loss: 0.9");
    reader.take("epoch 2/4 loss: 0.7");
    REQUIRE(reader.progress());
    CHECK(*reader.progress()->percent == 50);
    reader.take("Epoch 3/4");
    CHECK(*reader.progress()->percent == 50);
    reader.take("epoch 4/4 loss: 0.5");
    CHECK(*reader.progress()->percent == 100);
}

TEST_CASE("a progress line wins over text, which is no longer read", "[progress]") {
    progress::ProgressReader reader;
    reader.take(bar("", 10, 100));
    reader.take(R"({"event":"progress","epoch":1,"epochs":3,"step":5,"steps_per_epoch":10})");
    REQUIRE(reader.progress());
    CHECK(reader.progress()->source.empty());
    reader.take(bar("", 90, 100));
    CHECK(*reader.progress()->step == 5);
    CHECK(!reader.changed());
}

TEST_CASE("what was read from text gives way to a posted trainerStatus", "[progress]") {
    progress::ProgressReader reader;
    reader.take(bar("", 10, 100));
    auto posted = progress::trainer_status_progress(
        {{"progressPercentage", 42}, {"lastUpdatedTime", "2026-12-06T10:00:00Z"}});
    auto text = reader.progress();
    text->time = "2026-12-06T10:00:30Z";  // newer, yet text
    auto merged = progress::merge_progress(text, posted);
    CHECK(*merged->percent == 42);
    CHECK(merged->source == "trainerStatus");
}

TEST_CASE("text progress kept as a progress line reads back the same", "[progress]") {
    progress::ProgressReader reader;
    for (int done : {10, 20, 30, 40}) {
        reader.take(bar("Epoch 2/3", done, 100, "loss=0.25, grad=1.5"));
    }
    auto kept = progress::parse_progress_line(progress::progress_json(*reader.progress()).dump());
    REQUIRE(kept);
    CHECK(kept->source == "a tqdm bar");
    CHECK(kept->percent == reader.progress()->percent);
    CHECK(kept->eta_s == reader.progress()->eta_s);
    CHECK(kept->steps_per_sec == reader.progress()->steps_per_sec);
    auto sorted = [](auto metrics) {
        std::sort(metrics.begin(), metrics.end());
        return metrics;
    };
    CHECK(sorted(kept->metrics) == sorted(reader.progress()->metrics));
    CHECK(progress::shows_progress(*kept));
}

TEST_CASE("a bar redrawn a million times keeps the reader's memory flat", "[progress]") {
    progress::ProgressReader reader;
    std::string out;
    for (int done = 0; done <= 1'000'000; ++done) {
        out += "\r" +
               bar("", done, 1'000'000,
                   "loss=" + std::to_string(done % 7) + ", m" + std::to_string(done % 500) + "=1");
        if (out.size() > (1 << 20)) {
            reader.take_output(out);
            out.clear();
        }
    }
    reader.take_output(out);
    CHECK(*reader.progress()->percent == 100);
    CHECK(reader.progress()->metrics.size() <= 64);
}

TEST_CASE("a program's own progress line cannot name a source of its choosing", "[progress]") {
    auto own = progress::parse_progress_line(
        R"({"event":"progress","step":1,"source":"\u001b[2Ja tqdm bar"})");
    REQUIRE(own);
    CHECK(own->source.empty());
    auto kept = progress::parse_progress_line(R"({"event":"progress","source":"Keras output"})");
    CHECK(kept->source == "Keras output");
}
