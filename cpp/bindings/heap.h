// How much of the WASM memory is in use and how much a call may still take.
// The module grows its memory on demand up to a hard limit (-sMAXIMUM_MEMORY=2GB). Running out inside
// the core would abort the module for good (operator new cannot throw without exception support), so
// every call is checked against what is left before anything large is allocated: by the binding's checked
// entry, or by the JS API (bytesAvailable) for a call it runs through the unchecked one.
#pragma once

#include <cstddef>

namespace ap::bindings {

// The limit every call is checked against: the hard limit of the WASM memory (2 GiB), or a lower one
// set through set_memory_limit (loadAttention's memoryLimit option).
std::size_t heap_limit_bytes();

// Lowers (or restores) the limit; `bytes` above the hard limit, or 0, means the hard limit.
void set_memory_limit(std::size_t bytes);

// The current size of the WASM memory (it only grows).
std::size_t heap_bytes();

// Bytes handed out by malloc and not yet freed (dlmalloc's mallinfo().uordblks).
std::size_t bytes_in_use();

// Bytes a call may still allocate: the limit, minus static data, the stack and live allocations,
// minus a safety margin for allocator overhead and the small temporaries of the binding itself.
std::size_t bytes_available();

}  // namespace ap::bindings
