// A least-recently-used map of encoded answers bounded by their total size, for answers that never change once made
// (the detail of a completed investigation): a hit skips the read, the decode and the serialisation, and the bytes
// go to the socket as they are (a string would be measured and encoded to UTF-8 again on every send).
import { Lru } from "./lru.js";

export class ByteLru extends Lru<string, Buffer> {
  constructor(maxBytes: number) {
    super(maxBytes, (value) => value.byteLength);
  }

  /**
   * `text` as UTF-8 bytes of their own: a small Buffer.from() is a slice of a shared 8 KiB slab, which a kept entry
   * would hold whole, unseen by the bound.
   */
  static encode(text: string): Buffer {
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, "utf8"));
    bytes.write(text, "utf8");
    return bytes;
  }

  get totalBytes(): number {
    return this.weight;
  }
}
