#pragma once
// A memo of bounded size, for figures a planner search prices many times over. When the current
// generation fills it becomes the previous one and the older one is dropped; a key found in the
// previous generation moves back into the current. What a search keeps using survives a turnover (a
// plain clear() priced every shape in use again after each one: DeepSeek-V3's search re-priced its
// stages 300,000 times), and memory stays within two generations.

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace shardscope {

// FNV-1a over the bits of an array of numbers, a word at a time, in four interleaved lanes: one lane's
// multiply waits on the one before it, so four chains keep the multiplier busy (the planner hashes
// keys of 47 numbers hundreds of thousands of times a search). Not noexcept on purpose: libstdc++
// then keeps each node's hash beside it, where otherwise it hashes every node a lookup walks past
// again to find where its bucket ends.
struct NumberArrayHash {
    template <typename T, std::size_t N>
    std::size_t operator()(const std::array<T, N>& key) const {
        static_assert(std::is_arithmetic_v<T> && sizeof(T) == sizeof(std::uint64_t));
        constexpr std::uint64_t kPrime = 1099511628211ull;
        std::array<std::uint64_t, 4> lane = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull,
                                             0x94d049bb133111ebull};
        for (std::size_t i = 0; i < N; ++i) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, &key[i], sizeof bits);
            lane[i % 4] = (lane[i % 4] ^ bits) * kPrime;
        }
        std::uint64_t h = lane[0];
        for (std::size_t l = 1; l < 4; ++l) h = (h ^ (lane[l] >> 7) ^ lane[l]) * kPrime;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

template <typename Key, typename Value, typename Hash = NumberArrayHash>
class BoundedCache {
public:
    explicit BoundedCache(std::size_t generation) : generation_(generation) {}

    // The value for `key`, made by make() on a miss. The reference holds until the second turnover
    // after it: use it before asking for another key.
    template <typename Make>
    const Value& get(const Key& key, Make&& make) {
        if (const auto it = current_.find(key); it != current_.end()) return it->second;
        if (const auto it = previous_.find(key); it != previous_.end()) {
            Value kept = std::move(it->second);
            previous_.erase(it);
            return insert(key, std::move(kept));
        }
        return insert(key, make());
    }

private:
    const Value& insert(const Key& key, Value value) {
        if (current_.size() >= generation_) {
            previous_ = std::move(current_);
            current_.clear();
        }
        return current_.emplace(key, std::move(value)).first->second;
    }

    std::size_t generation_;
    std::unordered_map<Key, Value, Hash> current_, previous_;
};

}  // namespace shardscope
