// Copies the files `tsc` does not emit (Redis Lua scripts) from src/ into dist/, same paths.
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";

for (const entry of readdirSync("src", { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".lua")) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  cpSync(from, join("dist", from.slice("src/".length)));
}
