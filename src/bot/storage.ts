import type { StorageAdapter } from "grammy";

/**
 * Sessions (with the product flow in progress) are read at the start of every update and written back at its
 * end, changed or not (grammY writes whatever was read). This wrapper around a storage adapter
 * (@grammyjs/storage-redis here) skips the write when the value is the one read in the same
 * update, so an update that changes nothing costs one Redis read instead of a read and a write.
 * A skipped write does not refresh the key's TTL: it runs from the last change. An empty value
 * (`{}`, the initial session) where nothing was stored is not written either.
 */
const EMPTY = "{}";

export class WriteWhenChanged<T> implements StorageAdapter<T> {
  /** The JSON of the value last read or written per key; dropped once written. */
  private readonly lastRead = new Map<string, string>();

  constructor(
    private readonly inner: StorageAdapter<T>,
    private readonly maxRemembered = 10_000,
  ) {}

  async read(key: string): Promise<T | undefined> {
    const value = await this.inner.read(key);
    this.lastRead.delete(key);
    // No value reads back as an empty one: a fresh chat's `{}` is not written until it holds something.
    this.lastRead.set(key, value === undefined ? EMPTY : JSON.stringify(value));
    if (this.lastRead.size > this.maxRemembered) {
      const oldest = this.lastRead.keys().next().value;
      if (oldest !== undefined) this.lastRead.delete(oldest);
    }
    return value;
  }

  async write(key: string, value: T): Promise<void> {
    const json = JSON.stringify(value);
    const unchanged = this.lastRead.get(key) === json;
    this.lastRead.delete(key);
    if (unchanged) return;
    await this.inner.write(key, value);
  }

  async delete(key: string): Promise<void> {
    this.lastRead.delete(key);
    await this.inner.delete(key);
  }
}
