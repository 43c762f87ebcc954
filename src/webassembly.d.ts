/**
 * The part of WebAssembly's JavaScript API this package uses (the dense kernels of the LSA fit). Node has all of it;
 * TypeScript declares it only in its DOM and web-worker libraries, which a Node program does not load.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    /** Grows by `pages` of 64 KiB and returns the previous size in pages; views on the old buffer are detached. */
    grow(pages: number): number;
  }
}
