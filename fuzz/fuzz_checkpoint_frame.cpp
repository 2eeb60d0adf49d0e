// Fuzz the checkpoint frame reader: the input is a checkpoint file's bytes.
// Properties: read_frame never crashes or reads out of bounds; a payload it accepts is the
// one encode_frame wraps back into exactly these bytes; and any input framed by encode_frame
// reads back as itself.

#include <string>
#include <string_view>

#include "fuzz_input.h"
#include "trainer/checkpoint/frame.h"

using namespace kftrain::trainer::checkpoint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto payload = read_frame(bytes);
    if (payload.ok()) {
        if (encode_frame(*payload) != bytes) {
            kftrain::fuzz::fail("an accepted frame does not encode back to the same bytes");
        }
    } else if (payload.error().empty()) {
        kftrain::fuzz::fail("read_frame failed with an empty message");
    }
    (void)is_legacy_checkpoint(bytes);
    const std::string framed = encode_frame(bytes);
    auto again = read_frame(framed);
    if (!again.ok() || *again != bytes) {
        kftrain::fuzz::fail("a framed payload does not read back as itself");
    }
    return 0;
}
