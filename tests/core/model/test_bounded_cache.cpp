#include "core/model/bounded_cache.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>

using namespace shardscope;

TEST_CASE("NumberArrayHash: equal keys hash alike; a change in any one word, or two words swapped, moves it") {
    const NumberArrayHash hash;
    std::array<double, 47> key{};
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = 1.0 + static_cast<double>(i);
    const std::size_t base = hash(key);
    CHECK(hash(std::array<double, 47>(key)) == base);
    for (std::size_t i = 0; i < key.size(); ++i) {
        CAPTURE(i);
        std::array<double, 47> changed = key;
        changed[i] += 0.5;
        CHECK(hash(changed) != base);
    }
    // Words four apart share a lane: swapping them must still move the hash (FNV is order-dependent).
    std::array<double, 47> swapped = key;
    std::swap(swapped[0], swapped[4]);
    CHECK(hash(swapped) != base);
    std::array<int64_t, 12> ints{};
    ints[11] = 1;
    CHECK(hash(ints) != hash(std::array<int64_t, 12>{}));
}

TEST_CASE("BoundedCache: makes a value once, keeps what is in use across a turnover, drops the rest") {
    BoundedCache<std::array<int64_t, 1>, std::string> cache(2);  // two keys a generation
    int made = 0;
    const auto get = [&](int64_t k) {
        return cache.get({k}, [&] {
            ++made;
            return std::to_string(k);
        });
    };
    CHECK(get(1) == "1");
    CHECK(get(2) == "2");
    CHECK(made == 2);
    CHECK(get(1) == "1");  // found in the current generation
    CHECK(made == 2);
    CHECK(get(3) == "3");  // the generation was full: {1, 2} become the previous one
    CHECK(made == 3);
    CHECK(get(1) == "1");  // back from the previous generation, not made again
    CHECK(made == 3);
    CHECK(get(4) == "4");  // full again ({3, 1}): the previous {2} is dropped
    CHECK(made == 4);
    CHECK(get(2) == "2");  // made again
    CHECK(made == 5);
    CHECK(get(3) == "3");  // still in the previous generation
    CHECK(made == 5);
}
