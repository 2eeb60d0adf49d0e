#include "support/json_items.h"

#include <catch2/catch.hpp>

namespace kftrain::test {

nlohmann::json item_named(const nlohmann::json& items, const std::string& name) {
    if (items.is_array()) {
        for (const auto& item : items) {
            if (item.is_object() && item.value("name", "") == name) {
                return item;
            }
        }
    }
    FAIL("no item named " << name << " in " << items.dump(2));
    return nlohmann::json();
}

}  // namespace kftrain::test
