import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

/**
 * Plain JavaScript of a TypeScript file under bench/, for processes that must run without a
 * loader (tsx adds its own CPU and memory to the process measured). Written to bench/.build/
 * (git-ignored) so that its imports resolve from the project's node_modules; returns its file URL.
 */
export function compileForNode(relativeToBench: string): string {
  const source = fileURLToPath(new URL(relativeToBench, import.meta.url));
  const outDir = fileURLToPath(new URL("./.build/", import.meta.url));
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, `${basename(source, ".ts")}.mjs`);
  const { outputText } = ts.transpileModule(readFileSync(source, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: source,
  });
  writeFileSync(out, outputText);
  return pathToFileURL(out).href;
}
