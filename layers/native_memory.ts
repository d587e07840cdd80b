/**
 * Giving freed native memory back to the OS. glibc's allocator keeps what is freed inside its arenas (request
 * and response buffers, V8's compiler zones, the messages to the PGlite workers), so RSS stays at the busiest
 * moment's level long after; `malloc_trim(0)` returns every free page. It runs every few seconds on a thread
 * of its own (a non-blocking FFI call), 2-5 ms each on a busy service. Embedded soak, 60 s at 70 req/s, with
 * `MALLOC_ARENA_MAX=2`: RSS 541 → 492 MB. Where the C library has no `malloc_trim` (musl, macOS) or FFI is not
 * allowed, nothing is done.
 */

/** How often freed native memory is returned. */
const trimEveryMs = 5_000;

/**
 * Starts trimming for the life of the process (an unref'd timer: it never keeps the process up). A no-op where
 * glibc's `malloc_trim` is not available.
 */
export const startNativeMemoryTrim = (): void => {
  let lib: Deno.DynamicLibrary<{ malloc_trim: { parameters: ["usize"]; result: "i32"; nonblocking: true } }>;
  try {
    lib = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32", nonblocking: true },
    });
  } catch {
    return;
  }
  let running = false;
  Deno.unrefTimer(setInterval(() => {
    if (running) return;
    running = true;
    lib.symbols.malloc_trim(0n).finally(() => running = false);
  }, trimEveryMs));
};
