// What the one progress parser reads of the text programs already print (progress/text_line.h):
// each line written by hand in the documented shape of its library, and a corpus of lines that
// only look like progress.
#include "progress/text_line.h"

#include <catch2/catch.hpp>

using namespace kftrain;
using progress::TextFormat;

namespace {

double metric(const progress::TextReading& r, const std::string& name) {
    for (const auto& [have, value] : r.metrics) {
        if (have == name) {
            return value;
        }
    }
    FAIL("no metric " << name);
    return 0;
}

}  // namespace

TEST_CASE("a tqdm bar reads its counter, times, rate, epoch and postfix", "[progress]") {
    auto r = progress::read_text_line(
        "Epoch 2/3:  45%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x8c     | 90/200 "
        "[00:01<00:01, 89.50it/s, loss=0.123, lr=4.9e-05]");
    REQUIRE(r);
    CHECK(r->format == TextFormat::Tqdm);
    CHECK(r->label == "Epoch 2/3");
    CHECK(*r->done == 90);
    CHECK(*r->total == 200);
    CHECK(*r->epoch == 2);
    CHECK(*r->epochs == 3);
    CHECK(*r->elapsed_s == 1);
    CHECK(*r->remaining_s == 1);
    CHECK(*r->steps_per_sec == Approx(89.5));
    CHECK(metric(*r, "loss") == Approx(0.123));
    CHECK(metric(*r, "lr") == Approx(4.9e-05));
}

TEST_CASE("a tqdm bar without description, in seconds per step, or at its start", "[progress]") {
    auto trainer = progress::read_text_line(
        " 10%|\xe2\x96\x88         | 50/500 [01:02:03<1:00:00,  2.50s/it]");
    REQUIRE(trainer);
    CHECK(trainer->label.empty());
    CHECK(!trainer->epoch);
    CHECK(*trainer->elapsed_s == 3723);
    CHECK(*trainer->steps_per_sec == Approx(0.4));
    auto start = progress::read_text_line("  0%|          | 0/500 [00:00<?, ?it/s]");
    REQUIRE(start);
    CHECK(*start->done == 0);
    CHECK(!start->remaining_s);
    CHECK(!start->steps_per_sec);
}

TEST_CASE("a Lightning bar counts its epoch from zero and prints no total", "[progress]") {
    auto r = progress::read_text_line(
        "Epoch 0:  45%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88     | 90/200 "
        "[00:05<00:06, 17.30it/s, v_num=0, train_loss=0.123]");
    REQUIRE(r);
    CHECK(*r->epoch == 0);
    CHECK(r->epoch_from_zero);
    CHECK(!r->epochs);
    CHECK(metric(*r, "train_loss") == Approx(0.123));
}

TEST_CASE("an outer tqdm bar over the epochs counts epochs", "[progress]") {
    auto r = progress::read_text_line(
        "Epoch:  33%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88   | 1/3 "
        "[00:10<00:20, 10.00s/it]");
    REQUIRE(r);
    CHECK(r->counts_epochs);
    CHECK(*r->total == 3);
}

TEST_CASE("Keras lines read their epoch marker, steps, ETA and metrics", "[progress]") {
    auto marker = progress::read_text_line("Epoch 2/5");
    REQUIRE(marker);
    CHECK(marker->format == TextFormat::KerasEpoch);
    CHECK(*marker->epoch == 2);
    auto step = progress::read_text_line(
        " 50/469 [==>...........................] - ETA: 12s - loss: 0.4321 - accuracy: 0.8765");
    REQUIRE(step);
    CHECK(step->format == TextFormat::Keras);
    CHECK(*step->done == 50);
    CHECK(*step->total == 469);
    CHECK(*step->remaining_s == 12);
    CHECK(metric(*step, "accuracy") == Approx(0.8765));
    auto closing = progress::read_text_line(
        "469/469 [==============================] - 5s 10ms/step - loss: 0.3012 - accuracy: "
        "0.9101 - val_loss: 0.2500");
    REQUIRE(closing);
    CHECK(*closing->elapsed_s == 5);
    CHECK(metric(*closing, "val_loss") == Approx(0.25));
    auto keras3 = progress::read_text_line(
        "469/469 \xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81 5s 10ms/step - accuracy: "
        "0.8765 - loss: 0.4321");
    REQUIRE(keras3);
    CHECK(*keras3->elapsed_s == 5);
    auto verbose2 = progress::read_text_line("469/469 - 5s - loss: 0.3012 - 5s/epoch - 10ms/step");
    REQUIRE(verbose2);
    CHECK(metric(*verbose2, "loss") == Approx(0.3012));
}

TEST_CASE("the Trainer's log dicts read as metrics and a fractional epoch", "[progress]") {
    auto r = progress::read_text_line(
        "{'loss': 0.6931, 'grad_norm': 1.2, 'learning_rate': 4.9e-05, 'epoch': 0.5}");
    REQUIRE(r);
    CHECK(r->format == TextFormat::TrainerLog);
    CHECK(*r->fraction_epochs == 0.5);
    CHECK(metric(*r, "learning_rate") == Approx(4.9e-05));
    CHECK(!r->run_end);
    auto end = progress::read_text_line(
        "{'train_runtime': 70.1, 'train_samples_per_second': 85.6, 'train_steps_per_second': "
        "10.7, 'train_loss': 0.45, 'epoch': 3.0}");
    REQUIRE(end);
    CHECK(end->run_end);
    CHECK(metric(*end, "train_loss") == Approx(0.45));
    CHECK(!progress::read_text_line("{'loss': 0.6931}"));  // no epoch: not the Trainer's
    CHECK(!progress::read_text_line("{'loss': 0.5, 'epoch': -1}"));
}

TEST_CASE("plain lines read their counters and metrics", "[progress]") {
    struct Case {
        const char* line;
        long long done;
        long long total;
        bool epochs;
    };
    for (const Case& c :
         {Case{"step 100/500 loss 0.0291", 100, 500, false},
          Case{"Epoch [2/10] Step [30/100] loss: 0.31", 30, 100, false},
          Case{"epoch 2/10", 2, 10, true}, Case{"epoch 2 of 10, loss=0.4", 2, 10, true},
          Case{"iter 300/1000 lr=0.1", 300, 1000, false},
          Case{"[300/1000] loss: 0.5", 300, 1000, false}}) {
        INFO(c.line);
        auto r = progress::read_text_line(c.line);
        REQUIRE(r);
        CHECK(r->format == TextFormat::Plain);
        CHECK(*r->done == c.done);
        CHECK(*r->total == c.total);
        CHECK(r->counts_epochs == c.epochs);
    }
    auto named = progress::read_text_line("step 100/500 loss 0.0291");
    CHECK(metric(*named, "loss") == Approx(0.0291));
    auto both = progress::read_text_line("Epoch [2/10] Step [30/100] loss: 0.31 acc=91%");
    CHECK(*both->epoch == 2);
    CHECK(metric(*both, "loss") == Approx(0.31));
    CHECK(metric(*both, "acc") == Approx(91));
}

TEST_CASE("lines that only look like progress are not read as any", "[progress]") {
    for (const char* line :
         {"loaded 3/4 shards", "2026/12/06 10:00:01 starting", "GET /v1/models HTTP 200/404",
          "reading data/1/3/part-0001.csv", "using 1/3 of the data", "step 3/2 makes no sense",
          "epoch 2/0", "{'loss': 'high'}", "100%", "50%|", "ratio 1/3", "3/4 shards loaded",
          "[2026/12/06]", "step 1.5/3", "batch 10/20/30"}) {
        INFO(line);
        CHECK(!progress::read_text_line(line));
    }
}

TEST_CASE("a line past the scanned length, or of any bytes, is read as none", "[progress]") {
    std::string huge(progress::k_max_text_line + 1, 'x');
    huge.replace(0, 10, "step 1/10 ");
    CHECK(!progress::read_text_line(huge));
    std::string binary;
    for (int i = 0; i < 4000; ++i) {
        binary += static_cast<char>((i * 37) % 256);
    }
    (void)progress::read_text_line(binary);  // must not crash or hang
}
