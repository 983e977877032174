// localStorage for the tests: a Map behind the KeyValue interface that storage.ts takes.
import type { KeyValue } from "../src/storage";

export class MemoryStorage implements KeyValue {
  readonly data = new Map<string, string>();
  getItem(key: string): string | null {
    return this.data.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.data.set(key, value);
  }
  removeItem(key: string): void {
    this.data.delete(key);
  }
}
