#include "heap.h"

#include <emscripten/heap.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>

namespace ap::bindings {

namespace {
// dlmalloc rounds every chunk up and adds a header; Eigen and the core make many mid-sized vectors.
// 1/32 of the request plus 4 MiB covers that with room to spare.
constexpr std::size_t kFixedMargin = std::size_t{4} << 20;
std::size_t memory_limit = 0;  // 0: the hard limit
}  // namespace

std::size_t heap_limit_bytes() {
  const std::size_t hard = emscripten_get_heap_max();
  return memory_limit == 0 || memory_limit > hard ? hard : memory_limit;
}

void set_memory_limit(std::size_t bytes) { memory_limit = bytes; }

std::size_t heap_bytes() { return emscripten_get_heap_size(); }

std::size_t bytes_in_use() { return static_cast<std::size_t>(mallinfo().uordblks); }

std::size_t bytes_available() {
  // sbrk(0) is the top of everything the program has claimed: static data, the stack and malloc's
  // arena. Free chunks inside the arena (fordblks) can be reused, so they count as available.
  const struct mallinfo info = mallinfo();
  const std::size_t claimed = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const std::size_t reusable = static_cast<std::size_t>(info.fordblks);
  const std::size_t in_use = claimed > reusable ? claimed - reusable : claimed;
  const std::size_t limit = heap_limit_bytes();
  if (in_use + kFixedMargin >= limit) return 0;
  const std::size_t left = limit - in_use - kFixedMargin;
  return left - left / 32;
}

}  // namespace ap::bindings
